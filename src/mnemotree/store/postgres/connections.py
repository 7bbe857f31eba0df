"""Connections and transactions on Postgres.

A pool of autocommit connections serves reads, one statement at a time. A
transaction binds one connection to its thread until it ends, so the
thread's reads inside it see its own writes. Writers are one at a time, as
on SQLite: in this process by a lock, across processes (several API servers
on one database) by a transaction-level advisory lock taken first in every
write transaction, so what the engine reasons about a write (the order of
two contradicting statements, a free order key) holds on both backends.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ...errors import MissingExtra, StorageError

log = logging.getLogger(__name__)

# The advisory lock every write transaction takes (any constant; "mnem").
WRITE_LOCK = 0x6D6E656D
TASK_LOCKS = 0x6D6E7461  # the first half of every task's lock ("mnta"), the task's hash the second
_ACCESS_BACKLOG = 10_000  # accesses kept while the write lock is busy


class _Lost(Exception):
    """A read's connection broke before it was answered (it may be asked again)."""


def _psycopg() -> Any:
    try:
        import psycopg
        import psycopg_pool
    except ImportError as exc:  # pragma: no cover - the extra is installed in tests
        raise MissingExtra(
            "the Postgres store needs the 'postgres' extra: pip install 'mnemotree[postgres]'",
            "postgres",
        ) from exc
    return psycopg, psycopg_pool


# How many candidates pgvector's HNSW index yields per search unless a
# statement asks for more (a search asks for 68 rows: 60 nodes and 8 more).
EF_SEARCH = 100


def _configure(conn: Any) -> None:
    """Settings of every pooled connection: index lookups cost little more than
    reading in order (the tables live in memory or on SSD, not on spinning
    disks, which the default of 4 assumes), the HNSW index's default breadth,
    so most searches need no transaction to set it, and no JIT compilation."""
    conn.execute("SET random_page_cost = 1.1")
    conn.execute(f"SET hnsw.ef_search = {EF_SEARCH}")
    conn.execute("SET jit = off")  # compiling a plan costs more than our short statements


def shown(uri: str) -> str:
    """The database's address without its password, to name it in messages."""
    head, at, rest = uri.partition("@")
    if not at or ":" not in head.partition("://")[2]:
        return uri
    scheme, _, user = head.partition("://")
    return f"{scheme}://{user.partition(':')[0]}@{rest}"


