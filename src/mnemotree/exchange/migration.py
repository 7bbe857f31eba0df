"""Moving a whole memory from one store to another (a SQLite file, a Postgres
database), table by table in committed chunks, so a stopped run resumes
where it stopped instead of starting over.

The target records its progress (`PROGRESS` in its settings, in the same
transaction as each chunk): which source it copies, that source's row counts
when the copy began, and the rows of each table already in. A table after
`nodes` only refers back to tables before it, so its rows resume by count.
A node may name a parent written after it (a summary made over its
children), so nodes resume by id: each waits, in memory, for its parent.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from ..errors import InvalidInput
from ..store import Store, TableInfo

PROGRESS = "migration_progress"  # a setting of the target while a copy is unfinished (never copied)
CHUNK = 5_000  # rows per committed transaction
_NODES = "nodes"


def copy_store(
    source: Store,
    target: Store,
    source_name: str,
    progress: Callable[[int, int], None] | None = None,
) -> int:
    """Copy every table of `source` (keys and vectors included) into `target`,
    which is empty or holds an unfinished copy of the same source; returns
    the rows copied by this run. `progress(rows, total)` follows it."""
    with source.reading():
        tables = source.table_info(source.backup_tables(keys=True, vectors=True))
        counts = {t.name: t.rows for t in tables}
        state = _begin(target, source_name, counts)
        total = sum(counts.values())
        done = sum(state["copied"].values())
        copied = 0
        for table in tables:
            rows = source.table_rows(table)
            chunks: Iterator[Sequence[Sequence[Any]]]
            if table.name == _NODES:
                columns = (table.columns.index("id"), table.columns.index("parent_id"))
                chunks = _nodes_in_order(rows, _present_ids(target), columns)
            else:
                chunks = _chunks(_skipped(rows, state["copied"].get(table.name, 0)))
            for chunk in chunks:
                with target.transaction():
                    target.restore_rows(table, chunk)
                    state["copied"][table.name] = state["copied"].get(table.name, 0) + len(chunk)
                    target.set_setting(PROGRESS, json.dumps(state))
                copied += len(chunk)
                if progress is not None:
                    progress(done + copied, total)
    with target.transaction():
        target.check_references()
        _check_counts(target, tables)
        target.restored()
        target.delete_setting(PROGRESS)
    return copied


def _begin(target: Store, source_name: str, counts: dict[str, int]) -> dict[str, Any]:
    """The progress of an unfinished copy of this source, or a new one."""
    raw = target.get_setting(PROGRESS)
    if raw is None:
        if not target.is_empty():
            raise InvalidInput(
                f"{target.location} already holds memories; migrate into an empty database "
                "(a new file, or a new Postgres database)",
                target.location,
            )
        state: dict[str, Any] = {"source": source_name, "counts": counts, "copied": {}}
        with target.transaction():
            target.set_setting(PROGRESS, json.dumps(state))
        return state
    state = json.loads(raw)
    if state.get("source") != source_name or state.get("counts") != counts:
        raise InvalidInput(
            f"{target.location} holds an unfinished migration of another database, or of "
            f"this one before it changed ({state.get('source')!r}); migrate into a new, "
            "empty database instead",
            target.location,
        )
    return state


def _present_ids(target: Store) -> set[str]:
    """Ids of the nodes an earlier run copied."""
    return {row[0] for row in target.table_rows(TableInfo(_NODES, ("id",), 0))}


def _skipped(rows: Iterator[tuple[Any, ...]], count: int) -> Iterator[tuple[Any, ...]]:
    for _ in range(count):
        next(rows, None)
    return rows


def _chunks(rows: Iterable[Sequence[Any]]) -> Iterator[list[Sequence[Any]]]:
    chunk: list[Sequence[Any]] = []
    for row in rows:
        chunk.append(row)
        if len(chunk) == CHUNK:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _nodes_in_order(
    rows: Iterable[tuple[Any, ...]], present: set[str], columns: tuple[int, int]
) -> Iterator[list[tuple[Any, ...]]]:
    """Chunks of the nodes not yet copied, each after its parent: a node whose
    parent is not in yet waits for it (`columns`: where id and parent id are)."""
    key, up = columns
    waiting: dict[str, list[tuple[Any, ...]]] = {}  # parent id -> its children's rows
    ready: list[tuple[Any, ...]] = []

    def release(row: tuple[Any, ...]) -> None:
        stack = [row]
        while stack:
            current = stack.pop()
            ready.append(current)
            present.add(current[key])
            stack.extend(waiting.pop(current[key], []))

    for row in rows:
        if row[key] in present:
            continue
        parent = row[up]
        if parent is None or parent in present:
            release(row)
        else:
            waiting.setdefault(parent, []).append(row)
        while len(ready) >= CHUNK:
            yield ready[:CHUNK]
            del ready[:CHUNK]
    if waiting:
        orphan = next(iter(waiting))
        raise InvalidInput(f"nodes name a parent {orphan!r} that is not in the source", orphan)
    if ready:
        yield ready


def _check_counts(target: Store, tables: Sequence[TableInfo]) -> None:
    """Every table arrived whole (the same count of rows as the source's)."""
    arrived = {t.name: t.rows for t in target.table_info([t.name for t in tables])}
    for table in tables:
        if arrived[table.name] != table.rows:
            raise InvalidInput(
                f"table {table.name} has {arrived[table.name]} rows in the target but "
                f"{table.rows} in the source",
                table.name,
            )
