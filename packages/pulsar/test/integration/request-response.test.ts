import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ServiceError, ToolServiceRequest, ToolServiceResponse, type ToolServiceResponseWire, type WireError } from "@toolmesh/schema";
import { clientOptions, topicClients, type TransportKind, uniqueTopic, useBroker, waitFor } from "@toolmesh/test-support";
import {
  PulsarClient,
  REPLY_SESSIONS,
  ReplyFormatError,
  RequestClient,
  RequestTimeoutError,
  serve,
  type RequestOutcome,
  type Subscription,
} from "../../src/index.js";

// A tool-service shaped echo server: the wire of design §2, run by the generic server helper.
type Reply = ToolServiceResponseWire;
const errorReply = (error: WireError): Reply => ({ error, response: "", end_of_stream: true });
const wire = (args: object, user = "alice") =>
  ToolServiceRequest.encode({ user, config: { style: "pun" }, arguments: args as Record<string, unknown> });
const TRANSPORTS: TransportKind[] = ["binary", "websocket"];

describe.each(TRANSPORTS)("request/response on the real broker (%s transport)", (kind) => {
  let serverClient: PulsarClient;
  let callerClient: PulsarClient;
  let server: Subscription;
  let caller: RequestClient<typeof ToolServiceResponse>;
  const requestTopic = uniqueTopic("echo", { namespace: "request" });
  const responseTopic = requestTopic.replace("/request/", "/response/");
  const outcomes: RequestOutcome[] = [];

  beforeAll(async () => {
    const broker = await useBroker();
    serverClient = new PulsarClient(clientOptions(broker, kind));
    callerClient = new PulsarClient(clientOptions(broker, kind));
    server = await serve(serverClient, {
      requestTopic,
      responseTopic,
      subscription: "echo-service-request",
      requestSchema: ToolServiceRequest,
      errorReply,
      errorType: "tool-service-error",
      onFinished: (outcome) => outcomes.push(outcome),
      handler: (request) => {
        const args = request.arguments;
        if (args.fail === "reply-error") throw new ServiceError("quota-exceeded", "too many jokes today");
        if (args.fail) throw new Error(`asked to fail: ${String(args.fail)}`);
        if (typeof args.chunks === "number") {
          const count = args.chunks;
          return (async function* () {
            for (let i = 1; i <= count; i++) {
              yield { error: null, response: `chunk ${i}/${count}`, end_of_stream: i === count };
            }
          })();
        }
        if (typeof args.delayMs === "number") {
          return new Promise<Reply>((r) =>
            setTimeout(() => r({ error: null, response: "late", end_of_stream: true }), args.delayMs as number),
          );
        }
        return Promise.resolve({
          error: null,
          response: JSON.stringify({ user: request.user, config: request.config, arguments: args }),
          end_of_stream: true,
        });
      },
    });
    caller = await RequestClient.create(callerClient, { requestTopic, responseTopic, responseSchema: ToolServiceResponse });
  });

  afterAll(async () => {
    await caller?.close();
    await server?.close();
    await serverClient?.close();
    await callerClient?.close();
  });

  describe("calls", () => {
    it("round-trips one request with the id property", async () => {
      const reply = await caller.request(wire({ topic: "cats" }));
      expect(reply.error).toBeNull();
      expect(JSON.parse(reply.response)).toEqual({ user: "alice", config: { style: "pun" }, arguments: { topic: "cats" } });
    });

    it("streams several replies for one request, ending at the caller's end marker", async () => {
      const parts: string[] = [];
      for await (const part of caller.stream(wire({ chunks: 4 }), { isLast: (r) => r.end_of_stream })) {
        parts.push(part.response);
      }
      expect(parts).toEqual(["chunk 1/4", "chunk 2/4", "chunk 3/4", "chunk 4/4"]);
    });

    it("keeps 200 concurrent requests apart: every reply answers its own request", async () => {
      const tokens = Array.from({ length: 200 }, () => randomUUID());
      const replies = await Promise.all(tokens.map((token, i) => caller.request(wire({ token, i }, `user-${i}`))));
      replies.forEach((reply, i) => {
        const body = JSON.parse(reply.response);
        expect(body.arguments).toEqual({ token: tokens[i], i });
        expect(body.user).toBe(`user-${i}`);
      });
      expect(caller.inFlight).toBe(0);
    });

    it("answers a burst of 2,000 requests, more than a consumer's 1000 permits, without losing one", async () => {
      // Non-persistent topics drop what a consumer has no permits for; servers ack on receipt and clients
      // keep at most maxInFlight on the wire, so a burst is queued instead of lost.
      const replies = await Promise.all(Array.from({ length: 2_000 }, (_, i) => caller.request(wire({ i }))));
      expect(replies.map((r) => JSON.parse(r.response).arguments.i)).toEqual(Array.from({ length: 2_000 }, (_, i) => i));
    });

    it("drops replies meant for other clients on a shared response topic", async () => {
      const other = await RequestClient.create(callerClient, { requestTopic, responseTopic, responseSchema: ToolServiceResponse });
      const [mine, theirs] = await Promise.all([caller.request(wire({ who: "me" })), other.request(wire({ who: "them" }))]);
      expect(JSON.parse(mine.response).arguments).toEqual({ who: "me" });
      expect(JSON.parse(theirs.response).arguments).toEqual({ who: "them" });
      await other.close();
    });

    it("turns a handler's exception into an error reply of the service's type", async () => {
      const reply = await caller.request(wire({ fail: "boom" }));
      expect(reply).toEqual({
        error: { type: "tool-service-error", message: "asked to fail: boom" },
        response: "",
        end_of_stream: true,
      });
      const typed = await caller.request(wire({ fail: "reply-error" }));
      expect(typed.error).toEqual({ type: "quota-exceeded", message: "too many jokes today" });
    });

    it("answers malformed payloads with an error reply carrying their id, and keeps serving", async () => {
      const cases: Array<[string | Buffer, RegExp]> = [
        ["{not json", /payload is not valid JSON/],
        // JSON on the wire is UTF-8: bytes that are not are refused, not read as U+FFFD and used.
        [Buffer.concat([Buffer.from('{"user": "'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]), /payload is not valid UTF-8/],
        [JSON.stringify({ user: "u", arguments: "{broken" }), /arguments: not valid JSON/],
        [JSON.stringify({ user: 7 }), /user: /],
        [JSON.stringify([1, 2, 3]), /invalid message/],
      ];
      for (const [payload, reason] of cases) {
        const id = randomUUID();
        const replies: Array<{ id: string | undefined; body: z.output<typeof ToolServiceResponse> }> = [];
        const listener = await callerClient.subscribe({ topic: responseTopic, subscription: `raw-${id}`, type: "Exclusive" }, async (m) => {
          if (m.properties.id === id)
            replies.push({ id: m.properties.id, body: ToolServiceResponse.parse(JSON.parse(m.payload.toString())) });
        });
        await callerClient.send(requestTopic, Buffer.from(payload), { id });
        await waitFor(() => replies.length === 1, { description: `error reply to ${payload.toString()}` });
        expect(replies[0]!.body.error?.type).toBe("bad-request");
        expect(replies[0]!.body.error?.message).toMatch(reason);
        expect(replies[0]!.body.end_of_stream).toBe(true);
        await listener.close();
      }
      // A request with no id cannot be answered; it is dropped and the server carries on.
      await callerClient.send(requestTopic, Buffer.from("{}"), {});
      const after = await caller.request(wire({ still: "serving" }));
      expect(JSON.parse(after.response).arguments).toEqual({ still: "serving" });
      expect(outcomes.filter((o) => o === "bad-request").length).toBeGreaterThanOrEqual(5);
    });

    it("fails with a timeout error naming the topic when nobody serves it", async () => {
      const lonelyRequest = uniqueTopic("nobody-home", { namespace: "request" });
      const lonely = await RequestClient.create(callerClient, {
        requestTopic: lonelyRequest,
        responseTopic: lonelyRequest.replace("/request/", "/response/"),
        responseSchema: ToolServiceResponse,
      });
      const error = await lonely.request(wire({}), { timeoutMs: 500 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RequestTimeoutError);
      expect((error as Error).message).toContain(lonelyRequest);
      expect((error as Error).message).toMatch(/within 500 ms/);
      await lonely.close();
    });

    it("times out a slow reply but keeps the client usable", async () => {
      await expect(caller.request(wire({ delayMs: 1_500 }), { timeoutMs: 300 })).rejects.toBeInstanceOf(RequestTimeoutError);
      const reply = await caller.request(wire({ after: "timeout" }));
      expect(JSON.parse(reply.response).arguments).toEqual({ after: "timeout" });
    });

    it("fails a call whose reply does not match the response schema", async () => {
      const strict = await RequestClient.create(callerClient, {
        requestTopic,
        responseTopic,
        responseSchema: z.object({ answer: z.number() }),
      });
      await expect(strict.request(wire({}))).rejects.toBeInstanceOf(ReplyFormatError);
      await strict.close();
    });

    it("leaves nothing open on the broker once closed; a producer two clients hold stays until both close", async () => {
      // Issue 12, item 2: clients of tool topics came and went, their producers stayed.
      const broker = await useBroker();
      const { webServiceUrl } = broker;
      const request = uniqueTopic("closing", { namespace: "request" });
      const response = request.replace("/request/", "/response/");
      const pulsar = new PulsarClient(clientOptions(broker, kind));
      const echo = await serve(serverClient, {
        requestTopic: request,
        responseTopic: response,
        subscription: "closing-request",
        requestSchema: ToolServiceRequest,
        errorReply,
        handler: async () => ({ error: null, response: "ok", end_of_stream: true }),
      });
      const first = await RequestClient.create(pulsar, {
        requestTopic: request,
        responseTopic: response,
        responseSchema: ToolServiceResponse,
      });
      const second = await RequestClient.create(pulsar, {
        requestTopic: request,
        responseTopic: response,
        responseSchema: ToolServiceResponse,
      });
      await Promise.all([first.request(wire({})), second.request(wire({}))]);
      expect((await topicClients(webServiceUrl, request)).producers).toBe(1);
      // Each client reads its replies with REPLY_SESSIONS sessions of its own subscription, once its
      // server numbered one (serve() does): it opens the others on that first reply.
      await waitFor(async () => (await topicClients(webServiceUrl, response)).consumers === 2 * REPLY_SESSIONS, {
        description: `${2 * REPLY_SESSIONS} reply sessions`,
      });

      await first.close();
      expect(await second.request(wire({}))).toMatchObject({ response: "ok" });
      expect((await topicClients(webServiceUrl, response)).consumers).toBe(REPLY_SESSIONS);
      await second.close();
      await waitFor(async () => (await topicClients(webServiceUrl, request)).producers === 0, {
        description: "the request producer to close",
      });
      expect((await topicClients(webServiceUrl, response)).consumers).toBe(0);
      await echo.close();
      await pulsar.close();
    });

    it("shares requests between two servers on the same Shared subscription", async () => {
      const secondClient = new PulsarClient(clientOptions(await useBroker(), kind));
      let secondHandled = 0;
      const second = await serve(secondClient, {
        requestTopic,
        responseTopic,
        subscription: "echo-service-request",
        requestSchema: ToolServiceRequest,
        errorReply,
        handler: async () => {
          secondHandled += 1;
          return { error: null, response: "second", end_of_stream: true };
        },
      });
      // The broker deals a Shared subscription round robin in runs of up to 20 messages per consumer, and
      // each server opens MIN_REQUEST_SESSIONS consumers (see serve()): 200 requests reach both servers.
      const replies = await Promise.all(Array.from({ length: 200 }, (_, i) => caller.request(wire({ i }))));
      const bySecond = replies.filter((r) => r.response === "second").length;
      expect(bySecond).toBe(secondHandled);
      expect(bySecond).toBeGreaterThan(0);
      expect(bySecond).toBeLessThan(200);
      await second.close();
      await secondClient.close();
    });
  });
});
