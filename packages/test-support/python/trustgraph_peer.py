"""TrustGraph 2.11.1's own tool-service classes (trustgraph-base) as test peers, over its Pulsar backend.

    python trustgraph_peer.py call --pulsar-host URL [--pulsar-api-key TOKEN] --request-topic T --response-topic T --calls JSON
        TrustGraph's ToolServiceClient, wired as a flow processor wires it (ToolServiceClientSpec.register),
        makes each call [{"config": {...}, "arguments": {...}}, ...] in turn and prints one JSON line:
        {"results": [{"response": "..."} | {"error": "..."}, ...]}.
    python trustgraph_peer.py serve --pulsar-host URL [--pulsar-api-key TOKEN] --id ID --topic TOPIC
        A DynamicToolService subclass (TrustGraph's AsyncProcessor underneath) on
        non-persistent://tg/{request,response}/TOPIC; prints {"ready": true} once subscribed, stops when
        stdin closes. It answers "<style>: <topic> (trustgraph)" and fails (an error reply) without a topic.
--pulsar-api-key is TrustGraph's own setting for a broker with token authentication (AuthenticationToken).
"""

import argparse
import asyncio
import json
import sys
import types

from trustgraph.base import DynamicToolService, ToolServiceClientSpec
from trustgraph.base.pubsub import get_async_pubsub


class InteropTool(DynamicToolService):
    async def invoke(self, config, arguments):
        topic = arguments.get("topic")
        if not topic:
            raise ValueError("argument 'topic' is required")
        return f"{config.get('style', 'plain')}: {topic} (trustgraph)"


async def call(args):
    backend = get_async_pubsub(pulsar_host=args.pulsar_host, pulsar_api_key=args.pulsar_api_key, pulsar_admin_url=None)
    processor = types.SimpleNamespace(async_backend=backend, id="trustgraph-peer")
    flow = types.SimpleNamespace(consumer={})
    spec = ToolServiceClientSpec(request_name="tool-request", response_name="tool-response")
    client = await spec.register(
        flow, processor, {"topics": {"tool-request": args.request_topic, "tool-response": args.response_topic}}
    )
    results = []
    try:
        for request in json.loads(args.calls):
            try:
                response = await client.call(request.get("config"), request.get("arguments"), timeout=args.timeout)
                results.append({"response": response})
            except Exception as error:
                results.append({"error": f"{type(error).__name__}: {error}"})
    finally:
        await client.close()
        await backend.close()
    print(json.dumps({"results": results}), flush=True)


async def serve(args):
    service = InteropTool(
        id=args.id, topic=args.topic, pulsar_host=args.pulsar_host, pulsar_api_key=args.pulsar_api_key, pulsar_admin_url=None
    )
    await service.start()
    print(json.dumps({"ready": True}), flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)  # until the test closes stdin
    await service.stop()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["call", "serve"])
    parser.add_argument("--pulsar-host", required=True)
    parser.add_argument("--pulsar-api-key")
    parser.add_argument("--request-topic")
    parser.add_argument("--response-topic")
    parser.add_argument("--calls", default="[]")
    parser.add_argument("--timeout", type=float, default=10)
    parser.add_argument("--id", default="trustgraph-peer")
    parser.add_argument("--topic")
    args = parser.parse_args()
    asyncio.run(call(args) if args.mode == "call" else serve(args))


if __name__ == "__main__":
    main()
