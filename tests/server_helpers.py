"""A real mnemotree HTTP server on 127.0.0.1 (uvicorn in a thread) for tests."""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from fastapi import FastAPI

from mnemotree import Memory
from mnemotree.server import create_app


@dataclass
class Served:
    url: str
    memory: Memory
    app: FastAPI
    keys: dict[str, str] = field(default_factory=dict)  # name -> key

    def client(self, key: str | None = None) -> httpx.Client:
        headers = {"authorization": f"Bearer {key}"} if key else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=30)

    def as_(self, name: str) -> httpx.Client:
        return self.client(self.keys[name])


@contextmanager
def serving(db: Path, keys: Mapping[str, Sequence[str] | str], **options: Any) -> Iterator[Served]:
    """Serve `db` with keys made for {name: scopes}; stops the server after."""
    memory = Memory(db, embedder="hashing")
    made = {name: memory.keys.create(scopes, name=name)[1] for name, scopes in keys.items()}
    app = create_app(memory, **options)
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield Served(f"http://127.0.0.1:{port}", memory, app, made)
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        memory.close()


def wait_until_serving(server: subprocess.Popen[bytes], url: str) -> None:
    """Block until a `mnemotree serve` process answers /health at `url`; an
    AssertionError with its stderr if it exits or takes a minute."""
    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx.get(f"{url}/health").status_code == 200:
                return
        except httpx.TransportError:
            pass
        if server.poll() is not None or time.monotonic() > deadline:
            error = server.stderr.read().decode() if server.stderr else ""
            raise AssertionError(f"mnemotree serve did not start on {url}: {error}")
        time.sleep(0.1)
