"""The whole memory as JSONL, table by table (format version 2).

A header line, then one line per row:

    {"type": "header", "format": "mnemotree-jsonl", "format_version": 2,
     "schema_version": 14, "tokenizer": "o200k_base", "embedder": "...",
     "tables": {"nodes": {"columns": ["seq", "id", ...], "rows": 2}, ...}}
    {"type": "row", "table": "nodes", "values": [1, "01J...", ...]}

Rows are written as the database holds them (ids, versions, timestamps,
sequence numbers), tables in `Store.backup_tables` order, all read in one
consistent view. A BLOB is `{"base64": "..."}`. Derived tables (the
full-text index, artifacts, the vector queue) are rebuilt by the restore,
vectors too unless the backup holds them (`vectors=True`); API keys (their
hashes, never a secret) only with `keys=True`. Settings that describe the
file itself (its id, tokenizer, embedder) stay the target's own.

A restore goes into an empty database, all or nothing: a count that does
not match the header (a truncated file), an unknown table or column, a row
of the wrong width or a broken reference rolls everything back.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Generator
from typing import Any

from ..errors import InvalidInput, SchemaError
from ..jsonlimits import parse_json
from ..store import StagingArea, Store, TableInfo

FORMAT = "mnemotree-jsonl"
FORMAT_VERSION = 2
_BATCH = 2_000  # rows inserted per statement batch

# json.dumps leaves these raw, yet str.splitlines() and many readers break on them.
_LINE_BREAKS = str.maketrans({"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})


def dumps(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False).translate(_LINE_BREAKS)


def export_lines(
    store: Store, tokenizer: str, embedder: str | None, *, keys: bool, vectors: bool
) -> Generator[str, None, None]:
    """The header, then every row of every backed-up table."""
    with store.reading():
        tables = store.table_info(store.backup_tables(keys=keys, vectors=vectors))
        header = {
            "type": "header",
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "schema_version": store.backup_format,
            "tokenizer": tokenizer,
            "embedder": embedder if vectors else None,
            "tables": {t.name: {"columns": list(t.columns), "rows": t.rows} for t in tables},
        }
        yield json.dumps(header)
        for table in tables:
            for row in store.table_rows(table):
                values = [_encoded(v) for v in row]
                yield dumps({"type": "row", "table": table.name, "values": values})


def _encoded(value: object) -> object:
    if isinstance(value, bytes):
        return {"base64": base64.b64encode(value).decode("ascii")}
    return value


class Restore:
    """Rows of one backup read line by line into a store, inside the caller's
    transaction; `finish` checks that every table was complete."""

    def __init__(
        self,
        store: Store,
        header: dict[str, Any],
        source: str,
        staging: Callable[[int], StagingArea],
    ) -> None:
        self.store, self.source = store, source
        self.tables = header_tables(header, store, source)
        self.tokenizer = header.get("tokenizer")
        self._seen = dict.fromkeys(self.tables, 0)
        self._pending: list[list[Any]] = []
        self._table: TableInfo | None = None
        # An older schema's rows go to a database of that schema first, which
        # then migrates as any old database does.
        version = int(header["schema_version"])
        self._staging = staging(version) if version < store.backup_format else None

    def add(self, record: dict[str, Any], where: str) -> None:
        name, values = record.get("table"), record.get("values")
        table = self.tables.get(name) if isinstance(name, str) else None
        if table is None:
            raise InvalidInput(f"{where}: table {name!r} is not in the header", name)
        if not isinstance(values, list) or len(values) != len(table.columns):
            raise InvalidInput(
                f"{where}: a {table.name} row has {len(table.columns)} values "
                f"({', '.join(table.columns)})",
                values,
            )
        if table is not self._table or len(self._pending) >= _BATCH:
            self._write()
            self._table = table
        self._pending.append([_decoded(v, where) for v in values])
        self._seen[table.name] += 1

    def _write(self) -> None:
        if self._table is not None and self._pending:
            (self._staging or self.store).restore_rows(self._table, self._pending)
        self._pending = []

    def finish(self) -> None:
        self._write()
        for name, table in self.tables.items():
            if self._seen[name] != table.rows:
                raise InvalidInput(
                    f"{self.source}: table {name} has {self._seen[name]} rows but the header "
                    f"says {table.rows}; the backup is incomplete or was edited",
                    name,
                )
        if self._staging is not None:
            self._upgrade(self._staging)
        try:  # before the commit does, naming the row
            self.store.check_references()
        except InvalidInput as exc:
            raise InvalidInput(f"{self.source}: {exc.message}", exc.value) from None
        self.store.restored()

    def _upgrade(self, staging: StagingArea) -> None:
        """The staged rows, migrated to this schema, into the store."""
        keys, vectors = "api_keys" in self.tables, "vectors" in self.tables
        try:
            for table, rows in staging.migrated(
                self.store.backup_tables(keys=keys, vectors=vectors)
            ):
                batch: list[tuple[Any, ...]] = []
                for row in rows:
                    batch.append(row)
                    if len(batch) >= _BATCH:
                        self.store.restore_rows(table, batch)
                        batch = []
                if batch:
                    self.store.restore_rows(table, batch)
        finally:
            staging.close()

    def close(self) -> None:
        """Drop the staging database, if any (after a failure too)."""
        if self._staging is not None:
            self._staging.close()


def readable_version(value: object, newest: int, what: str, where: str) -> int:
    """A header's version number, if this mnemotree reads it: an integer no
    newer than `newest` (a newer one is a SchemaError naming the fix)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInput(f"{where}: the header's {what} must be an integer", value)
    if value > newest:
        raise SchemaError(
            f"{where} was written by a newer mnemotree ({what} {value}, this one reads "
            f"up to {newest}); upgrade mnemotree to read it",
            value,
        )
    return value


