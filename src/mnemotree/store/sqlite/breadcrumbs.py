"""The `path` column: each node's breadcrumb (its ancestors' text, root first).

Only ancestors in the node's own scope contribute: scopes are a hard
boundary, and indexed text from another scope would let a search in one
scope test for words that exist only in another.

Derived data kept by the store, like `neighbours`: inserts compute it from
the parent's chain; a node whose text, scope or parent changes is marked, and
before the transaction commits its own path and its whole subtree's are
recomputed.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence

from ...model import Node
from .derived import PATH_CHARS

# (scope, label) of each ancestor, root first.
Chain = tuple[tuple[str, str], ...]


def path_of(chain: Chain, scope: str) -> str:
    return "\n".join(label for owner, label in chain if owner == scope)


def _extend(chain: Chain, scope: str, text: str) -> Chain:
    return (*chain, (scope, text[:PATH_CHARS]))


def _chain_to(db: sqlite3.Connection, node_id: str) -> Chain | None:
    """The chain of a child of `node_id`: its ancestors and itself."""
    rows = db.execute(
        """
        WITH RECURSIVE up(id, parent_id, scope, text, depth) AS (
            SELECT id, parent_id, scope, text, 0 FROM nodes WHERE id = ?
            UNION ALL
            SELECT n.id, n.parent_id, n.scope, n.text, up.depth + 1
            FROM nodes n JOIN up ON n.id = up.parent_id
        )
        SELECT scope, text FROM up ORDER BY depth DESC
        """,
        (node_id,),
    ).fetchall()
    if not rows:
        return None
    return tuple((scope, text[:PATH_CHARS]) for scope, text in rows)


def for_insert(db: sqlite3.Connection, nodes: Sequence[Node]) -> dict[str, str]:
    """The path of each new node; parents may be new in the same batch."""
    new = {n.id: n for n in nodes}
    chains: dict[str, Chain] = {}  # node id -> the chain its children get
    stored: dict[str, Chain | None] = {}

    def chain_below(parent_id: str) -> Chain:
        parent = new.get(parent_id)
        if parent is None:
            if parent_id not in stored:
                stored[parent_id] = _chain_to(db, parent_id)
            return stored[parent_id] or ()  # () : the insert will fail on the foreign key
        if parent_id not in chains:
            above = chain_below(parent.parent_id) if parent.parent_id else ()
            chains[parent_id] = _extend(above, parent.scope, parent.text)
        return chains[parent_id]

    return {n.id: path_of(chain_below(n.parent_id), n.scope) if n.parent_id else "" for n in nodes}


def refresh(db: sqlite3.Connection, node_ids: Iterable[str]) -> None:
    """Recompute the paths of these nodes and of everything below them,
    writing only changes (each write re-indexes the row)."""
    for node_id in sorted(set(node_ids)):
        rows = db.execute(
            """
            WITH RECURSIVE sub(id, parent_id, scope, text, path, depth) AS (
                SELECT id, parent_id, scope, text, path, 0 FROM nodes WHERE id = ?
                UNION ALL
                SELECT n.id, n.parent_id, n.scope, n.text, n.path, sub.depth + 1
                FROM nodes n JOIN sub ON n.parent_id = sub.id
            )
            SELECT id, parent_id, scope, text, path FROM sub ORDER BY depth
            """,
            (node_id,),
        ).fetchall()
        if not rows:
            continue  # deleted in the same transaction
        top_parent = rows[0][1]
        above = (_chain_to(db, top_parent) or ()) if top_parent is not None else ()
        chains: dict[str | None, Chain] = {top_parent: above}
        changed = []
        for node, parent, scope, text, old in rows:
            chain = chains[parent]
            fresh = path_of(chain, scope)
            chains[node] = _extend(chain, scope, text)
            if fresh != old:
                changed.append((fresh, node))
        db.executemany("UPDATE nodes SET path = ? WHERE id = ?", changed)
