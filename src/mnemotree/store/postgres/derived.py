"""Derived text on Postgres: each node's neighbours' text and its breadcrumb,
as the SQLite store keeps them (same lengths, same scope and kind rules),
recomputed at commit for the nodes a transaction touched."""

from __future__ import annotations

from collections.abc import Iterable

from .connections import Connections

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
