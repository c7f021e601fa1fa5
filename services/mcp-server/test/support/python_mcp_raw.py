"""Raw requests from a client nobody here wrote: the Python MCP SDK (`mcp` on PyPI) opens the session, then
sends each request's method and params as given (past its own typed API, as a buggy or hostile client
would) through its JSON-RPC dispatcher.

Usage: python python_mcp_raw.py <url> <token> <steps-json | @file>
A step is [method, params-or-null] (one request), ["!gather", [[method, params], ...]] (those requests at
once on this session), or ["!delete-session", null] (an HTTP DELETE of this session behind the SDK's back;
later steps still use its id). Prints one JSON line: per step {"result": ...}, {"error": {"code", "message"}},
{"exception": "..."}, {"gathered": [...]} or {"status": <HTTP status of the DELETE>}.
"""
import asyncio
import json
import sys

from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError


async def main(url: str, token: str, steps: list) -> None:
    session_ids: list[str] = []

    async def remember_session(response) -> None:
        if sid := response.headers.get("mcp-session-id"):
            session_ids.append(sid)

    async with create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as http:
        http.event_hooks["response"].append(remember_session)
        async with streamable_http_client(url, http_client=http) as (read, write, *_):
            async with ClientSession(read, write) as session:
                init = await session.initialize()

                async def send(method: str, params) -> dict:
                    try:
                        return {"result": await session._dispatcher.send_raw_request(method, params, {"timeout": 30})}
                    except MCPError as err:
                        return {"error": {"code": err.error.code, "message": err.error.message}}
                    except Exception as err:  # what the SDK raises past JSON-RPC (HTTP errors, timeouts)
                        return {"exception": f"{type(err).__name__}: {err}"}

                answers = []
                for method, params in steps:
                    if method == "!gather":
                        answers.append({"gathered": await asyncio.gather(*(send(m, p) for m, p in params))})
                    elif method == "!delete-session":
                        headers = {"mcp-session-id": session_ids[-1], "mcp-protocol-version": init.protocol_version}
                        answers.append({"status": (await http.delete(url, headers=headers)).status_code})
                    else:
                        answers.append(await send(method, params))
                print(json.dumps({"answers": answers}))


if __name__ == "__main__":
    url, token, steps = sys.argv[1:]
    if steps.startswith("@"):
        with open(steps[1:], encoding="utf-8") as file:
            steps = file.read()
    asyncio.run(main(url, token, json.loads(steps)))
