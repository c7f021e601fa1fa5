import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { join } from "node:path";

/**
 * `--cpu-prof` for a child process: Node 20 refuses that flag in NODE_OPTIONS, but allows
 * `--import=<this file>`. Profiles from start to exit (the service's graceful SIGTERM exit) and writes
 * `<BENCH_PROFILE_NAME>-<pid>.cpuprofile` into BENCH_PROFILE_DIR. The in-process inspector session
 * answers synchronously, so writing from the 'exit' handler works.
 */
const dir = process.env.BENCH_PROFILE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post("Profiler.enable");
  session.post("Profiler.setSamplingInterval", { interval: 1000 });
  session.post("Profiler.start");
  process.on("exit", () => {
    session.post("Profiler.stop", (err, result) => {
      if (!err)
        writeFileSync(join(dir, `${process.env.BENCH_PROFILE_NAME ?? "child"}-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
