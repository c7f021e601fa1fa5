/**
 * `tg config list | head -1`: once the reader has closed the pipe, the next write fails with EPIPE, which
 * Node raises as an unhandled 'error' event (a stack trace on stderr). A command whose reader has left
 * simply stops, as Unix tools do. Any other write error still surfaces.
 */
export function exitQuietlyWhenReaderLeaves(stream: NodeJS.WritableStream): void {
  stream.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code !== "EPIPE") throw err;
    process.exit(process.exitCode ?? 0);
  });
}
