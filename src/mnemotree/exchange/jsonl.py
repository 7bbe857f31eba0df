"""JSONL backup of a whole database: lossless, streamable, diffable (the
format is described in `backup`; files of the first format, nodes and
their history only, are still read)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TextIO

from ..batch import NodeBatch
from ..errors import AlreadyExists, InvalidInput
from ..ids import new_id
from ..jsonlimits import MAX_DEPTH, parse_json
from ..model import Node, NodeVersion
from ..store import StagingArea, Store
from ..timeutil import to_iso, utc_now
from ..tokens import Tokenizer
from . import backup
from .loader import load_nodes

FORMAT = backup.FORMAT
FORMAT_VERSION = backup.FORMAT_VERSION
_NODES_ONLY = 1  # the first format: nodes and their history, nothing else

_PROGRESS_EVERY = 1_000  # rows restored between two reports of progress


def write(
    store: Store,
    tokenizer_name: str,
    out: TextIO,
    *,
    embedder: str | None = None,
    keys: bool = False,
    vectors: bool = False,
) -> int:
    """Write the whole memory (see `backup`); returns the line count."""
    count = 0
    for line in backup.export_lines(store, tokenizer_name, embedder, keys=keys, vectors=vectors):
        out.write(line + "\n")
        count += 1
    return count


def read(
    store: Store,
    tokenizer: Tokenizer,
    lines: Iterable[str],
    source: str,
    embedder: Callable[[], str],
    *,
    staging: Callable[[int], StagingArea],
    merge: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> list[Node]:
    """Import a JSONL backup, all or nothing; returns the imported roots.
    `staging` opens a database at an older table format, for an older backup.

    Into an empty database the whole memory is restored as it was. With
    `merge`, into one that holds memories, only the backup's trees and
    their history are added (ids must be free; versions continue above the
    history kept for them). `embedder` is the identity of the target's
    embedder (asked only once the restore can go ahead): nodes without a
    vector from it are queued to be embedded. `progress(rows, total)` is
    told of a full restore's rows as they are read."""
    numbered = ((n, line) for n, line in enumerate(lines, 1) if line.strip())
    first = next(numbered, None)
    if first is None:
        raise InvalidInput(f"{source} is empty; expected a mnemotree JSONL export", source)
    header = _parse(first[1], f"{source}, line {first[0]}")
    version = _check_header(header, f"{source}, line {first[0]}")
    if version <= _NODES_ONLY:
        return _read_nodes(store, tokenizer, numbered, source)
    if merge:
        return _merge_nodes(store, tokenizer, header, numbered, source)
    if not store.is_empty():
        raise AlreadyExists(
            f"this database already holds memories or their history; restore {source} "
            "into a new one (another --db path), or pass --merge to add its trees",
            store.location,
        )
    restore = backup.Restore(store, header, source, staging)
    total = sum(t.rows for t in restore.tables.values())
    try:
        identity = embedder()
        with store.transaction():
            for count, (number, line) in enumerate(numbered, 1):
                if progress is not None and count % _PROGRESS_EVERY == 0:
                    progress(count, total)
                where = f"{source}, line {number}"
                record = backup.parse(line, where)
                if record.get("type") != "row":
                    raise InvalidInput(
                        f"{where}: unknown record type {record.get('type')!r}", record.get("type")
                    )
                restore.add(record, where)
            restore.finish()
            _after_restore(store, tokenizer, restore.tokenizer, identity)
            if progress is not None:
                progress(total, total)
    finally:
        restore.close()
    return store.roots()


def _after_restore(store: Store, tokenizer: Tokenizer, counted_by: object, embedder: str) -> None:
    """Derived state the target keeps itself: token counts by its tokenizer,
    vectors from its embedder."""
    if counted_by != tokenizer.name:
        nodes = list(store.iter_nodes())
        counts = tokenizer.count_many([n.text for n in nodes])
        recounted = [(n.id, c) for n, c in zip(nodes, counts, strict=True)]
        NodeBatch(store, new_id(), to_iso(utc_now())).recount(recounted)
    store.queue_missing_vectors(embedder)


