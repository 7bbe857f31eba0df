"""Write transactions on the SQLite store: the write lock taken with retries,
writes a reader may skip, and accesses buffered while the lock is busy.

Every write in mnemotree is one `transaction()`. Another process's write
lock is waited for, retrying with jittered backoff up to the busy timeout;
only then does the writer give up, with a StorageError naming the file.
Nothing slow (tokenizer loading, embedding, parsing) runs inside a
transaction, so the lock is held for milliseconds.
"""

from __future__ import annotations

import logging
import random
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

from ...errors import StorageError
from .connections import Connected
from .rows import _chunks

log = logging.getLogger(__name__)

# Seconds a writer waits for another process's write lock: only a stuck or a
# very large writer (a bulk import) makes anyone wait this long.
BUSY_TIMEOUT = 30.0
# Backoff between attempts at the write lock: short first (the lock is held
# for milliseconds), jittered so that waiting processes do not retry in step.
_FIRST_PAUSE = 0.001
_MAX_PAUSE = 0.025
_BUSY_CODES = (5, 6)  # SQLITE_BUSY, SQLITE_LOCKED (extended codes share the low byte)
_ACCESS_BACKLOG = 10_000  # accesses kept while the write lock is busy


class Transactions(Connected):
    """Mixed into SQLiteStore, which calls `_init_transactions` and provides
    `_after_begin`, `_before_commit` (derived columns) and `record_accesses`."""

    _path: str
    _busy: float
    _busy_ms: int

    def _init_transactions(self) -> None:
        self._lock = threading.RLock()  # this process's writers, one at a time
        self._depth = 0
        # Accesses waiting for a free write lock (see record_accesses_soon).
        self._accesses: list[tuple[str, str]] = []
        self._accesses_lock = threading.Lock()
        self._preparations: list[Callable[[], object]] = []
        # Seconds between writes of buffered accesses by readers (0: each read
        # writes its own). A server sets it: a write lock taken for every
        # search starved real writers in other processes.
        self.access_flush_every = 0.0
        self._accesses_written = 0.0

    def before_writes(self, prepare: Callable[[], object]) -> None:
        """Run `prepare` before every write takes the lock: slow one-time work
        that a write may need (loading the tokenizer) then never runs while the
        lock is held, whichever code path writes. It must be cheap once done."""
        self._preparations.append(prepare)

    if TYPE_CHECKING:  # provided by SQLiteStore and its query mixins

        def _after_begin(self) -> None: ...

        def _before_commit(self) -> None: ...

        def record_accesses(self, node_ids: Sequence[str], at: str, keep: int = 50) -> None: ...

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One write transaction; nested calls join the outer one.

        Run-time SQLite failures (locked past the busy timeout, read-only,
        disk full) surface as StorageError naming the database; the
        transaction is rolled back.
        """
        for prepare in self._preparations:
            prepare()
        with self._lock:
            if self._depth:
                with self._joined():
                    yield
                return
            self._begin(self._busy)
            with self._outermost():
                yield

    def try_write(self, work: Callable[[], object]) -> bool:
        """Run `work` in a write transaction only if the write lock is free now
        (or this thread already holds it); False, with nothing done, if another
        thread or process is writing. For writes a reader may skip."""
        if not self._lock.acquire(blocking=False):
            return False
        try:
            if self._depth:
                with self._joined():
                    work()
                return True
            if not self._took_lock(0.0):
                return False
            with self._outermost():
                work()
            return True
        finally:
            self._lock.release()

    def record_accesses_soon(self, node_ids: Sequence[str], at: str) -> None:
        """Record accesses now if the write lock is free, else with this store's
        next write (or at close). A search never waits for the lock for them:
        they are a ranking signal, and under long contention the oldest beyond
        `_ACCESS_BACKLOG` are dropped."""
        with self._accesses_lock:
            self._accesses.extend((i, at) for i in node_ids)
            del self._accesses[: max(0, len(self._accesses) - _ACCESS_BACKLOG)]
        if time.monotonic() - self._accesses_written >= self.access_flush_every:
            self._write_backlog()

    def _write_backlog(self) -> None:
        """The buffered accesses, if the write lock is free (a commit writes
        them). A file that cannot be written (read-only) keeps them buffered:
        they never fail the read that made them."""
        if not self._accesses:
            return
        try:
            self.try_write(lambda: None)
        except StorageError as exc:
            log.warning("accesses not recorded yet: %s", exc)

    def _took_lock(self, wait: float) -> bool:
        """BEGIN IMMEDIATE within `wait` seconds; False if another connection
        still holds the lock. Other failures are StorageError."""
        try:
            return begin_immediate(self._db, wait, self._busy_ms)
        except sqlite3.DatabaseError as exc:
            raise self._storage_error(exc) from None

    def _begin(self, wait: float) -> None:
        if not self._took_lock(wait):
            raise StorageError(
                f"database {self._path!r} is locked: another process has held its write "
                f"lock for {wait:g} s; nothing was written, try again (or stop the other "
                "writer)",
                self._path,
            )

    @contextmanager
    def _joined(self) -> Iterator[None]:
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1

    @contextmanager
    def _outermost(self) -> Iterator[None]:
        """The body of a transaction whose BEGIN just succeeded."""
        self._depth = 1
        taken: list[tuple[str, str]] = []
        try:
            self._after_begin()
            yield
            self._before_commit()
            taken = self._write_accesses()
            self._db.execute("COMMIT")
        except sqlite3.IntegrityError:
            self._rollback(taken)
            raise
        except sqlite3.DatabaseError as exc:
            self._rollback(taken)
            raise self._storage_error(exc) from None
        except BaseException:
            self._rollback(taken)
            raise
        finally:
            self._depth = 0

    def _write_accesses(self) -> list[tuple[str, str]]:
        """Write the buffered accesses in this transaction; returns them (to be
        put back if it rolls back)."""
        with self._accesses_lock:
            taken, self._accesses = self._accesses, []
            self._accesses_written = time.monotonic()
        if not taken:
            return taken
        alive = self._existing([i for i, _ in taken])  # a node may have gone meanwhile
        by_time: dict[str, list[str]] = {}
        for node_id, at in taken:
            if node_id in alive:
                by_time.setdefault(at, []).append(node_id)
        for at, ids in by_time.items():
            self.record_accesses(ids, at)
        return taken

    def _existing(self, node_ids: list[str]) -> set[str]:
        found: set[str] = set()
        for chunk in _chunks(sorted(set(node_ids))):
            marks = ",".join("?" * len(chunk))
            sql = f"SELECT id FROM nodes WHERE id IN ({marks})"
            found.update(r[0] for r in self._db.execute(sql, tuple(chunk)))
        return found

    def _rollback(self, accesses: list[tuple[str, str]]) -> None:
        if accesses:
            with self._accesses_lock:
                self._accesses[:0] = accesses
        if self._db.in_transaction:
            self._db.execute("ROLLBACK")

    def _storage_error(self, exc: sqlite3.DatabaseError) -> StorageError:
        hint = " (another process is writing; retry)" if is_busy(exc) else ""
        return StorageError(f"database {self._path!r}: {exc}{hint}", self._path)


def is_busy(exc: sqlite3.Error) -> bool:
    """Whether SQLite refused because another connection holds a lock."""
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF in _BUSY_CODES
    return "locked" in str(exc) or "busy" in str(exc)


def begin_immediate(db: sqlite3.Connection, wait: float, busy_ms: int) -> bool:
    """Take the write lock (BEGIN IMMEDIATE), retrying with jittered backoff
    for up to `wait` seconds; False if it is still held by then (`wait=0`:
    one attempt). SQLite's own busy handler is off meanwhile: it sleeps up to
    100 ms between looks, so a waiter missed the gaps between short writes
    and could starve beside busy writers. `busy_ms` is restored afterwards
    for the statements inside the transaction."""
    return execute_when_free(db, "BEGIN IMMEDIATE", wait, busy_ms)


def execute_when_free(db: sqlite3.Connection, sql: str, wait: float, busy_ms: int) -> bool:
    """Run `sql`, retrying while the database is busy for up to `wait`
    seconds (see begin_immediate); False if it is still busy by then.

    Also for statements SQLite answers BUSY at once, without its busy
    handler: switching a new file to WAL while another process does the same."""
    deadline = time.monotonic() + wait
    pause = _FIRST_PAUSE
    db.execute("PRAGMA busy_timeout = 0")
    try:
        while True:
            try:
                db.execute(sql)
                return True
            except sqlite3.OperationalError as exc:
                if not is_busy(exc):
                    raise
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            time.sleep(min(left, pause * random.uniform(0.5, 1.0)))
            pause = min(_MAX_PAUSE, pause * 2)
    finally:
        db.execute(f"PRAGMA busy_timeout = {busy_ms}")
