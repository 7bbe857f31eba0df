"""A realistic project memory for the context tests, written through the
Memory facade on a real SQLite file: the hygiene benchmark's hand-written
year of one team (361 memories of every type, trivia, changes of value, two
Markdown documents, from the package's data files), plus a safety manual
PDF whose bookmark titles are not printed and two statements a person
marked as contradicting. (The year has a memory repeating a sentence of its
incident runbook: "postmortems".)"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from importlib import resources
from pathlib import Path
from typing import Any

from mnemotree import Memory
from mnemotree.bench.pdfgen import Bookmark, write_pdf
from mnemotree.model import Node

SCOPE = "ledgerline"
DAY_ZERO = datetime(2025, 1, 6, 9, tzinfo=timezone.utc)
MANUAL_PAGES = [
    ["Safety manual", "This manual covers the server room and its tools."],
    [
        "Every tool is checked before use and logged in the tool book.",
        "",
        "Wires are colour coded by voltage; red wires carry mains power.",
    ],
    [
        "Report incidents within one hour to the shift supervisor.",
        "Keep the incident log book current.",
    ],
    ["Fire exits stay clear at all times; the assembly point is the north car park."],
]
MANUAL_OUTLINE = [
    Bookmark("1 Overview", 0),
    Bookmark("2 Equipment", 1, [Bookmark("2.1 Tools", 1), Bookmark("2.2 Wiring", 1)]),
    Bookmark("3 Incidents", 2),
    Bookmark("4 Fire safety", 3),
]


class Clock:
    def __init__(self) -> None:
        self.now = DAY_ZERO

    def __call__(self) -> datetime:
        return self.now


def _rows(name: str) -> list[dict[str, Any]]:
    data = (resources.files("mnemotree.bench") / "data" / name).read_text("utf-8")
    rows = [json.loads(line) for line in data.splitlines() if line.strip()]
    return [r for r in rows if "_about" not in r]


def _write(memory: Memory, row: dict[str, Any]) -> Node:
    op, text = row["op"], row.get("text", "")
    if op == "remember":
        return memory.remember(text, scope=SCOPE)
    if op == "fact":
        return memory.typed.fact(row["key"], row["value"], scope=SCOPE)
    if op == "episode":
        return memory.typed.episode(
            text,
            narrative=row.get("narrative"),
            summary=row.get("summary"),
            episode_type=row.get("episode_type", ""),
            significance=row.get("significance", 0.5),
            artifacts=row.get("artifacts", []),
            scope=SCOPE,
        )
    if op == "pattern":
        return memory.typed.pattern(
            text, row["template"], row["hint"], trigger=row.get("trigger", ""), scope=SCOPE
        )
    if op == "workflow":
        return memory.typed.workflow(
            text, row["steps"], hint=row.get("hint"), trigger=row.get("trigger", ""), scope=SCOPE
        )
    extra = {"artifacts": row["artifacts"]} if "artifacts" in row else {}
    return memory.remember(text, type=op, scope=SCOPE, **extra)


def build(memory: Memory, clock: Clock, folder: Path) -> dict[str, str]:
    """Writes the year day by day; returns node ids by the data's ids (and
    "redis", "memcached")."""
    documents = {r["day"]: r for r in _rows("hygiene_documents.jsonl")}
    ids: dict[str, str] = {}
    for row in _rows("hygiene_memories.jsonl"):
        clock.now = DAY_ZERO + timedelta(days=row["day"])
        for day in [d for d in documents if d <= row["day"]]:
            doc = documents.pop(day)
            memory.ingest(doc["text"].encode(), scope=SCOPE, filename=doc["filename"])
        ids[row["id"]] = _write(memory, row).id
    manual = folder / "manual.pdf"
    manual.write_bytes(write_pdf(MANUAL_PAGES, MANUAL_OUTLINE))
    memory.ingest(manual, scope=SCOPE)
    # Two statements a person marked as contradicting (the write path would
    # take the later one for an update of the earlier, so it is not asked).
    memory.consolidation.scan_on_write = False
    ids["redis"] = memory.remember("The session cache is Redis.", type="fact", scope=SCOPE).id
    clock.now += timedelta(days=2)
    ids["memcached"] = memory.remember(
        "The session cache is Memcached.", type="fact", scope=SCOPE
    ).id
    memory.consolidation.scan_on_write = True
    memory.typed.relate(ids["redis"], ids["memcached"], "contradicts")
    clock.now += timedelta(days=1)
    memory.flush()
    return ids
