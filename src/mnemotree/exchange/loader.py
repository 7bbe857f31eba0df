"""Shared import path: validate nodes from a file, then insert them in one go."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Sequence

from .. import ordering
from ..batch import NodeBatch
from ..errors import AlreadyExists, InvalidInput, InvalidOperation
from ..ids import new_id
from ..model import (
    Node,
    NodeVersion,
    clean_id,
    clean_importance,
    clean_label,
    clean_metadata,
    clean_scope,
    clean_text,
)
from ..sharing import check_parent
from ..store import Store
from ..timeutil import from_iso, to_iso, utc_now
from ..tokens import Tokenizer


def load_nodes(
    store: Store,
    tokenizer: Tokenizer,
    nodes: Sequence[Node],
    versions: Sequence[NodeVersion] = (),
    source: str = "import",
) -> list[Node]:
    """Insert imported nodes (parents before children) in one transaction.

    Every field is validated (a hand-edited file may hold anything). Token
    counts and root ids are recomputed; versions continue above any history
    the database already keeps for these ids; a top node whose position is
    taken under an existing parent goes to the end. Returns the tops: nodes
    whose parent is not part of the import.
    """
    by_id: dict[str, Node] = {}
    for node in nodes:
        checked = _checked(node, source)
        if checked.id in by_id:
            raise InvalidInput(f"{source}: node id {checked.id} appears twice", checked.id)
        by_id[checked.id] = checked
    _check_unique_keys(by_id.values(), source)
    ordered = _parents_first(by_id, source)
    counts = tokenizer.count_many([n.text for n in ordered])
    with store.transaction():
        clashes = store.get_many([n.id for n in ordered])
        if clashes:
            raise AlreadyExists(
                f"{source}: node {clashes[0].id} already exists in this database "
                "(import into an empty database, or delete it first)",
                clashes[0].id,
            )
        kept = store.latest_versions([n.id for n in ordered])
        batch = NodeBatch(store, new_id(), to_iso(utc_now()))
        roots: dict[str, str] = {}
        fixed: list[Node] = []
        for node, count in zip(ordered, counts, strict=True):
            key = node.order_key
            root = _root_of(store, node, by_id, roots, source)
            if node.parent_id not in by_id and store.key_taken(node.parent_id, key):
                key = ordering.after_last(store.last_key(node.parent_id))
            roots[node.id] = root
            version = max(node.version, kept.get(node.id, 0) + 1)
            fixed.append(
                dataclasses.replace(
                    node, root_id=root, token_count=count, order_key=key, version=version
                )
            )
            if node.parent_id not in by_id:
                batch.insert([fixed[-1]])  # later tops see its key as taken
        batch.insert([n for n in fixed if n.parent_id in by_id])
        batch.keep_versions(list(versions), skip_existing=True)
    return [n for n in fixed if n.parent_id not in by_id]


def _root_of(
    store: Store, node: Node, by_id: dict[str, Node], roots: dict[str, str], source: str
) -> str:
    """The root `node` will have: its parent's, from the file or the database
    (which must hold the parent), after the scope rule is checked."""
    if node.parent_id is None:
        return node.id
    if node.parent_id in roots:
        _same_scope(store, node, by_id[node.parent_id].scope, source)
        return roots[node.parent_id]
    parent = store.get(node.parent_id)
    if parent is None:
        raise InvalidInput(
            f"{source}: node {node.id} names parent {node.parent_id}, "
            "which is neither in the file nor in the database",
            node.parent_id,
        )
    _same_scope(store, node, parent.scope, source)
    return parent.root_id


def _same_scope(store: Store, node: Node, parent_scope: str, source: str) -> None:
    """An import follows the tree's rule: a child in another scope than its
    parent only under a shared scope (share it in this database first)."""
    try:
        check_parent(store, node.scope, parent_scope, node=node.id, parent=str(node.parent_id))
    except InvalidOperation as exc:
        raise InvalidOperation(f"{source}: {exc.message}", exc.value) from None


def _checked(node: Node, source: str) -> Node:
    """The node with every field validated, or InvalidInput naming the field."""
    where = f"{source}: node {node.id!r}"
    clean_id(node.id, f"{source}: node id")
    if node.parent_id is not None:
        clean_id(node.parent_id, f"{where}: parent id")
    if isinstance(node.order_key, bool) or not isinstance(node.order_key, (int, float)):
        raise InvalidInput(f"{where}: order_key must be a number", node.order_key)
    if not math.isfinite(node.order_key):
        raise InvalidInput(f"{where}: order_key must be finite", node.order_key)
    for flag in ("is_summary", "stale"):
        if not isinstance(getattr(node, flag), bool):
            raise InvalidInput(f"{where}: {flag} must be true or false", getattr(node, flag))
    if isinstance(node.version, bool) or not isinstance(node.version, int) or node.version < 1:
        raise InvalidInput(f"{where}: version must be a positive integer", node.version)
    for stamp in ("created_at", "updated_at"):
        value = getattr(node, stamp)
        try:
            from_iso(value)
        except (TypeError, ValueError):
            raise InvalidInput(f"{where}: {stamp} is not an ISO-8601 time", value) from None
    return dataclasses.replace(
        node,
        order_key=float(node.order_key),
        text=clean_text(node.text, f"{where}: text"),
        context_type=clean_label(node.context_type, f"{where}: context_type"),
        context_name=clean_label(node.context_name, f"{where}: context_name"),
        context_value=clean_label(node.context_value, f"{where}: context_value"),
        scope=clean_scope(node.scope),
        metadata=clean_metadata(node.metadata),
        importance=clean_importance(node.importance),
    )


def _check_unique_keys(nodes: Iterable[Node], source: str) -> None:
    seen: set[tuple[str | None, float]] = set()
    for node in nodes:
        slot = (node.parent_id, node.order_key)
        if slot in seen:
            raise InvalidInput(
                f"{source}: node {node.id} has the same order_key ({node.order_key}) as a "
                "sibling; give each sibling its own position",
                node.id,
            )
        seen.add(slot)


def _parents_first(by_id: dict[str, Node], source: str) -> list[Node]:
    placed: set[str] = set()
    ordered: list[Node] = []
    for start in by_id.values():
        chain: list[Node] = []
        cursor: Node | None = start
        seen: set[str] = set()
        while cursor is not None and cursor.id not in placed:
            if cursor.id in seen:
                raise InvalidInput(f"{source}: node {cursor.id} is its own ancestor", cursor.id)
            seen.add(cursor.id)
            chain.append(cursor)
            cursor = by_id.get(cursor.parent_id) if cursor.parent_id else None
        for node in reversed(chain):
            placed.add(node.id)
            ordered.append(node)
    return ordered
