"""Records from and to the plain column values both backends keep (the same
tables and columns): lists and objects are JSON text in a column, tuples
and dicts in a record. No SQL here: each backend writes its own queries."""

from __future__ import annotations

import json
from typing import Any

from .records import CapturedRow, KeyRow, RunRow


def captured_row(row: tuple[Any, ...]) -> CapturedRow:
    """A `captured` table row (sources and fields as JSON) as a record."""
    id, session_id, scope, text, type, confidence, sources, status, memory_id, at, fields = row
    decoded = tuple(json.loads(sources))
    carried = json.loads(fields)  # an object; anything else (a hand-edited backup) is none
    extra = (
        tuple(sorted((str(k), str(v)) for k, v in carried.items()))
        if isinstance(carried, dict)
        else ()
    )
    return CapturedRow(
        id, session_id, scope, text, type, confidence, decoded, status, memory_id, at, extra
    )


def captured_values(row: CapturedRow) -> tuple[Any, ...]:
    encoded = (json.dumps(list(row.sources)), *row[7:10], json.dumps(dict(row.fields)))
    return (*row[:6], *encoded)


def run_row(row: tuple[Any, ...]) -> RunRow:
    """A `consolidation_runs` table row (summary, actions, undo as JSON) as a record."""
    summary, actions, undo = (json.loads(v) for v in row[3:6])
    return RunRow(row[0], row[1], row[2], summary, tuple(actions), tuple(undo), row[6])


def run_values(row: RunRow) -> tuple[Any, ...]:
    encoded = (json.dumps(row.summary), json.dumps(row.actions), json.dumps(row.undo))
    return (row.id, row.started_at, row.applied_at, *encoded, row.undone_at)


def key_row(row: tuple[object, ...]) -> KeyRow:
    """An `api_keys` table row (scopes as JSON) as a record."""
    return KeyRow(
        str(row[0]),
        str(row[1]),
        str(row[2]),
        tuple(json.loads(str(row[3]))),
        str(row[4]),
        None if row[5] is None else str(row[5]),
        None if row[6] is None else str(row[6]),
    )


def key_values(row: KeyRow) -> tuple[Any, ...]:
    return (*row[:3], json.dumps(list(row.scopes)), *row[4:])
