"""A real MCP server built with the Python MCP SDK (mcp 2.3, MCPServer), for toolmesh's mcp-tool tests.

    python mcp_server.py --port 8123 [--max-sessions N] [--token SECRET | --oauth-issuer URL [--scope S]]

Streamable HTTP at /mcp (stateful sessions, the SDK's defaults otherwise). Tools:
  echo(message) -> str       the SDK also sends structuredContent {"result": ...}
  plain(message)             text only (no structured output)
  sleep(seconds) -> str      answers after that long
  gate(name) -> str          answers once POST /control/release/{name} is called
  picture()                  a text part and a PNG image part
  weather(city) -> Weather   a structured object
  traceparent() -> str       the W3C `traceparent` header of the HTTP request that carried the call
--max-sessions uses the SDK's own limit (503 "Too many open sessions" past it); --token makes the SDK's
bearer middleware refuse any other token (401 invalid_token). --oauth-issuer makes it an OAuth 2 protected
resource as the MCP authorization spec has it: its protected-resource metadata names that issuer, and it
takes only RS256 JWTs signed with a key of the issuer's JWKS, for its own URL (`aud`), unexpired, with scope S
(default mcp:tools; 403 insufficient_scope without it). /control/* (never behind the token) lets a
test see what the server saw: initializes, open sessions, deletes, tool calls, callers waiting at a gate.
Prints "mcp-test-server listening on <port>" once it accepts connections.
"""

import argparse
import base64
import json
import os
import urllib.request
from collections import Counter

import anyio
import jwt
import uvicorn
from pydantic import BaseModel
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context, Image, MCPServer

# A 1x1 red PNG.
RED_DOT = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)

# What the traceparent tool answers when the request had no such header.
NO_TRACEPARENT = "no traceparent header"


class Weather(BaseModel):
    city: str
    temperature: float
    conditions: str


class Observed:
    """What the server saw since it started."""

    def __init__(self) -> None:
        self.initializes = 0
        self.deletes = 0
        self.calls: list[str] = []
        self.waiting: Counter[str] = Counter()
        self.gates: dict[str, anyio.Event] = {}

    def gate(self, name: str) -> anyio.Event:
        return self.gates.setdefault(name, anyio.Event())


class StaticTokenVerifier:
    """Accepts exactly one bearer token (the SDK's TokenVerifier protocol)."""

    def __init__(self, token: str) -> None:
        self.token = token

    async def verify_token(self, token: str) -> AccessToken | None:
        if token != self.token:
            return None
        return AccessToken(token=token, client_id="toolmesh-test", scopes=[])


class JwtVerifier:
    """Accepts JWTs an OAuth 2 issuer signed (keys from its JWKS) for this server (`aud`), as a resource server does."""

    def __init__(self, issuer: str, audience: str) -> None:
        with urllib.request.urlopen(f"{issuer.rstrip('/')}/.well-known/openid-configuration", timeout=10) as response:
            jwks_uri = json.load(response)["jwks_uri"]
        self.keys = jwt.PyJWKClient(jwks_uri)
        self.audience = audience

    async def verify_token(self, token: str) -> AccessToken | None:
        try:
            key = await anyio.to_thread.run_sync(self.keys.get_signing_key_from_jwt, token)
            claims = jwt.decode(token, key.key, algorithms=["RS256"], audience=self.audience)
        except jwt.PyJWTError:
            return None
        scopes = str(claims.get("scope", "")).split()
        return AccessToken(token=token, client_id=str(claims.get("sub")), scopes=scopes, expires_at=claims.get("exp"), resource=self.audience)