class Connections:
    """The pool, the thread's transaction, and the write lock."""

    def __init__(self, uri: str, pool_size: int) -> None:
        psycopg, pools = _psycopg()
        self._errors = psycopg.Error
        self.location = shown(uri)
        self._conninfo_params = psycopg.conninfo.conninfo_to_dict(uri)
        self._lost = psycopg.OperationalError  # the connection broke (server gone, restarted)
        try:
            # One connection first: a wrong address or password is named now,
            # rather than after the pool's 30 s of retrying it.
            psycopg.connect(uri, connect_timeout=10).close()
        except self._errors as exc:
            raise StorageError(
                f"cannot open Postgres at {self.location}: {exc}", self.location
            ) from None
        try:
            self._pool = pools.ConnectionPool(
                uri,
                min_size=1,
                max_size=max(1, pool_size),
                kwargs={"autocommit": True},
                configure=_configure,
                open=True,
                timeout=30.0,
            )
            self._pool.wait(timeout=30.0)
        except (self._errors, pools.PoolTimeout) as exc:
            message = f"cannot open Postgres at {self.location}: {exc}"
            raise StorageError(message, self.location) from None
        self._local = threading.local()
        self._writers = threading.RLock()  # this process's writers, one at a time
        self._depth = 0
        self._preparations: list[Callable[[], object]] = []
        self._accesses: list[tuple[str, str]] = []
        self._accesses_lock = threading.Lock()
        self.access_flush_every = 0.0
        self._accesses_written = 0.0
        self.on_commit: Callable[[], None] = lambda: None

    # -- statements -------------------------------------------------------------

    def _bound(self) -> Any:
        return getattr(self._local, "conn", None)

    @contextmanager
    def cursor(self, *, lost: bool = False) -> Iterator[Any]:
        """A cursor on the thread's transaction, else on a pooled connection;
        with `lost`, a broken connection's error is left to the caller."""
        bound = self._bound()
        try:
            if bound is not None:
                with bound.cursor() as cur:
                    yield cur
                return
            with self._pool.connection() as conn, conn.cursor() as cur:
                yield cur
        except self._errors as exc:
            if lost and isinstance(exc, self._lost):
                raise
            raise self.storage_error(exc) from None

    def execute(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Rows of one statement (none for a write). A read outside a
        transaction whose connection broke (the server restarted, an idle
        connection was cut) is asked again once on a new connection; a write
        never is: whether it took effect is unknown."""
        retry = self._bound() is None and sql.lstrip()[:6].upper() == "SELECT"
        for attempt in (1, 2):
            try:
                return self._rows(sql, args, retry and attempt == 1)
            except _Lost:
                log.info("a Postgres connection broke; reading again on a new one")
        raise AssertionError("unreachable")  # pragma: no cover

    def _rows(self, sql: str, args: Sequence[Any], retry: bool) -> list[tuple[Any, ...]]:
        try:
            with self.cursor(lost=retry) as cur:
                cur.execute(sql, args or None)  # no values: a % in the SQL is itself
                return list(cur.fetchall()) if cur.description is not None else []
        except self._lost:
            raise _Lost from None

    def changed(self, sql: str, args: Sequence[Any] = ()) -> int:
        """Rows a write changed."""
        with self.cursor() as cur:
            cur.execute(sql, args or None)
            return int(cur.rowcount)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if rows:
            with self.cursor() as cur:
                cur.executemany(sql, rows)

    def copy_in(self, table: str, columns: str, rows: Sequence[Sequence[Any]]) -> None:
        """Write many rows into `table` (names from our own code, never user
        text) by COPY: a fifth of the round trips' cost of one INSERT a row."""
        if rows:
            with self.cursor() as cur, cur.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)

    def storage_error(self, exc: Exception) -> StorageError:
        return StorageError(f"Postgres at {self.location}: {exc}", self.location)

    # -- transactions -----------------------------------------------------------

    def before_writes(self, prepare: Callable[[], object]) -> None:
        self._preparations.append(prepare)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One write transaction; nested calls join the outer one."""
        for prepare in self._preparations:
            prepare()
        with self._writers:
            if self._depth:
                self._depth += 1
                try:
                    yield
                finally:
                    self._depth -= 1
                return
            with self._outermost(wait=True) as taken:
                assert taken
                yield

    def try_write(self, work: Callable[[], object]) -> bool:
        """Run `work` in a write transaction only if no writer holds the lock now."""
        if not self._writers.acquire(blocking=False):
            return False
        try:
            if self._depth:
                work()
                return True
            with self._outermost(wait=False) as taken:
                if not taken:
                    return False
                work()
            return True
        finally:
            self._writers.release()

    @contextmanager
    def _outermost(self, *, wait: bool) -> Iterator[bool]:
        with self._pool.connection() as conn:
            self._local.conn = conn
            self._depth = 1
            try:
                lock = "pg_advisory_xact_lock" if wait else "pg_try_advisory_xact_lock"
                # One round trip: a statement list (no parameters: the lock
                # is our own constant) answers with the lock's result last.
                taken = self._statement(conn, f"BEGIN; SELECT {lock}({WRITE_LOCK:d})", last=True)
                if not wait and not taken[0][0]:
                    self._statement(conn, "ROLLBACK")
                    yield False
                    return
                yield True
                self.on_commit()
                self._statement(conn, "COMMIT")
            except BaseException:
                self._roll_back(conn)
                raise
            finally:
                self._depth = 0
                self._local.conn = None

    def _statement(self, conn: Any, sql: str, *, last: bool = False) -> list[Any]:
        """A statement of the transaction's own (BEGIN, the lock, COMMIT), its
        errors as the store's: a COMMIT on a broken connection is one. With
        `last`, the rows of the last of several statements."""
        try:
            cur = conn.execute(sql)
            while last and cur.nextset():
                pass
            return list(cur.fetchall()) if cur.description is not None else []
        except self._errors as exc:
            raise self.storage_error(exc) from None

    def _roll_back(self, conn: Any) -> None:
        """Undo a failed transaction, if its connection still holds one (a
        broken connection's transaction ended with it, on the server)."""
        if conn.closed or conn.info.transaction_status in (0, 4):  # idle, or unknown: broken
            return
        try:
            conn.execute("ROLLBACK")
        except self._errors as exc:
            log.warning("rolling back on %s failed: %s", self.location, exc)

    @contextmanager
    def reading(self) -> Iterator[None]:
        """One consistent snapshot for the reads inside."""
        if self._bound() is not None:
            yield
            return
        with self._pool.connection() as conn:
            self._local.conn = conn
            try:
                self._statement(conn, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
                yield
                self._statement(conn, "COMMIT")
            except BaseException:
                self._roll_back(conn)
                raise
            finally:
                self._local.conn = None

    @contextmanager
    def alone(self, task: str) -> Iterator[bool]:
        """A session advisory lock named by `task`, held on a connection of its
        own while the task runs (every process on the database sees it);
        False at once if another session holds it."""
        key = int.from_bytes(hashlib.sha1(task.encode()).digest()[:4], "big")
        try:
            with self._pool.connection() as conn:
                (taken,) = conn.execute(
                    "SELECT pg_try_advisory_lock(%s, %s)", (TASK_LOCKS, key)
                ).fetchone()
                try:
                    yield bool(taken)
                finally:
                    if taken:
                        conn.execute("SELECT pg_advisory_unlock(%s, %s)", (TASK_LOCKS, key))
        except self._errors as exc:
            raise self.storage_error(exc) from None

    # -- accesses a read asks to record ----------------------------------------------

    def buffer_accesses(self, node_ids: Sequence[str], at: str) -> None:
        with self._accesses_lock:
            self._accesses.extend((i, at) for i in node_ids)
            del self._accesses[: max(0, len(self._accesses) - _ACCESS_BACKLOG)]
        if time.monotonic() - self._accesses_written >= self.access_flush_every:
            try:
                self.try_write(lambda: None)  # a commit writes the buffered accesses
            except StorageError as exc:
                log.warning("accesses not recorded yet: %s", exc)

    def take_accesses(self) -> list[tuple[str, str]]:
        with self._accesses_lock:
            taken, self._accesses = self._accesses, []
        self._accesses_written = time.monotonic()
        return taken

    def execute_outside(self, sql: str) -> None:
        """A statement no transaction may hold (CREATE DATABASE), on a pooled connection."""
        try:
            with self._pool.connection() as conn:
                conn.execute(sql)
        except self._errors as exc:
            raise self.storage_error(exc) from None

    def sibling(self, database: str) -> str:
        """The address of another database on the same server."""
        params = dict(self._conninfo_params)
        params["dbname"] = database
        return " ".join(f"{k}={_quoted_param(v)}" for k, v in params.items())

    def close(self) -> None:
        self._pool.close()


def _quoted_param(value: object) -> str:
    """A conninfo value, quoted as libpq reads it."""
    text = str(value).replace("\\", "\\\\").replace("'", "\\'")
    return f"'{text}'"
