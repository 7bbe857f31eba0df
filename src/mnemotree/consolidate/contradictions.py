"""Contradictions between memories (seed 004): found on write, resolved by hand.

Found so far: two facts valid at once, in one scope, with the same key and
different values (`same_key`), unless each applies to a different context
(`applies_to`). Negations and changed values in free text come with the
consolidation scan. A contradiction is a row with a status; resolving it
sets validity through a `supersedes` relation and never deletes a memory.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..errors import InvalidInput
from ..ids import new_id
from ..model import Node, NodeFilter
from ..store import ContradictionRow, Store
from ..timeutil import to_iso

RESOLUTIONS = ("a_wins", "b_wins", "both_valid", "merged")
STATUSES = ("open", "resolved")
SAME_KEY = "same_key"
MAX_SAME_KEY = 100  # earlier facts with the key looked at


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