def _merge_nodes(
    store: Store,
    tokenizer: Tokenizer,
    header: dict[str, Any],
    numbered: Iterable[tuple[int, str]],
    source: str,
) -> list[Node]:
    """The trees and history of a whole-memory backup, added as nodes."""
    tables = backup.header_tables(header, store, source)
    nodes: list[Node] = []
    versions: list[NodeVersion] = []
    for number, line in numbered:
        where = f"{source}, line {number}"
        record = backup.parse(line, where)
        table = tables.get(str(record.get("table")))
        values = record.get("values")
        if table is None or not isinstance(values, list) or len(values) != len(table.columns):
            raise InvalidInput(f"{where}: a malformed row", record.get("table"))
        row = dict(zip(table.columns, values, strict=True))
        if table.name == "nodes":
            row["metadata"] = _parse(str(row.get("metadata", "{}")), where)
            for flag in ("is_summary", "stale"):  # SQLite keeps them as 0 and 1
                if row.get(flag) in (0, 1):
                    row[flag] = bool(row[flag])
            nodes.append(_node(row, where))
        elif table.name == "node_versions":
            state = _parse(str(row.get("state")), where)
            versions.append(_version({**row, "node": state}, where))
    return load_nodes(store, tokenizer, nodes, versions, source)


def _read_nodes(
    store: Store, tokenizer: Tokenizer, numbered: Iterable[tuple[int, str]], source: str
) -> list[Node]:
    """A first-format export: nodes and versions only."""
    nodes: list[Node] = []
    versions: list[NodeVersion] = []
    for number, line in numbered:
        where = f"{source}, line {number}"
        record = _parse(line, where)
        kind = record.get("type")
        if kind == "node":
            nodes.append(_node(record, where))
        elif kind == "version":
            versions.append(_version(record, where))
        else:
            raise InvalidInput(f"{where}: unknown record type {kind!r}", kind)
    return load_nodes(store, tokenizer, nodes, versions, source)


def _parse(line: str, where: str) -> dict[str, Any]:
    # A version record holds a node, which holds the metadata: two levels
    # above it. The loader applies the exact limits to each field.
    record = parse_json(line, f"{where}: the record", max_depth=MAX_DEPTH + 2, max_chars=None)
    if not isinstance(record, dict):
        raise InvalidInput(f"{where}: expected a JSON object", line[:80])
    return record


def _check_header(record: dict[str, Any], where: str) -> int:
    if record.get("type") != "header" or record.get("format") != FORMAT:
        raise InvalidInput(
            f"{where}: not a mnemotree JSONL export (no header line); "
            "use --format markdown for Markdown files",
            record.get("format"),
        )
    return backup.readable_version(
        record.get("format_version", 0), FORMAT_VERSION, "format_version", where
    )


def _node(record: object, where: str) -> Node:
    """A node from a record; field types are checked by the loader."""
    if not isinstance(record, dict):
        raise InvalidInput(f"{where}: a node must be a JSON object", record)
    try:
        return Node.from_dict(record)
    except TypeError as exc:  # a required field is missing
        raise InvalidInput(f"{where}: malformed node record ({exc})", record.get("id")) from None


def _version(record: dict[str, Any], where: str) -> NodeVersion:
    node = _node(record.get("node"), where)
    fields = [record.get(k) for k in ("node_id", "version", "op", "change_id", "recorded_at")]
    node_id, version, op, change_id, recorded_at = fields
    if not all(isinstance(v, str) for v in (node_id, op, change_id, recorded_at)):
        raise InvalidInput(f"{where}: malformed version record", record.get("node_id"))
    if isinstance(version, bool) or not isinstance(version, int):
        raise InvalidInput(f"{where}: version must be an integer", version)
    return NodeVersion(node_id, version, op, change_id, recorded_at, node)  # type: ignore[arg-type]
