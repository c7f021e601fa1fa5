#!/usr/bin/env node
// The `tg` command's entry. A committed file rather than dist/main.js itself: pnpm links a package's bins
// when it installs, before anything is built, and skips (with a warning) a bin whose file is not there yet,
// so on a fresh clone `tg` would be missing from every node_modules/.bin until the next install.
const main = new URL("../dist/main.js", import.meta.url);
try {
  await import(main.href);
} catch (err) {
  if (err?.code !== "ERR_MODULE_NOT_FOUND" || !String(err.message).includes(main.pathname)) throw err;
  process.stderr.write("tg: not built yet (no packages/cli/dist/main.js): run `npm run build` at the repo root first\n");
  process.exitCode = 1;
}
