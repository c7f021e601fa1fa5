#!/usr/bin/env node
import { run } from "./cli.js";
import { exitQuietlyWhenReaderLeaves } from "./closed-pipe.js";

exitQuietlyWhenReaderLeaves(process.stdout);
process.exitCode = await run(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
});
