"""Consolidation at scale: N memories written over a year (plain memories
with @tags and near-duplicates, facts with repeated keys, episodes with
narratives), embedded, then one consolidation planned and applied a month
after the last write. Reports the plan's and the apply's seconds, what the
run did, and the undo's seconds. The search index (the vector graph past
20k vectors) is prepared first and timed apart: searches build and save it
anyway, and consolidation reads its neighbours."""

from __future__ import annotations

import random
import resource
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from ..consolidate.plan import Plan, Run
from ..memory import Memory
from ..model import NewNode
from .scale import corpus

BATCH = 1000


def run(n: int, embedder: str, progress: Callable[[str], None]) -> dict[str, Any]:
    texts = corpus(n)
    rng = random.Random(3)
    start = datetime(2025, 1, 1, tzinfo=timezone.utc)
    clock = [start]
    with (
        tempfile.TemporaryDirectory() as tmp,
        Memory(Path(tmp) / "consolidate.db", embedder=embedder, clock=lambda: clock[0]) as memory,
    ):
        written = _fill(memory, texts, rng, clock, start)
        progress(f"wrote {written:,} memories; embedding…")
        started = time.perf_counter()
        memory.flush()
        embed_s = time.perf_counter() - started
        started = time.perf_counter()
        memory.prepare_index()  # the search index (the graph), which searches build anyway
        index_s = time.perf_counter() - started
        progress(f"embedded in {embed_s:.0f} s, index ready in {index_s:.0f} s; consolidating…")
        clock[0] = start + timedelta(days=395)
        started = time.perf_counter()
        plan = memory.consolidation.run()
        plan_s = time.perf_counter() - started
        assert isinstance(plan, Plan)
        started = time.perf_counter()
        applied = memory.consolidation.apply(plan)
        apply_s = time.perf_counter() - started
        assert isinstance(applied, Run)
        started = time.perf_counter()
        if applied.id:
            memory.consolidation.undo(applied.id)
        undo_s = time.perf_counter() - started
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        kind = memory.retriever.index.kind
    return {
        "n": n,
        "embedder": embedder,
        "neighbours_by": kind,
        "plan_s": round(plan_s, 2),
        "apply_s": round(apply_s, 2),
        "consolidate_s": round(plan_s + apply_s, 2),
        "undo_s": round(undo_s, 2),
        "embed_s": round(embed_s, 1),
        "index_s": round(index_s, 1),
        "run": applied.summary,
        "skipped": applied.skipped,
        "peak_rss_mb": round(peak_mb),
    }


def _fill(
    memory: Memory, texts: list[str], rng: random.Random, clock: list[datetime], start: datetime
) -> int:
    """A year of memories (2% near-duplicates, 5% tagged), with facts and
    episodes every 50 batches; returns how many memories were written."""
    n = len(texts)
    space = memory.add("Memories", context_type="space", context_value="default")
    written = 0
    for begin in range(0, n, BATCH):
        clock[0] = start + timedelta(days=365 * begin / n)
        batch = []
        for i in range(begin, min(n, begin + BATCH)):
            text = texts[i]
            if rng.random() < 0.02 and i > 0:  # a near-duplicate of an earlier memory
                text = texts[rng.randrange(i)] + " again"
            if rng.random() < 0.05:
                text += f" @topic{rng.randrange(n // 20)}"
            batch.append(NewNode(text, context_type="memory", importance=rng.random()))
        memory.append_many(space.id, batch)
        written += len(batch)
        if begin % (BATCH * 50) == 0:
            for j in range(20):
                memory.typed.fact(f"key{rng.randrange(200)}", f"value {rng.randrange(3)}")
                if j % 4 == 0:
                    memory.typed.episode(
                        texts[rng.randrange(n)][:60],
                        narrative=" ".join(texts[rng.randrange(n)] for _ in range(4)),
                        turns=(begin + j, begin + j + 3),
                    )
    return written
