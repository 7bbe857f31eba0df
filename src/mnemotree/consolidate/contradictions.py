"""Contradictions between memories (seed 004): found on write, resolved by hand.

On write: two facts valid at once, in one scope, with the same key and
different values (`same_key`), unless each applies to a different context
(`applies_to`); and a new statement that negates or changes the value of a
similar valid one (its lexical neighbours, judged by the offline detectors;
the consolidation scan finds the rest through vector neighbours). A
contradiction is a row with a status; resolving it sets validity through a
`supersedes` relation and never deletes a memory. A path update is a
contradiction between two versions of one entry.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from ..errors import InvalidInput
from ..ids import new_id
from ..model import Node, NodeFilter
from ..store import ContradictionRow, Store
from ..structured import typed
from ..timeutil import to_iso
from .detect import compare

RESOLUTIONS = ("a_wins", "b_wins", "both_valid", "merged")
STATUSES = ("open", "resolved")
SAME_KEY = "same_key"
MAX_SAME_KEY = 100  # earlier facts with the key looked at
MAX_NEIGHBOURS = 20  # similar statements a new one is compared with on write
# Kinds whose text is a statement; episodes, patterns and workflows are
# titles over levels, compared by the consolidation scan's judge only.
STATEMENTS = ("memory", *(t for t in typed.TYPES if t not in typed.LEVELS))
Neighbours = Callable[[str, NodeFilter, int], list[str]]  # (text, filter, limit) -> ids


def clean_resolution(value: object) -> str:
    if value not in RESOLUTIONS:
        raise InvalidInput(
            f"unknown resolution {value!r}; choose one of {list(RESOLUTIONS)}", value
        )
    return str(value)


def same_key(store: Store, fact: Node, now: datetime) -> list[ContradictionRow]:
    """Contradictions of a new fact with the valid facts of its key and scope."""
    key = fact.metadata.get("key")
    if fact.context_type != "fact" or not isinstance(key, str) or not key:
        return []
    at = to_iso(now)
    where = NodeFilter(scopes=(fact.scope,), valid_at=at)
    found = []
    for other in store.facts_with_key(key, where, MAX_SAME_KEY):
        if other.id == fact.id or agree(other.metadata, fact.metadata):
            continue
        was, now_is = other.metadata.get("value"), fact.metadata.get("value")
        reason = f"{key}: {_shown(was)} then {_shown(now_is)}"
        found.append(ContradictionRow(
            new_id(), other.id, fact.id, SAME_KEY, reason, fact.scope, at, "open", None, "", None
        ))  # fmt: skip
    return found


def stated(
    store: Store, node: Node, neighbours: Neighbours, now: datetime
) -> list[ContradictionRow]:
    """Contradictions of a new statement with similar valid statements of its
    scope that it negates or changes a value of (the offline detectors)."""
    if node.context_type not in STATEMENTS:
        return []
    at = to_iso(now)
    where = NodeFilter(scopes=(node.scope,), context_types=STATEMENTS, valid_at=at)
    others = [i for i in neighbours(node.text, where, MAX_NEIGHBOURS + 1) if i != node.id]
    found = []
    for other in store.get_many(others[:MAX_NEIGHBOURS]):
        key = _key(node)
        if key and key == _key(other):
            continue  # same_key has judged this pair by its values
        finding = compare(other.text, node.text)
        if finding is not None:
            found.append(ContradictionRow(
                new_id(), other.id, node.id, finding.kind, finding.reason, node.scope, at,
                "open", None, "", None,
            ))  # fmt: skip
    return found


def _key(node: Node) -> str:
    key = node.metadata.get("key") if node.context_type == "fact" else None
    return key if isinstance(key, str) else ""


def agree(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Same value, or values for different contexts (`applies_to`)."""
    if a.get("applies_to") and b.get("applies_to") and a["applies_to"] != b["applies_to"]:
        return True
    return _norm(a.get("value")) == _norm(b.get("value"))


def _norm(value: object) -> object:
    return " ".join(value.casefold().split()) if isinstance(value, str) else value


def _shown(value: object) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
