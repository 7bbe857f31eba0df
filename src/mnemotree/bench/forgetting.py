"""False forgetting: does consolidating months later lose what questions need?

The LoCoMo conversations are loaded as in the retrieval benchmark (turns are
messages under sessions) and, beside them, what an assistant would keep of
each session: an episode (its turns, speakers and an extractive narrative)
and the session's sentences that state something as plain memories. The
clock then moves on by `months` after the last session, a consolidation runs
with the default policy, and the retrieval benchmark runs again. Reported:
R@10 before and after, its relative drop, evidence turns archived (must be
none), what the run did and how long it took.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from ..conversation.extractive import Said, sentences, summarize
from ..memory import Memory
from . import locomo

MEMORIES_PER_SESSION = 3  # sentences with the most content terms


def _derive(memory: Memory, loaded: dict[str, Any]) -> int:
    """Episodes and remembered sentences for every session; returns how many."""
    made = 0
    for sid, (root, _dia_of, _questions) in loaded.items():
        scope = f"conv:{sid}"
        turn = 0
        for session in memory.children(root):
            messages = memory.children(session.id)
            if not messages:
                continue
            said = [Said(m.context_name, m.text) for m in messages]
            narrative = summarize(said, max_sentences=6) or messages[0].text
            speakers = sorted({m.context_name for m in messages})
            memory.episode(session.text, narrative=narrative, participants=speakers,
                           turns=(turn, turn + len(messages) - 1), scope=scope)  # fmt: skip
            turn += len(messages)
            made += 1
            rich = sorted(sentences(said), key=lambda s: -len(s.terms))[:MEMORIES_PER_SESSION]
            for sentence in rich:
                memory.remember(f"{sentence.speaker}: {sentence.text}", scope=scope)
                made += 1
    return made


def run(
    data_path: Path, db_path: Path, months: int, progress: Callable[[str], None]
) -> dict[str, Any]:
    data = json.loads(data_path.read_text(encoding="utf-8"))
    clock = [datetime(2023, 1, 1, tzinfo=timezone.utc)]
    with Memory(db_path, clock=lambda: clock[0]) as memory:
        loaded = locomo.load(memory, clock, data)
        derived = _derive(memory, loaded)
        progress(f"loaded {len(loaded)} conversations and {derived} derived memories; "
                 "embedding…")  # fmt: skip
        memory.flush()
        before, _ = locomo.search_all(memory, data, loaded)
        clock[0] += timedelta(days=30 * months)
        progress(f"consolidating {months} months after the last session…")
        started = time.perf_counter()
        result = memory.consolidate(dry_run=False)
        seconds = time.perf_counter() - started
        evidence = sorted({node for _, dia_of, _ in loaded.values() for node in dia_of})
        archived = memory.store.archived(evidence)
        after, _ = locomo.search_all(memory, data, loaded)
        r_before = before["overall"].summary()["recall@10"]
        r_after = after["overall"].summary()["recall@10"]
        summary = result.summary
        archived_all = len(memory.archived(limit=10_000))
    return {
        "months": months,
        "recall@10_before": r_before,
        "recall@10_after": r_after,
        "relative_drop": round((r_before - r_after) / r_before, 4) if r_before else 0.0,
        "evidence_turns": len(evidence),
        "evidence_turns_archived": len(archived),
        "nodes_archived": archived_all,
        "derived_memories": derived,
        "run": summary,
        "consolidate_s": round(seconds, 2),
    }
