"""Writers beside a searcher, each in its own OS process (issue 27).

`run`: W writer processes write for S seconds as CLI invocations would (a
fresh `Memory` per write; `cli_writers` of them really run `mnemotree
remember` in a subprocess per write) while one searcher process searches
in a loop. A write is acknowledged when `remember` returned (or the CLI
exited 0 with the node's JSON); afterwards every acknowledged write must be
in the database. Reports writes attempted / acknowledged / found (lost =
acknowledged but missing), lock errors, and the searcher's latencies.
Targets: no lost writes, no lock errors, search p95 within 100 ms.

`run_kill`: a writer (single remembers), a bulk loader (`append_many`) or an
embedding flush is killed with SIGKILL at a random moment, N times; after
each kill the file passes SQLite's integrity check and FTS5's, and every
acknowledged write is present.
"""

from __future__ import annotations

import json
import multiprocessing
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from multiprocessing.synchronize import Event
from pathlib import Path
from typing import Any

from ..errors import MnemotreeError, StorageError
from ..memory import Memory
from ..model import NewNode
from ..store.sqlite import SQLiteStore
from .scale import corpus

FTS_TABLE = "nodes_fts"  # store/sqlite/migrations.py
_SPAWN = multiprocessing.get_context("spawn")  # no forked threads (model, SQLite)
_READY_SECONDS = 180  # for every process to import and open the database


def seed(db: Path, n: int, embedder: str) -> None:
    """`n` memories in the default scope's space, embedded, the index built."""
    with Memory(db, embedder=embedder) as memory:
        space = memory.remember("Seeded memories for the writers benchmark").parent_id
        assert space is not None  # a remembered memory sits in its scope's space
        texts = corpus(n)
        for begin in range(0, n, 5000):
            memory.append_many(space, [NewNode(t, "memory") for t in texts[begin : begin + 5000]])
        memory.flush()
        memory.prepare_index()


def run(
    seconds: float = 60.0,
    n: int = 2000,
    embedder: str = "minilm",
    writers: int = 4,
    cli_writers: int = 1,
    worker: bool = False,
    progress: Callable[[str], None] = lambda _: None,
) -> dict[str, Any]:
    """W writers (`cli_writers` of them through the CLI) and one searcher
    (with a background embedding worker if `worker`) for `seconds`."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        db = folder / "writers.db"
        progress(f"seeding {n:,} memories ({embedder})…")
        seed(db, n, embedder)
        roles = ["cli" if i < cli_writers else "api" for i in range(writers)]
        progress(
            f"{writers} writers ({cli_writers} through the CLI) and a searcher for {seconds:g} s…"
        )
        go = _SPAWN.Event()
        common = (str(db), embedder)
        procs = [
            _SPAWN.Process(target=_writer, args=(*common, role, i, seconds, str(folder), go))
            for i, role in enumerate(roles)
        ]
        procs.append(
            _SPAWN.Process(target=_searcher, args=(*common, worker, seconds, str(folder), go))
        )
        _start_together(procs, folder, go)
        for proc in procs:
            proc.join()
        return _report(db, folder, embedder, seconds, n, roles, worker)


def _start_together(procs: list[Any], folder: Path, go: Event) -> None:
    """Start every process, wait until each has opened the database, then go."""
    for proc in procs:
        proc.start()
    deadline = time.monotonic() + _READY_SECONDS
    while len(list(folder.glob("ready-*"))) < len(procs):
        if time.monotonic() > deadline or any(p.exitcode not in (None, 0) for p in procs):
            for proc in procs:
                proc.kill()
            raise StorageError(f"benchmark processes did not start: {procs}", str(folder))
        time.sleep(0.05)
    go.set()


def _ready(folder: Path, name: str) -> None:
    (folder / f"ready-{name}").touch()


def _writer(
    db: str, embedder: str, role: str, number: int, seconds: float, out: str, go: Event
) -> None:
    """Write until `seconds` have passed: one `remember` per fresh `Memory`
    (or per `mnemotree remember` process). Acknowledged ids go to a file
    line by line, so a killed writer's acknowledgements survive it."""
    folder = Path(out)
    texts = corpus(2000, seed=100 + number)
    with Memory(db, embedder=embedder) as memory:
        # Loaded once per process (the tokenizer is shared), as in a long-lived
        # writer; a CLI writer loads it in every write, before taking the lock.
        memory.tokenizer.count("warm up")
    _ready(folder, f"w{number}")
    go.wait()
    tally: dict[str, Any] = {
        "role": role,
        "attempted": 0,
        "locked": 0,
        "errors": {},
        "latencies": [],
    }
    stop = time.monotonic() + seconds
    with (folder / f"acks-{number}.txt").open("a", buffering=1, encoding="utf-8") as acks:
        while time.monotonic() < stop:
            text = f"w{number}n{tally['attempted']} {texts[tally['attempted'] % len(texts)]}"
            tally["attempted"] += 1
            started = time.perf_counter()
            node_id, error = (
                _cli_write(db, embedder, text) if role == "cli" else _api_write(db, embedder, text)
            )
            tally["latencies"].append((time.perf_counter() - started) * 1000)
            if node_id is not None:
                acks.write(f"{node_id}\t{text.split()[0]}\n")
            elif error is not None:
                tally["locked"] += "locked" in error
                tally["errors"][error[:160]] = tally["errors"].get(error[:160], 0) + 1
    (folder / f"tally-{number}.json").write_text(json.dumps(tally), encoding="utf-8")


