"""Shared import path: validate nodes from a file, then insert them in one go."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from ..errors import AlreadyExists, InvalidInput
from ..model import Node, NodeVersion, clean_label, clean_text
from ..store import Store
from ..tokens import Tokenizer


def load_nodes(
    store: Store,
    tokenizer: Tokenizer,
    nodes: Sequence[Node],
    versions: Sequence[NodeVersion] = (),
    source: str = "import",
) -> list[Node]:
    """Insert imported nodes (parents before children) in one transaction.

    Token counts and root ids are recomputed, so a file from another tokenizer
    or a hand-edited file still yields a consistent tree. Returns the tops:
    nodes whose parent is not part of the import.
    """
    by_id: dict[str, Node] = {}
    for node in nodes:
        if node.id in by_id:
            raise InvalidInput(f"{source}: node id {node.id} appears twice", node.id)
        clean_text(node.text, f"{source}: text of node {node.id}")
        for field in ("context_type", "context_name", "context_value", "scope"):
            clean_label(getattr(node, field), f"{source}: {field} of node {node.id}")
        by_id[node.id] = node
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
        roots: dict[str, str] = {}
        fixed: list[Node] = []
        for node, count in zip(ordered, counts, strict=True):
            if node.parent_id is None:
                root = node.id
            elif node.parent_id in roots:
                root = roots[node.parent_id]
            else:
                parent = store.get(node.parent_id)
                if parent is None:
                    raise InvalidInput(
                        f"{source}: node {node.id} names parent {node.parent_id}, "
                        "which is neither in the file nor in the database",
                        node.parent_id,
                    )
                root = parent.root_id
            roots[node.id] = root
            fixed.append(dataclasses.replace(node, root_id=root, token_count=count))
        store.insert(fixed)
        if versions:
            store.add_versions(list(versions))
    return [n for n in fixed if n.parent_id not in by_id]


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
