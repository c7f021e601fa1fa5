import pino, { type Logger } from "pino";

/**
 * The one logger factory: JSON lines (pino) for machines, pretty-printed when stdout is a terminal —
 * decided by the terminal, not by NODE_ENV.
 */
export function createLogger(service: string, level: string = process.env.LOG_LEVEL ?? "info"): Logger {
  const pretty = process.stdout.isTTY && process.env.LOG_FORMAT !== "json";
  return pino({
    name: service,
    level,
    base: { service },
    ...(pretty
      ? { transport: { target: "pino-pretty", options: { colorize: true, translateTime: "HH:MM:ss.l", ignore: "pid,hostname,service" } } }
      : {}),
  });
}

export type { Logger };
