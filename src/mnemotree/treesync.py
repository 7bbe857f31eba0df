"""Bring a subtree to a planned shape with the fewest writes.

Callers that derive a tree from a source (a document, a file of paths) give
every planned node a stable id. Nodes whose id and content are unchanged are
left alone (their vectors, accesses and history stay); new ids are inserted,
missing ids are deleted (kept in history), changed ones are updated, and
siblings are re-keyed only where their order changed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from . import ordering
from .model import NewNode, Node
from .tree import Tree


@dataclass
class Planned:
    """A node as it should be, with its children in order."""

    id: str
    new: NewNode
    children: list[Planned] = field(default_factory=list)


def _walk(plan: Planned) -> list[tuple[Planned, str | None, float]]:
    """(planned node, parent id, order key) in preorder: parents first."""
    out: list[tuple[Planned, str | None, float]] = [(plan, None, 0.0)]
    at = 0
    while at < len(out):
        node = out[at][0]
        keys = ordering.renumber(len(node.children))
        out.extend((c, node.id, k) for c, k in zip(node.children, keys, strict=True))
        at += 1
    return out


def _removed(
    existing: dict[str, Node], planned: set[str], owned: Callable[[Node], bool]
) -> list[Node]:
    """Stored nodes to delete, children first: unplanned owned ones, and
    anything under them (it goes with its parent)."""
    doomed: set[str] = set()
    for node in existing.values():  # parents before children
        if node.id in planned:
            continue
        if owned(node) or node.parent_id in doomed:
            doomed.add(node.id)
    return [n for n in reversed(list(existing.values())) if n.id in doomed]


def _after_planned(
    existing: dict[str, Node], gone: list[Node], flat: list[tuple[Planned, str | None, float]]
) -> list[tuple[str, float]]:
    """Keys for kept nodes the plan does not mention: after the planned
    children of their parent, in their old order (sibling keys stay unique)."""
    planned = {p.id for p, _, _ in flat}
    removed = {n.id for n in gone}
    counts = {p.id: len(p.children) for p, _, _ in flat}
    extra: dict[str, list[Node]] = {}
    for node in existing.values():
        if node.id not in planned and node.id not in removed and node.parent_id in counts:
            extra.setdefault(node.parent_id, []).append(node)
    changes: list[tuple[str, float]] = []
    for parent_id, nodes in extra.items():
        nodes.sort(key=lambda n: (n.order_key, n.id))
        keys = ordering.renumber(counts[parent_id] + len(nodes))[counts[parent_id] :]
        changes.extend((n.id, k) for n, k in zip(nodes, keys, strict=True) if n.order_key != k)
    return changes


def _same(node: Node, new: NewNode, text: str, parent_id: str | None) -> bool:
    return (
        node.text == text
        and node.parent_id == parent_id
        and node.context_type == new.context_type
        and node.context_name == new.context_name
        and node.context_value == new.context_value
        and node.metadata == new.metadata
        and node.importance == new.importance
        and (new.scope is None or node.scope == new.scope)
    )


def revised(
    tree: Tree, old: Node, new: Any, text: str, parent_id: str | None, key: float, now: str
) -> Node:
    """The stored node `old` rewritten as planned: its next version."""
    return dataclasses.replace(
        old,
        text=text,
        parent_id=parent_id,
        order_key=key,
        token_count=old.token_count if old.text == text else tree.tokenizer.count(text),
        context_type=new.context_type,
        context_name=new.context_name,
        context_value=new.context_value,
        metadata=new.metadata,
        importance=new.importance,
        scope=new.scope or old.scope,
        version=old.version + 1,
        updated_at=now,
    )
