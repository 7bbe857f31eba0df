"""One SQLite connection per thread, so that reads run side by side.

A connection serves one statement at a time; in WAL mode separate connections
read concurrently, each seeing the last commit, while one writes. The store's
transaction lock keeps our own writers in line (see `SQLiteStore.transaction`).
An in-memory database exists only in its one connection, so it is shared.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path

from ...errors import SchemaError, StorageError


class Connections:
    """Opens a thread's connection on first use; `close` closes all of them."""

    def __init__(self, path: str, open_one: Callable[[], sqlite3.Connection]) -> None:
        self._open_one = open_one
        self._local = threading.local()
        self._lock = threading.Lock()
        # Thread -> its connection; a finished thread's is closed when the next opens.
        self._open: dict[threading.Thread, sqlite3.Connection] = {}
        self._shared = open_one() if path == ":memory:" else None
        self._closed = False

    def get(self) -> sqlite3.Connection:
        """The calling thread's connection (opened now if need be)."""
        if self._shared is not None:
            return self._shared
        found: sqlite3.Connection | None = getattr(self._local, "db", None)
        if found is not None:
            return found
        with self._lock:
            if self._closed:
                raise sqlite3.ProgrammingError("Cannot operate on a closed database.")
            for thread in [t for t in self._open if not t.is_alive()]:
                self._open.pop(thread).close()
            made = self._open_one()
            self._open[threading.current_thread()] = made
        self._local.db = made
        return made

    def close(self) -> None:
        with self._lock:
            self._closed = True
            for connection in self._open.values():
                connection.close()
            self._open.clear()
            if self._shared is not None:
                self._shared.close()


class Connected:
    """Base of the store's query mixins: `_db` is the calling thread's connection."""

    _connections: Connections

    @property
    def _db(self) -> sqlite3.Connection:
        return self._connections.get()


def check_file(path: Path) -> None:
    """Refuse a folder; create the folder of a new file.

    The file itself is never opened here (SQLite tells a file that is not a
    database, before writing anything): closing any descriptor of a file drops
    every POSIX lock this process holds on it, those of its other SQLite
    connections included (a second Memory, the server's embedding worker).
    Reading the header with open() did that, and the next writes of two
    processes at once corrupted the file."""
    if path.is_dir():
        raise SchemaError(f"{str(path)!r} is a directory, not a database file", str(path))
    if not path.exists():
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StorageError(
                f"cannot create the folder for {str(path)!r}: {exc.strerror}", str(path)
            ) from None
