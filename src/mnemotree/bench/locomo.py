"""LoCoMo turn retrieval: load conversations as a user's chat history, then search.

Each conversation becomes one space, each session a subtree, each turn one
memory (speaker as its name, the session date as its time). The LLM-written
`observation`, `session_summary` and `event_summary` fields are never read.
Every question is searched within its own conversation with the default
configuration; three baselines (plain FTS5, plain cosine with the memory's
embedder, and their reciprocal-rank fusion; see retrieval_eval) run on the
same turns. Headline figures are over categories 1-4.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..memory import Memory
from ..model import NewNode
from .retrieval_eval import DEPTH, OVERALL, Baselines, Evaluation, Item, Scores

__all__ = ["Question", "Scores", "evaluate", "items", "load", "run", "search_all", "turn_text"]

_DIA = re.compile(r"D(\d+):(\d+)")


@dataclass
class Question:
    conversation: str
    text: str
    category: int
    evidence: list[str]


def _session_time(text: str) -> datetime:
    # "1:56 pm on 8 May, 2023"
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=timezone.utc)


def _normalise(raw: Iterable[str], known: set[str]) -> list[str]:
    found = []
    for item in raw:
        for part in re.split(r"[;\s]+", str(item)):
            match = _DIA.search(part.replace("D:", "D"))
            if match:
                dia = f"D{int(match.group(1))}:{int(match.group(2))}"
                if dia in known:
                    found.append(dia)
    return list(dict.fromkeys(found))


def turn_text(turn: dict[str, Any]) -> str:
    text = str(turn.get("text", "")).strip()
    caption = turn.get("blip_caption")
    if caption:  # the photo the speaker shared is part of the conversation
        text = f"{text} [shares a photo: {caption}]".strip()
    return text


def load(memory: Memory, clock: list[datetime], data: list[dict[str, Any]]) -> dict[str, Any]:
    """Store every conversation; returns {sample_id: (root id, {node id: dia id}, questions)}."""
    loaded: dict[str, Any] = {}
    for sample in data:
        conv = sample["conversation"]
        sid = sample["sample_id"]
        sessions = sorted(
            (int(k.split("_")[1]) for k in conv if re.fullmatch(r"session_\d+", k)),
        )
        first = conv.get(f"session_{sessions[0]}_date_time", "1:00 pm on 1 January, 2023")
        clock[0] = _session_time(first)
        names = f"{conv.get('speaker_a', '?')} and {conv.get('speaker_b', '?')}"
        root = memory.add(
            f"Conversation between {names}",
            context_type="conversation",
            context_name=sid,
            scope=f"conv:{sid}",
        )
        dia_of: dict[str, str] = {}
        for number in sessions:
            when = conv.get(f"session_{number}_date_time", "")
            clock[0] = _session_time(when) if when else clock[0]
            session = memory.append_child(
                root.id,
                f"Session {number}, {when}",
                context_type="session",
                context_name=f"session {number}",
                context_value=when,
            )
            turns = [t for t in conv[f"session_{number}"] if turn_text(t)]
            nodes = memory.append_many(
                session.id,
                [
                    NewNode(
                        turn_text(t),
                        context_type="message",
                        context_name=t["speaker"],
                        context_value=t["dia_id"],
                        metadata={"date": when},
                    )
                    for t in turns
                ],
            )
            dia_of.update({n.id: t["dia_id"] for n, t in zip(nodes, turns, strict=True)})
        known = set(dia_of.values())
        questions = [
            Question(
                sid, q["question"], int(q["category"]), _normalise(q.get("evidence", []), known)
            )
            for q in sample.get("qa", [])
        ]
        loaded[sid] = (root.id, dia_of, [q for q in questions if q.evidence])
    return loaded


def items(sample: dict[str, Any]) -> list[Item]:
    """The turns the memory stores, as the baselines see them: FTS5 reads
    "[date] speaker: text" (the reference baseline's form), the embedder reads
    what the engine embeds for the turn's node."""
    conv = sample["conversation"]
    out = []
    for key in conv:
        if re.fullmatch(r"session_\d+", key):
            when = conv.get(f"{key}_date_time", "")
            for t in conv[key]:
                text = turn_text(t)
                if text:
                    said = f"{t['speaker']}: {text}"
                    out.append(Item(t["dia_id"], f"[{when}] {said}", said))
    return out


def _ranked(
    memory: Memory, root: str, dia_of: dict[str, str], text: str
) -> tuple[list[str], float]:
    """The default search's turns for a question (hits a summary covers in
    place of it), and how long the search took in ms."""
    started = time.perf_counter()
    hits = memory.search(text, roots=[root], limit=DEPTH, record=False)
    ms = (time.perf_counter() - started) * 1000
    flat = [h for hit in hits for h in (hit, *hit.covered)]
    return [dia_of[h.node.id] for h in flat if h.node.id in dia_of], ms


def _groups(q: Question) -> list[str]:
    """Every question counts in its category; "overall" leaves out category 5
    (adversarial: its evidence is the trap turn)."""
    return [str(q.category)] if q.category == 5 else [str(q.category), OVERALL]


def search_all(
    memory: Memory, data: list[dict[str, Any]], loaded: dict[str, Any]
) -> tuple[dict[str, Scores], list[float]]:
    """Every question searched in its conversation: scores per category
    ("overall" leaves out category 5) and latencies in ms."""
    ours: dict[str, Scores] = {}
    latencies: list[float] = []
    for sample in data:
        root, dia_of, questions = loaded[sample["sample_id"]]
        for q in questions:
            ranked, ms = _ranked(memory, root, dia_of, q.text)
            latencies.append(ms)
            for key in _groups(q):
                ours.setdefault(key, Scores()).add(ranked, q.evidence)
    latencies.sort()
    return ours, latencies


def evaluate(
    memory: Memory,
    data: list[dict[str, Any]],
    loaded: dict[str, Any],
    progress: Callable[[str], None] = lambda _: None,
) -> Evaluation:
    """The default search and the three baselines on every question."""
    evaluation = Evaluation()
    embedder = memory.retriever.embedder
    for sample in data:
        root, dia_of, questions = loaded[sample["sample_id"]]
        with Baselines(items(sample), embedder) as baselines:
            for q in questions:
                # The baselines embed every question, so the engine does too,
                # even for a question another conversation asked.
                memory.retriever.forget_query_vectors()
                ranked, ms = _ranked(memory, root, dia_of, q.text)
                evaluation.add("default", ranked, q.evidence, _groups(q), ms)
                for name, found in baselines.all(q.text).items():
                    evaluation.add(name, found.ids, q.evidence, _groups(q), found.ms)
        progress(f"{sample['sample_id']}: {len(questions)} questions searched")
    return evaluation


def run(
    data_path: Path, db_path: Path | str, progress: Callable[[str], None] = lambda _: None
) -> dict[str, Any]:
    data = json.loads(data_path.read_text(encoding="utf-8"))
    clock = [datetime(2023, 1, 1, tzinfo=timezone.utc)]
    with Memory(db_path, clock=lambda: clock[0]) as memory:
        started = time.perf_counter()
        loaded = load(memory, clock, data)
        load_s = time.perf_counter() - started
        progress(f"loaded {len(loaded)} conversations in {load_s:.1f} s; embedding…")
        started = time.perf_counter()
        embedded = memory.flush()
        embed_s = time.perf_counter() - started
        progress(f"embedded {embedded} memories in {embed_s:.1f} s; searching…")
        report = evaluate(memory, data, loaded, progress).report("by_category")
    default = report["default"]
    fts5 = report["baselines"]["fts5"]
    return {
        # The figures this command has always reported (default search, FTS5).
        "overall": default[OVERALL],
        "by_category": default["by_category"],
        "baseline_fts5": {OVERALL: fts5[OVERALL], "by_category": fts5["by_category"]},
        "latency_ms": default["latency_ms"],
        **report,
        "default_beats_every_baseline": report["comparison"]["default_beats_every_baseline"],
        "load_s": round(load_s, 2),
        "embed_s": round(embed_s, 2),
        "memories": embedded,
    }
