import { createServer } from "node:net";

const HINTS: Record<string, string> = {
  EADDRINUSE: "another process is listening there; set HTTP_PORT to a free port",
  EACCES: "this user may not listen there; use a port above 1023",
  EADDRNOTAVAIL: "HTTP_HOST is not an address of this machine",
  ENOTFOUND: "HTTP_HOST does not resolve",
};

/** The one line a service prints when it cannot listen: both settings, the system's error, and a hint. */
export function listenProblem(host: string, port: number, err: unknown): string {
  const error = err as NodeJS.ErrnoException;
  const hint = error?.code ? HINTS[error.code] : undefined;
  const reason = err instanceof Error ? err.message : String(err);
  return `cannot listen on HTTP_HOST=${JSON.stringify(host)} HTTP_PORT=${JSON.stringify(String(port))}: ${reason}${hint ? ` (${hint})` : ""}`;
}

/**
 * Why the service could not listen on HTTP_HOST:HTTP_PORT (listenProblem's line), or undefined when it
 * can. startService asks before the service subscribes or announces anything: a process that found its
 * port taken only at listen() had already taken requests off its topic and announced its tools, then
 * exited, leaving the registry a tool that nobody serves until the announcement expired. Port 0 (the OS
 * picks) is always free.
 */
export function httpPortProblem(host: string, port: number): Promise<string | undefined> {
  if (port === 0) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", (err) => resolve(listenProblem(host, port, err)));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(undefined)));
  });
}
