import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { brokerEnv, ensureTenant, ServiceProcess, useBroker, testTopics } from "@toolmesh/test-support";
import { type RunningGateway, SocketClient, registerDescriptor, startConfigService, startGateway, toolRequest, unique } from "./fixture.js";

// Issue 12, item 6: a descriptor naming another tenant's queues reached that tenant's joke-service. Here a
// second system really runs on the broker: tenant `<ours>-b` with the real joke-service in it.
const OTHER = `${testTopics().tenant}-b`;
const foreign = unique("their-jokes");
const descriptor = JSON.stringify({
  id: foreign,
  "request-queue": `non-persistent://${OTHER}/request/joke`,
  "response-queue": `non-persistent://${OTHER}/response/joke`,
});

let config: { stop: () => Promise<void> };
let theirJokes: ServiceProcess;
let gw: RunningGateway;
let trusting: RunningGateway;

beforeAll(async () => {
  const broker = await useBroker();
  const { webServiceUrl } = broker;
  await ensureTenant(webServiceUrl, OTHER);
  theirJokes = await ServiceProcess.start({
    service: "joke-service",
    env: { ...brokerEnv(broker), TOOLMESH_TENANT: OTHER, JOKE_ANNOUNCE: "false" },
  });
  config = await startConfigService(broker);
  gw = await startGateway(broker);
  trusting = await startGateway(broker, { TOOLMESH_ALLOWED_TENANTS: OTHER });
  await registerDescriptor(gw, foreign, descriptor);
}, 120_000);

afterAll(async () => {
  await gw?.runtime.stop();
  await trusting?.runtime.stop();
  await config?.stop();
  await theirJokes?.stop();
});

const call = (via: RunningGateway) =>
  via.runtime.http.inject({ method: "POST", url: `/api/v1/flow/default/service/${foreign}`, payload: toolRequest({ topic: "cats" }) });

describe("descriptors naming another tenant's queues", () => {
  it("are refused with 403 in the error shape, naming the queue and its tenant", async () => {
    const response = await call(gw);
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({
      error: {
        type: "forbidden",
        message: `tool-service descriptor '${foreign}' is refused: queue non-persistent://${OTHER}/request/joke is in tenant '${OTHER}', outside the tenants this system may use ('${testTopics().tenant}'); an operator can allow more with TOOLMESH_ALLOWED_TENANTS`,
      },
    });
  });

  it("are refused on the socket too", async () => {
    const socket = await SocketClient.connect(`${(await gw.runtime.listen()).replace(/^http/, "ws")}/api/v1/socket`);
    socket.send({ id: 1, service: foreign, flow: "default", request: toolRequest({ topic: "cats" }) });
    const [frame] = await socket.answer(1);
    socket.close();
    expect(frame).toMatchObject({ error: { type: "forbidden", message: expect.stringContaining(`tenant '${OTHER}'`) }, complete: true });
  });

  it("reach the other tenant's service only where an operator allows that tenant", async () => {
    await registerDescriptor(trusting, foreign, descriptor);
    const response = await call(trusting);
    expect(response.statusCode).toBe(200);
    expect(response.json()[0]).toMatchObject({ end_of_stream: true, response: expect.stringContaining("cat") });
  });
});
