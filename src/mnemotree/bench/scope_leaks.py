"""The scope-leak campaign: random requests over every route and MCP tool,
with keys of different scopes, against a world built to tempt leaks.

A response leaks when it carries a token (text), a node id or a scope name of
a scope the key cannot read, unless the request itself carried that string
(an echo of the caller's own words is not a leak). Writes are part of the
mix: every text written carries the token of the scope it is written to.
"""

from __future__ import annotations

import json
import random
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InvalidInput, NotFound
from ..memory import Memory
from . import scope_world as sw
from .scope_routes import ROUTES, Call, Ctx

# A '*' key reads everything, so it cannot leak; it only builds the world.
PLAYERS = [name for name, reach in sw.KEYS.items() if reach != "*"]


@dataclass
class Leak:
    key: str
    route: str
    status: int
    found: str
    request: str


@dataclass
class Report:
    requests: int = 0
    by_route: Counter[str] = field(default_factory=Counter)
    statuses: Counter[int] = field(default_factory=Counter)
    leaks: list[Leak] = field(default_factory=list)
    server_errors: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "routes": len(self.by_route),
            "leaks": len(self.leaks),
            "server_errors": len(self.server_errors),
            "statuses": {str(k): v for k, v in sorted(self.statuses.items())},
            "seconds": round(self.seconds, 1),
            "examples": [leak.__dict__ for leak in self.leaks[:10]],
            "errors": self.server_errors[:10],
        }


def run(requests: int, seed: int = 0, progress: Callable[[int], None] | None = None) -> Report:
    """`requests` random requests (HTTP routes and MCP tools) in a fresh world."""
    from fastapi.testclient import TestClient

    from ..server import create_app

    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        memory = Memory(Path(tmp) / "leaks.db", embedder="hashing")
        try:
            world = sw.build(memory, rng)
            keys = {name: memory.keys.create(s, name=name)[1] for name, s in sw.KEYS.items()}
            app = create_app(memory)
            report = Report()
            started = time.perf_counter()
            # MCP's transport checks the Host against the served loopback address.
            with TestClient(app, base_url="http://127.0.0.1:8765") as client:
                ctx = Ctx(client, keys, world, memory, rng)
                for done in range(requests):
                    _one(ctx, report)
                    if progress is not None and done % 100 == 99:
                        progress(done + 1)
            report.seconds = time.perf_counter() - started
            return report
        finally:
            memory.close()


def _one(ctx: Ctx, report: Report) -> None:
    name, route = ctx.rng.choice(ROUTES)
    key = ctx.rng.choice(PLAYERS)
    call = route(ctx, key)
    status, body = call.send(ctx, key)
    report.requests += 1
    report.by_route[name] += 1
    report.statuses[status] += 1
    if status >= 500:
        report.server_errors.append(f"{name} {status} {body[:300]}")
    for found in _foreign(ctx, key, call, body):
        report.leaks.append(Leak(key, name, status, found, call.shown()[:300]))
    call.after(ctx, status, body)


def _foreign(ctx: Ctx, key: str, call: Call, body: str) -> list[str]:
    """Strings in `body` from scopes `key` cannot read, not echoed from the request."""
    sent = call.shown()
    readable = _readable(key)
    found = [
        m.group(0)
        for m in sw.TOKEN.finditer(body)
        if sw.SCOPES[m.group(1)] not in readable and m.group(0) not in sent
    ]
    found += [s for s in set(sw.SCOPE_NAME.findall(body)) if s not in readable and s not in sent]
    for node_id in set(sw.ULID.findall(body)) - set(sw.ULID.findall(sent)):
        scope = _scope_of(ctx.memory, node_id)
        if scope is not None and scope not in readable:
            found.append(f"{node_id} ({scope})")
    return found


def _readable(key: str) -> set[str]:
    reach = sw.KEYS[key]
    own = set(sw.SCOPES.values()) if reach == "*" else set(reach.split(","))
    return own | {sw.SHARED}


def _scope_of(memory: Memory, node_id: str) -> str | None:
    """The scope a node id has, or had (a deleted node: its last version)."""
    node = memory.find(node_id)
    if node is not None:
        return node.scope
    try:
        versions = memory.history(node_id)
    except NotFound:
        versions = []
    if versions:
        return versions[-1].node.scope
    try:
        return memory.consolidation.contradiction(node_id).scope
    except (NotFound, InvalidInput):
        return None


def dumps(report: Report) -> str:
    return json.dumps(report.to_dict(), indent=2)
