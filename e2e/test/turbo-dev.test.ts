import { execFile } from "node:child_process";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "@toolmesh/test-support";

// `turbo dev`, `pnpm dev` and `npm run dev` must be one thing: scripts/dev.sh, which runs every service once
// (with the seed, the broker and restarts on rebuild). A package with a `dev` task of its own would also
// start under `turbo dev`, a second copy of a service on the same port. turbo's dry run lists the tasks.
const run = promisify(execFile);

describe("turbo dev", () => {
  it("runs scripts/dev.sh as its only task", async () => {
    const { stdout } = await run("bash", [resolve(REPO_ROOT, "scripts/pnpm.sh"), "exec", "turbo", "run", "dev", "--dry=json"], {
      cwd: REPO_ROOT,
    });
    const plan = JSON.parse(stdout) as { tasks: Array<{ taskId: string; command: string }> };
    expect(plan.tasks.map(({ taskId, command }) => ({ taskId, command }))).toEqual([{ taskId: "//#dev", command: "bash scripts/dev.sh" }]);
  });
});
