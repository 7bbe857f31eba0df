"""Node rows: the column list and conversions shared by the SQLite store modules."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any, TypeVar

from ...model import Node, NodeVersion

_COLUMNS = (
    "id, root_id, parent_id, order_key, text, token_count, created_at, updated_at, "
    "context_type, context_name, context_value, scope, version, is_summary, stale, metadata, "
    "importance"
)
_SELECT = f"SELECT {_COLUMNS} FROM nodes"
_N_COLUMNS = ", ".join("n." + c.strip() for c in _COLUMNS.split(","))
_ROW_MARKS = "(" + ", ".join("?" * 17) + ")"
_CHUNK = 500  # ids per IN (...) list, under SQLite's variable limit
# Rows per multi-row INSERT. FTS5 flushes its pending terms at every statement
# savepoint, so one statement per row (executemany) makes the trigger ~6x slower.
_INSERT_ROWS = 1000


_TREE_COLUMNS = _COLUMNS.replace("root_id, ", "", 1)


def _tree_node(row: tuple[Any, ...], root_id: str) -> Node:
    """A node from a `_TREE_COLUMNS` row of the tree `root_id`."""
    meta = row[14]
    return Node(
        row[0],
        root_id,
        *row[1:12],
        row[12] == 1,
        row[13] == 1,
        {} if meta == "{}" else json.loads(meta),
        row[15],
    )  # type: ignore[call-arg]


def _node(row: tuple[Any, ...]) -> Node:
    # Hot path (hundreds of thousands per serialisation): positional, no dict.
    meta = row[15]
    return Node(
        *row[:13], row[13] == 1, row[14] == 1, {} if meta == "{}" else json.loads(meta), row[16]
    )  # type: ignore[call-arg]


def _row(node: Node) -> tuple[Any, ...]:
    return (
        node.id,
        node.root_id,
        node.parent_id,
        node.order_key,
        node.text,
        node.token_count,
        node.created_at,
        node.updated_at,
        node.context_type,
        node.context_name,
        node.context_value,
        node.scope,
        node.version,
        int(node.is_summary),
        int(node.stale),
        json.dumps(node.metadata, ensure_ascii=False, sort_keys=True) if node.metadata else "{}",
        node.importance,
    )


def _version(row: tuple[Any, ...]) -> NodeVersion:
    return NodeVersion(row[0], row[1], row[2], row[3], row[4], Node.from_dict(json.loads(row[5])))


_T = TypeVar("_T")


def _chunks(items: Sequence[_T]) -> Iterator[Sequence[_T]]:
    for start in range(0, len(items), _CHUNK):
        yield items[start : start + _CHUNK]
