"""Forgetting (the tiered- and living-memory designs): which memories a
consolidation archives, and why.

A memory leaves for one of two reasons. Its truth ended: it was superseded,
or its `valid_to` passed, and the grace period since is over. Or it fell out
of use, and that only for low-value material: a note that reads as a passing
moment (`salience`; one of a past event unused for `Policy.long_disuse_days`
needs less evidence), unused for its type's disuse age, never cited, linked
by no one, neither pinned nor marked important, and of a type a person does
not keep on purpose (decisions, constraints, procedures, goals, preferences,
patterns, workflows, entities and episodes are kept by default:
`Policy.protected_types`). Every archive is undone with the run, and its
reason says what made it go.
"""

from __future__ import annotations

from datetime import timedelta

from ..model import Node
from ..structured import typed
from ..timeutil import from_iso, to_iso
from ..vocabulary import DEFAULT_IMPORTANCE
from .plan import Action, Policy
from .salience import estimate
from .steps import NO_STATS, Snapshot, decay_now, leaving


def forget(snap: Snapshot, policy: Policy, planned: list[Action]) -> list[Action]:
    """Archive memories whose truth ended long enough ago, and trivia long unused.
    Memories in an open contradiction, or that earlier steps merge away or
    flag, are left to those."""
    taken = leaving(planned) | {i for a in planned if a.step == "contradiction" for i in a.nodes}
    grace = to_iso(snap.now - timedelta(days=policy.superseded_grace_days))
    actions = []
    for node in snap.memories.values():
        if node.id in taken or node.id in snap.in_open_contradiction:
            continue
        ended = _ended(snap, node, grace)
        if ended is not None:
            why = "superseded" if node.id in snap.superseded else "expired"
            actions.append(Action("forget", (node.id,), ended, {"why": why}))
            continue
        unused = _unused(snap, node, policy)
        if unused is not None:
            actions.append(Action("forget", (node.id,), unused, {"why": "unused"}))
    return actions


def _ended(snap: Snapshot, node: Node, grace: str) -> str | None:
    """Why a memory whose validity ended before the grace period goes."""
    end = node.metadata.get("valid_to")
    if end is None or str(end) > grace:
        return None
    day = str(end)[:10]
    if node.id in snap.superseded:
        return f"superseded, and no longer valid since {day}"
    return f"expired: valid until {day}"


def kept(snap: Snapshot, node: Node, policy: Policy) -> str | None:
    """What keeps a memory from being archived for disuse, if anything."""
    meta = node.metadata
    if policy.disuse_after(node.context_type) is None:
        return f"a {node.context_type} is kept until superseded or expired"
    if meta.get("pinned") is True:
        return "pinned"
    if node.id in snap.cited_ever:
        return "cited in a context"
    if node.id in snap.linked:
        return "linked to another memory"
    default = DEFAULT_IMPORTANCE.get(node.context_type, 0.5)
    if node.importance >= policy.keep_importance or node.importance > default:
        return f"marked important ({node.importance:g})"
    if meta.get("significance", 0) >= typed.KEY_MOMENT:
        return "a key moment"
    return None


def _unused(snap: Snapshot, node: Node, policy: Policy) -> str | None:
    """Why a memory goes for disuse, or None when it stays."""
    after = policy.disuse_after(node.context_type)
    if after is None or kept(snap, node, policy) is not None:
        return None
    stat = snap.stat(node.id)
    last = from_iso(stat.last_access) if stat.last_access else from_iso(node.created_at)
    idle = (snap.now - last).total_seconds() / 86_400
    score = node.importance * decay_now(snap, node, policy)
    retrieved = snap.recent.get(node.id, NO_STATS).retrieved
    if idle < after or retrieved or score >= policy.forget_below:
        return None
    keyed = node.context_type == "fact" and isinstance(node.metadata.get("key"), str)
    long_unused = idle >= policy.long_disuse_days
    salience = estimate(
        node.text, keyed=keyed, lean=snap.leans.get(node.id), long_unused=long_unused
    )
    if not salience.trivia:
        return None
    used = "never accessed" if not stat.accesses else f"last accessed {idle:.0f} days ago"
    return (
        f"trivia unused for {idle:.0f} days ({used}, never cited or linked): "
        f"{salience.explain()}; importance × decay {score:.2f} < {policy.forget_below:g}"
    )
