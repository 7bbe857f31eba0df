"""Memory hygiene on a realistic project store: is what is outdated never
served, what matters never forgotten, only real changes flagged, and is a
context made of content?

The store (`hygiene_data`: a hand-written year of one team's memory, with
its labels) is written through the `Memory` facade with the clock set to
each moment, documents and a usage log interleaved, with default settings
and no LLM. Then:

- detection on write: the contradiction rows against the planted changes
  (open, review and automatic updates apart; precision and recall);
- at each horizon (1, 3 and 12 months after the last write, by default) the
  clock moves on, one default consolidation is applied (as a scheduled one
  would be), and measured are: false forgetting (useful memories, still
  true, archived), trivia archived, merges (planted paraphrases merged,
  pairs of another value or subject merged), what the consolidation scan
  flagged, and for every probe question whether search's top 5, the `ask`
  prompt or an 8,000-token context serves a replaced, expired or archived
  memory; plus what the contexts are made of (content tokens against ids
  and framing, headings, duplicates, contradiction items in the critical
  tier about pairs that are no planted change).

Parts of the engine this measures may be missing in older versions (the
automatic updates list, the review status, the search validity switch):
they are reported as "n/a", never guessed.
"""

from __future__ import annotations

import inspect
import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

from ..consolidate.plan import Action, Run
from ..errors import InvalidInput
from ..memory import Memory
from . import hygiene_data, hygiene_measure, hygiene_serving
from .hygiene_data import World
from .hygiene_world import SCOPE, Built, Clock, build

HORIZONS = (1, 3, 12)
EXAMPLES = 5


def run(
    embedder: str | None = None,
    months: Sequence[int] = HORIZONS,
    count: int | None = None,
    examples: int = EXAMPLES,
    progress: Callable[[str], None] = lambda _: None,
) -> dict[str, Any]:
    """Write the store (its first `count` memories, if given), then measure
    at each horizon (months after the last write)."""
    if not months or any(isinstance(m, bool) or not isinstance(m, int) or m < 1 for m in months):
        raise InvalidInput(f"months must be whole months from 1 on, got {list(months)!r}", months)
    world = hygiene_data.load()
    if count is not None:
        world = world.sliced(count)
    started = time.perf_counter()
    clock: Clock = [hygiene_data.moment(0)]
    with (
        tempfile.TemporaryDirectory() as tmp,
        Memory(
            Path(tmp) / "hygiene.db", embedder=embedder, clock=lambda: clock[0], llm="offline"
        ) as memory,
    ):
        progress(f"writing {len(world.entries)} memories over a simulated year…")
        built = build(memory, clock, world, progress)
        memory.flush()
        written = hygiene_measure.rows(memory)
        report: dict[str, Any] = {
            "store": hygiene_data.counts(world),
            "embedder": memory.retriever.embedder.identity,
            "llm": "none (offline)",
            "api": _api(memory),
            "write_s": round(time.perf_counter() - started, 1),
            "detection_on_write": hygiene_measure.detection(written, built, world, examples),
            "updates_listed": _updates(memory),
        }
        report["horizons"] = [
            _horizon(memory, clock, built, world, m, {r.id for r in written}, examples, progress)
            for m in sorted(set(months))
        ]
    report["figures"] = _figures(report)
    report["seconds"] = round(time.perf_counter() - started, 1)
    return report


def _horizon(
    memory: Memory,
    clock: Clock,
    built: Built,
    world: World,
    months: int,
    seen: set[str],
    examples: int,
    progress: Callable[[str], None],
) -> dict[str, Any]:
    """Move the clock to `months` after the last write, consolidate once, measure."""
    assert built.last_write is not None
    clock[0] = now = built.last_write + timedelta(days=round(months * 365 / 12))
    progress(f"{months} month(s) after the last write ({now.date()}): consolidating…")
    started = time.perf_counter()
    result = memory.consolidation.run(dry_run=False)
    assert isinstance(result, Run)  # dry_run=False applies
    seconds = time.perf_counter() - started
    actions: list[Action] = [a for r in memory.consolidation.runs(limit=1000) for a in r.actions]
    cause = hygiene_measure.causes(actions, built)
    scanned = [r for r in hygiene_measure.rows(memory) if r.id not in seen]
    seen.update(r.id for r in scanned)
    progress(f"{months} month(s): asking {len(world.probes)} probes…")
    return {
        "months": months,
        "at": now.isoformat(),
        "consolidation": {
            "run": result.summary,
            "skipped": result.skipped,
            "seconds": round(seconds, 2),
        },
        "forgetting": hygiene_measure.forgetting(memory, built, world, cause, now, examples),
        "merges": hygiene_measure.merges(cause, world, examples),
        "detection_by_scan": hygiene_measure.detection(scanned, built, world, examples),
        "serving": hygiene_serving.serve(memory, built, world, now, examples),
    }


def _api(memory: Memory) -> dict[str, Any]:
    """Which parts of the engine's hygiene API this version has."""
    from ..consolidate import contradictions

    search = inspect.signature(memory.search).parameters
    return {
        "search_include_expired": "include_expired" in search,
        "updates": hasattr(memory, "updates"),
        "review_status": "review" in getattr(contradictions, "STATUSES", ()),
    }


def _updates(memory: Memory) -> int | str:
    listed = getattr(memory, "updates", None)
    if listed is None:
        return "n/a"
    return len(listed(scopes=[SCOPE], limit=hygiene_measure.MAX_LISTED))


def _figures(report: dict[str, Any]) -> dict[str, Any]:
    """The headline figures beside their targets."""
    found = report["detection_on_write"]["flagged"]
    out: dict[str, Any] = {
        "detection_on_write": {
            "precision": found["precision"],
            "recall": found["recall"],
            "target": "precision >= 0.9, recall >= 0.8",
        },
    }
    for h in report["horizons"]:
        serving, forgetting = h["serving"], h["forgetting"]
        out[f"{h['months']}_months"] = {
            "stale_served_share": serving["stale_served"]["any"]["share"],
            "false_forgetting": forgetting["false_forgetting"]["count"],
            "false_supersessions": forgetting["false_supersessions"]["count"],
            "trivia_archived_share": forgetting["trivia_archived"]["share"],
            "wrong_merges": h["merges"]["wrong_merges"],
            "paraphrases_merged_share": h["merges"]["paraphrases_merged"]["share"],
            "context_content_share": serving["context"]["content_share"],
            "false_critical_contradictions": serving["context"]["false_critical_contradictions"],
        }
    out["targets"] = {
        "stale_served_share": 0,
        "false_forgetting": 0,
        "false_supersessions": 0,
        "trivia_archived_share": ">= 0.5 at 12",
        "wrong_merges": 0,
        "paraphrases_merged_share": ">= 0.9",
        "context_content_share": ">= 0.85",
        "false_critical_contradictions": 0,
    }
    return out
