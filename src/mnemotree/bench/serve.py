"""The HTTP API under load: `mnemotree serve` in its own process on loopback,
N concurrent clients (one connection each) for S seconds, each looping over a
mix of searches (70%), remembers (20%) and context assemblies (10%) in their
key's scope. Reports requests/s, latency percentiles per kind and every
non-2xx answer or transport error (the target: none)."""

from __future__ import annotations

import asyncio
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from ..memory import Memory
from ..model import NewNode
from .scale import corpus
from .stats import percentiles


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def run(
    clients: int, seconds: float, n: int, embedder: str, progress: Callable[[str], None]
) -> dict[str, Any]:
    texts = corpus(n + 10_000)
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "serve.db"
        with Memory(db, embedder=embedder) as memory:
            space = memory.add("Memories", context_type="space", context_value="kb", scope="kb")
            for begin in range(0, n, 5000):
                batch = [NewNode(t, scope="kb") for t in texts[begin : begin + 5000]]
                memory.append_many(space.id, batch)
            progress(f"wrote {n:,} memories; embedding…")
            memory.flush()
            memory.prepare_index()
            key = memory.create_key("kb", name="bench")[1]
        port = _free_port()
        env = {**os.environ, "MNEMOTREE_EMBEDDER": embedder}
        server = subprocess.Popen(
            [sys.executable, "-m", "mnemotree", "--db", str(db), "serve", "--port", str(port)],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )  # fmt: skip
        try:
            url = f"http://127.0.0.1:{port}"
            _wait(url, server)
            progress(f"{clients} clients for {seconds:.0f} s…")
            found = asyncio.run(_load(url, key, clients, seconds, texts[n:]))
        finally:
            server.terminate()
            server.wait(timeout=30)
    latencies: dict[str, list[float]] = found["latencies"]
    every = [x for values in latencies.values() for x in values]
    return {
        "clients": clients, "seconds": seconds, "memories": n, "embedder": embedder,
        "requests": len(every), "requests_per_s": round(len(every) / found["elapsed"], 1),
        "latency_ms": percentiles(every) if every else None,
        "by_kind": {
            kind: {"requests": len(v), **percentiles(v)} for kind, v in sorted(latencies.items())
        },
        "errors": found["errors"],
    }  # fmt: skip


def _wait(url: str, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if server.poll() is not None:
            said = server.stderr.read().decode() if server.stderr else ""
            raise RuntimeError(f"the server exited: {said}")
        try:
            if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise RuntimeError("the server did not answer /health within 120 s")


async def _load(
    url: str, key: str, clients: int, seconds: float, texts: list[str]
) -> dict[str, Any]:
    latencies: dict[str, list[float]] = defaultdict(list)
    errors: dict[str, int] = defaultdict(int)
    stop = time.monotonic() + seconds

    async def client(number: int) -> None:
        rng = random.Random(number)
        headers = {"authorization": f"Bearer {key}"}
        async with httpx.AsyncClient(base_url=url, headers=headers, timeout=60) as http:
            while time.monotonic() < stop:
                roll = rng.random()
                text = rng.choice(texts)
                body: dict[str, Any]
                if roll < 0.7:
                    kind, path, body = "search", "/search", {"query": " ".join(text.split()[:4])}
                elif roll < 0.9:
                    kind, path, body = "remember", "/remember", {"text": text}
                else:
                    kind, path, body = "context", "/context/assemble", {
                        "query": " ".join(text.split()[:4]), "budget": 2000}  # fmt: skip
                started = time.perf_counter()
                try:
                    response = await http.post(path, json=body)
                except httpx.TransportError as exc:
                    errors[f"{kind}: {type(exc).__name__}"] += 1
                    continue
                latencies[kind].append((time.perf_counter() - started) * 1000)
                if response.status_code >= 300:
                    errors[f"{kind}: {response.status_code}"] += 1

    started = time.monotonic()
    await asyncio.gather(*(client(i) for i in range(clients)))
    return {"latencies": latencies, "errors": dict(errors), "elapsed": time.monotonic() - started}
