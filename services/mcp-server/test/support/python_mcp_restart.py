"""The Python MCP SDK (`mcp` on PyPI) as a long-lived client across a restart of the MCP server behind it.

Usage: python python_mcp_restart.py stdio <command> <args-json> <env-json> <tool> <arguments-json>
       python python_mcp_restart.py http <url> <token> <tool> <arguments-json>
Opens one session (over stdio to a launched server such as `tg mcp`, or over Streamable HTTP), lists the tools
and prints {"before": [...]} on a line; then waits for a line on stdin (the test restarts the server meanwhile),
calls the tool and lists again on the same session, and prints {"call": ..., "after": ..., "list_changed": n},
each either a result or {"error": {"code", "message"}}, n the tools/list_changed notifications received. The launched server's stderr goes to this process's stderr.
With <tool> `-` it makes no request after the first line: it waits (up to 30 s each) for the first
tools/list_changed and prints {"list_changed": n}, then for a second line on stdin and one more
notification, and prints {"list_changed": n, "after": [...]}: notifications reaching an idle client.
MCP_RESTART_NO_RELIST=1 leaves out the list after the call ("after" is null).
"""
import asyncio
import json
import os
import sys
from contextlib import asynccontextmanager

from mcp import types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError


@asynccontextmanager
async def open_streams(kind: str, a: str, b: str, c: str | None):
    if kind == "stdio":
        params = StdioServerParameters(command=a, args=json.loads(b), env=json.loads(c or "{}"))
        async with stdio_client(params, errlog=sys.stderr) as (read, write):
            yield read, write
    else:
        async with create_mcp_http_client(headers={"Authorization": f"Bearer {b}"}) as http:
            async with streamable_http_client(a, http_client=http) as (read, write, *_):
                yield read, write


async def attempt(call):
    try:
        return await call()
    except MCPError as err:
        return {"error": {"code": err.error.code, "message": err.error.message}}
    except Exception as err:  # the transport's own failures (e.g. connection refused while the server restarts)
        return {"exception": repr(err)}


async def main(kind: str, rest: list[str]) -> None:
    if kind == "stdio":
        command, args, env, tool, arguments = rest
    else:
        (url, token, tool, arguments), command, args, env = rest, None, None, None
    a, b, c = (command, args, env) if kind == "stdio" else (url, token, None)
    list_changed = 0

    async def count(message) -> None:
        nonlocal list_changed
        if isinstance(message, types.ToolListChangedNotification):
            list_changed += 1

    async with open_streams(kind, a, b, c) as (read, write):
        async with ClientSession(read, write, message_handler=count) as session:
            await session.initialize()
            listed = await session.list_tools()
            print(json.dumps({"before": sorted(t.name for t in listed.tools)}), flush=True)
            await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)

            async def notified(n: int) -> None:
                for _ in range(300):
                    if list_changed >= n:
                        return
                    await asyncio.sleep(0.1)

            if tool == "-":
                await notified(1)
                print(json.dumps({"list_changed": list_changed}), flush=True)
                await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
                await notified(list_changed + 1)
                after = sorted(t.name for t in (await session.list_tools()).tools)
                print(json.dumps({"list_changed": list_changed, "after": after}), flush=True)
                return

            async def call():
                result = await session.call_tool(tool, json.loads(arguments))
                return {"is_error": bool(result.is_error), "text": [x.text for x in result.content if x.type == "text"]}

            async def relist():
                return sorted(t.name for t in (await session.list_tools()).tools)

            called = await attempt(call)
            # MCP_RESTART_NO_RELIST=1: the call alone. Relisting right after a call the server finished while
            # stopping races its restart, and the SDK ends the whole session (not the request) when a POST
            # cannot connect.
            after = None if os.environ.get("MCP_RESTART_NO_RELIST") == "1" else await attempt(relist)
            print(json.dumps({"call": called, "after": after, "list_changed": list_changed}), flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2:]))
