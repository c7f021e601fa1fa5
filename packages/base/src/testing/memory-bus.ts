import pino from "pino";
import type { z } from "zod";
import { MemoryBroker, MemoryTransport, PulsarClient, RequestClient, decodeJson } from "@toolmesh/pulsar";
import { TopicLayout } from "@toolmesh/schema";
import type { BaseEnv } from "../env.js";
import { type RuntimeOptions, ServiceRuntime } from "../runtime.js";

/**
 * One in-memory bus for the unit tier: service runtimes (as main.ts makes them, on a MemoryTransport instead
 * of the broker) and the test's own callers share one MemoryBroker, so a service runs end to end — its
 * handlers, its config view, its pushes — with no broker and no process. close() stops everything it made.
 */
export class MemoryBus {
  readonly broker = new MemoryBroker();
  /** The bus's topics: the default layout (tenant `tg`), as every runtime made with BaseEnv's defaults has. */
  readonly topics = new TopicLayout();
  /** Messages record() saw that did not parse (a test may assert there are none). */
  readonly unparsed: Array<{ topic: string; reason: string }> = [];
  private readonly closers: Array<() => Promise<void>> = [];
  private caller: PulsarClient | undefined;

  /** A ServiceRuntime on this bus (silent logger unless `options` gives one); stopped by close(). */
  runtime(name: string, env: BaseEnv, options: Partial<Omit<RuntimeOptions, "name" | "env" | "transport">> = {}): ServiceRuntime {
    const runtime = new ServiceRuntime({ name, env, logger: pino({ level: "silent" }), ...options, transport: this.transport() });
    this.closers.push(() => runtime.stop());
    return runtime;
  }

  /** A bare Pulsar client on this bus (closed by close()). */
  client(): PulsarClient {
    const client = new PulsarClient({ webServiceUrl: "memory://", transport: this.transport() });
    this.closers.push(() => client.close());
    return client;
  }

  /** A request client of the queues `request:tg:<queue>` / `response:tg:<queue>`, replies parsed with `schema`. */
  async requester<S extends z.ZodType>(queue: string, schema: S, timeoutMs = 2_000): Promise<RequestClient<S>> {
    const client = await RequestClient.create(this.defaultCaller(), { ...this.topics.pair(queue), responseSchema: schema, timeoutMs });
    this.closers.push(() => client.close());
    return client;
  }

  /** Every message published on `topic` from now on, parsed with `schema` (one that fails goes to `unparsed`). */
  async record<S extends z.ZodType>(topic: string, schema: S): Promise<Array<z.output<S>>> {
    const seen: Array<z.output<S>> = [];
    await this.defaultCaller().subscribe({ topic, subscription: `recorder-${this.closers.length}`, type: "Exclusive" }, async (message) => {
      const decoded = decodeJson(schema, message.payload);
      if (decoded.ok) seen.push(decoded.value);
      else this.unparsed.push({ topic, reason: decoded.reason });
    });
    return seen;
  }

  /** Stops every runtime and closes every client made here, newest first. */
  async close(): Promise<void> {
    for (const close of this.closers.splice(0).reverse()) await close();
  }

  private transport(): MemoryTransport {
    return new MemoryTransport({ broker: this.broker });
  }

  private defaultCaller(): PulsarClient {
    this.caller ??= this.client();
    return this.caller;
  }
}
