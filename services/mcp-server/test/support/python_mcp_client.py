"""A client nobody here wrote: the Python MCP SDK (`mcp` on PyPI) against toolmesh's MCP endpoint.

Usage: python python_mcp_client.py <url> <token> <tool> <arguments-json> [<tool> <arguments-json> ...]
Prints one JSON line: the negotiated protocol version, the tool names listed, and each call's result.
"""
import asyncio
import json
import sys

from mcp import types
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


async def main(url: str, token: str, calls: list[tuple[str, dict]]) -> None:
    async with create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as http:
        async with streamable_http_client(url, http_client=http) as (read, write, *_):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                names: list[str] = []
                cursor = None
                while True:
                    page = await session.list_tools(params=types.PaginatedRequestParams(cursor=cursor) if cursor else None)
                    names += [tool.name for tool in page.tools]
                    cursor = page.next_cursor
                    if not cursor:
                        break
                results = []
                for name, arguments in calls:
                    result = await session.call_tool(name, arguments)
                    results.append(
                        {
                            "tool": name,
                            "is_error": bool(result.is_error),
                            "text": [c.text for c in result.content if c.type == "text"],
                            "structured": result.structured_content,
                        }
                    )
                print(json.dumps({"protocol_version": init.protocol_version, "server": init.server_info.name, "tools": names, "calls": results}))


if __name__ == "__main__":
    url, token, *rest = sys.argv[1:]
    pairs = [(rest[i], json.loads(rest[i + 1])) for i in range(0, len(rest), 2)]
    asyncio.run(main(url, token, pairs))
