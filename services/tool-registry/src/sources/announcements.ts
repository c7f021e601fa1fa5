import type { Logger } from "pino";
import { type PulsarClient, type Subscription, decodeJson } from "@toolmesh/pulsar";
import { ToolAnnouncement } from "@toolmesh/schema";
import { z } from "zod";
import { validateManifest } from "../catalog/validate.js";
import type { RegistryStore } from "../store/index.js";

/** An announcement with its entries left unchecked: validateManifest checks them one by one. */
const IncomingAnnouncement = ToolAnnouncement.extend({ manifest: z.array(z.unknown()) });

/**
 * Reads tool services' self-announcements from the persistent announcement topic, from the start of the
 * topic on first run (a durable subscription remembers the position across restarts), keeps the latest
 * per service, and asks for a refresh when a service's tools changed (a heartbeat only refreshes the
 * time). A bad announcement is logged and skipped; a bad entry in a good one is logged and left out.
 */
export function consumeAnnouncements(
  pulsar: PulsarClient,
  topic: string,
  store: RegistryStore,
  logger: Logger,
  onAnnouncement: (serviceId: string) => void,
): Promise<Subscription> {
  return pulsar.subscribe(
    { topic, subscription: "tool-registry-announcements", type: "Failover", initialPosition: "Earliest", concurrency: 1 },
    async (message) => {
      const decoded = decodeJson(IncomingAnnouncement, message.payload);
      if (!decoded.ok) {
        logger.warn({ reason: decoded.reason }, "ignored malformed tool announcement");
        return;
      }
      const { service_id, manifest } = decoded.value;
      const { entries, problems } = validateManifest(manifest);
      if (problems.length > 0) logger.warn({ service_id, problems }, "announcement has invalid tools; they are left out");
      if (await store.saveAnnouncement(service_id, entries)) {
        logger.info({ service_id, tools: entries.length }, "tool service announced itself");
        onAnnouncement(service_id);
      }
    },
  );
}
