import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ManifestEntry } from "@toolmesh/schema";
import { McpSystem, TOKEN } from "../support/system.js";
import { requestTopic, responseTopic, testTopics } from "@toolmesh/test-support";

const system = new McpSystem();
const COUNT = 10_000;

/** 10k small tools, announced by a (pretend) tool service in one manifest. */
function manifest(): ManifestEntry[] {
  const binding = { kind: "tool-service" as const, request_topic: requestTopic("bulk"), response_topic: responseTopic("bulk"), config: {} };
  return Array.from({ length: COUNT }, (_, i) => ({
    tool_id: `bulk.t${i}`,
    name: `bulk-${String(i).padStart(5, "0")}`,
    description: `bulk tool ${i}`,
    parameters_schema: { type: "object", properties: { x: { type: "string" } } },
    binding,
  }));
}

beforeAll(async () => {
  await system.start();
  await system.pulsar.sendJson(testTopics().toolAnnouncements, {
    service_id: "bulk",
    manifest: manifest(),
    announced_at: new Date().toISOString(),
  });
  await system.waitForTools(["bulk-00000", "bulk-09999"]);
}, 180_000);
afterAll(() => system.stop());

describe("a 10k-tool catalog", () => {
  it("pages through tools/list with cursors, every tool once, all from one revision", async () => {
    const client = new Client({ name: "large-catalog", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(system.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }),
    );
    try {
      const names: string[] = [];
      const revisions = new Set<unknown>();
      let cursor: string | undefined;
      let pages = 0;
      const started = performance.now();
      do {
        const page = await client.listTools(cursor === undefined ? undefined : { cursor });
        names.push(...page.tools.map((t) => t.name));
        revisions.add(page._meta?.["io.toolmesh/catalog_revision"]);
        cursor = page.nextCursor;
        pages++;
      } while (cursor);
      console.log(
        `${names.length} tools in ${pages} pages of up to 500 (${Math.round(performance.now() - started)} ms), revisions ${[...revisions].join(",")}`,
      );
      expect(pages).toBe(Math.ceil(names.length / 500));
      expect(new Set(names).size).toBe(names.length);
      expect(names.filter((n) => n.startsWith("bulk-")).length).toBe(COUNT);
      expect(names).toEqual([...names].sort());
      expect(revisions.size).toBe(1);
    } finally {
      await client.close();
    }
  });
});
