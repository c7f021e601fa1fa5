import type { Command } from "commander";
import { ConfigClient } from "./config-client.js";
import { parseCliEnv } from "./env.js";
import { CliError } from "./errors.js";
import { GatewayClient } from "./gateway.js";

/** Where a run reads its environment and writes its output; the real process's in main.ts, captured in tests. */
export interface Io {
  stdout(text: string): void;
  stderr(text: string): void;
  env: Record<string, string | undefined>;
}

/** What every command needs: output, and clients for the gateway chosen by the environment and `--flow`. */
export interface CliContext {
  /** Writes one line (or several) to stdout. */
  print(text: string): void;
  gateway(command: Command): GatewayClient;
  config(command: Command): ConfigClient;
  /** A diagnostic line on stderr (for commands whose stdout carries a protocol). */
  warn(text: string): void;
  /** The MCP endpoint (`override`, else TG_MCP_URL) and the bearer token (TG_TOKEN). */
  mcpEndpoint(override?: string): { url: URL; token: string | undefined };
}

export function createContext(io: Io): CliContext {
  const gateway = (command: Command) => {
    const env = parseCliEnv(io.env);
    const { flow } = command.optsWithGlobals<{ flow: string }>();
    return new GatewayClient({ url: env.TG_URL, token: env.TG_TOKEN, flow, timeoutMs: env.TG_TIMEOUT_MS });
  };
  return {
    print: (text) => io.stdout(`${text}\n`),
    gateway,
    config: (command) => new ConfigClient(gateway(command)),
    warn: (text) => io.stderr(`tg: ${text}\n`),
    mcpEndpoint: (override) => {
      const env = parseCliEnv(io.env);
      const text = override ?? env.TG_MCP_URL;
      if (!URL.canParse(text) || !/^https?:$/.test(new URL(text).protocol)) throw new CliError(`--url '${text}' is not an http(s) URL`);
      return { url: new URL(text), token: env.TG_TOKEN };
    },
  };
}
