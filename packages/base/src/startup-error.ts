/**
 * A setting that turned out wrong only once the service tried to use it while starting (a database that
 * cannot be reached or refuses the credentials): startService prints the message as one line naming the
 * variable, stops what had started, and exits 1, as for a bad environment. Not for bugs: those keep their
 * stack trace.
 */
export class StartupError extends Error {
  override name = "StartupError";
}
