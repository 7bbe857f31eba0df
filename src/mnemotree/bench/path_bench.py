"""Path memory benchmark: `get(path)` among N entries, and `save` with a
context snapshot drawn from a memory of remembered facts.

Entries are spread over 1,000 headings of 100 ({i}/Topic/Entry); the save
benchmark uses the default embedder over 10,000 memories from the scale
benchmark's corpus, with vectors computed before timing.
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..memory import Memory
from .scale import corpus
from .stats import percentiles

MEMORIES = 10_000


def _path(i: int) -> str:
    return f"Project{i // 10_000}/Topic{i // 100 % 100}/Entry{i}"


def run(
    n: int,
    embedder: str = "minilm",
    saves: int = 200,
    progress: Callable[[str], None] = lambda _: None,
) -> dict[str, Any]:
    rng = random.Random(3)
    texts = corpus(MEMORIES, seed=9)
    with tempfile.TemporaryDirectory() as tmp:
        with Memory(Path(tmp) / "paths.db", embedder="hashing") as memory:
            paths = memory.paths("bench")
            started = time.perf_counter()
            for i in range(n):
                paths.save(_path(i), {"value": i, "note": texts[i % MEMORIES]}, context_tokens=0)
            write_s = time.perf_counter() - started
            progress(f"saved {n:,} entries (no snapshot) in {write_s:.1f} s; reading…")
            gets = []
            for i in rng.sample(range(n), min(n, 2000)):
                t = time.perf_counter()
                paths.get(_path(i))
                gets.append((time.perf_counter() - t) * 1000)
        with Memory(Path(tmp) / "context.db", embedder=embedder) as memory:
            root = memory.add("Notes", context_type="space", scope="bench")
            memory.append_many(root.id, texts)
            memory.flush()
            paths = memory.paths("bench")
            paths.save("Warm/Up", "warm up")  # load the model outside the timings
            progress(f"remembered {MEMORIES:,} notes with {embedder}; saving with snapshots…")
            timed = []
            chunks = []
            for i in range(saves):
                content = {"goal": " ".join(rng.choice(texts).split()[:8]), "n": i}
                t = time.perf_counter()
                entry = paths.save(f"Goals/Goal{i}", content)
                timed.append((time.perf_counter() - t) * 1000)
                chunks.append(len(entry.snapshot))
    return {
        "entries": n,
        "save_without_snapshot_per_s": round(n / write_s, 1),
        "get_ms": percentiles(gets),
        "save_with_snapshot_ms": percentiles(timed),
        "snapshot_chunks_mean": round(statistics.mean(chunks), 1),
        "memories": MEMORIES,
        "embedder": embedder,
    }
