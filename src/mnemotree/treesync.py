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
from .errors import InvalidOperation
from .ids import new_id
from .model import NewNode, Node, clean_metadata, clean_text
from .tree import Tree


@dataclass
class Planned:
    """A node as it should be, with its children in order."""

    id: str
    new: NewNode
    children: list[Planned] = field(default_factory=list)


@dataclass
class SyncResult:
    """What a sync did; `root` is the synced root as stored."""

    root: Node
    added: int = 0
    updated: int = 0
    removed: int = 0
    unchanged: int = 0
    # Ids of the planned nodes that were written (added or updated).
    written: list[str] = field(default_factory=list)


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


def sync_tree(
    tree: Tree, plan: Planned, owned: Callable[[Node], bool] = lambda _: True
) -> SyncResult:
    """Make the tree under `plan.id` equal to `plan` (one transaction).

    The plan's root is created as a root if it does not exist; if it exists
    it stays where it is. Stored nodes the plan does not mention are deleted
    if `owned` says they are the plan's to manage; others (notes a user added
    under a document) stay while their parent does. Raises InvalidOperation
    if the plan repeats an id or a planned id belongs to a node outside that
    subtree.
    """
    store = tree.store
    flat = _walk(plan)
    ids = [p.id for p, _, _ in flat]
    planned_ids = set(ids)
    if len(planned_ids) != len(ids):
        repeated = next(i for i in ids if ids.count(i) > 1)
        raise InvalidOperation(f"the plan holds node {repeated} twice", repeated)
    with store.transaction():
        existing = {n.id: n for n in store.subtree(plan.id)}
        foreign = [i for i in planned_ids - existing.keys()]
        clash = store.get_many(foreign) if foreign else []
        if clash:
            raise InvalidOperation(
                f"node {clash[0].id} already exists outside {plan.id}; "
                "it cannot be part of this tree",
                clash[0].id,
            )
        now, change = tree.now(), new_id()
        added: list[str] = []
        updated: list[str] = []
        unchanged = 0
        texts = {p.id: clean_text(p.new.text) for p, _, _ in flat}
        fresh = [p for p, _, _ in flat if p.id not in existing]
        counts = dict(
            zip(
                (p.id for p in fresh),
                tree.tokenizer.count_many([texts[p.id] for p in fresh]),
                strict=True,
            )
        )
        history = store.latest_versions([p.id for p in fresh])
        built: dict[str, Node] = dict(existing)
        inserts: list[Node] = []
        pairs: list[tuple[Node, Node]] = []  # (as stored, as planned)
        rekeys: list[tuple[str, float]] = []
        touched: set[str] = set()
        for planned, parent_id, key in flat:
            new = dataclasses.replace(planned.new, metadata=clean_metadata(planned.new.metadata))
            text = texts[planned.id]
            old = existing.get(planned.id)
            if old is None:
                parent = built[parent_id] if parent_id is not None else None
                if parent is None:  # a new root goes after the last root
                    key = ordering.after_last(store.last_key(None))
                node = tree.build_node(
                    new, parent=parent, key=key, now=now, text=text,
                    tokens=counts[planned.id], node_id=planned.id,
                )  # fmt: skip
                node.version = history.get(planned.id, 0) + 1
                built[node.id] = node
                inserts.append(node)
                added.append(node.id)
                if parent_id is not None:
                    touched.add(parent_id)
                continue
            if old.id == plan.id:  # the existing top stays where it is
                parent_id, key = old.parent_id, old.order_key
            if _same(old, new, text, parent_id):
                if old.order_key != key:
                    rekeys.append((old.id, key))
                unchanged += 1
                continue
            changed = revised(tree, old, new, text, parent_id, key, now)
            pairs.append((old, changed))
            built[old.id] = changed
            updated.append(old.id)
            touched.update(i for i in (old.parent_id, parent_id) if i is not None)
        gone = _removed(existing, planned_ids, owned)
        rekeys.extend(_after_planned(existing, gone, flat))
        batch = tree.batch(change, now)
        batch.insert(inserts)  # first: a kept node may move under a new one
        batch.replace(pairs)
        batch.reorder(rekeys)
        batch.delete(gone[::-1])  # parents first
        touched.update(n.parent_id for n in gone if n.parent_id in planned_ids)
        batch.touch(i for i in touched if i is not None)
    return SyncResult(
        built[plan.id], len(added), len(updated), len(gone), unchanged, added + updated
    )


def revised(
    tree: Tree, old: Node, new: Any, text: str, parent_id: str | None, key: float, now: str
) -> Node:
    """The stored node `old` rewritten as planned: its next version."""
    return dataclasses.replace(
        old, text=text, parent_id=parent_id, order_key=key,
        token_count=old.token_count if old.text == text else tree.tokenizer.count(text),
        context_type=new.context_type, context_name=new.context_name,
        context_value=new.context_value, metadata=new.metadata,
        importance=new.importance, scope=new.scope or old.scope,
        version=old.version + 1, updated_at=now,
    )  # fmt: skip
