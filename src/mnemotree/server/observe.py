"""What the server does, for the one running it: one log line per request
(`mnemotree.access`, JSON: method, route, status, milliseconds, the key's id
and never the key), and `/metrics` in Prometheus' text format."""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import Counter
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import PlainTextResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .. import DURATION_BUCKETS, Histogram, Histograms, Memory, operation_durations
from .access import Principal, principal
from .gateway import Gateway

log = logging.getLogger("mnemotree.access")
router = APIRouter()


class _Lines(logging.StreamHandler):  # type: ignore[type-arg]
    """The request log's own handler: one line, the message alone."""


def log_requests(stream: Any = None) -> None:
    """Write the request log lines to `stream` (default stderr), once."""
    if not any(isinstance(h, _Lines) for h in log.handlers):
        handler = _Lines(stream)
        handler.setFormatter(logging.Formatter("%(message)s"))
        log.addHandler(handler)
    log.setLevel(logging.INFO)
    log.propagate = False


class Requests:
    """Requests answered by (method, route, status) and their durations by route."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.answered: Counter[tuple[str, str, int]] = Counter()
        self.durations = Histograms()

    def add(self, method: str, route: str, status: int, seconds: float) -> None:
        with self._lock:
            self.answered[(method, route, status)] += 1
        self.durations.add(route, seconds)

    def counts(self) -> list[tuple[tuple[str, str, int], int]]:
        with self._lock:
            return sorted(self.answered.items())


class Observed:
    """ASGI middleware: times each request, counts it, and logs one line."""

    def __init__(self, app: ASGIApp, requests: Requests) -> None:
        self.app = app
        self.requests = requests

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500  # unless a response starts
        done = False

        def record() -> None:
            nonlocal done
            if not done:
                done = True
                self._record(scope, status, time.perf_counter() - started)

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            elif message["type"] == "http.response.body" and not message.get("more_body"):
                record()  # before the last bytes go: a client's next request sees it
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            record()

    def _record(self, scope: Scope, status: int, seconds: float) -> None:
        route = _route(scope)
        self.requests.add(scope["method"], route, status, seconds)
        line = {
            "method": scope["method"],
            "route": route,
            "status": status,
            "ms": round(seconds * 1000, 2),
            "key": _key_id(scope),
        }
        log.info(json.dumps(line))


def _route(scope: Scope) -> str:
    """The matched route's template (`/nodes/{node_id}`), never the raw path:
    ids and unknown paths would make a label per request."""
    route = scope.get("route")
    path = getattr(route, "path", None)
    if isinstance(path, str) and path:
        return path
    return "/mcp" if scope.get("path") == "/mcp" else "unmatched"


def _key_id(scope: Scope) -> str | None:
    who = scope.get("state", {}).get("principal")
    return who.key.id if isinstance(who, Principal) and who.key is not None else None


@router.get("/metrics", tags=["service"], response_class=PlainTextResponse)
async def metrics(
    request: Request, caller: Annotated[Principal, Depends(principal)]
) -> PlainTextResponse:
    """The server's figures in Prometheus' text format (a key for every scope):
    requests and their latency by route, operation latencies (search,
    context, ingest, consolidate, llm), queues and the database's size."""
    caller.require_every("/metrics")
    gateway: Gateway = request.app.state.gateway
    requests: Requests = request.app.state.requests
    gauges = await gateway.read(_gauges)
    lines = [*_request_lines(requests), *_operation_lines(), *_gauge_lines(gauges)]
    return PlainTextResponse("\n".join(lines) + "\n", media_type="text/plain; version=0.0.4")


def _gauges(m: Memory) -> dict[str, tuple[str, float]]:
    stats = m.stats()
    return {
        "mnemotree_nodes": ("Nodes in the memory.", stats.nodes),
        "mnemotree_database_bytes": ("Size of the database.", stats.size_bytes),
        "mnemotree_vectors_pending": ("Nodes waiting for their vector.", m.pending_vectors()),
        "mnemotree_chat_upkeep_pending": (
            "Chat sessions waiting for their summaries and captures.",
            m.chat.upkeep_pending(),
        ),
    }


def _request_lines(requests: Requests) -> list[str]:
    lines = [
        "# HELP mnemotree_requests_total HTTP requests answered, by method, route and status.",
        "# TYPE mnemotree_requests_total counter",
    ]
    for (method, route, status), count in requests.counts():
        labels = _labels(method=method, route=route, status=str(status))
        lines.append(f"mnemotree_requests_total{{{labels}}} {count}")
    lines += [
        "# HELP mnemotree_request_seconds Time to answer a request, by route.",
        "# TYPE mnemotree_request_seconds histogram",
    ]
    for route, histogram in requests.durations.snapshot().items():
        lines += _histogram("mnemotree_request_seconds", _labels(route=route), histogram)
    return lines


def _operation_lines() -> list[str]:
    lines = [
        "# HELP mnemotree_operation_seconds Time an operation took in this process "
        "(search, context, ingest, consolidate, llm).",
        "# TYPE mnemotree_operation_seconds histogram",
    ]
    for name, histogram in operation_durations().items():
        lines += _histogram("mnemotree_operation_seconds", _labels(operation=name), histogram)
    return lines


def _gauge_lines(gauges: dict[str, tuple[str, float]]) -> list[str]:
    lines: list[str] = []
    for name, (help_text, value) in gauges.items():
        lines += [f"# HELP {name} {help_text}", f"# TYPE {name} gauge", f"{name} {value:g}"]
    return lines


def _histogram(name: str, labels: str, h: Histogram) -> list[str]:
    out = [
        f'{name}_bucket{{{labels},le="{bound:g}"}} {count}'
        for bound, count in zip(DURATION_BUCKETS, h.counts, strict=True)
    ]
    out.append(f'{name}_bucket{{{labels},le="+Inf"}} {h.count}')
    out.append(f"{name}_sum{{{labels}}} {h.total:.6f}")
    out.append(f"{name}_count{{{labels}}} {h.count}")
    return out


def _labels(**values: Any) -> str:
    return ",".join(f'{k}="{_escaped(str(v))}"' for k, v in values.items())


def _escaped(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
