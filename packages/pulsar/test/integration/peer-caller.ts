import { fileURLToPath } from "node:url";
import { z } from "zod";
import { brokerEnv, clientOptions, PeerProcess, type TransportKind, useBroker } from "@toolmesh/test-support";
import { PulsarClient, RequestClient } from "../../src/index.js";

const PeerReply = z.object({ error: z.unknown(), text: z.string(), end_of_stream: z.boolean().optional() });

/** A request server in its own process (a script in peers/) and one RequestClient in this one calling it. */
export interface PeerAndCaller {
  server: PeerProcess;
  caller: RequestClient<typeof PeerReply>;
  close(): Promise<void>;
}

/**
 * Starts `peers/<script>` serving `requestTopic` (replies on the matching response topic) over `kind`,
 * waits for its `<label> ready` line, then makes the caller. close() resumes the server if it was
 * stopped and ends all three.
 */
export async function startPeerAndCaller(
  script: string,
  label: string,
  { requestTopic, kind, timeoutMs }: { requestTopic: string; kind: TransportKind; timeoutMs: number },
): Promise<PeerAndCaller> {
  const broker = await useBroker();
  const responseTopic = requestTopic.replace("/request/", "/response/");
  const server = PeerProcess.start(label, process.execPath, [fileURLToPath(new URL(`peers/${script}`, import.meta.url))], {
    ...brokerEnv(broker, kind),
    REQUEST_TOPIC: requestTopic,
    RESPONSE_TOPIC: responseTopic,
  });
  await server.waitForLog(new RegExp(`${label} ready`));
  const callerClient = new PulsarClient(clientOptions(broker, kind));
  const caller = await RequestClient.create(callerClient, { requestTopic, responseTopic, responseSchema: PeerReply, timeoutMs });
  return {
    server,
    caller,
    close: async () => {
      server.signal("SIGCONT");
      await caller.close();
      await callerClient.close();
      await server.stop();
    },
  };
}