def build_server(observed: Observed, port: int, token: str | None, oauth_issuer: str | None, scope: str) -> MCPServer:
    auth = None
    verifier = None
    base = f"http://127.0.0.1:{port}"
    if token is not None:
        auth = AuthSettings(issuer_url=base, resource_server_url=f"{base}/mcp", validate_token_resource=False)
        verifier = StaticTokenVerifier(token)
    elif oauth_issuer is not None:
        # validate_token_resource off: JwtVerifier checks the token's audience itself.
        auth = AuthSettings(
            issuer_url=oauth_issuer, resource_server_url=f"{base}/mcp", required_scopes=[scope], validate_token_resource=False
        )
        verifier = JwtVerifier(oauth_issuer, f"{base}/mcp")

    async def count_messages(ctx, call_next):
        if ctx.method == "initialize":
            observed.initializes += 1
        elif ctx.method == "tools/call" and isinstance(ctx.params, dict):
            observed.calls.append(str(ctx.params.get("name")))
        return await call_next(ctx)

    mcp = MCPServer(
        "python-test-server", version="1.0.0", token_verifier=verifier, auth=auth, middleware=[count_messages], log_level="WARNING"
    )

    @mcp.tool()
    def echo(message: str) -> str:
        """Echoes the message back."""
        return f"py-echo: {message}"

    @mcp.tool(structured_output=False)
    def plain(message: str) -> str:
        """Answers text only, without structured output."""
        return f"plain: {message}"

    @mcp.tool()
    async def sleep(seconds: float) -> str:
        """Answers after the given number of seconds."""
        await anyio.sleep(seconds)
        return f"slept {seconds} s"

    @mcp.tool()
    async def gate(name: str) -> str:
        """Waits until the test releases the gate of that name."""
        observed.waiting[name] += 1
        try:
            await observed.gate(name).wait()
        finally:
            observed.waiting[name] -= 1
        return f"passed gate {name}"

    @mcp.tool(structured_output=False)
    def picture() -> list:
        """A caption and a 1x1 PNG."""
        return ["A red dot:", Image(data=RED_DOT, format="png")]

    @mcp.tool()
    def weather(city: str) -> Weather:
        """Structured weather for a city."""
        return Weather(city=city, temperature=21.5, conditions="sunny")

    @mcp.tool(structured_output=False)
    def traceparent(ctx: Context) -> str:
        """The W3C traceparent header of the HTTP request that carried this call."""
        # ctx.headers are the headers of the Starlette request behind this message (request_context.request).
        headers = ctx.headers or {}
        return headers.get("traceparent", NO_TRACEPARENT)

    @mcp.custom_route("/control/stats", methods=["GET"])
    async def stats(_request: Request) -> Response:
        return JSONResponse(
            {
                "initializes": observed.initializes,
                "deletes": observed.deletes,
                # The SDK has no public count of live sessions; its session table is the truth.
                "open_sessions": len(mcp.session_manager._server_instances),
                "calls": observed.calls,
                "waiting": dict(observed.waiting),
            }
        )

    @mcp.custom_route("/control/release/{name}", methods=["POST"])
    async def release(request: Request) -> Response:
        observed.gate(request.path_params["name"]).set()
        return JSONResponse({"released": request.path_params["name"]})

    return mcp


class CountDeletes:
    """Counts DELETE requests on /mcp (sessions ended by the client) that the SDK answered 2xx."""

    def __init__(self, app: ASGIApp, observed: Observed) -> None:
        self.app = app
        self.observed = observed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "DELETE":
            await self.app(scope, receive, send)
            return

        async def watch(message):
            if message["type"] == "http.response.start" and 200 <= message["status"] < 300:
                self.observed.deletes += 1
            await send(message)

        await self.app(scope, receive, watch)


def export_spans_if_asked() -> None:
    """With OTEL_EXPORTER_OTLP_ENDPOINT set, the MCP SDK's own spans (its OpenTelemetryMiddleware, on by
    default, continues the trace in a request's `_meta.traceparent`) are exported over OTLP/HTTP; the
    exporter and batch processor read the standard OTEL_* variables."""
    if not os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT"):
        return
    from opentelemetry import trace
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    service = os.environ.get("OTEL_SERVICE_NAME", "python-mcp-server")
    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)


def main() -> None:
    export_spans_if_asked()
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--max-sessions", type=int, default=None)
    parser.add_argument("--token", default=None)
    parser.add_argument("--oauth-issuer", default=None)
    parser.add_argument("--scope", default="mcp:tools")
    args = parser.parse_args()

    observed = Observed()
    mcp = build_server(observed, args.port, args.token, args.oauth_issuer, args.scope)
    limits = {} if args.max_sessions is None else {"max_sessions": args.max_sessions}
    app = mcp.streamable_http_app(**limits)
    config = uvicorn.Config(CountDeletes(app, observed), host="127.0.0.1", port=args.port, log_level="warning")
    server = uvicorn.Server(config)

    async def serve() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(server.serve)
            while not server.started:
                await anyio.sleep(0.02)
            print(f"mcp-test-server listening on {args.port}", flush=True)

    anyio.run(serve)


if __name__ == "__main__":
    main()
