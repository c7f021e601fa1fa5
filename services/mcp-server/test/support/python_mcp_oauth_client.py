"""The Python MCP SDK (`mcp` 2.3) as an OAuth 2 client of an MCP server, the machine-to-machine way:

    python python_mcp_oauth_client.py <url> <issuer> <client-id> <client-secret> [<scope>]

ClientCredentialsOAuthProvider (httpx2 auth): on the server's 401 it reads the protected-resource metadata,
checks the authorization server is <issuer>, gets a token with the client_credentials grant and retries.
Lists the tools and prints {"tools": [...]}, or {"error": "..."} when the server or the issuer refuses.
"""
import asyncio
import json
import sys

import httpx2
from mcp.client.auth import TokenStorage
from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken


class MemoryStorage(TokenStorage):
    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


async def main(url: str, issuer: str, client_id: str, client_secret: str, scope: str | None) -> None:
    provider = ClientCredentialsOAuthProvider(
        server_url=url, storage=MemoryStorage(), client_id=client_id, client_secret=client_secret, scope=scope, issuer=issuer
    )
    try:
        async with httpx2.AsyncClient(auth=provider, timeout=15) as http:
            async with streamable_http_client(url, http_client=http) as (read, write, *_):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    listed = await session.list_tools()
                    print(json.dumps({"tools": sorted(t.name for t in listed.tools)}), flush=True)
    except BaseException as error:  # the test reads the failure from stdout (task groups raise ExceptionGroups)
        print(json.dumps({"error": repr(error)[:500]}), flush=True)


if __name__ == "__main__":
    args = sys.argv[1:]
    asyncio.run(main(args[0], args[1], args[2], args[3], args[4] if len(args) > 4 else None))