def _api_write(db: str, embedder: str, text: str) -> tuple[str | None, str | None]:
    try:
        with Memory(db, embedder=embedder) as memory:
            return memory.remember(text).id, None
    except MnemotreeError as exc:
        return None, f"{type(exc).__name__}: {exc}"


def _cli_write(db: str, embedder: str, text: str) -> tuple[str | None, str | None]:
    command = [
        sys.executable,
        "-m",
        "mnemotree",
        "--db",
        db,
        "--embedder",
        embedder,
        "--json",
        "remember",
        text,
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    if done.returncode != 0:
        return None, f"exit {done.returncode}: {done.stderr.strip()}"
    return str(json.loads(done.stdout)["id"]), None


def _searcher(db: str, embedder: str, worker: bool, seconds: float, out: str, go: Event) -> None:
    """Search in a loop with one open `Memory` (an agent's, or the server's)."""
    folder = Path(out)
    queries = [" ".join(t.split()[:4]) for t in corpus(500, seed=99)]
    latencies: list[float] = []
    errors: dict[str, int] = {}
    with Memory(db, embedder=embedder, background=worker) as memory:
        memory.search("warm up the model and the index", record=False)
        _ready(folder, "searcher")
        go.wait()
        stop = time.monotonic() + seconds
        while time.monotonic() < stop:
            query = queries[len(latencies) % len(queries)]
            started = time.perf_counter()
            try:
                memory.search(query, limit=10)
            except MnemotreeError as exc:
                key = f"{type(exc).__name__}: {exc}"[:160]
                errors[key] = errors.get(key, 0) + 1
            latencies.append((time.perf_counter() - started) * 1000)
        pending = memory.pending_vectors()
    tally = {"latencies": latencies, "errors": errors, "pending_at_end": pending}
    (folder / "tally-searcher.json").write_text(json.dumps(tally), encoding="utf-8")


def _report(
    db: Path,
    folder: Path,
    embedder: str,
    seconds: float,
    n: int,
    roles: list[str],
    worker: bool,
) -> dict[str, Any]:
    tallies = [json.loads((folder / f"tally-{i}.json").read_text()) for i in range(len(roles))]
    acked = _acks(folder)
    found = _present(db, acked)
    search = json.loads((folder / "tally-searcher.json").read_text())
    write_ms = [x for t in tallies for x in t["latencies"]]
    errors: dict[str, int] = {}
    for tally in tallies:
        for key, count in tally["errors"].items():
            errors[key] = errors.get(key, 0) + count
    return {
        "seconds": seconds,
        "memories": n,
        "embedder": embedder,
        "writers": len(roles),
        "cli_writers": roles.count("cli"),
        "background_worker": worker,
        "writes": {
            "attempted": sum(t["attempted"] for t in tallies),
            "acknowledged": len(acked),
            "found": len(found),
            "lost": len(set(acked) - found),
            "locked": sum(t["locked"] for t in tallies),
            "errors": errors,
            "per_s": round(len(acked) / seconds, 1),
            "latency_ms": _spread(write_ms),
            "by_role": {
                role: _spread([x for t in tallies if t["role"] == role for x in t["latencies"]])
                for role in set(roles)
            },
        },
        "searches": {
            "count": len(search["latencies"]),
            "errors": search["errors"],
            "latency_ms": _spread(search["latencies"]),
        },
        "pending_vectors_at_end": search["pending_at_end"],
        "integrity": check(db),
    }


def _spread(samples: list[float]) -> dict[str, float] | None:
    """p50, p95 (nearest rank) and max, in milliseconds."""
    if not samples:
        return None
    ordered = sorted(samples)

    def at(share: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(len(ordered) * share))], 1)

    return {"p50": at(0.5), "p95": at(0.95), "max": round(ordered[-1], 1), "count": len(ordered)}


def _acks(folder: Path) -> dict[str, str]:
    """Acknowledged node id -> the write's marker, from every ack file (a line
    cut short by a kill was never acknowledged)."""
    found: dict[str, str] = {}
    for path in sorted(folder.glob("acks-*.txt")):
        for line in path.read_text(encoding="utf-8").splitlines():
            parts = line.split("\t")
            if len(parts) == 2 and len(parts[0]) == 26 and parts[1]:
                found[parts[0]] = parts[1]
    return found


def _present(db: Path, acked: dict[str, str]) -> set[str]:
    """The acknowledged ids whose node is in the file with its marker."""
    store = SQLiteStore(db)
    try:
        nodes = store.get_many(list(acked))
    finally:
        store.close()
    return {n.id for n in nodes if n.text.split()[0] == acked[n.id]}