def header_tables(header: dict[str, Any], store: Store, source: str) -> dict[str, TableInfo]:
    """The tables a backup's header describes, checked: a schema this
    mnemotree reads, and only tables a backup holds."""
    tables = _tables(header, store.backup_format, source)
    known = store.backup_tables(keys=True, vectors=True)
    stray = [name for name in tables if name not in known]
    if stray:
        raise InvalidInput(f"{source}: table {stray[0]!r} is not part of a backup", stray[0])
    return tables


def _tables(header: dict[str, Any], schema: int, source: str) -> dict[str, TableInfo]:
    version = readable_version(header.get("schema_version"), schema, "schema_version", source)
    if version < 1:
        raise InvalidInput(f"{source}: schema_version {version} does not exist", version)
    described = header.get("tables")
    if not isinstance(described, dict):
        raise InvalidInput(f"{source}: the header has no table list", described)
    out: dict[str, TableInfo] = {}
    for name, info in described.items():
        columns = info.get("columns") if isinstance(info, dict) else None
        rows = info.get("rows") if isinstance(info, dict) else None
        if (
            not isinstance(columns, list)
            or not all(isinstance(c, str) for c in columns)
            or isinstance(rows, bool)
            or not isinstance(rows, int)
        ):
            raise InvalidInput(
                f"{source}: the header's entry for table {name!r} is malformed", info
            )
        out[name] = TableInfo(name, tuple(columns), rows)
    return out


def _decoded(value: object, where: str) -> object:
    if isinstance(value, dict):
        encoded = value.get("base64")
        if len(value) != 1 or not isinstance(encoded, str):
            raise InvalidInput(f"{where}: a value is an object other than {{'base64': ...}}", value)
        try:
            return base64.b64decode(encoded, validate=True)
        except ValueError:
            raise InvalidInput(f"{where}: invalid base64 value", encoded[:40]) from None
    if isinstance(value, list):
        raise InvalidInput(f"{where}: a value is a list", value)
    return value


def parse(line: str, where: str) -> dict[str, Any]:
    record = parse_json(line, f"{where}: the record", max_depth=4, max_chars=None)
    if not isinstance(record, dict):
        raise InvalidInput(f"{where}: expected a JSON object", line[:80])
    return record
