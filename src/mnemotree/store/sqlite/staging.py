"""A backup of an older schema is first restored as it was, into a temporary
database built to that schema, which then migrates like any old database;
its rows are then restored from there."""

from __future__ import annotations

import sqlite3
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

from ..records import TableInfo
from .backup import insert_rows
from .migrations import apply_migrations


class _Opened(Protocol):
    """What a staging area needs of the store it opens its migrated file as."""

    def table_info(self, tables: Sequence[str]) -> list[TableInfo]: ...

    def table_rows(self, table: TableInfo) -> Iterator[tuple[Any, ...]]: ...

    def close(self) -> None: ...


class Staging:
    """A temporary database at schema `version`, filled by `restore_rows`;
    `migrated` brings it to this schema and yields its tables' rows."""

    def __init__(self, version: int, open_store: Callable[[Path], _Opened]) -> None:
        self._open = open_store
        self._folder = tempfile.TemporaryDirectory(prefix="mnemotree-restore-")
        self._path = Path(self._folder.name) / "staging.db"
        self._db = sqlite3.connect(self._path, isolation_level=None)
        self._db.execute("BEGIN")
        apply_migrations(self._db, 0, version)

    def restore_rows(self, table: TableInfo, rows: Iterable[Sequence[Any]]) -> int:
        return insert_rows(self._db, table, rows)

    def migrated(
        self, tables: Sequence[str]
    ) -> Iterator[tuple[TableInfo, Iterator[tuple[Any, ...]]]]:
        self._db.execute("COMMIT")
        self._db.close()
        store = self._open(self._path)  # migrates to this schema
        try:
            for table in store.table_info(tables):
                yield table, store.table_rows(table)
        finally:
            store.close()

    def close(self) -> None:
        self._db.close()  # after a failure it is still open; closing twice is harmless
        self._folder.cleanup()
