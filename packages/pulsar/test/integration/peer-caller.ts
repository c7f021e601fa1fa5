import { fileURLToPath } from "node:url";
import { z } from "zod";
import {
  brokerEnv,
  clientOptions,
  PeerProcess,
  topicClients,
  type TransportKind,
  uniqueTopic,
  useBroker,
  waitFor,
} from "@toolmesh/test-support";
import { PulsarClient, REPLY_SESSIONS, RequestClient } from "../../src/index.js";

const PeerReply = z.object({ error: z.unknown(), text: z.string(), end_of_stream: z.boolean().optional() });

/** A request server in its own process (a script in peers/) and one RequestClient in this one calling it. */
export interface PeerAndCaller {
  server: PeerProcess;
  caller: RequestClient<typeof PeerReply>;
  responseTopic: string;
  /** Sessions the broker counts on the response topic: the caller's, nobody else reads it. */
  replySessions(): Promise<number>;
  close(): Promise<void>;
}

/**
 * Starts `peers/<script>` serving `requestTopic` (replies on the matching response topic) over `kind`,
 * waits for its `<label> ready` line, then makes the caller. `env` goes to the server. close() resumes
 * the server if it was stopped and ends all three.
 */
export async function startPeerAndCaller(
  script: string,
  label: string,
  {
    requestTopic,
    kind,
    timeoutMs,
    env = {},
  }: { requestTopic: string; kind: TransportKind; timeoutMs: number; env?: Record<string, string> },
): Promise<PeerAndCaller> {
  const broker = await useBroker();
  const responseTopic = requestTopic.replace("/request/", "/response/");
  const server = PeerProcess.start(label, process.execPath, [fileURLToPath(new URL(`peers/${script}`, import.meta.url))], {
    ...brokerEnv(broker, kind),
    REQUEST_TOPIC: requestTopic,
    RESPONSE_TOPIC: responseTopic,
    ...env,
  });
  await server.waitForLog(new RegExp(`${label} ready`));
  const callerClient = new PulsarClient(clientOptions(broker, kind));
  const caller = await RequestClient.create(callerClient, { requestTopic, responseTopic, responseSchema: PeerReply, timeoutMs });
  return {
    server,
    caller,
    responseTopic,
    replySessions: async () => (await topicClients(broker.webServiceUrl, responseTopic)).consumers,
    close: async () => {
      server.signal("SIGCONT");
      await caller.close();
      await callerClient.close();
      await server.stop();
    },
  };
}

/**
 * One small call through peers/gated-reply-server.mjs (let through at once), then waits until the broker
 * counts the sessions the caller should have after it: REPLY_SESSIONS for a server that numbers its
 * replies (the caller opens the others on its first numbered reply, see REPLY_SESSIONS), 1 for one that
 * does not.
 */
export async function warmUp(peer: PeerAndCaller, sessions: number): Promise<void> {
  const from = peer.server.logs.length;
  const reply = peer.caller.request({ text: "warm-up" });
  await peer.server.waitForLog(/1 requests in hand/, { from });
  peer.server.signal("SIGUSR2");
  await reply;
  await waitFor(async () => (await peer.replySessions()) === sessions, { description: `${sessions} reply sessions on the broker` });
}

/**
 * peers/gated-reply-server.mjs on a fresh `<name>-<kind>` request topic, and a caller already warmed up
 * to REPLY_SESSIONS sessions (the server numbers its replies).
 */
export async function startWarmGatedPeer(name: string, kind: TransportKind, timeoutMs: number): Promise<PeerAndCaller> {
  const peer = await startPeerAndCaller("gated-reply-server.mjs", "gated reply server", {
    requestTopic: uniqueTopic(`${name}-${kind}`, { namespace: "request" }),
    kind,
    timeoutMs,
  });
  await warmUp(peer, REPLY_SESSIONS);
  return peer;
}
