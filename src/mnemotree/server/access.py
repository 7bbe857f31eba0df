"""Who is asking and what they may reach: the request's API key and its scopes."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from fastapi import Request
from fastapi.responses import JSONResponse
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from .. import (
    DEFAULT_SCOPE,
    EVERY_SCOPE,
    InvalidInput,
    KeyRow,
    Memory,
    Node,
    NotFound,
    ScopeDenied,
    Unauthorized,
    allowed_scopes,
    clean_scope,
    clean_scopes,
)
from .gateway import Gateway


class Scoped(Protocol):
    """What a scope check needs of a node (or a session, a contradiction)."""

    @property
    def id(self) -> str: ...
    @property
    def scope(self) -> str: ...


N = TypeVar("N", bound=Scoped)


@dataclass(frozen=True)
class Principal:
    """The caller: a key, or None when the server runs without authentication.
    `shared` are the scopes every key may read (declared with `share_scope`).

    What lies outside the caller's reach is answered exactly as what does not
    exist: a 404 that names nothing but the id the caller sent."""

    key: KeyRow | None
    shared: frozenset[str] = frozenset()

    @property
    def every_scope(self) -> bool:
        return self.key is None or self.key.scopes == (EVERY_SCOPE,)

    def can_read(self, scope: str) -> bool:
        return self.every_scope or scope in self.shared or scope in self.key_scopes

    @property
    def key_scopes(self) -> tuple[str, ...]:
        """The key's own scopes (empty without a key)."""
        return () if self.key is None else self.key.scopes

    def read_scopes(self, asked: Sequence[str] | None) -> tuple[str, ...] | None:
        """The scopes a read covers (None: every scope, for an unrestricted caller)."""
        if self.key is None:
            return clean_scopes(asked) or None
        if not asked or self.every_scope:
            return allowed_scopes(self.key, asked)
        chosen = tuple(dict.fromkeys(clean_scopes(asked) or ()))
        allowed_scopes(self.key, [s for s in chosen if s not in self.shared] or None)
        return chosen

    def write_scope(self, scope: str | None) -> str:
        """The scope a write goes to: the one named, or the key's only scope.
        A shared scope is readable by every key, writable only by its own."""
        if scope is not None:
            chosen = clean_scope(scope)
            if self.key is not None:
                allowed_scopes(self.key, [chosen])
            return chosen
        if self.key is None or self.every_scope:
            return DEFAULT_SCOPE
        if len(self.key.scopes) == 1:
            return self.key.scopes[0]
        raise InvalidInput(
            f"name the scope to write to: this key reaches {list(self.key.scopes)}", None
        )

    def check(self, node: N, what: str = "node") -> N:
        """`node` if its scope is readable; otherwise NotFound, worded as for
        an id that does not exist."""
        if not self.can_read(node.scope):
            raise NotFound(f"no {what} with id {node.id!r}", node.id)
        return node

    def check_write(self, node: N, what: str = "node") -> N:
        """`node` if the caller may change it (its scope is the key's own)."""
        self.check(node, what)
        if not self.every_scope and node.scope not in self.key_scopes:
            raise ScopeDenied(
                f"{what} {node.id} is read-only for this key (a shared scope)", node.id
            )
        return node

    def readable(self) -> tuple[str, ...] | None:
        """The scopes this caller reads: its key's and the shared ones (None: all)."""
        return None if self.every_scope else (*self.key_scopes, *sorted(self.shared))

    def visible(self, nodes: Iterable[N]) -> list[N]:
        return [n for n in nodes if self.can_read(n.scope)]

    def shown(self, memory: Memory, nodes: Sequence[Node]) -> list[dict[str, Any]]:
        """The nodes as JSON objects, with `parent_id` and `root_id` null where
        they name a node out of reach (a legacy parent in an unshared scope)."""
        shown = [n.to_dict() for n in nodes]
        if self.every_scope:
            return shown
        known = {n.id: n.scope for n in nodes}
        refs = {r for n in nodes for r in (n.parent_id, n.root_id) if r and r not in known}
        known.update((n.id, n.scope) for n in memory.nodes(sorted(refs)))
        for item in shown:
            for name in ("parent_id", "root_id"):
                ref = item.get(name)
                if ref is not None and not self.can_read(known.get(ref, "")):
                    item[name] = None
        return shown

    def one(self, memory: Memory, node: Node) -> dict[str, Any]:
        return self.shown(memory, [node])[0]

    def require_every(self, what: str) -> None:
        if not self.every_scope:
            raise ScopeDenied(
                f"{what} reaches every scope: it needs a key made with --scopes '*'",
                list(self.key.scopes) if self.key else None,
            )


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
    who = await _caller(gateway, presented)
    request.state.principal = who  # for the request's log line
    return who


async def _caller(gateway: Gateway, presented: str | None) -> Principal:
    """The Principal for a presented key (Unauthorized if it is not live): a
    key verified in the last seconds without leaving the event loop."""
    found = gateway.memory.keys.cached(presented)
    if found is None:
        found = await gateway.read(lambda m: m.keys.check(presented))
    return Principal(*found)


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
        who = Principal(None)
        if self.auth:
            presented = bearer(Headers(scope=scope))
            try:
                who = await _caller(self.gateway, presented)
            except Unauthorized as exc:
                body = {"error": "Unauthorized", "message": exc.message, "value": None}
                refusal = JSONResponse(body, 401, headers={"WWW-Authenticate": "Bearer"})
                await refusal(scope, receive, send)
                return
        scope.setdefault("state", {})["principal"] = who
        await self.app(scope, receive, send)


def purge_for(
    caller: Principal,
    m: Memory,
    *,
    ids: Sequence[str] = (),
    scope: str | None = None,
    subject: str | None = None,
    query: str | None = None,
    scopes: Sequence[str] | None = None,
    dry_run: bool = True,
    everything: bool = False,
) -> dict[str, Any]:
    """`Memory.purge` for a caller: a scope must be the key's own, a subject
    is looked for only in the key's scopes, and every memory a purge selects
    must be one the key may change (else nothing is erased). A query is
    searched in the key's scopes too."""
    if scope is not None and not caller.every_scope:
        caller.check_write(_ScopeOnly.of(scope), "scope")
    if (subject is not None or query is not None) and not caller.every_scope:
        scopes = [s for s in (scopes or caller.key_scopes) if s in caller.key_scopes]
    key_id = caller.key.id if caller.key is not None else ""
    report = m.purge(
        list(ids),
        scope=scope,
        subject=subject,
        query=query,
        scopes=scopes,
        dry_run=dry_run,
        everything=everything,
        key_id=key_id,
        allowed=caller.check_write,
    )
    return report.to_dict()


def delete_for(caller: Principal, m: Memory, node_id: str) -> int:
    """`Memory.delete` for a caller: the node must be one the key may change,
    and so must everything under it (a shared scope's node may hold other
    scopes' nodes, which this key cannot even see)."""
    caller.check_write(m.get(node_id))
    if not caller.every_scope and any(
        n.scope not in caller.key_scopes for n in m.serialize(node_id, "include")
    ):
        raise ScopeDenied(
            f"node {node_id} has descendants outside this key's scopes; delete them first, "
            "or use a key with --scopes '*'",
            node_id,
        )
    return m.delete(node_id)


@dataclass(frozen=True)
class _ScopeOnly:
    """A scope asked for by name, checked as a node of it would be."""

    id: str
    scope: str

    @classmethod
    def of(cls, scope: str) -> _ScopeOnly:
        return cls(scope, scope)
