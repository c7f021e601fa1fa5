"""TrustGraph 2.11.1's own config clients against a config service, unchanged.

Uses trustgraph-base's AsyncConfigClient, its ConfigClient (the class TrustGraph's flow processors get),
and AsyncProcessor's own start-up loader (getkeys-all-ws + getvalues per workspace), on the queues TrustGraph
names `request:<tenant>:config` and `request:<tenant>:config:<workspace>`. Prints one JSON object: what each
call returned, or the error it raised.

    python config_clients.py pulsar://127.0.0.1:16650 <tenant> <workspace>
"""

import asyncio
import os
import json
import sys
import types

from trustgraph.base.async_config_client import AsyncConfigClient
from trustgraph.base.async_processor import AsyncProcessor
from trustgraph.base.config_client import ConfigClient
from trustgraph.base.pubsub import get_async_pubsub
from trustgraph.base.request_response_client import RequestResponseClient
from trustgraph.schema import ConfigRequest, ConfigResponse


class FlowConfigClient(ConfigClient, RequestResponseClient):
    """ConfigClient as TrustGraph's ConfigClientSpec builds it: its calls over a RequestResponseClient."""


async def attempt(call):
    try:
        result = await call
        return {"ok": sorted(result) if isinstance(result, set) else result}
    except Exception as e:  # the message is what the test checks
        return {"error": str(e)}


async def main(pulsar, tenant, ws):
    backend = get_async_pubsub(pulsar_host=pulsar)
    system = await AsyncConfigClient.create(backend, f"request:{tenant}:config", f"response:{tenant}:config")
    flow = await FlowConfigClient.create(
        backend=backend, request_topic=f"request:{tenant}:config", response_topic=f"response:{tenant}:config",
        request_schema=ConfigRequest, response_schema=ConfigResponse,
    )
    own = await AsyncConfigClient.create(backend, f"request:{tenant}:config:{ws}", f"response:{tenant}:config:{ws}")
    knowledge = json.dumps({"type": "knowledge-query", "name": "ask-docs", "description": "Ask the documents", "collection": "docs"})
    out = {}
    out["get_missing"] = await attempt(system.get(ws, "agent", "tool-index"))
    out["put"] = await attempt(system.put(ws, "tool", "ask-docs", knowledge))
    out["put_many"] = await attempt(flow.put_many(ws, [("prompt", "greeting", "Hello {{name}}"), ("tool", "zz-last", knowledge)]))
    out["get"] = await attempt(system.get(ws, "tool", "ask-docs"))
    out["flow_get_missing"] = await attempt(flow.get(ws, "tool", "nope"))
    out["list"] = await attempt(system.keys(ws, "tool"))
    out["config"] = await attempt(system.get_all(ws))
    out["workspaces_for_type"] = await attempt(flow.workspaces_for_type("tool"))
    keys = await system.request(ConfigRequest(operation="getkeys-all-ws", type="tool"))
    out["getkeys_all_ws"] = [[v.workspace, v.key, v.value] for v in keys.values if v.workspace == ws]
    out["getkeys_all_ws_version"] = keys.version
    # AsyncProcessor's own start-up read: getkeys-all-ws, then getvalues per workspace (self is unused).
    loader = types.SimpleNamespace(_fetch_type_workspace=lambda c, w, t: AsyncProcessor._fetch_type_workspace(None, c, w, t))
    grouped, version = await AsyncProcessor._fetch_type_all_workspaces(loader, system, "tool")
    out["startup_load"] = {"tool": grouped.get(ws), "version": version}
    out["own_queue_list"] = await attempt(own.keys("ignored-by-the-queue", "tool"))
    out["own_queue_all_ws"] = await attempt(own.workspaces_for_type("tool"))
    out["delete_missing"] = await attempt(system.delete(ws, "tool", "never-there"))
    out["delete"] = await attempt(flow.delete(ws, "tool", "zz-last"))
    out["after_delete"] = await attempt(system.keys(ws, "tool"))
    out["empty_workspace"] = await attempt(system.get("", "tool", "ask-docs"))
    for client in (system, flow, own):
        await client.close()
    await backend.close()
    print(json.dumps(out))


asyncio.run(main(*sys.argv[1:4]))
# Everything is closed and printed: leave without the interpreter's teardown, where the C++ Pulsar client's
# threads sometimes abort the process ("terminate called without an active exception") after a clean run.
sys.stdout.flush()
os._exit(0)
