"""Context assembly latency at scale: `assemble(8000)` over n memories.

The memories: the simulated project of `workflow.py` (decisions naming
files, conventions, patterns, workflows, preferences), then, up to n, a mix
of 80% plain memories (the scale benchmark's corpus, in sessions of 100) and
20% typed ones (decisions, constraints, facts, preferences, and episodes
with their four levels), some naming files. Queries and signals are drawn
from the project: a question, an open file, often a branch, sometimes an
error and an activity.
"""

from __future__ import annotations

import random
import resource
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..memory import Memory
from .scale import PER_SESSION, corpus
from .stats import percentiles
from .workflow import ERRORS, MODULES, TOPICS, _files, _seed, _World

_TYPED_SHARE = 0.2


def run(
    n: int, embedder: str = "minilm", queries: int = 100, budget: int = 8000,
    progress: Callable[[str], None] = lambda _: None,
) -> dict[str, Any]:  # fmt: skip
    rng = random.Random(3)
    now = datetime(2026, 3, 2, 10, 0, tzinfo=timezone.utc)
    with tempfile.TemporaryDirectory() as tmp:
        memory = Memory(Path(tmp) / "context.db", embedder=embedder, clock=lambda: now)
        with memory:
            started = time.perf_counter()
            world = _World(rng, memory, [now])
            _seed(world)
            typed = int(n * _TYPED_SHARE)
            _typed(memory, rng, typed - memory.stats().nodes)
            plain = corpus(max(0, n - typed))
            root = memory.add("Notes", context_type="space")
            for start in range(0, len(plain), PER_SESSION):
                session = memory.append_child(root.id, f"Notes {start // PER_SESSION}")
                memory.append_many(session.id, plain[start : start + PER_SESSION])
            write_s = time.perf_counter() - started
            progress(f"wrote {memory.stats().nodes:,} nodes in {write_s:.1f} s; embedding…")
            started = time.perf_counter()
            memory.prepare_index()
            progress(f"embedded and indexed in {time.perf_counter() - started:.1f} s; assembling…")
            asks = [_ask(rng) for _ in range(queries + 1)]
            memory.context(asks[0][0], budget=budget, signals=asks[0][1])  # warm up
            timings, tokens = [], []
            for query, signals in asks[1:]:
                t = time.perf_counter()
                built = memory.context(query, budget=budget, signals=signals)
                timings.append((time.perf_counter() - t) * 1000)
                tokens.append(built.token_count)
            return {
                "n": n, "embedder": embedder, "nodes": memory.stats().nodes, "budget": budget,
                "assemble_ms": percentiles(timings),
                "tokens": {"min": min(tokens), "max": max(tokens)},
                "over_budget": sum(t > budget for t in tokens),
                "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            }  # fmt: skip


def _typed(memory: Memory, rng: random.Random, count: int) -> None:
    kinds = ("decision", "constraint", "fact", "preference", "episode")
    for i in range(max(0, count)):
        module = rng.choice(MODULES)
        topic = rng.choice(TOPICS[module])
        kind = kinds[i % len(kinds)]
        files = [{"type": "file", "ref": rng.choice(_files(module))}] if i % 3 == 0 else []
        if kind == "episode":
            memory.episode(
                f"Worked on {topic} in {module} ({i})",
                narrative=f"Session {i}: changed how {module} handles {topic}; merged.",
                summary=f"{module}: {topic} reworked", compressed=f"{module}_{topic}",
                index=f"{module}_{i}", episode_type="task_completed", artifacts=files,
            )  # fmt: skip
        elif kind == "fact":
            memory.fact(f"{module}_{topic}_{i}".replace(" ", "_"), rng.randint(1, 1000))
        else:
            memory.remember(
                f"{module.capitalize()} {kind} {i}: keep {topic} simple and tested",
                type=kind, tags=[module], artifacts=files,
            )  # fmt: skip


def _ask(rng: random.Random) -> tuple[str, dict[str, str]]:
    module = rng.choice(MODULES)
    topic = rng.choice(TOPICS[module])
    signals = {"file": rng.choice(_files(module))}
    if rng.random() < 0.7:
        signals["branch"] = f"feature/{module}-{topic.replace(' ', '-')}"
    if rng.random() < 0.3:
        errors = ERRORS[rng.randrange(len(ERRORS))]
        signals["error"] = rng.choice(errors).format(
            thing=topic.split()[0], file=signals["file"], module=module
        )
        signals["activity"] = "debugging"
    return f"how do we handle {topic} in {module}?", signals
