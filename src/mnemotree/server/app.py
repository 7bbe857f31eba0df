"""The FastAPI application: routes, errors mapped to statuses, a body limit."""

from __future__ import annotations

import ipaddress
import reprlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from mcp.server.mcpserver import MCPServer
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .. import (
    AlreadyExists,
    InvalidInput,
    InvalidOperation,
    Memory,
    MissingExtra,
    MnemotreeError,
    NotFound,
    ParseError,
    ProviderError,
    ScopeDenied,
    StorageError,
    Unauthorized,
    __version__,
)
from . import mcp, observe, routes_activity, routes_memory, routes_work
from .access import KeyCheck
from .gateway import Gateway

MAX_BODY = 50 * 1024 * 1024  # bytes; a document upload is the largest body
STATUS: tuple[tuple[type[MnemotreeError], int], ...] = (
    (Unauthorized, 401),
    (ScopeDenied, 403),
    (NotFound, 404),
    (AlreadyExists, 409),
    (InvalidOperation, 409),
    (InvalidInput, 400),
    (ParseError, 422),
    (MissingExtra, 501),
    (ProviderError, 502),
    (StorageError, 503),
)


HTTP_ERRORS = {
    400: "InvalidInput",
    401: "Unauthorized",
    404: "NotFound",
    405: "MethodNotAllowed",
    413: "InvalidInput",
}


def status_of(error: MnemotreeError) -> int:
    return next((code for kind, code in STATUS if isinstance(error, kind)), 500)


def _jsonable(value: Any, depth: int = 0) -> Any:
    """An error's value as JSON, cut short: an error must not echo a huge input."""
    if isinstance(value, str):
        return value if len(value) <= 200 else value[:200] + "…"
    if value is None or isinstance(value, (float, bool)):
        return value
    if isinstance(value, int):
        return value if abs(value) < 10**18 else "a very large integer"
    if isinstance(value, (list, tuple)) and depth < 3:
        return [_jsonable(v, depth + 1) for v in value[:20]]
    return reprlib.repr(value)[:200]


def create_app(
    memory: Memory,
    *,
    auth: bool = True,
    max_body: int = MAX_BODY,
    consolidate_every: float | None = None,
    host: str = "127.0.0.1",
    owns_memory: bool = False,
) -> FastAPI:
    """The API over `memory`, with MCP (streamable HTTP) at /mcp. With `auth`,
    every route but /health needs a key; with `consolidate_every` (seconds), a
    consolidation is applied that often. `host` is the address served: on
    loopback, requests must name a loopback host (no DNS rebinding). With
    `owns_memory`, the memory is closed when the app stops."""
    gateway = Gateway(memory)
    tools = mcp.build(memory, gateway)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        schedule = (
            memory.consolidation.schedule(consolidate_every, run_in=gateway.run)
            if consolidate_every is not None
            else None
        )
        try:
            async with tools.session_manager.run():
                yield
        finally:
            if schedule is not None:
                schedule.stop()
            gateway.close()
            if owns_memory:
                memory.close()

    app = FastAPI(
        lifespan=lifespan,
        title="mnemotree",
        version=__version__,
        description="Memory for LLM applications and agents: one tree of nodes. "
        "Send `Authorization: Bearer <key>` (make one with `mnemotree keys create`).",
    )
    app.state.gateway = gateway
    app.state.auth = auth
    app.state.requests = requests = observe.Requests()

    _errors(app)
    app.include_router(routes_memory.router)
    app.include_router(routes_work.router)
    app.include_router(routes_activity.router)
    app.include_router(observe.router)
    _web(app)
    _mcp(app, tools, gateway, auth, host)
    app.add_middleware(BodyLimit, limit=max_body)
    app.add_middleware(NoStore)
    if is_loopback(host):
        hosts = sorted({host, "127.0.0.1", "localhost"} - {"::1"})
        app.add_middleware(TrustedHostMiddleware, allowed_hosts=hosts)
    app.add_middleware(observe.Observed, requests=requests)  # outermost: sees every answer
    return app


WEB = Path(__file__).parent / "web"
# The page loads only its own files and talks only to this server.
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


def _errors(app: FastAPI) -> None:
    """Every error answers `{"error", "message", "value"}`: ours with their
    status, request validation 422, unknown routes and methods 404/405."""

    @app.exception_handler(MnemotreeError)
    async def _mnemotree_error(_: Request, error: MnemotreeError) -> JSONResponse:
        status = status_of(error)
        headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
        body = {
            "error": type(error).__name__,
            "message": error.message,
            "value": _jsonable(error.value),
        }
        return JSONResponse(body, status_code=status, headers=headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid_request(_: Request, error: RequestValidationError) -> JSONResponse:
        problems = [
            f"{'.'.join(str(p) for p in e.get('loc', ()))}: {e.get('msg', '')}"
            for e in error.errors()
        ]
        body = {"error": "InvalidInput", "message": "; ".join(problems)[:2000], "value": None}
        return JSONResponse(body, status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, error: StarletteHTTPException) -> JSONResponse:
        # Unknown routes and methods answer in the same shape as every other error.
        message = str(error.detail)
        if error.status_code in (404, 405):
            message = (
                f"{message}: {request.method} {request.url.path[:200]}; "
                "the routes are listed at /docs"
            )
        body = {
            "error": HTTP_ERRORS.get(error.status_code, "HTTPError"),
            "message": message,
            "value": None,
        }
        return JSONResponse(body, status_code=error.status_code, headers=error.headers)


def _mcp(app: FastAPI, tools: MCPServer, gateway: Gateway, auth: bool, host: str) -> None:
    """The MCP tools over streamable HTTP at /mcp, behind the API's keys.
    Stateless JSON: each call stands alone, checked against its own key."""
    endpoint = tools.streamable_http_app(
        streamable_http_path="/mcp", stateless_http=True, json_response=True, host=host
    ).routes[0]
    assert isinstance(endpoint, Route)  # what the SDK builds: one route at the path
    guarded = KeyCheck(endpoint.endpoint, gateway, auth=auth)
    app.router.routes.append(Route("/mcp", guarded, methods=["GET", "POST", "DELETE"]))


def _web(app: FastAPI) -> None:
    """The memory browser: static files, no build step. Its data comes from the API."""

    @app.get("/", include_in_schema=False)
    async def browser() -> FileResponse:
        return FileResponse(WEB / "index.html", headers={"Content-Security-Policy": CSP})

    app.mount("/ui", StaticFiles(directory=WEB), name="ui")


def is_loopback(host: str) -> bool:
    """Whether `host` is an address only this machine reaches."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class BodyLimit:
    """413 for a body over `limit` bytes, by its Content-Length or as it streams."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            await _too_large(send, self.limit)
            return
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.limit:
                raise _TooLarge
            return message

        try:
            await self.app(scope, limited, send)
        except _TooLarge:
            await _too_large(send, self.limit)


class NoStore:
    """`Cache-Control: no-store` on every answer but the browser's own files:
    memory text never lands in a browser's or a proxy's cache, where a purge
    could not reach it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or str(scope.get("path", "")).startswith("/ui/"):
            await self.app(scope, receive, send)
            return

        async def marked(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [h for h in message.get("headers", []) if h[0] != b"cache-control"]
                message = {**message, "headers": [*headers, (b"cache-control", b"no-store")]}
            await send(message)

        await self.app(scope, receive, marked)


class _TooLarge(Exception):
    pass


async def _too_large(send: Send, limit: int) -> None:
    body = (
        b'{"error": "InvalidInput", "message": "the request body is over the limit of '
        + str(limit).encode()
        + b' bytes", "value": null}'
    )
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
