"""The `neighbours` column: each node's adjacent siblings' text, indexed by FTS5.

It is derived data, so the store keeps it: inserts compute it for the new
rows (and for contiguous batches touch only the two existing siblings at the
edges); updates, moves and deletes mark the nodes whose value may change, and
the transaction recomputes exactly those before it commits.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from itertools import groupby

from ...model import Node
from .derived import NEIGHBOUR_CHARS, NEIGHBOURS_SQL
from .rows import _chunks


def piece(name: str, text: str) -> str:
    """One sibling's part of the value (must equal NEIGHBOURS_SQL); a sibling in
    another scope or of another context type contributes nothing."""
    return ((f"{name}: " if name else "") + text)[:NEIGHBOUR_CHARS]


def _edge(
    db: sqlite3.Connection, parent: str, key: float, after: bool
) -> tuple[str, tuple[str, str], str] | None:
    """(id, (scope, type), piece) of the existing sibling just before or after `key`."""
    compare, order = (">", "ASC") if after else ("<", "DESC")
    row = db.execute(
        f"SELECT id, scope, context_type, context_name, text FROM nodes WHERE parent_id = ? "
        f"AND order_key {compare} ? ORDER BY order_key {order} LIMIT 1",
        (parent, key),
    ).fetchone()
    return None if row is None else (row[0], (row[1], row[2]), piece(row[3], row[4]))


def for_insert(db: sqlite3.Connection, nodes: Sequence[Node]) -> tuple[dict[str, str], set[str]]:
    """The value of each new node, and the nodes still to recompute at commit.

    Called before the rows exist. A batch whose siblings sit together (an
    append) is exact here; otherwise its nodes are left for the commit.
    """
    values = {n.id: "\n" for n in nodes if n.parent_id is None}
    recompute: set[str] = set()
    children = sorted((n for n in nodes if n.parent_id is not None), key=_parent_key)
    for parent, group in groupby(children, key=lambda n: n.parent_id):
        assert parent is not None
        siblings = list(group)
        low, high = siblings[0].order_key, siblings[-1].order_key
        between = db.execute(
            "SELECT 1 FROM nodes WHERE parent_id = ? AND order_key > ? AND order_key < ? LIMIT 1",
            (parent, low, high),
        ).fetchone()
        before, after = _edge(db, parent, low, False), _edge(db, parent, high, True)
        if between is not None:
            recompute.update(n.id for n in siblings)
        # ((scope, type), piece) in order; text crosses to a neighbour only
        # within a scope and between nodes of one kind.
        row: list[tuple[tuple[str, str] | None, str]] = [
            (before[1], before[2]) if before else (None, ""),
            *(((n.scope, n.context_type), piece(n.context_name, n.text)) for n in siblings),
            (after[1], after[2]) if after else (None, ""),
        ]
        for i, node in enumerate(siblings, start=1):
            kind = (node.scope, node.context_type)
            prev = row[i - 1][1] if row[i - 1][0] == kind else ""
            following = row[i + 1][1] if row[i + 1][0] == kind else ""
            values[node.id] = f"{prev}\n{following}"
        recompute.update(edge[0] for edge in (before, after) if edge)
    return values, recompute


def _parent_key(node: Node) -> tuple[str, float]:
    assert node.parent_id is not None
    return node.parent_id, node.order_key


def recompute(db: sqlite3.Connection, node_ids: Iterable[str]) -> None:
    """Set the value of these nodes from their current siblings, writing only changes
    (every write re-indexes the row in FTS5)."""
    for chunk in _chunks(sorted(set(node_ids))):
        marks = ",".join("?" * len(chunk))
        db.execute(
            f"UPDATE nodes SET neighbours = {NEIGHBOURS_SQL} "
            f"WHERE id IN ({marks}) AND neighbours IS NOT {NEIGHBOURS_SQL}",
            tuple(chunk),
        )
