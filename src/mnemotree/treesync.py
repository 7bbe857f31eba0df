"""Bring a subtree to a planned shape with the fewest writes.

Callers that derive a tree from a source (a document, a file of paths) give
every planned node a stable id. Nodes whose id and content are unchanged are
left alone (their vectors, accesses and history stay); new ids are inserted,
missing ids are deleted (kept in history), changed ones are updated, and
siblings are re-keyed only where their order changed.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from . import ordering
from .errors import InvalidOperation
from .ids import new_id
from .model import NewNode, Node, NodeVersion, clean_metadata, clean_text
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


def sync_tree(tree: Tree, plan: Planned) -> SyncResult:
    """Make the tree under `plan.id` equal to `plan` (one transaction).

    The plan's root is created as a root if it does not exist; if it exists
    it stays where it is. Raises InvalidOperation if a planned id belongs to
    a node outside that subtree.
    """
    store = tree.store
    flat = _walk(plan)
    with store.transaction():
        existing = {n.id: n for n in store.subtree(plan.id)}
        planned_ids = {p.id for p, _, _ in flat}
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
        snapshots: list[NodeVersion] = []
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
            if old.parent_id is None:  # an existing root keeps its place
                parent_id, key = None, old.order_key
            if _same(old, new, text, parent_id):
                if old.order_key != key:
                    rekeys.append((old.id, key))
                unchanged += 1
                continue
            snapshots.append(tree.snapshot(old, "update", change, now))
            changed = dataclasses.replace(
                old, text=text, parent_id=parent_id, order_key=key,
                token_count=old.token_count if old.text == text else tree.tokenizer.count(text),
                context_type=new.context_type, context_name=new.context_name,
                context_value=new.context_value, metadata=new.metadata,
                importance=new.importance, scope=new.scope or old.scope,
                version=old.version + 1, updated_at=now,
            )  # fmt: skip
            built[old.id] = changed
            updated.append(old.id)
            touched.update(i for i in (old.parent_id, parent_id) if i is not None)
        store.insert(inserts)  # first: a kept node may move under a new one
        for node_id in updated:
            store.replace(built[node_id])
        if rekeys:
            store.set_keys(rekeys)
        gone = [n for n in reversed(list(existing.values())) if n.id not in planned_ids]
        if gone:
            snapshots.extend(tree.snapshot(n, "delete", change, now) for n in gone)
            store.delete([n.id for n in gone])
            touched.update(n.parent_id for n in gone if n.parent_id in planned_ids)
        store.add_versions(snapshots)
        for parent_id in touched:
            store.mark_summaries_stale(parent_id)
    return SyncResult(
        built[plan.id], len(added), len(updated), len(gone), unchanged, added + updated
    )
