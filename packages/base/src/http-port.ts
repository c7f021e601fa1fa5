import { createServer } from "node:net";

const REASONS: Record<string, string> = {
  EADDRINUSE: "another process is listening there; set HTTP_PORT to a free port",
  EACCES: "this user may not listen there; use a port above 1023",
  EADDRNOTAVAIL: "HTTP_HOST is not an address of this machine",
};

/**
 * Why HTTP_PORT cannot be had on HTTP_HOST, or undefined when it can. startService asks before the
 * service subscribes or announces anything: a process that found its port taken only at listen() had
 * already taken requests off its topic and announced its tools, then exited, leaving the registry a
 * tool that nobody serves until the announcement expired. Port 0 (the OS picks) is always free.
 */
export function httpPortProblem(host: string, port: number): Promise<string | undefined> {
  if (port === 0) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", (err: NodeJS.ErrnoException) => {
      const reason = (err.code && REASONS[err.code]) ?? err.message;
      resolve(`HTTP_PORT ${port} on HTTP_HOST ${host} cannot be used (${err.code ?? "error"}): ${reason}`);
    });
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(undefined)));
  });
}
