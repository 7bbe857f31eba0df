"""The hygiene benchmark's project store: a year of one team's memory, labelled.

The data (`data/hygiene_*.jsonl`) was written by hand for this benchmark, from
what engineering teams keep in a memory over a year; it is not derived from
LoCoMo or any other set and carries no licence beyond this repository's. It
describes "Ledgerline", the invoicing platform of a fictional company,
Kestrel: its people, customers, services, infrastructure and office life,
from 2025-01-06 (day 0) to the first days of 2026.

`hygiene_memories.jsonl`, one memory a line (`day` since 2025-01-06, `op`):

- `remember` (plain memories), `fact` (`key`, `value`, optional `applies_to`),
  the typed memories `decision` (with `artifacts`: files and ADRs),
  `constraint`, `procedure`, `goal`, `preference`, `entity` (optional
  `valid_to`: an ISO time the statement stops holding), and `episode`
  (`narrative`, `summary`, `episode_type`, `participants`, `outcome`,
  `significance`, `artifacts`), `pattern` (`template`, `hint`, `trigger`),
  `workflow` (`steps`, `hint`, `trigger`).
- Labels: `label` is `useful` (the default) or `trivia` (office chatter that
  nobody needs later: "The coffee machine on floor 2 was descaled.").
  `supersedes` lists the memories a planted change replaces (the same
  subject and attribute with a new value, said as people say it: a new
  employer, a version bump, a moved deadline, a new owner, "no longer uses",
  a new value of a fact key); `change` names its kind. `outdates` lists
  memories it also makes outdated without being their planted change (the
  decision to move feature flags to Unleash and the fact that names
  LaunchDarkly): flagging such a pair is right, but recall does not ask
  for it. `paraphrase_of` names
  an earlier memory this one says again in other words (`cross_type` when it
  is of another type). `distinct_from` names a near-paraphrase with another
  value or subject (staging vs production replicas, April vs October drill,
  Hannah likes vs Ben does not like): never the same memory, never a
  contradiction. `about` names a memory this one shares words or a subject
  with without contradicting it (a hard negative: "The office plants need
  watering." against the office's city).

`hygiene_probes.jsonl`: questions whose right answer is the newest value
(`current`), with the stale memories that must not be served (`stale`).
`hygiene_usage.jsonl`: searches and contexts over the year (`cite`: what the
answer used), as a team's assistant would make them. `hygiene_documents.jsonl`:
Markdown documents ingested on their day. The first line of each file is an
`_about` header.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone
from importlib import resources
from pathlib import Path
from typing import Any

from ..errors import InvalidInput

START = datetime(2025, 1, 6, tzinfo=timezone.utc)
TYPED = ("decision", "constraint", "procedure", "goal", "preference", "entity")
OPS = ("remember", "fact", *TYPED, "episode", "pattern", "workflow")
LABELS = ("useful", "trivia")
FILES = ("memories", "probes", "usage", "documents")
_RELATIONS = ("supersedes", "outdates", "distinct_from", "about")
FIRST_HORIZON_DAYS = 30  # probes are asked a month after the last write at the earliest


@dataclass(frozen=True)
class Entry:
    """One memory as written, with its labels."""

    id: str
    day: int
    op: str
    text: str
    label: str = "useful"
    supersedes: tuple[str, ...] = ()
    change: str = ""
    outdates: tuple[str, ...] = ()
    paraphrase_of: str | None = None
    cross_type: bool = False
    distinct_from: tuple[str, ...] = ()
    about: tuple[str, ...] = ()
    valid_to: str | None = None
    fields: dict[str, Any] = field(default_factory=dict)  # what the op takes besides text


@dataclass(frozen=True)
class Probe:
    id: str
    question: str
    current: tuple[str, ...]
    stale: tuple[str, ...]


@dataclass(frozen=True)
class Use:
    day: int
    kind: str  # search | context
    query: str
    cite: tuple[str, ...] = ()


@dataclass(frozen=True)
class Doc:
    id: str
    day: int
    filename: str
    text: str


@dataclass(frozen=True)
class World:
    """The labelled store: memories in writing order, probes, usage, documents."""

    entries: tuple[Entry, ...]
    probes: tuple[Probe, ...]
    usage: tuple[Use, ...]
    documents: tuple[Doc, ...]

    def by_id(self) -> dict[str, Entry]:
        return {e.id: e for e in self.entries}

    def superseded(self) -> set[str]:
        """Memories some later memory replaces or makes outdated."""
        return {old for e in self.entries for old in (*e.supersedes, *e.outdates)}

    def expired(self, at: datetime) -> set[str]:
        return {e.id for e in self.entries if e.valid_to is not None and _time(e.valid_to) <= at}

    def changes(self) -> set[frozenset[str]]:
        """The planted changes: (older, newer) pairs as written."""
        return {frozenset((old, e.id)) for e in self.entries for old in e.supersedes}

    def change_closure(self) -> set[frozenset[str]]:
        """Every pair of one chain of changes (1.27, 1.29, 1.30), and what
        a memory makes outdated besides its planted change: flagging 1.27
        against 1.30 is right too, though not a planted pair."""
        later: dict[str, set[str]] = {}
        for e in self.entries:
            for old in (*e.supersedes, *e.outdates):
                later.setdefault(old, set()).add(e.id)
        pairs: set[frozenset[str]] = set()
        for start in later:
            todo, seen = list(later[start]), set()
            while todo:
                node = todo.pop()
                if node not in seen:
                    seen.add(node)
                    pairs.add(frozenset((start, node)))
                    todo += later.get(node, ())
        return pairs

    def paraphrases(self) -> set[frozenset[str]]:
        return {frozenset((e.id, e.paraphrase_of)) for e in self.entries if e.paraphrase_of}

    def distinct(self) -> set[frozenset[str]]:
        """Pairs that must never merge: near-paraphrases of another value or
        subject, and every planted change."""
        pairs = {frozenset((e.id, o)) for e in self.entries for o in e.distinct_from}
        return pairs | self.change_closure()

    def hard_negatives(self) -> set[frozenset[str]]:
        return {frozenset((e.id, o)) for e in self.entries for o in e.about}

    def sliced(self, count: int) -> World:
        """The first `count` memories with what refers only to them: a
        consistent smaller store for quick runs."""
        kept = self.entries[:count]
        ids = {e.id for e in kept}
        last = max((e.day for e in kept), default=0)
        entries = tuple(
            replace(
                e,
                supersedes=tuple(i for i in e.supersedes if i in ids),
                outdates=tuple(i for i in e.outdates if i in ids),
                paraphrase_of=e.paraphrase_of if e.paraphrase_of in ids else None,
                distinct_from=tuple(i for i in e.distinct_from if i in ids),
                about=tuple(i for i in e.about if i in ids),
            )
            for e in kept
        )
        sliced = World(entries, (), (), ())
        replaced = sliced.superseded() | sliced.expired(moment(last + FIRST_HORIZON_DAYS))
        probes = []
        for p in self.probes:
            current = tuple(i for i in p.current if i in ids and i not in replaced)
            stale = tuple(i for i in p.stale if i in replaced)
            if current or stale:
                probes.append(replace(p, current=current, stale=stale))
        usage = tuple(
            replace(u, cite=tuple(i for i in u.cite if i in ids))
            for u in self.usage
            if u.day <= last
        )
        # Documents name no memory: a small store still mixes them in.
        documents = self.documents
        return World(entries, tuple(probes), usage, documents)


def moment(day: int, minutes: int = 0) -> datetime:
    """When something of `day` happens: from 09:00 UTC on, `minutes` apart."""
    return START + timedelta(days=day, hours=9, minutes=minutes)


def load(folder: Path | None = None) -> World:
    """The shipped store (or one in `folder`, named like it), checked."""
    rows = {name: _rows(name, folder) for name in FILES}
    entries = sorted(
        (_entry(r) for r in rows["memories"]), key=lambda e: e.day
    )  # stable: one day's memories keep their order in the file
    probes = [
        Probe(str(r["id"]), str(r["q"]), tuple(r["current"]), tuple(r["stale"]))
        for r in rows["probes"]
    ]
    usage = sorted(
        (
            Use(int(r["day"]), str(r["kind"]), str(r["q"]), tuple(r.get("cite", ())))
            for r in rows["usage"]
        ),
        key=lambda u: u.day,
    )
    docs = [
        Doc(str(r["id"]), int(r["day"]), str(r["filename"]), str(r["text"]))
        for r in rows["documents"]
    ]
    world = World(tuple(entries), tuple(probes), tuple(usage), tuple(docs))
    problems = check(world)
    if problems:
        raise InvalidInput(f"the hygiene store is inconsistent: {problems[0]}", problems)
    return world


def check(world: World) -> list[str]:
    """What is wrong with the labels (nothing, for the shipped store)."""
    found = world.by_id()
    problems = [f"{e.id}: two memories with this id" for e in world.entries if found[e.id] != e]
    for e in world.entries:
        problems += _entry_problems(e, found)
    superseded = world.superseded()
    for e in world.entries:
        if e.paraphrase_of in superseded and e.id not in superseded:
            problems.append(f"{e.id} says {e.paraphrase_of} again, which is replaced, but is not")
    last = max((e.day for e in world.entries), default=0)
    expired = world.expired(moment(last + FIRST_HORIZON_DAYS))
    for p in world.probes:
        missing = [i for i in (*p.current, *p.stale) if i not in found]
        problems += [f"probe {p.id} names no memory {i!r}" for i in missing]
        problems += [
            f"probe {p.id}: stale {i} is neither replaced nor expired"
            for i in p.stale
            if i in found and i not in superseded | expired
        ]
        problems += [f"probe {p.id}: current {i} is replaced" for i in p.current if i in superseded]
    for u in world.usage:
        problems += [
            f"usage on day {u.day} cites {i!r}, not written by then"
            for i in u.cite
            if i not in found or found[i].day > u.day
        ]
        if u.kind not in ("search", "context"):
            problems.append(f"usage on day {u.day}: unknown kind {u.kind!r}")
    return problems


def _entry_problems(e: Entry, found: dict[str, Entry]) -> list[str]:
    problems = []
    if e.op not in OPS:
        problems.append(f"{e.id}: unknown op {e.op!r}")
    if e.label not in LABELS:
        problems.append(f"{e.id}: unknown label {e.label!r}")
    for name in _RELATIONS:
        for other in getattr(e, name):
            if other not in found:
                problems.append(f"{e.id}.{name} names no memory {other!r}")
            elif other == e.id:
                problems.append(f"{e.id}.{name} names itself")
            elif name in ("supersedes", "outdates") and found[other].day > e.day:
                problems.append(f"{e.id} replaces {other}, which is written later")
    if e.paraphrase_of is not None:
        original = found.get(e.paraphrase_of)
        if original is None or original.day > e.day:
            problems.append(f"{e.id} says again {e.paraphrase_of!r}, not written before it")
        elif (original.op != e.op) != e.cross_type:
            problems.append(f"{e.id}: cross_type must say whether the types differ")
    if e.supersedes and not e.change:
        problems.append(f"{e.id}: a change needs its kind")
    return problems


def _rows(name: str, folder: Path | None) -> list[dict[str, Any]]:
    filename = f"hygiene_{name}.jsonl"
    if folder is None:
        text = resources.files("mnemotree.bench").joinpath(f"data/{filename}").read_text("utf-8")
    else:
        text = (folder / filename).read_text(encoding="utf-8")
    rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    return [r for r in rows if "_about" not in r]


_ENTRY_KEYS = (
    "id",
    "day",
    "op",
    "text",
    "label",
    "supersedes",
    "change",
    "outdates",
    "paraphrase_of",
    "cross_type",
    "distinct_from",
    "about",
    "valid_to",
)


def _entry(row: dict[str, Any]) -> Entry:
    return Entry(
        id=str(row["id"]),
        day=int(row["day"]),
        op=str(row["op"]),
        text=str(row.get("text", "")),
        label=str(row.get("label", "useful")),
        supersedes=tuple(row.get("supersedes", ())),
        change=str(row.get("change", "")),
        outdates=tuple(row.get("outdates", ())),
        paraphrase_of=row.get("paraphrase_of"),
        cross_type=bool(row.get("cross_type", False)),
        distinct_from=tuple(row.get("distinct_from", ())),
        about=tuple(row.get("about", ())),
        valid_to=row.get("valid_to"),
        fields={k: v for k, v in row.items() if k not in _ENTRY_KEYS},
    )


def _time(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def counts(world: World) -> dict[str, Any]:
    """What the store holds, by type and label."""
    by_op: dict[str, int] = {}
    for e in world.entries:
        by_op[e.op] = by_op.get(e.op, 0) + 1
    paraphrases = [e for e in world.entries if e.paraphrase_of]
    return {
        "memories": len(world.entries),
        "by_type": dict(sorted(by_op.items(), key=lambda kv: -kv[1])),
        "useful": sum(e.label == "useful" for e in world.entries),
        "trivia": sum(e.label == "trivia" for e in world.entries),
        "planted_changes": len(world.changes()),
        "superseded": len(world.superseded()),
        "outdated_besides_planted": sum(len(e.outdates) for e in world.entries),
        "paraphrases": len(paraphrases),
        "paraphrases_of_another_type": sum(e.cross_type for e in paraphrases),
        "near_paraphrases_other_value": sum(len(e.distinct_from) for e in world.entries),
        "hard_negatives": len(world.hard_negatives()),
        "expiring": sum(e.valid_to is not None for e in world.entries),
        "probes": len(world.probes),
        "usage_events": len(world.usage),
        "documents": len(world.documents),
        "days": [world.entries[0].day, world.entries[-1].day] if world.entries else [],
    }


def kinds(entries: Iterable[Entry]) -> dict[str, str]:
    """Each change's kind, by the newer memory's id."""
    return {e.id: e.change for e in entries if e.supersedes}
