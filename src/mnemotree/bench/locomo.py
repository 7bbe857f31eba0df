"""LoCoMo turn retrieval: load conversations as a user's chat history, then search.

Each conversation becomes one space, each session a subtree, each turn one
memory (speaker as its name, the session date as its time). The LLM-written
`observation`, `session_summary` and `event_summary` fields are never read.
Every question is searched within its own conversation with the default
configuration; a plain SQLite FTS5 baseline runs on the same turns.
"""

from __future__ import annotations

import json
import math
import re
import sqlite3
import statistics
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..memory import Memory
from ..model import NewNode
from ..retrieval.query import lexical_query

KS = (1, 5, 10, 20)
_DIA = re.compile(r"D(\d+):(\d+)")


@dataclass
class Question:
    conversation: str
    text: str
    category: int
    evidence: list[str]


@dataclass
class Scores:
    """Per-question metrics, averaged on report."""

    rows: list[dict[str, float]] = field(default_factory=list)

    def add(self, ranked: list[str], evidence: list[str]) -> None:
        relevant = set(evidence)
        row = {f"recall@{k}": len(relevant & set(ranked[:k])) / len(relevant) for k in KS}
        row["all@10"] = float(relevant <= set(ranked[:10]))
        gains = sum(1 / math.log2(i + 2) for i, d in enumerate(ranked[:10]) if d in relevant)
        ideal = sum(1 / math.log2(i + 2) for i in range(min(10, len(relevant))))
        row["ndcg@10"] = gains / ideal
        self.rows.append(row)

    def summary(self) -> dict[str, float]:
        if not self.rows:
            return {"n": 0}
        out = {k: round(statistics.fmean(r[k] for r in self.rows), 4) for k in self.rows[0]}
        out["n"] = len(self.rows)
        return out


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
        root = memory.add(f"Conversation between {names}", context_type="conversation",
                          context_name=sid, scope=f"conv:{sid}")  # fmt: skip
        dia_of: dict[str, str] = {}
        for number in sessions:
            when = conv.get(f"session_{number}_date_time", "")
            clock[0] = _session_time(when) if when else clock[0]
            session = memory.append_child(
                root.id, f"Session {number}, {when}", context_type="session",
                context_name=f"session {number}", context_value=when,
            )  # fmt: skip
            turns = [t for t in conv[f"session_{number}"] if turn_text(t)]
            nodes = memory.append_many(
                session.id,
                [
                    NewNode(turn_text(t), context_type="message", context_name=t["speaker"],
                            context_value=t["dia_id"], metadata={"date": when})
                    for t in turns
                ],
            )  # fmt: skip
            dia_of.update({n.id: t["dia_id"] for n, t in zip(nodes, turns, strict=True)})
        known = set(dia_of.values())
        questions = [
            Question(sid, q["question"], int(q["category"]),
                     _normalise(q.get("evidence", []), known))
            for q in sample.get("qa", [])
        ]  # fmt: skip
        loaded[sid] = (root.id, dia_of, [q for q in questions if q.evidence])
    return loaded


def _baseline(sample: dict[str, Any], questions: list[Question], scores: Scores) -> None:
    """Plain FTS5 (porter) over "[date] speaker: text", OR of non-stopword terms."""
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(dia UNINDEXED, body, tokenize='porter')")
    conv = sample["conversation"]
    for key in conv:
        if re.fullmatch(r"session_\d+", key):
            when = conv.get(f"{key}_date_time", "")
            db.executemany(
                "INSERT INTO t VALUES (?, ?)",
                [(t["dia_id"], f"[{when}] {t['speaker']}: {turn_text(t)}") for t in conv[key]],
            )
    for q in questions:
        query = lexical_query(q.text)
        ranked: list[str] = []
        if query:
            sql = "SELECT dia FROM t WHERE t MATCH ? ORDER BY rank LIMIT 20"
            ranked = [r[0] for r in db.execute(sql, (query.match,))]
        scores.add(ranked, q.evidence)


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
            started = time.perf_counter()
            hits = memory.search(q.text, roots=[root], limit=20, record=False)
            latencies.append((time.perf_counter() - started) * 1000)
            flat = [h for hit in hits for h in (hit, *hit.covered)]
            ranked = [dia_of[h.node.id] for h in flat if h.node.id in dia_of]
            for key in (str(q.category), "overall"):
                if key == "overall" and q.category == 5:
                    continue
                ours.setdefault(key, Scores()).add(ranked, q.evidence)
    latencies.sort()
    return ours, latencies


def run(
    data_path: Path, db_path: Path, progress: Callable[[str], None] = lambda _: None
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
        ours, latencies = search_all(memory, data, loaded)
        base: dict[str, Scores] = {}
        for sample in data:
            questions = loaded[sample["sample_id"]][2]
            groups: dict[str, list[Question]] = {}
            for q in questions:
                groups.setdefault(str(q.category), []).append(q)
                if q.category != 5:
                    groups.setdefault("overall", []).append(q)
            for key, group in groups.items():
                _baseline(sample, group, base.setdefault(key, Scores()))
    return {
        "overall": ours["overall"].summary(),
        "by_category": {k: v.summary() for k, v in sorted(ours.items()) if k != "overall"},
        "baseline_fts5": {
            "overall": base["overall"].summary(),
            "by_category": {k: v.summary() for k, v in sorted(base.items()) if k != "overall"},
        },
        "latency_ms": {
            "p50": round(latencies[len(latencies) // 2], 2),
            "p95": round(latencies[int(len(latencies) * 0.95)], 2),
        },
        "load_s": round(load_s, 2),
        "embed_s": round(embed_s, 2),
        "memories": embedded,
    }
