"""Derived text on Postgres: each node's neighbours' text and its breadcrumb,
as the SQLite store keeps them (same lengths, same scope and kind rules),
recomputed at commit for the nodes a transaction touched."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from ...model import Node
from .connections import Connections
from .rows import COLUMNS, node

NEIGHBOUR_CHARS = 300
PATH_CHARS = 100  # of each ancestor's text in a node's breadcrumb


def _piece(direction: str) -> str:
    """One adjacent sibling's "name: text", empty when there is none, or when
    it is in another scope (a hard boundary) or of another kind."""
    compare, order = ("<", "DESC") if direction == "previous" else (">", "ASC")
    text = (
        "substr(CASE WHEN s.context_name <> '' THEN s.context_name || ': ' ELSE '' END "
        f"|| s.text, 1, {NEIGHBOUR_CHARS})"
    )
    same = "s.scope = nodes.scope AND s.context_type = nodes.context_type"
    return (
        f"coalesce((SELECT CASE WHEN {same} THEN {text} ELSE '' END FROM nodes s "
        f"WHERE s.parent_id = nodes.parent_id AND s.order_key {compare} nodes.order_key "
        f"ORDER BY s.order_key {order} LIMIT 1), '')"
    )


NEIGHBOURS_SQL = f"{_piece('previous')} || chr(10) || {_piece('next')}"


def recompute_neighbours(db: Connections, node_ids: Iterable[str]) -> None:
    """Set these nodes' neighbour text from their current siblings, writing only changes."""
    ids = sorted(set(node_ids))
    if ids:
        db.execute(
            f"UPDATE nodes SET neighbours = {NEIGHBOURS_SQL} "
            f"WHERE id = ANY(%s) AND neighbours IS DISTINCT FROM ({NEIGHBOURS_SQL})",
            (ids,),
        )


def refresh_paths(db: Connections, node_ids: Iterable[str]) -> None:
    """Recompute the breadcrumbs of these nodes and everything below them: each
    node's ancestors' text (root first) from its own scope only. One statement:
    each node's chain above it, then down its subtree."""
    ids = sorted(set(node_ids))
    if not ids:
        return
    db.execute(
        f"""
        WITH RECURSIVE sub(id, scopes, labels, scope) AS (
            SELECT n.id, a.scopes, a.labels, n.scope
            FROM nodes n CROSS JOIN LATERAL (
                WITH RECURSIVE up(id, parent_id, scope, label, depth) AS (
                    SELECT p.id, p.parent_id, p.scope, substr(p.text, 1, {PATH_CHARS}), 0
                    FROM nodes p WHERE p.id = n.parent_id
                    UNION ALL
                    SELECT q.id, q.parent_id, q.scope, substr(q.text, 1, {PATH_CHARS}),
                        up.depth + 1
                    FROM nodes q JOIN up ON q.id = up.parent_id
                )
                SELECT coalesce(array_agg(up.scope ORDER BY up.depth DESC), '{{}}') AS scopes,
                    coalesce(array_agg(up.label ORDER BY up.depth DESC), '{{}}') AS labels
                FROM up
            ) a
            WHERE n.id = ANY(%s)
            UNION ALL
            SELECT c.id, sub.scopes || p.scope, sub.labels || substr(p.text, 1, {PATH_CHARS}),
                c.scope
            FROM sub JOIN nodes p ON p.id = sub.id JOIN nodes c ON c.parent_id = p.id
        ),
        fresh AS (
            SELECT DISTINCT ON (id) id, coalesce(array_to_string(ARRAY(
                SELECT labels[i] FROM generate_subscripts(labels, 1) AS i
                WHERE scopes[i] = sub.scope ORDER BY i), chr(10)), '') AS path
            FROM sub ORDER BY id
        )
        UPDATE nodes SET path = fresh.path FROM fresh
        WHERE nodes.id = fresh.id AND nodes.path IS DISTINCT FROM fresh.path
        """,
        (ids,),
    )


def piece(node: Node) -> str:
    """A sibling's part of its neighbours' text (the SQL `_piece`'s)."""
    return ((f"{node.context_name}: " if node.context_name else "") + node.text)[:NEIGHBOUR_CHARS]


def _beside(a: Node | None, b: Node) -> str:
    same = a is not None and (a.scope, a.context_type) == (b.scope, b.context_type)
    return piece(a) if a is not None and same else ""


class Appended(NamedTuple):
    """What inserting nodes tells of their derived text."""

    known: dict[str, tuple[str, str]]  # {id: (neighbours, path)} of new nodes
    followed: set[str]  # nodes now followed by a known new one: their next changed


def at_insert(db: Connections, nodes: Sequence[Node]) -> Appended:
    """The new nodes whose derived text is known without recomputing it:
    appended after every existing sibling (or among new ones only), under a
    parent in their scope whose breadcrumb is known. Others are left to the
    recompute at commit; written right at insert, a node is not written again
    (each write recomputes its text index)."""
    known = {n.id: n for n in nodes}
    outside = sorted({n.parent_id for n in nodes if n.parent_id and n.parent_id not in known})
    parents: dict[str, tuple[Node, str, bool]] = {}  # id -> (node, path, is_root)
    last: dict[str, Node] = {}  # parent id -> the existing last child
    if outside:
        for row in db.execute(_PARENTS_AND_LAST_CHILDREN, (outside,)):
            parents[row[0]] = (node(row[:_WIDTH]), row[_WIDTH], row[_WIDTH + 1] is None)
            if row[_WIDTH + 2] is not None:  # the parent's last child, if any
                last[row[0]] = node(row[_WIDTH + 2 :])
    by_parent: dict[str | None, list[Node]] = {}
    for n in nodes:
        by_parent.setdefault(n.parent_id, []).append(n)
    out: dict[str, tuple[str, str]] = {}
    followed: set[str] = set()
    for parent_id, children in by_parent.items():
        if parent_id is None or parent_id in known:
            continue  # roots and new subtrees: computed at commit
        children.sort(key=lambda n: n.order_key)
        before = last.get(parent_id)
        if before is not None and before.order_key >= children[0].order_key:
            continue  # among existing siblings
        parent = parents.get(parent_id)
        for i, child in enumerate(children):
            path = _path(parent, child)
            if path is None:
                continue
            prev = children[i - 1] if i else before
            after = children[i + 1] if i + 1 < len(children) else None
            if prev is not None and prev.id not in out:
                followed.add(prev.id)
            out[child.id] = (f"{_beside(prev, child)}\n{_beside(after, child)}", path)
    return Appended(out, followed)


def _path(parent: tuple[Node, str, bool] | None, child: Node) -> str | None:
    """The child's breadcrumb from its parent's, when the parent is in its scope
    (its breadcrumb then holds exactly the ancestors the child's does)."""
    if parent is None:
        return None
    above, path, is_root = parent
    if above.scope != child.scope or (not path and not is_root):
        return None
    label = above.text[:PATH_CHARS]
    return f"{path}\n{label}" if path else label


_WIDTH = len(COLUMNS.split(","))  # a node's columns in a row


def _columns_of(table: str) -> str:
    return ", ".join(f"{table}.{c.strip()}" for c in COLUMNS.split(","))


# Each parent with its breadcrumb, and its last child if it has one.
_PARENTS_AND_LAST_CHILDREN = (
    f"SELECT {_columns_of('p')}, p.path, p.parent_id, {_columns_of('c')} FROM nodes p "
    f"LEFT JOIN LATERAL (SELECT {COLUMNS} FROM nodes WHERE parent_id = p.id "
    "ORDER BY order_key DESC LIMIT 1) c ON true WHERE p.id = ANY(%s)"
)
