"""Node rows on Postgres: the column list and conversions."""

from __future__ import annotations

import json
from typing import Any

from ...model import Node, NodeVersion

COLUMNS = (
    "id, root_id, parent_id, order_key, text, token_count, created_at, updated_at, "
    "context_type, context_name, context_value, scope, version, is_summary, stale, metadata, "
    "importance"
)
SELECT = f"SELECT {COLUMNS} FROM nodes"
MARKS = "(" + ", ".join(["%s"] * 17) + ")"


def node(row: tuple[Any, ...]) -> Node:
    meta = row[15]
    return Node(*row[:15], {} if meta == "{}" else json.loads(meta), row[16])  # type: ignore[call-arg]


def values(n: Node) -> tuple[Any, ...]:
    return (
        n.id,
        n.root_id,
        n.parent_id,
        n.order_key,
        n.text,
        n.token_count,
        n.created_at,
        n.updated_at,
        n.context_type,
        n.context_name,
        n.context_value,
        n.scope,
        n.version,
        n.is_summary,
        n.stale,
        json.dumps(n.metadata, ensure_ascii=False),
        n.importance,
    )


def version(row: tuple[Any, ...]) -> NodeVersion:
    node_id, number, op, change, at, state = row
    return NodeVersion(node_id, number, op, change, at, Node.from_dict(json.loads(state)))


def state(v: NodeVersion) -> str:
    """A version's node as stored (the JSON the SQLite store keeps too)."""
    return json.dumps(v.node.to_dict(), ensure_ascii=False)
