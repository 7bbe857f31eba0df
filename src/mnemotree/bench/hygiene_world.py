"""Writes the hygiene benchmark's store through the `Memory` facade, in the
order a team would: memories, documents and usage (searches and contexts
whose citations are recorded) interleaved by day, with the clock set to each
moment. `Built` maps the data's ids to node ids and back (a compression
level or a document chunk maps to what it belongs to)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from ..memory import Memory
from ..model import Node
from .hygiene_data import Doc, Entry, Use, World, moment

SCOPE = "ledgerline"
USAGE_HOUR = 8  # hours after the day's first write: usage comes in the afternoon
DOCUMENT_HOUR = 3
CONTEXT_BUDGET = 4000  # what the team's assistant asked for while working


@dataclass
class Built:
    """Data ids <-> node ids of the written store."""

    node_of: dict[str, str] = field(default_factory=dict)  # data id -> node id
    label_of: dict[str, str] = field(default_factory=dict)  # node id -> data id
    documents: dict[str, str] = field(default_factory=dict)  # node id -> document id
    last_write: datetime | None = None

    def labels(self, node_ids: list[str]) -> list[str]:
        return [self.label_of[i] for i in node_ids if i in self.label_of]

    def nodes(self, labels: tuple[str, ...] | list[str]) -> list[str]:
        return [self.node_of[i] for i in labels if i in self.node_of]


Clock = list[datetime]  # one settable moment, read by Memory(clock=...)


def build(memory: Memory, clock: Clock, world: World, progress: Callable[[str], None]) -> Built:
    """Write every memory, document and usage event at its moment."""
    built = Built()
    events: list[tuple[datetime, int, Entry | Doc | Use]] = []
    minutes: dict[int, int] = {}
    for order, entry in enumerate(world.entries):
        minutes[entry.day] = minutes.get(entry.day, -7) + 7  # 7 minutes apart
        events.append((moment(entry.day, minutes[entry.day]), order, entry))
    for order, doc in enumerate(world.documents):
        events.append((moment(doc.day) + timedelta(hours=DOCUMENT_HOUR), order, doc))
    for order, use in enumerate(world.usage):
        events.append((moment(use.day) + timedelta(hours=USAGE_HOUR), order, use))
    events.sort(key=lambda e: (e[0], e[1]))
    for number, (at, _, event) in enumerate(events):
        clock[0] = at
        if isinstance(event, Entry):
            _remember(memory, built, event)
        elif isinstance(event, Doc):
            _ingest(memory, built, event)
        else:
            _use(memory, built, event)
        if isinstance(event, (Entry, Doc)):
            built.last_write = at
        if number and number % 100 == 0:
            progress(f"{number} of {len(events)} writes and uses, at {at.date()}")
    return built


def _remember(memory: Memory, built: Built, entry: Entry) -> None:
    node = _write(memory, entry)
    built.node_of[entry.id] = node.id
    built.label_of[node.id] = entry.id
    if entry.op in ("episode", "pattern", "workflow"):
        for level in memory.children(node.id):  # its compression levels
            built.label_of[level.id] = entry.id


def _write(memory: Memory, entry: Entry) -> Node:
    f: dict[str, Any] = entry.fields
    if entry.op == "remember":
        return memory.remember(entry.text, scope=SCOPE)
    if entry.op == "fact":
        return memory.typed.fact(
            str(f["key"]), f["value"], applies_to=str(f.get("applies_to", "")), scope=SCOPE
        )
    if entry.op == "episode":
        return memory.typed.episode(
            entry.text,
            narrative=f.get("narrative"),
            summary=f.get("summary"),
            episode_type=str(f.get("episode_type", "")),
            participants=list(f.get("participants", [])),
            outcome=str(f.get("outcome", "")),
            significance=float(f.get("significance", 0.5)),
            artifacts=list(f.get("artifacts", [])),
            scope=SCOPE,
        )
    if entry.op == "pattern":
        return memory.typed.pattern(
            entry.text,
            f["template"],
            str(f["hint"]),
            trigger=str(f.get("trigger", "")),
            scope=SCOPE,
        )
    if entry.op == "workflow":
        return memory.typed.workflow(
            entry.text,
            list(f["steps"]),
            hint=f.get("hint"),
            trigger=str(f.get("trigger", "")),
            scope=SCOPE,
        )
    options: dict[str, Any] = {}
    if "artifacts" in f:
        options["artifacts"] = list(f["artifacts"])
    if entry.valid_to is not None:
        options["valid_to"] = entry.valid_to
    return memory.remember(entry.text, type=entry.op, scope=SCOPE, **options)


def _ingest(memory: Memory, built: Built, doc: Doc) -> None:
    before = {d.root_id for d in memory.docs.list(scopes=[SCOPE])}
    memory.ingest(doc.text.encode("utf-8"), scope=SCOPE, filename=doc.filename)
    for info in memory.docs.list(scopes=[SCOPE]):
        if info.root_id not in before:
            for node in memory.store.subtree(info.root_id):
                built.documents[node.id] = doc.id


def _use(memory: Memory, built: Built, use: Use) -> None:
    """A search records its hits as accessed; a context records what it held
    and what the answer cited."""
    if use.kind == "search":
        memory.search(use.query, scopes=[SCOPE], limit=10)
        return
    context = memory.context(use.query, budget=CONTEXT_BUDGET, scopes=[SCOPE])
    held = context.node_ids()
    if held:
        memory.record_usage(held, cited=built.nodes(use.cite))
