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
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from ..memory import Memory
from ..model import NewNode
from .loadclient import LoadConnection
from .scale import corpus
from .stats import percentiles


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def run(
    clients: int,
    seconds: float,
    n: int,
    embedder: str,
    progress: Callable[[str], None],
    workers: int = 1,
    location: str | None = None,
    servers: int = 1,
) -> dict[str, Any]:
    """The mixed load for `seconds`, then a search-only load for a third of it,
    whose server CPU per request is set beside the same searches in process.
    `servers` separate serve processes share the database (`location`, else
    a temporary SQLite file), the clients spread evenly over them."""
    texts = corpus(n + 10_000)
    with tempfile.TemporaryDirectory() as tmp:
        db = location or str(Path(tmp) / "serve.db")
        key = _prepare(db, texts[:n], embedder, progress)
        with _serving(db, embedder, workers, servers) as (urls, pids):
            progress(f"{clients} clients for {seconds:.0f} s…")
            mixed = _measured(pids, _load(urls, key, clients, seconds, texts[n:]))
            progress("searches only…")
            searches = _measured(pids, _load(urls, key, clients, seconds / 3, texts[n:], 1.0))
        progress("the same searches in process…")
        in_process = _in_process(db, embedder, texts[n:])
    figures = _figures(mixed)
    figures.update(clients=clients, seconds=seconds, memories=n, embedder=embedder, workers=workers)
    figures.update(servers=servers, store="postgres" if db.startswith("postgres") else "sqlite")
    figures["search_only"] = _figures(searches)
    figures["search_in_process_cpu_ms"] = in_process
    return figures


def _prepare(db: str, texts: list[str], embedder: str, progress: Callable[[str], None]) -> str:
    """The database the server will serve, with every vector computed; a key."""
    with Memory(db, embedder=embedder) as memory:
        space = memory.add("Memories", context_type="space", context_value="kb", scope="kb")
        for begin in range(0, len(texts), 5000):
            batch = [NewNode(t, scope="kb") for t in texts[begin : begin + 5000]]
            memory.append_many(space.id, batch)
        progress(f"wrote {len(texts):,} memories; embedding…")
        memory.flush()
        memory.prepare_index()
        return memory.keys.create("kb", name="bench")[1]


@contextmanager
def _serving(
    db: str, embedder: str, workers: int, servers: int
) -> Iterator[tuple[list[str], list[int]]]:
    """`servers` `mnemotree serve` processes on free loopback ports."""
    env = {**os.environ, "MNEMOTREE_EMBEDDER": embedder}
    started: list[tuple[str, subprocess.Popen[bytes]]] = []
    try:
        for _ in range(servers):
            port = _free_port()
            command = [sys.executable, "-m", "mnemotree", "--db", db, "serve"]
            server = subprocess.Popen(
                [*command, "--port", str(port), "--workers", str(workers)],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
            started.append((f"http://127.0.0.1:{port}", server))
        for url, server in started:
            _wait(url, server)
        yield [u for u, _ in started], [s.pid for _, s in started]
    finally:
        for _, server in started:
            server.terminate()
            server.wait(timeout=30)


def _measured(pids: list[int], load: Coroutine[Any, Any, dict[str, Any]]) -> dict[str, Any]:
    """Run `load`, adding the servers' CPU seconds over it (Postgres's own
    processes not counted)."""
    before = sum(_cpu_seconds(p) for p in pids)
    found = asyncio.run(load)
    found["server_cpu"] = sum(_cpu_seconds(p) for p in pids) - before
    return found


def _cpu_seconds(pid: int) -> float:
    """User + system CPU of a process and its children (workers), from /proc."""
    total, tick = 0.0, os.sysconf("SC_CLK_TCK")
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # a process that ended meanwhile
        if int(stat.parent.name) == pid or int(fields[1]) == pid:
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


def _figures(found: dict[str, Any]) -> dict[str, Any]:
    latencies: dict[str, list[float]] = found["latencies"]
    every = [x for values in latencies.values() for x in values]
    count = max(1, len(every))
    return {
        "requests": len(every),
        "requests_per_s": round(len(every) / found["elapsed"], 1),
        "latency_ms": percentiles(every) if every else None,
        "by_kind": {
            kind: {"requests": len(v), **percentiles(v)} for kind, v in sorted(latencies.items())
        },
        "server_cpu_ms_per_request": round(found["server_cpu"] * 1000 / count, 2),
        "client_cpu_ms_per_request": round(found["client_cpu"] * 1000 / count, 2),
        "errors": found["errors"],
    }


def _in_process(db: str, embedder: str, texts: list[str], count: int = 300) -> float:
    """CPU milliseconds of one search through `Memory`, the load's queries."""
    rng = random.Random(7)
    queries = [_request(rng, texts, 1.0)[2]["query"] for _ in range(count + 20)]
    with Memory(db, embedder=embedder) as memory:
        for query in queries[:20]:  # warm: the model and the index load
            memory.search(query, scopes=["kb"])
        cpu = time.process_time()
        for query in queries[20:]:
            memory.search(query, scopes=["kb"])
        return round((time.process_time() - cpu) * 1000 / count, 2)


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
    urls: list[str],
    key: str,
    clients: int,
    seconds: float,
    texts: list[str],
    searches: float = 0.7,
) -> dict[str, Any]:
    latencies: dict[str, list[float]] = defaultdict(list)
    errors: dict[str, int] = defaultdict(int)
    stop = time.monotonic() + seconds

    async def client(number: int) -> None:
        rng = random.Random(number)
        host, _, port = urls[number % len(urls)].removeprefix("http://").partition(":")
        http = LoadConnection(host, int(port), {"authorization": f"Bearer {key}"})
        while time.monotonic() < stop:
            kind, path, body = _request(rng, texts, searches)
            started = time.perf_counter()
            try:
                status, _ = await http.post(path, body)
            except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
                errors[f"{kind}: {type(exc).__name__}"] += 1
                continue
            latencies[kind].append((time.perf_counter() - started) * 1000)
            if status >= 300:
                errors[f"{kind}: {status}"] += 1
        await http.close()

    started = time.monotonic()
    cpu = time.process_time()
    await asyncio.gather(*(client(i) for i in range(clients)))
    return {
        "latencies": latencies,
        "errors": dict(errors),
        "elapsed": time.monotonic() - started,
        "client_cpu": time.process_time() - cpu,
    }


def _request(
    rng: random.Random, texts: list[str], searches: float
) -> tuple[str, str, dict[str, Any]]:
    """`searches` of the requests search; of the rest, two thirds remember and
    one third assemble a context; texts the corpus did not hold."""
    roll, text = rng.random(), rng.choice(texts)
    query = " ".join(text.split()[:4])
    if roll < searches:
        return "search", "/search", {"query": query}
    if roll < searches + (1 - searches) * 2 / 3:
        return "remember", "/remember", {"text": text}
    return "context", "/context/assemble", {"query": query, "budget": 2000}
