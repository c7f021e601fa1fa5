import { ConfigResponse, ConfigValue, ServiceName, type ConfigRequestWire } from "@toolmesh/schema";
import { z } from "zod";
import { CliError } from "./errors.js";
import { type GatewayClient, parseReply } from "./gateway.js";

const WORKSPACE = "default";

// TrustGraph's config answers `get` of a missing key with a null value: absent.
const ConfigReply = ConfigResponse.extend({
  values: z.array(ConfigValue.extend({ value: z.string().nullable() })).default([]),
});
type ConfigReply = z.output<typeof ConfigReply>;

/** The config service's operations, through the gateway's TrustGraph path `POST /api/v1/config`. */
export class ConfigClient {
  constructor(private readonly gateway: GatewayClient) {}

  /** The stored JSON string of `type`/`key`; absent is an error naming both. */
  async get(type: string, key: string): Promise<string> {
    const value = await this.find(type, key);
    if (value === undefined) throw new CliError(`no ${type} '${key}' in config`);
    return value;
  }

  /** The stored JSON string of `type`/`key`, or undefined when config has none. */
  async find(type: string, key: string): Promise<string | undefined> {
    const reply = await this.send({ operation: "get", keys: [{ type, key }] });
    return reply.values.find((v) => v.type === type && v.key === key)?.value ?? undefined;
  }

  /** The keys stored under `type`. */
  async list(type: string): Promise<string[]> {
    return (await this.send({ operation: "list", type })).directory;
  }

  /** Every item stored under `type`, keys sorted. */
  async values(type: string): Promise<{ key: string; value: string }[]> {
    const reply = await this.send({ operation: "getvalues", type });
    return reply.values
      .filter((v): v is ConfigValue => v.value !== null)
      .map(({ key, value }) => ({ key, value }))
      .sort((a, b) => a.key.localeCompare(b.key));
  }

  async put(type: string, key: string, value: string): Promise<void> {
    await this.send({ operation: "put", values: [{ type, key, value }] });
  }

  /**
   * The store (like TrustGraph's) deletes a missing key silently; the CLI looks first, so a typo is
   * reported (`no <type> '<key>' in config`) rather than passing as a success.
   */
  async delete(type: string, key: string): Promise<void> {
    await this.get(type, key);
    await this.send({ operation: "delete", keys: [{ type, key }] });
  }

  private async send(request: Omit<ConfigRequestWire, "workspace">): Promise<ConfigReply> {
    const reply = await this.gateway.global(ServiceName.config, { workspace: WORKSPACE, keys: [], values: [], ...request });
    return parseReply(ConfigReply, reply, ServiceName.config);
  }
}
