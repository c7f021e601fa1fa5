import { describe, expect, it } from "vitest";
import { DATABASE_RECONNECT_MAX_S, reconnectDelayS } from "../../src/database.js";

describe("reconnectDelayS (the pool's wait before trying a lost database again)", () => {
  it("starts at tens of milliseconds and doubles", () => {
    for (let i = 0; i < 200; i++) {
      expect(reconnectDelayS(0)).toBeGreaterThanOrEqual(0.025);
      expect(reconnectDelayS(0)).toBeLessThanOrEqual(0.05);
      expect(reconnectDelayS(3)).toBeGreaterThanOrEqual(0.2);
      expect(reconnectDelayS(3)).toBeLessThanOrEqual(0.4);
    }
  });

  it("never waits more than DATABASE_RECONNECT_MAX_S, however many failures came before", () => {
    for (const retries of [6, 7, 10, 50, 1_000]) {
      for (let i = 0; i < 200; i++) {
        const delay = reconnectDelayS(retries);
        expect(delay).toBeLessThanOrEqual(DATABASE_RECONNECT_MAX_S);
        expect(delay).toBeGreaterThanOrEqual(DATABASE_RECONNECT_MAX_S / 2);
      }
    }
  });
});
