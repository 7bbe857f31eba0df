"""The Python clients against a real `serve` (uvicorn on 127.0.0.1, real
keys): the facade's verbs over HTTP with the facade's errors; and
AsyncMemory, the facade's verbs awaited."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from mnemotree import (
    AsyncClient,
    AsyncMemory,
    Client,
    InvalidInput,
    NotFound,
    ProviderError,
    Unauthorized,
)
from tests.server_helpers import Served, serving

KEYS = {"team": "team", "admin": "*"}


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    with serving(tmp_path / "m.db", KEYS) as s:
        yield s


def test_the_client_speaks_the_facades_verbs(served: Served) -> None:
    with Client(served.url, key=served.keys["team"]) as memory:
        assert memory.health()["status"] == "ok"
        first = memory.remember("Alice lives in Berlin")
        assert first.scope == "team" and first.text == "Alice lives in Berlin"
        memory.remember("Alice moved to Munich")  # an update of the same thing
        hits = memory.search("where does Alice live", limit=3)
        assert hits and hits[0].text == "Alice moved to Munich" and hits[0].scope == "team"
        context = memory.context("Alice", budget=200)
        assert "Munich" in context.text and context.token_count <= 200
        assert set(context.refs.values()) <= {h.id for h in memory.search("Alice", limit=10)}
        project = memory.add("Project log")
        child = memory.add("Kick-off held", parent=project.id)
        assert [n.id for n in memory.children(project.id)] == [child.id]
        fixed = memory.update(child.id, "Kick-off held on Monday")
        assert memory.get(child.id) == fixed and fixed.version == 2
        assert memory.delete(project.id) == 2
        fact = memory.fact("office_city", "Lisbon")
        assert fact.context_type == "fact"
        plan = memory.purge([fact.id])
        assert plan["dry_run"] and plan["node_ids"] == [fact.id]


def test_the_clients_raise_the_facades_errors(served: Served) -> None:
    with Client(served.url, key=served.keys["team"]) as memory:
        with pytest.raises(NotFound, match="01NOSUCHNODE"):
            memory.get("01NOSUCHNODE0000000000000")
        with pytest.raises(InvalidInput, match="limit"):
            memory.search("x", limit=0)
    with Client(served.url, key="mt_not_a_key") as stranger, pytest.raises(Unauthorized):
        stranger.search("anything")
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with (
        Client(f"http://127.0.0.1:{port}") as nowhere,
        pytest.raises(ProviderError, match=str(port)),
    ):
        nowhere.health()
    with (
        _web_page() as url,
        Client(url) as elsewhere,
        pytest.raises(ProviderError, match="mnemotree server"),
    ):
        elsewhere.health()  # an ordinary web server answers in HTML


@contextmanager
def _web_page() -> Iterator[str]:
    """A web server that is not mnemotree: every path answers a small HTML page."""

    class Page(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = b"<html><body>Welcome</body></html>"
            self.send_response(200)
            self.send_header("content-type", "text/html")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_the_async_client_awaits_the_same_verbs(served: Served) -> None:
    async def main() -> tuple[str, list[str]]:
        async with AsyncClient(served.url, key=served.keys["team"]) as memory:
            made = await memory.remember("Bob prefers green tea")
            found = await asyncio.gather(
                memory.search("what does Bob drink"), memory.search("green tea")
            )
            with pytest.raises(NotFound):
                await memory.get("01NOSUCHNODE0000000000000")
            return made.id, [hits[0].id for hits in found]

    made, firsts = asyncio.run(main())
    assert firsts == [made, made]


def test_async_memory_awaits_the_facade(tmp_path: Path) -> None:
    async def main() -> tuple[str, str, int]:
        async with AsyncMemory(tmp_path / "m.db", embedder="hashing") as mem:
            node = await mem.remember("Carol runs the Friday deploys")
            hits, context = await asyncio.gather(
                mem.search("who deploys on Friday"), mem.context("deploys", budget=100)
            )
            with pytest.raises(NotFound):
                await mem.get("01NOSUCHNODE0000000000000")
            return node.id, hits[0].node.id, context.token_count

    made, first, tokens = asyncio.run(main())
    assert first == made and 0 < tokens <= 100
