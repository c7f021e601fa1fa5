/**
 * A failure the user can act on. The message is printed as the single line `tg: <message>`, so it must
 * say what went wrong without a stack trace.
 */
export class CliError extends Error {
  override name = "CliError";
}
