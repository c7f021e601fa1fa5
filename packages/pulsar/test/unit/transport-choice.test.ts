import pino from "pino";
import { describe, expect, it } from "vitest";
import { BinaryTransport, createTransport, transportKind, WebSocketTransport } from "../../src/index.js";

const logger = pino({ level: "silent" });

describe("choosing a transport", () => {
  it("takes the binary protocol when a service URL is given, unless WebSocket is asked for", async () => {
    expect(transportKind({ serviceUrl: "pulsar://h:6650" })).toBe("binary");
    expect(transportKind({})).toBe("websocket");
    expect(transportKind({ serviceUrl: "pulsar://h:6650", kind: "websocket" })).toBe("websocket");
    const binary = createTransport({ serviceUrl: "pulsar://127.0.0.1:1", webServiceUrl: "http://127.0.0.1:1" }, logger);
    expect(binary).toBeInstanceOf(BinaryTransport);
    expect(binary.maxMessageSize).toBe(5 * 1024 * 1024); // until a broker says otherwise
    const ws = createTransport({ serviceUrl: "pulsar://127.0.0.1:1", webServiceUrl: "http://127.0.0.1:1", kind: "websocket" }, logger);
    expect(ws).toBeInstanceOf(WebSocketTransport);
    await Promise.all([binary.close(), ws.close()]);
  });

  it("says what is missing or malformed", () => {
    expect(() => createTransport({ kind: "binary" }, logger)).toThrow(/needs a service URL \(pulsar:\/\/host:6650\)/);
    expect(() => createTransport({ kind: "websocket" }, logger)).toThrow(/needs the broker's web service URL/);
    expect(() => createTransport({ serviceUrl: "http://h:6650" }, logger)).toThrow(/scheme must be pulsar:\/\/ or pulsar\+ssl:\/\//);
  });
});
