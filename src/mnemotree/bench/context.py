"""Context assembly latency at scale: `assemble(8000)` over n memories.

The memories: the simulated project of `workflow.py` (decisions naming
files, conventions, patterns, workflows, preferences), then, up to n, a mix
of 80% plain memories (the scale benchmark's corpus, in sessions of 100) and
20% typed ones (decisions, constraints, facts, preferences, and episodes
with their four levels), some naming files, written over 90 days; then a
usage log of 2,000 contexts over the last 30 days. Queries and signals are
drawn from the project: a question, an open file, often a branch, sometimes
an error and an activity; half the callers name their scope.
"""

from __future__ import annotations

import random
import resource
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from ..memory import Memory
from .scale import PER_SESSION, corpus
from .stats import percentiles
from .workflow import ERRORS, MODULES, TOPICS, _files, _seed, _World

_TYPED_SHARE = 0.2
SPREAD_DAYS = 90
USAGE_EVENTS = 2_000
EPISODES = ("task_completed", "decision_made", "problem_solved", "issue_identified")


def run(
    n: int,
    embedder: str = "minilm",
    queries: int = 100,
    budget: int = 8000,
    progress: Callable[[str], None] = lambda _: None,
) -> dict[str, Any]:
    rng = random.Random(3)
    # Memories are written over 90 days, so time filters and recency see a
    # real spread; the contexts are assembled at the end of it.
    clock = [datetime(2025, 12, 1, 9, 0, tzinfo=timezone.utc)]
    step = timedelta(days=SPREAD_DAYS) / max(1, n)
    with tempfile.TemporaryDirectory() as tmp:
        memory = Memory(Path(tmp) / "context.db", embedder=embedder, clock=lambda: clock[0])
        with memory:
            started = time.perf_counter()
            world = _World(rng, memory, clock)
            _seed(world)
            typed = int(n * _TYPED_SHARE)
            _typed(memory, rng, typed - memory.stats().nodes, clock, step)
            plain = corpus(max(0, n - typed))
            root = memory.add("Notes", context_type="space")
            for start in range(0, len(plain), PER_SESSION):
                session = memory.append_child(root.id, f"Notes {start // PER_SESSION}")
                memory.append_many(session.id, plain[start : start + PER_SESSION])
                clock[0] += step * PER_SESSION
            write_s = time.perf_counter() - started
            progress(f"wrote {memory.stats().nodes:,} nodes in {write_s:.1f} s; usage log…")
            typed_ids = [m.node.id for m in memory.typed.memories(limit=10_000)]
            _usage(memory, rng, typed_ids, clock)
            progress("embedding…")
            started = time.perf_counter()
            memory.prepare_index()
            progress(f"embedded and indexed in {time.perf_counter() - started:.1f} s; assembling…")
            asks = [_ask(rng) for _ in range(queries + 1)]
            memory.context(asks[0][0], budget=budget, signals=asks[0][1])  # warm up
            timings, tokens = [], []
            for i, (query, signals) in enumerate(asks[1:]):
                # Half the callers name their scope: the scope filter is measured too.
                scopes = ["default"] if i % 2 else None
                t = time.perf_counter()
                built = memory.context(query, budget=budget, signals=signals, scopes=scopes)
                timings.append((time.perf_counter() - t) * 1000)
                tokens.append(built.token_count)
            return {
                "n": n,
                "embedder": embedder,
                "nodes": memory.stats().nodes,
                "budget": budget,
                "assemble_ms": percentiles(timings),
                "tokens": {"min": min(tokens), "max": max(tokens)},
                "over_budget": sum(t > budget for t in tokens),
                "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            }


def _typed(
    memory: Memory, rng: random.Random, count: int, clock: list[datetime], step: timedelta
) -> None:
    kinds = ("decision", "constraint", "fact", "preference", "episode")
    for i in range(max(0, count)):
        clock[0] += step
        module = rng.choice(MODULES)
        topic = rng.choice(TOPICS[module])
        kind = kinds[i % len(kinds)]
        files = [{"type": "file", "ref": rng.choice(_files(module))}] if i % 3 == 0 else []
        if kind == "episode":
            memory.typed.episode(
                f"Worked on {topic} in {module} ({i})",
                narrative=f"Session {i}: changed how {module} handles {topic}; merged.",
                summary=f"{module}: {topic} reworked",
                compressed=f"{module}_{topic}",
                index=f"{module}_{i}",
                episode_type=rng.choice(EPISODES),
                artifacts=files,
            )
        elif kind == "fact":
            memory.typed.fact(f"{module}_{topic}_{i}".replace(" ", "_"), rng.randint(1, 1000))
        else:
            memory.remember(
                f"{module.capitalize()} {kind} {i}: keep {topic} simple and tested",
                type=kind,
                tags=[module],
                artifacts=files,
            )


def _usage(memory: Memory, rng: random.Random, ids: list[str], clock: list[datetime]) -> None:
    """A usage log of USAGE_EVENTS contexts over the last 30 days."""
    end = clock[0]
    for i in range(USAGE_EVENTS):
        clock[0] = end - timedelta(days=30) + timedelta(days=30) * i / USAGE_EVENTS
        module = rng.choice(MODULES)
        shown = rng.sample(ids, 12)
        signals = {
            "file": rng.choice(_files(module)),
            "branch": f"feature/{module}-{rng.choice(TOPICS[module]).replace(' ', '-')}",
            "activity": rng.choice(("feature", "debugging", "reviewing", "deploying")),
        }
        memory.record_usage(shown, cited=shown[: rng.randint(1, 4)], signals=signals)
    clock[0] = end


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
