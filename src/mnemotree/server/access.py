"""Who is asking and what they may reach: the request's API key and its scopes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from fastapi import Request
from fastapi.responses import JSONResponse
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from .. import keys
from ..errors import InvalidInput, ScopeDenied, Unauthorized
from ..model import DEFAULT_SCOPE, Node, clean_scope
from ..store import KeyRow
from .gateway import Gateway


@dataclass(frozen=True)
class Principal:
    """The caller: a key, or None when the server runs without authentication."""

    key: KeyRow | None

    @property
    def every_scope(self) -> bool:
        return self.key is None or self.key.scopes == (keys.EVERY_SCOPE,)

    def read_scopes(self, asked: Sequence[str] | None) -> tuple[str, ...] | None:
        """The scopes a read covers (None: every scope, for an unrestricted caller)."""
        if self.key is None:
            return tuple(clean_scope(s) for s in asked) if asked else None
        return keys.allowed(self.key, asked)

    def write_scope(self, scope: str | None) -> str:
        """The scope a write goes to: the one named, or the key's only scope."""
        if scope is not None:
            chosen = clean_scope(scope)
            self.read_scopes([chosen])
            return chosen
        if self.key is None or self.every_scope:
            return DEFAULT_SCOPE
        if len(self.key.scopes) == 1:
            return self.key.scopes[0]
        raise InvalidInput(
            f"name the scope to write to: this key reaches {list(self.key.scopes)}", None
        )

    def check(self, node: Node) -> Node:
        """`node`, if its scope is within reach (ScopeDenied otherwise)."""
        if self.key is not None and not self.every_scope and node.scope not in self.key.scopes:
            raise ScopeDenied(
                f"node {node.id} is in scope {node.scope!r}, outside this key's "
                f"{list(self.key.scopes)}",
                node.id,
            )
        return node

    def require_every(self, what: str) -> None:
        if not self.every_scope:
            raise ScopeDenied(f"{what} reaches every scope: it needs a key made with --scopes '*'",
                              list(self.key.scopes) if self.key else None)  # fmt: skip


def bearer(headers: Headers) -> str | None:
    header = headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else None


async def principal(request: Request) -> Principal:
    """The FastAPI dependency every route but /health takes."""
    if not request.app.state.auth:
        return Principal(None)
    gateway: Gateway = request.app.state.gateway
    presented = bearer(request.headers)
    row = await gateway.read(lambda m: m.verify_key(presented))
    return Principal(row)


class KeyCheck:
    """ASGI wrapper for an app outside FastAPI's dependencies (MCP over HTTP):
    401 without a live key; otherwise the caller's Principal goes into the
    request's `state` for the handlers to read."""

    def __init__(self, app: ASGIApp, gateway: Gateway, *, auth: bool) -> None:
        self.app = app
        self.gateway = gateway
        self.auth = auth

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        caller = Principal(None)
        if self.auth:
            presented = bearer(Headers(scope=scope))
            try:
                caller = Principal(await self.gateway.read(lambda m: m.verify_key(presented)))
            except Unauthorized as exc:
                body = {"error": "Unauthorized", "message": exc.message, "value": None}
                refusal = JSONResponse(body, 401, headers={"WWW-Authenticate": "Bearer"})
                await refusal(scope, receive, send)
                return
        scope.setdefault("state", {})["principal"] = caller
        await self.app(scope, receive, send)