def check(db: Path) -> dict[str, Any]:
    """SQLite's integrity check and FTS5's; rank 1 also compares the index
    with the nodes table it mirrors (external content)."""
    raw = sqlite3.connect(db, timeout=60)
    try:
        sqlite_ok = [r[0] for r in raw.execute("PRAGMA integrity_check")]
        try:
            raw.execute(f"INSERT INTO {FTS_TABLE}({FTS_TABLE}, rank) VALUES('integrity-check', 1)")
            fts = "ok"
        except sqlite3.DatabaseError as exc:
            fts = str(exc)
    finally:
        raw.close()
    return {"sqlite": "ok" if sqlite_ok == ["ok"] else sqlite_ok[:5], "fts": fts}


# -- kill trials ---------------------------------------------------------------

KINDS = ("remember", "bulk", "flush", "import")


def run_kill(
    trials: int = 20,
    n: int = 2000,
    embedder: str = "minilm",
    seed_value: int = 27,
    progress: Callable[[str], None] = lambda _: None,
) -> dict[str, Any]:
    """Kill a writing process (SIGKILL) at a random moment, `trials` times;
    after each kill check the file and the acknowledged writes."""
    rng = random.Random(seed_value)
    failures: list[dict[str, Any]] = []
    counts: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        db = folder / "kill.db"
        progress(f"seeding {n:,} memories ({embedder})…")
        seed(db, n, embedder)
        for trial in range(trials):
            kind = KINDS[trial % len(KINDS)]
            counts[kind] = counts.get(kind, 0) + 1
            outcome = _one_kill(db, folder, embedder, kind, trial, rng)
            progress(f"trial {trial + 1}/{trials} ({kind}): {outcome}")
            if (
                outcome["integrity"] != {"sqlite": "ok", "fts": "ok"}
                or outcome["lost"]
                or (not outcome["write_after"])
            ):
                failures.append({"trial": trial, "kind": kind, **outcome})
        acked = _acks(folder)
        return {
            "trials": trials,
            "kinds": counts,
            "memories": n,
            "embedder": embedder,
            "acknowledged": len(acked),
            "lost": len(set(acked) - _present(db, acked)),
            "failures": failures,
            "integrity": check(db),
        }


def _one_kill(
    db: Path, folder: Path, embedder: str, kind: str, trial: int, rng: random.Random
) -> dict[str, Any]:
    """Start a `kind` process, let it work a random while, SIGKILL it, check."""
    ready = folder / f"ready-k{trial}"
    proc = _SPAWN.Process(target=_victim, args=(str(db), embedder, kind, trial, str(folder)))
    proc.start()
    deadline = time.monotonic() + _READY_SECONDS
    while not ready.exists() and proc.exitcode is None and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(rng.uniform(0.05, 1.5))
    proc.kill()
    proc.join()
    acked = _acks(folder)
    write_after = True
    try:  # the dead process's lock went with it: the next writer gets through
        with Memory(db, embedder=embedder) as memory:
            memory.remember(f"written after kill {trial}")
    except StorageError:
        write_after = False
    return {
        "exitcode": proc.exitcode,
        "acknowledged": len(acked),
        "lost": len(set(acked) - _present(db, acked)),
        "integrity": check(db),
        "write_after": write_after,
    }


def _victim(db: str, embedder: str, kind: str, trial: int, out: str) -> None:
    """Write in a loop, acknowledging each write, until killed."""
    folder = Path(out)
    texts = corpus(5000, seed=1000 + trial)
    with (
        (folder / f"acks-k{trial}.txt").open("a", buffering=1, encoding="utf-8") as acks,
        Memory(db, embedder=embedder) as memory,
    ):
        memory.tokenizer.count("warm up")
        space = memory.remember(f"k{trial}start victim {kind}")
        acks.write(f"{space.id}\tk{trial}start\n")
        (folder / f"ready-k{trial}").touch()
        for step in range(1_000_000):
            marker = f"k{trial}s{step}"
            for node in _victim_step(memory, kind, space.parent_id or "", marker, texts, step):
                acks.write(f"{node.id}\t{node.text.split()[0]}\n")


def _victim_step(
    memory: Memory, kind: str, space: str, marker: str, texts: list[str], step: int
) -> list[Any]:
    """One acknowledged write of this kind (its nodes, each text starting with a marker)."""
    text = texts[step % len(texts)]
    if kind == "remember":
        return [memory.remember(f"{marker} {text}")]
    batch = [NewNode(f"{marker}i{i} {t}", "memory") for i, t in enumerate(texts[:200])]
    if kind == "bulk":
        return memory.append_many(space, batch)
    if kind == "flush":  # a batch to embed, then its vectors (killed while embedding)
        made = memory.append_many(space, batch[:50])
        memory.flush()
        return made
    outline = "\n".join(f"- {marker}i{i} {t}" for i, t in enumerate(texts[:100]))
    return memory.exchange.import_markdown(f"# {marker} outline\n\n{outline}\n")
