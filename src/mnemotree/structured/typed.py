"""Typed long-term memories (the tiered- and living-memory designs): facts, decisions,
preferences, entities, procedures, constraints and goals, plus episodes,
patterns and workflows whose compression levels are child nodes.

A typed memory is a node whose context type is its type; its fields live in
its metadata (validity as ISO times, so `valid_at` filters in SQL). Every
level of a multi-level memory is its own child node, so each is searchable;
`render(level)` reads one back. Relations are rows between nodes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..errors import InvalidInput, NotFound
from ..model import NewNode, Node, clean_importance, valid_since
from ..timeutil import from_iso, to_iso
from ..vocabulary import DEFAULT_IMPORTANCE, MEMORY_TYPES, RELATION_TYPES

TYPES = MEMORY_TYPES
LEVEL = "level"  # context type of a compression level's node
LEVELS = {
    "episode": ("full", "summary", "compressed", "index"),
    "pattern": ("template", "hint", "index"),
    "workflow": ("details", "steps", "hint", "index"),
}
EPISODE_TYPES = (
    "decision_made",
    "problem_solved",
    "breakthrough",
    "issue_identified",
    "task_completed",
    "pivot",
)
RELATIONS = RELATION_TYPES
ARTIFACTS = ("commit", "pr", "adr", "file", "branch")
HALF_LIFE_DAYS = 30.0
KEY_MOMENT = 0.7  # the tiered-memory design: episodes this significant are key moments


def clean_type(value: object) -> str:
    if value not in DEFAULT_IMPORTANCE:
        raise InvalidInput(f"unknown memory type {value!r}; choose one of {list(TYPES)}", value)
    return str(value)


def clean_relation(value: object) -> str:
    if value not in RELATIONS:
        raise InvalidInput(f"unknown relation {value!r}; choose one of {list(RELATIONS)}", value)
    return str(value)


def clean_time(value: object, what: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        return to_iso(value)
    try:
        return to_iso(from_iso(str(value)))
    except (TypeError, ValueError):
        raise InvalidInput(
            f"{what} must be an ISO-8601 time such as 2026-01-31, got {value!r}", value
        ) from None


def clean_artifacts(artifacts: object) -> list[dict[str, str]]:
    """Artifacts a memory names: [{'type': 'file', 'ref': 'src/auth/login.ts'}, ...]."""
    if isinstance(artifacts, (str, bytes, dict)) or not isinstance(artifacts, Sequence):
        raise InvalidInput(f"artifacts must be a list, got {artifacts!r}", artifacts)
    out = []
    for artifact in artifacts:
        ref = artifact.get("ref") if isinstance(artifact, dict) else None
        if (
            not isinstance(artifact, dict)
            or artifact.get("type") not in ARTIFACTS
            or not isinstance(ref, str)
            or not ref.strip()
        ):
            raise InvalidInput(
                f"an artifact is {{'type': one of {list(ARTIFACTS)}, 'ref': '...'}}, "
                f"got {artifact!r}",
                artifact,
            )
        out.append({"type": str(artifact["type"]), "ref": ref.strip()})
    return out


def validity(valid_from: object, valid_to: object) -> dict[str, str]:
    """Metadata for a validity window; refuses an end before the start."""
    start, end = clean_time(valid_from, "valid_from"), clean_time(valid_to, "valid_to")
    if start is not None and end is not None and end < start:
        raise InvalidInput(f"valid_to ({end}) is before valid_from ({start})", (start, end))
    return {k: v for k, v in (("valid_from", start), ("valid_to", end)) if v is not None}


def superseded_end(newer: Node, older: Node) -> str | None:
    """`older`'s new valid_to when `newer` supersedes it: when `newer` became
    valid (at once, if `older` became valid later: it never held); None when
    it already ended sooner (superseding never lengthens a validity)."""
    end = max(valid_since(newer), valid_since(older))
    ended = older.metadata.get("valid_to")
    return end if ended is None or end < str(ended) else None


def typed_node(
    text: str,
    kind: str,
    *,
    importance: float | None = None,
    tags: Sequence[str] = (),
    category: str = "",
    confidence: float = 1.0,
    source: str = "",
    valid_from: object = None,
    valid_to: object = None,
    extra: dict[str, Any] | None = None,
    scope: str | None = None,
    artifacts: Sequence[dict[str, str]] = (),
) -> NewNode:
    """A NewNode for a typed memory of `kind` (its default importance if none given)."""
    kind = clean_type(kind)
    fields = dict(extra or {})
    # Validity given among the fields is checked and normalised like the rest.
    given_start, given_end = fields.pop("valid_from", None), fields.pop("valid_to", None)
    start = given_start if valid_from is None else valid_from
    end = given_end if valid_to is None else valid_to
    meta: dict[str, Any] = {**fields, **validity(start, end)}
    if category:
        meta["category"] = str(category)
    if tags:
        if isinstance(tags, str) or not all(isinstance(t, str) and t.strip() for t in tags):
            raise InvalidInput(f"tags must be a list of words, got {tags!r}", tags)
        meta["tags"] = sorted({t.strip().lower().lstrip("@") for t in tags})
    if confidence != 1.0:
        meta["confidence"] = clean_importance(confidence)  # the same 0..1 check
    if source:
        meta["source"] = str(source)
    if artifacts or "artifacts" in meta:
        meta["artifacts"] = clean_artifacts(artifacts or meta["artifacts"])
    weight = DEFAULT_IMPORTANCE[kind] if importance is None else clean_importance(importance)
    return NewNode(text, kind, metadata=meta, importance=weight, scope=scope)


def level_nodes(kind: str, levels: Mapping[str, str | None]) -> list[NewNode]:
    """Child nodes for the given compression levels (in the type's order)."""
    unknown = set(levels) - set(LEVELS[kind])
    if unknown:
        raise InvalidInput(
            f"{kind} levels are {list(LEVELS[kind])}; unknown: {sorted(unknown)}", sorted(unknown)
        )
    return [
        NewNode(text, LEVEL, context_name=name)
        for name in LEVELS[kind]
        if (text := levels.get(name)) and text.strip()
    ]


def decay(last_access: datetime, accesses: int, now: datetime, half_life: float) -> float:
    """The tiered-memory design's decay, at most 1:
    0.5^(days since access / half-life) + min(0.1·accesses, 0.5)."""
    days = max(0.0, (now - last_access).total_seconds() / 86_400)
    return min(1.0, math.pow(0.5, days / half_life) + min(0.1 * accesses, 0.5))


@dataclass
class TypedMemory:
    """A typed memory as listings and the CLI show it."""

    node: Node
    type: str
    valid_from: str | None
    valid_to: str | None
    archived: bool
    access_count: int
    last_access: str | None
    decay: float
    levels: dict[str, str] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.node.id

    def to_dict(self) -> dict[str, Any]:
        meta = self.node.metadata
        return {
            "id": self.node.id,
            "text": self.node.text,
            "type": self.type,
            "scope": self.node.scope,
            "importance": self.node.importance,
            "category": meta.get("category", ""),
            "tags": meta.get("tags", []),
            "confidence": meta.get("confidence", 1.0),
            "source": meta.get("source", ""),
            "valid_from": self.valid_from,
            "valid_to": self.valid_to,
            "archived": self.archived,
            "access_count": self.access_count,
            "last_access": self.last_access,
            "decay": round(self.decay, 4),
            "created_at": self.node.created_at,
            "levels": self.levels,
            "fields": {k: v for k, v in meta.items() if k not in _SHOWN},
        }


_SHOWN = {"category", "tags", "confidence", "source", "valid_from", "valid_to"}


def view(
    node: Node,
    accesses: list[str],
    levels: dict[str, str],
    now: datetime,
    half_life: float,
    archived: bool = False,
) -> TypedMemory:
    meta = node.metadata
    last = max(accesses) if accesses else None
    since = from_iso(last) if last else from_iso(node.created_at)
    return TypedMemory(
        node,
        node.context_type,
        valid_since(node) or None,
        meta.get("valid_to"),
        archived,
        len(accesses),
        last,
        decay(since, len(accesses), now, half_life),
        levels,
    )


def render_level(node: Node, levels: dict[str, str], level: str | None) -> str:
    """One level of a memory: the named one, else the most detailed there is."""
    if level is None:
        found = [levels[n] for n in LEVELS.get(node.context_type, ()) if n in levels]
        return found[0] if found else node.text
    if node.context_type not in LEVELS:
        raise InvalidInput(f"a {node.context_type or 'plain'} memory has no levels", level)
    if level not in LEVELS[node.context_type]:
        raise InvalidInput(
            f"{node.context_type} levels are {list(LEVELS[node.context_type])}, got {level!r}",
            level,
        )
    if level not in levels:
        raise NotFound(f"{node.id} has no {level} level", level)
    return levels[level]


def narrative_arc(episodes: list[Node]) -> dict[str, list[Node]]:
    """The tiered-memory design's arc: episodes in thirds by time, and the key
    moments (significance ≥ 0.7)."""
    ordered = sorted(episodes, key=lambda n: (_turn(n), n.created_at, n.id))
    one, two = len(ordered) // 3, 2 * len(ordered) // 3  # 4 episodes: 1, 1, 2
    return {
        "beginning": ordered[:one],
        "middle": ordered[one:two],
        "end": ordered[two:],
        "key_moments": [n for n in ordered if n.metadata.get("significance", 0) >= KEY_MOMENT],
    }


def _turn(node: Node) -> int:
    turns = node.metadata.get("turns")
    return int(turns[0]) if isinstance(turns, list) and turns else 0


def action_state(fields: Mapping[str, object]) -> str:
    """An action item's state as a line shows it: "open, due 2026-03-04",
    "open", or "done 2026-03-05" (a model must not read "Priya will write
    it" as still to do once it is done)."""
    if fields.get("status") == "done":
        return f"done {str(fields.get('done_at', ''))[:10]}".strip()
    due = fields.get("due")
    return f"open, due {due}" if due else "open"
