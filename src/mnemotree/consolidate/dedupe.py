"""Duplicates (seeds 003, 004): memories that say the same thing merge into
the newest wording; memories that say different things never merge.

Two statements are duplicates when their vectors are near (cosine at least
`Policy.duplicate_cosine`), they are of one type and scope, both valid, and
neither differs from the other in a number, date, version, name or polarity
(`detect.conflicting_values`): "...Kubernetes 1.27" and "...Kubernetes 1.29"
are a change of value, however near, and "Ana likes long meetings" and "Ana
does not like long meetings" a contradiction. Groups are closed under that
rule (every member agrees with every other), so a vague statement cannot
chain two different values together.

The newest member is kept: it is the latest wording of the knowledge. The
others are archived, related to it by derived_from and listed in its
`merged_from`; it takes the highest importance of the group and the earliest
start of validity, and their use counts as its own (`engine.gather`).
"""

from __future__ import annotations

import re

from ..model import Node
from ..structured import typed
from . import detect
from .contradictions import agree
from .plan import Action, Policy
from .steps import Snapshot


def dedupe(snap: Snapshot, policy: Policy) -> list[Action]:
    """Near-duplicates merged into their newest member; see the module."""
    group_of: dict[str, list[Node]] = {}
    best: dict[str, float] = {}
    differ: dict[frozenset[str], bool] = {}

    def agrees(a: Node, b: Node) -> bool:
        pair = frozenset((a.id, b.id))
        if pair not in differ:
            differ[pair] = values_differ(a.text, b.text) is not None
        return not differ[pair]

    # The nearest pairs join first, so a group grows from its closest core.
    for a, b, cosine in sorted(snap.similar(policy.duplicate_cosine), key=lambda t: -t[2]):
        if not _comparable(snap, a, b):
            continue
        left, right = group_of.get(a.id, [a]), group_of.get(b.id, [b])
        if left is right or not all(agrees(x, y) for x in left for y in right):
            continue
        joined = left + right
        for member in joined:
            group_of[member.id] = joined
            best[member.id] = max(best.get(member.id, 0.0), cosine)
    actions = []
    seen: set[int] = set()
    for group in group_of.values():
        if id(group) in seen:
            continue
        seen.add(id(group))
        action = _merge(snap, group, best)
        if action is not None:
            actions.append(action)
    return sorted(actions, key=lambda a: a.nodes)


def values_differ(a: str, b: str) -> str | None:
    """Why two statements are not one fact, if they are not: they differ in
    a number, date, version, name or polarity (the detector's reading), or,
    whatever it reads, both state numbers and not the same ones ("kept for 2
    days" / "kept for 1900 days": one statement's numbers cannot be another's
    paraphrase)."""
    found = detect.conflicting_values(a, b)
    if found is not None:
        return found
    left, right = _numerals(a), _numerals(b)
    if left and right and left != right:
        return f"{' '.join(left)} vs {' '.join(right)}"
    return None


_NUMERAL = re.compile(r"\d+(?:[.,:]\d+)*")


def _numerals(text: str) -> list[str]:
    return sorted(m.group().replace(",", "") for m in _NUMERAL.finditer(text))


def _comparable(snap: Snapshot, a: Node, b: Node) -> bool:
    """Could these two be one memory at all (before comparing their values)?"""
    return (
        a.context_type == b.context_type
        and a.context_type not in typed.LEVELS
        and snap.valid(a)
        and snap.valid(b)
        and (a.context_type != "fact" or _same_fact(a, b))
        and frozenset((a.id, b.id)) not in snap.contradicted
    )


def _same_fact(a: Node, b: Node) -> bool:
    return a.metadata.get("key") == b.metadata.get("key") and agree(a.metadata, b.metadata)


def _merge(snap: Snapshot, group: list[Node], best: dict[str, float]) -> Action | None:
    """The action merging a group into its newest member. A pinned memory, or
    one a person linked to others, is not archived: it stays beside it."""
    keeper = max(group, key=lambda n: (n.created_at, n.id))
    others = sorted(
        (n for n in group if n.id != keeper.id and not _stays(snap, n)),
        key=lambda n: (n.created_at, n.id),
    )
    if not others:
        return None
    top = max(best.get(n.id, 0.0) for n in (keeper, *others))
    reason = (
        f"{len(others)} older near-duplicate{'s' if len(others) > 1 else ''} merged into "
        f"the newest wording, {keeper.id} ({keeper.context_type}, scope {keeper.scope}, "
        f"cosine up to {top:.3f}; no number, date, version, name or polarity differs)"
    )
    data: dict[str, object] = {"importance": max(n.importance for n in (keeper, *others))}
    earliest = min(typed.valid_since(n) for n in others)
    if earliest and earliest < typed.valid_since(keeper):
        data["valid_from"] = earliest
    return Action("dedupe", (keeper.id, *(n.id for n in others)), reason, data)


def _stays(snap: Snapshot, node: Node) -> bool:
    return node.metadata.get("pinned") is True or node.id in snap.linked
