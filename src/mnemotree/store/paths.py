"""The `path` column: each node's breadcrumb (its ancestors' text, root first).

Derived data kept by the store, like `neighbours`: inserts compute it from
the parent's; a node whose text or parent changes is marked, and before the
transaction commits its own path and its whole subtree's are recomputed.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence

from ..model import Node
from .migrations import PATH_CHARS


def below(path: str, parent_text: str) -> str:
    """The path of a child of a node with this path and text (as the migration's SQL)."""
    label = parent_text[:PATH_CHARS]
    return f"{path}\n{label}" if path else label


def for_insert(db: sqlite3.Connection, nodes: Sequence[Node]) -> dict[str, str]:
    """The path of each new node; parents may be new in the same batch."""
    new = {n.id: n for n in nodes}
    paths: dict[str, str] = {}
    stored: dict[str, tuple[str, str]] = {}  # existing parent id -> (path, text)

    def parent_side(parent_id: str) -> tuple[str, str] | None:
        if parent_id not in stored:
            row = db.execute("SELECT path, text FROM nodes WHERE id = ?", (parent_id,)).fetchone()
            if row is None:
                return None  # the insert itself will fail on the foreign key
            stored[parent_id] = (row[0], row[1])
        return stored[parent_id]

    for node in nodes:
        chain: list[Node] = []  # walk up through new nodes until a known path
        cursor: Node | None = node
        while cursor is not None and cursor.id not in paths:
            chain.append(cursor)
            cursor = new.get(cursor.parent_id) if cursor.parent_id else None
        for item in reversed(chain):
            if item.parent_id is None:
                paths[item.id] = ""
            elif item.parent_id in new:
                paths[item.id] = below(paths[item.parent_id], new[item.parent_id].text)
            else:
                side = parent_side(item.parent_id)
                paths[item.id] = below(*side) if side else ""
    return paths


def refresh(db: sqlite3.Connection, node_ids: Iterable[str]) -> None:
    """Recompute the paths of these nodes and of everything below them,
    writing only changes (each write re-indexes the row)."""
    for node_id in sorted(set(node_ids)):
        rows = db.execute(
            """
            WITH RECURSIVE sub(id, parent_id, text, path, depth) AS (
                SELECT id, parent_id, text, path, 0 FROM nodes WHERE id = ?
                UNION ALL
                SELECT n.id, n.parent_id, n.text, n.path, sub.depth + 1
                FROM nodes n JOIN sub ON n.parent_id = sub.id
            )
            SELECT id, parent_id, text, path FROM sub ORDER BY depth
            """,
            (node_id,),
        ).fetchall()
        if not rows:
            continue  # deleted in the same transaction
        top_parent = rows[0][1]
        if top_parent is None:
            fresh = {rows[0][0]: ""}
        else:
            up = db.execute("SELECT path, text FROM nodes WHERE id = ?", (top_parent,)).fetchone()
            fresh = {rows[0][0]: below(up[0], up[1])}
        texts = {r[0]: r[2] for r in rows}
        changed = []
        for node, parent, _, old in rows:
            if node not in fresh:
                fresh[node] = below(fresh[parent], texts[parent])
            if fresh[node] != old:
                changed.append((fresh[node], node))
        db.executemany("UPDATE nodes SET path = ? WHERE id = ?", changed)
