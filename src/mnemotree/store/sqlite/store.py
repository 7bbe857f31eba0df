"""The default store: one SQLite file (WAL, foreign keys, FTS5 kept by triggers)."""

from __future__ import annotations

import functools
import json
import os
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from ...errors import InvalidInput, SchemaError
from ...model import Node, NodeVersion
from ...perf import paused_gc
from ..records import StoreStats
from . import breadcrumbs, neighbours
from .backup import BackupQueries
from .connections import Connections, check_file
from .consolidate import ConsolidateQueries
from .context import ContextQueries
from .keys import KeyQueries
from .migrations import APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION, apply_migrations
from .purge import PurgeQueries
from .rows import (
    _COLUMNS,
    _INSERT_ROWS,
    _N_COLUMNS,
    _ROW_MARKS,
    _SELECT,
    _TREE_COLUMNS,
    _chunks,
    _node,
    _row,
    _tree_node,
    _version,
)
from .search import RetrievalQueries
from .staging import Staging
from .structured import StructuredQueries
from .transactions import BUSY_TIMEOUT, Transactions, execute_when_free

_ROW_MARKS_DERIVED = _ROW_MARKS[:-1] + ", ?, ?)"  # + neighbours, path

_SQLITE_NOTADB = 26  # SQLite's "file is not a database", before it writes anything
_MMAP_BYTES = 1 << 30  # address space only: pages are mapped as they are read


class SQLiteStore(
    Transactions,
    RetrievalQueries,
    StructuredQueries,
    ContextQueries,
    ConsolidateQueries,
    KeyQueries,
    BackupQueries,
    PurgeQueries,
):
    """Store protocol on a single SQLite file."""

    def __init__(self, path: str | os.PathLike[str], *, busy_timeout: float = BUSY_TIMEOUT) -> None:
        """Open (creating and migrating if needed) the database at `path`.

        `busy_timeout` is how long a write waits for another process's lock.
        """
        self._path = str(path)
        self._busy = float(busy_timeout)
        self._busy_ms = int(busy_timeout * 1000)
        if self._path != ":memory:":
            check_file(Path(self._path))
        try:
            self._connections = Connections(self._path, self._open_connection)
            self._connections.get()  # this thread's: an unusable path fails here
        except sqlite3.OperationalError as exc:
            raise SchemaError(f"cannot open database {self._path!r}: {exc}", self._path) from None
        except sqlite3.DatabaseError as exc:
            raise self._unusable(exc) from None
        self._init_transactions()
        self._selective_filters = {}
        # Nodes whose `neighbours` text must be recomputed before commit, and
        # nodes whose current adjacent siblings must be too (see neighbours.py).
        self._stale_neighbours: set[str] = set()
        self._stale_around: set[str] = set()
        self._stale_paths: set[str] = set()  # these and their subtrees (see breadcrumbs.py)
        self._stale_parents: set[str | None] = set()  # all their children's neighbours
        try:
            self._configure()
            self._migrate()
        except sqlite3.DatabaseError as exc:
            self._connections.close()
            raise self._unusable(exc) from None
        except SchemaError:
            self._connections.close()
            raise

    def _unusable(self, exc: sqlite3.DatabaseError) -> SchemaError:
        if getattr(exc, "sqlite_errorcode", None) == _SQLITE_NOTADB:  # left untouched
            return SchemaError(
                f"{self._path!r} is not an SQLite database; choose another path with --db",
                self._path,
            )
        return SchemaError(f"{self._path!r} is not a usable SQLite database ({exc})", self._path)

    # -- lifecycle -------------------------------------------------------------

    @property
    def location(self) -> str:
        return self._path

    @property
    def schema_version(self) -> int:
        return SCHEMA_VERSION

    @property
    def backup_format(self) -> int:
        return self.schema_version

    def staging(self, version: int) -> Staging:
        """A temporary database at an older schema, for a backup of it."""
        return Staging(version, SQLiteStore)

    def close(self) -> None:
        """Close every thread's connection (writing buffered accesses if the
        write lock is free)."""
        try:
            self._write_backlog()
        finally:
            self._connections.close()

    def _open_connection(self) -> sqlite3.Connection:
        # Any thread may close it (Connections.close): not bound to its opener.
        made = sqlite3.connect(
            self._path,
            isolation_level=None,
            check_same_thread=False,
            timeout=self._busy_ms / 1000,
        )
        try:
            made.execute("PRAGMA foreign_keys = ON")
            made.execute(f"PRAGMA busy_timeout = {self._busy_ms}")
            # WAL + NORMAL is durable against application crashes; it skips an
            # fsync per commit, which single appends need to stay fast.
            made.execute("PRAGMA synchronous = NORMAL")
            # Pages read through a memory map cost no system call each: a
            # search reads a few hundred scattered pages (FTS5's lists, nodes),
            # which by read() took a third of a search at 100k memories.
            made.execute(f"PRAGMA mmap_size = {_MMAP_BYTES}")
        except sqlite3.DatabaseError:
            made.close()
            raise
        return made

    def _configure(self) -> None:
        if self._path == ":memory:":
            return
        if self._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal":
            return  # kept by the file
        # Several processes opening a new file at once all switch it; SQLite
        # answers BUSY to the losers without waiting, so wait here.
        if not execute_when_free(self._db, "PRAGMA journal_mode = WAL", self._busy, self._busy_ms):
            raise SchemaError(
                f"database {self._path!r} is locked: another process held it for "
                f"{self._busy:g} s while this one switched it to WAL; try again",
                self._path,
            )

    def _migrate(self) -> None:
        app_id, version, tables = self._header()
        if app_id != APPLICATION_ID and tables:
            raise SchemaError(
                f"{self._path!r} is an SQLite database but not a mnemotree database; "
                "choose another path with --db",
                self._path,
            )
        if version > SCHEMA_VERSION:
            raise SchemaError(
                f"{self._path!r} has schema version {version}, newer than this mnemotree "
                f"supports ({SCHEMA_VERSION}); upgrade mnemotree",
                version,
            )
        if version == SCHEMA_VERSION:
            return
        with self.transaction():
            # Another process may have migrated while we waited for the write lock.
            if self._db.execute("PRAGMA user_version").fetchone()[0] >= SCHEMA_VERSION:
                return
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations "
                "(name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
            )
            applied = [r[0] for r in self._db.execute("SELECT name FROM schema_migrations")]
            expected = [name for name, _ in MIGRATIONS[: len(applied)]]
            if sorted(applied) != sorted(expected):
                raise SchemaError(
                    f"{self._path!r} records migrations {applied}, expected {expected}", applied
                )
            apply_migrations(self._db, version, SCHEMA_VERSION)

    def _header(self) -> tuple[int, int, int]:
        """Application id, schema version and table count, read in one
        snapshot: read one by one, another process's first migration could
        commit between them and leave tables without the id set with them."""
        with self.reading():
            app_id = self._db.execute("PRAGMA application_id").fetchone()[0]
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            tables = self._db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        return int(app_id), int(version), int(tables)

    def _after_begin(self) -> None:
        self._stale_neighbours.clear()
        self._stale_around.clear()
        self._stale_paths.clear()
        self._stale_parents.clear()

    def _before_commit(self) -> None:
        """Derived columns of what this transaction changed."""
        self._refresh_neighbours()
        if self._stale_paths:
            breadcrumbs.refresh(self._db, self._stale_paths)

    def _refresh_neighbours(self) -> None:
        if not (self._stale_neighbours or self._stale_around or self._stale_parents):
            return
        around = list(self._stale_around)
        ids = self._stale_neighbours | self._stale_around
        ids.update(self._beside(around))
        for parent in self._stale_parents:
            ids.update(
                r[0]
                for r in self._db.execute("SELECT id FROM nodes WHERE parent_id IS ?", (parent,))
            )
        neighbours.recompute(self._db, ids)

    # -- settings ----------------------------------------------------------------

    def get_setting(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_setting(self, key: str, value: str) -> None:
        self._db.execute(
            "INSERT INTO settings VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def delete_setting(self, key: str) -> None:
        self._db.execute("DELETE FROM settings WHERE key = ?", (key,))

    # -- reads -------------------------------------------------------------------

    def get(self, node_id: str) -> Node | None:
        row = self._db.execute(f"{_SELECT} WHERE id = ?", (node_id,)).fetchone()
        return None if row is None else _node(row)

    def get_many(self, node_ids: Sequence[str]) -> list[Node]:
        found: dict[str, Node] = {}
        for chunk in _chunks(list(node_ids)):
            marks = ",".join("?" * len(chunk))
            for row in self._db.execute(f"{_SELECT} WHERE id IN ({marks})", tuple(chunk)):
                found[row[0]] = _node(row)
        return [found[i] for i in node_ids if i in found]

    def children(
        self, parent_id: str, *, after_key: float | None = None, limit: int | None = None
    ) -> list[Node]:
        sql = f"{_SELECT} WHERE parent_id = ?"
        args: list[Any] = [parent_id]
        if after_key is not None:
            sql += " AND order_key > ?"
            args.append(after_key)
        sql += " ORDER BY order_key, id"
        if limit is not None:
            sql += " LIMIT ?"
            args.append(limit)
        return [_node(r) for r in self._db.execute(sql, args)]

    def child_count(self, parent_id: str) -> int:
        sql = "SELECT count(*) FROM nodes WHERE parent_id = ?"
        return int(self._db.execute(sql, (parent_id,)).fetchone()[0])

    def child_counts(
        self, parent_ids: Sequence[str], scopes: Sequence[str] | None = None
    ) -> dict[str, int]:
        counts: dict[str, int] = {}
        within = "" if scopes is None else f" AND scope IN ({','.join('?' * len(scopes))})"
        for chunk in _chunks(list(parent_ids)):
            marks = ",".join("?" * len(chunk))
            sql = (
                f"SELECT parent_id, count(*) FROM nodes WHERE parent_id IN ({marks}){within} "
                "GROUP BY 1"
            )
            counts.update((r[0], r[1]) for r in self._db.execute(sql, (*chunk, *(scopes or ()))))
        return counts

    def roots(self) -> list[Node]:
        sql = f"{_SELECT} WHERE parent_id IS NULL ORDER BY order_key, id"
        return [_node(r) for r in self._db.execute(sql)]

    def roots_of_type(self, context_type: str, scopes: Sequence[str] | None = None) -> list[Node]:
        """Roots of one context type (documents, sessions), within `scopes` if given."""
        sql = f"{_SELECT} WHERE parent_id IS NULL AND context_type = ?"
        args: list[Any] = [context_type]
        if scopes is not None:
            sql += f" AND scope IN ({','.join('?' * len(scopes))})"
            args.extend(scopes)
        return [_node(r) for r in self._db.execute(sql + " ORDER BY order_key, id", args)]

    def roots_named(
        self, context_type: str, names: Sequence[str], scopes: Sequence[str] | None = None
    ) -> list[Node]:
        if not names:
            return []
        sql = (
            f"{_SELECT} WHERE parent_id IS NULL AND context_type = ? "
            f"AND context_name IN ({','.join('?' * len(names))})"
        )
        args: list[Any] = [context_type, *names]
        if scopes is not None:
            sql += f" AND scope IN ({','.join('?' * len(scopes))})"
            args.extend(scopes)
        return [_node(r) for r in self._db.execute(sql + " ORDER BY order_key, id", args)]

    def count_by_root(self, root_ids: Sequence[str], context_type: str) -> dict[str, int]:
        """How many nodes of `context_type` each of these trees holds."""
        found: dict[str, int] = {}
        for chunk in _chunks(list(root_ids)):
            marks = ",".join("?" * len(chunk))
            sql = (
                # `+context_type`: the root index, not the type index (which
                # would read every chunk of every document).
                f"SELECT root_id, count(*) FROM nodes WHERE root_id IN ({marks}) "
                "AND +context_type = ? GROUP BY root_id"
            )
            found.update(self._db.execute(sql, (*chunk, context_type)).fetchall())
        return found

    def max_number(self, root_id: str, context_type: str, key: str) -> int:
        """The largest integer metadata `key` among the tree's nodes of
        `context_type` (0 when none has one)."""
        if not key.isidentifier():
            raise InvalidInput(f"metadata key must be a plain name, got {key!r}", key)
        row = self._db.execute(
            "SELECT max(CAST(json_extract(metadata, ?) AS INTEGER)) FROM nodes "
            "WHERE root_id = ? AND +context_type = ?",
            (f"$.{key}", root_id, context_type),
        ).fetchone()
        return int(row[0] or 0)

    def tree_nodes(self, root_id: str) -> list[Node]:
        # root_id is known: leaving it out of the rows saves a string per node.
        with paused_gc():
            rows = self._db.execute(
                f"SELECT {_TREE_COLUMNS} FROM nodes WHERE root_id = ?", (root_id,)
            ).fetchall()
            return [_tree_node(r, root_id) for r in rows]

    def subtree(self, node_id: str) -> list[Node]:
        """The node and all its descendants, parents before children."""
        sql = f"""
            WITH RECURSIVE sub(id, depth) AS (
                SELECT id, 0 FROM nodes WHERE id = ?
                UNION ALL
                SELECT n.id, sub.depth + 1 FROM nodes n JOIN sub ON n.parent_id = sub.id
            )
            SELECT {_N_COLUMNS}
            FROM sub JOIN nodes n ON n.id = sub.id ORDER BY sub.depth
        """
        with paused_gc():
            return [_node(r) for r in self._db.execute(sql, (node_id,)).fetchall()]

    def iter_nodes(self) -> Iterator[Node]:
        for row in self._db.execute(f"{_SELECT} ORDER BY seq"):
            yield _node(row)

    def last_key(self, parent_id: str | None) -> float | None:
        row = self._db.execute(
            "SELECT max(order_key) FROM nodes WHERE parent_id IS ?", (parent_id,)
        ).fetchone()
        return None if row[0] is None else float(row[0])

    def sibling_keys(
        self, parent_id: str | None, key: float, *, below: bool, limit: int
    ) -> list[tuple[str, float]]:
        """Up to `limit` siblings strictly below (descending) or above (ascending) `key`."""
        if below:
            sql = (
                "SELECT id, order_key FROM nodes WHERE parent_id IS ? AND order_key < ? "
                "ORDER BY order_key DESC, id DESC LIMIT ?"
            )
        else:
            sql = (
                "SELECT id, order_key FROM nodes WHERE parent_id IS ? AND order_key > ? "
                "ORDER BY order_key, id LIMIT ?"
            )
        return [(r[0], r[1]) for r in self._db.execute(sql, (parent_id, key, limit))]

    def key_taken(self, parent_id: str | None, key: float) -> bool:
        sql = "SELECT 1 FROM nodes WHERE parent_id IS ? AND order_key = ? LIMIT 1"
        return self._db.execute(sql, (parent_id, key)).fetchone() is not None

    def latest_versions(self, node_ids: Sequence[str]) -> dict[str, int]:
        """The highest version kept in history for each of these ids (absent: none)."""
        found: dict[str, int] = {}
        for chunk in _chunks(list(node_ids)):
            marks = ",".join("?" * len(chunk))
            sql = (
                "SELECT node_id, max(version) FROM node_versions "
                f"WHERE node_id IN ({marks}) GROUP BY node_id"
            )
            found.update({r[0]: r[1] for r in self._db.execute(sql, tuple(chunk))})
        return found

    def stale_summaries(self) -> list[Node]:
        sql = f"{_SELECT} WHERE stale = 1 AND is_summary = 1 ORDER BY root_id, order_key"
        return [_node(r) for r in self._db.execute(sql)]

    _VERSION_SELECT = (
        "SELECT node_id, version, op, change_id, recorded_at, state FROM node_versions"
    )

    def versions(self, node_id: str) -> list[NodeVersion]:
        sql = f"{self._VERSION_SELECT} WHERE node_id = ? ORDER BY version"
        return [_version(r) for r in self._db.execute(sql, (node_id,))]

    def versions_of_change(self, change_id: str) -> list[NodeVersion]:
        sql = f"{self._VERSION_SELECT} WHERE change_id = ? ORDER BY rowid"
        return [_version(r) for r in self._db.execute(sql, (change_id,))]

    def iter_versions(self) -> Iterator[NodeVersion]:
        for row in self._db.execute(f"{self._VERSION_SELECT} ORDER BY rowid"):
            yield _version(row)

    def stats(self) -> StoreStats:
        one = self._db.execute(
            "SELECT count(*), coalesce(sum(parent_id IS NULL), 0), coalesce(sum(is_summary), 0), "
            "coalesce(sum(is_summary AND stale), 0), coalesce(sum(token_count), 0) FROM nodes"
        ).fetchone()
        versions = self._db.execute("SELECT count(*) FROM node_versions").fetchone()[0]
        tags = self._db.execute("SELECT count(DISTINCT tag) FROM node_tags").fetchone()[0]
        size = 0
        if self._path != ":memory:":
            for suffix in ("", "-wal"):
                candidate = Path(self._path + suffix)
                size += candidate.stat().st_size if candidate.exists() else 0
        return StoreStats(
            path=self._path,
            schema_version=SCHEMA_VERSION,
            nodes=one[0],
            roots=one[1],
            summaries=one[2],
            stale_summaries=one[3],
            versions=versions,
            tags=tags,
            tokens=one[4],
            size_bytes=size,
        )

    # -- writes ------------------------------------------------------------------

    def insert(self, nodes: Sequence[Node]) -> None:
        around, later = neighbours.for_insert(self._db, nodes)
        self._stale_around.update(later)
        crumbs = breadcrumbs.for_insert(self._db, nodes)
        for start in range(0, len(nodes), _INSERT_ROWS):
            batch = nodes[start : start + _INSERT_ROWS]
            marks = ", ".join([_ROW_MARKS_DERIVED] * len(batch))
            args = [
                value for node in batch for value in (*_row(node), around[node.id], crumbs[node.id])
            ]
            self._db.execute(
                f"INSERT INTO nodes ({_COLUMNS}, neighbours, path) VALUES {marks}", args
            )
            self._db.execute(
                f"INSERT OR IGNORE INTO vector_queue VALUES {', '.join(['(?)'] * len(batch))}",
                [node.id for node in batch],
            )
        self._db.executemany(
            "INSERT INTO node_tags (tag, node_id) VALUES (?, ?)",
            [(tag, n.id) for n in nodes if "@" in n.text or "tags" in n.metadata for tag in n.tags],
        )

    def replace(self, node: Node) -> None:
        # Its old siblings (if it moves) and its current ones may read differently now.
        self._stale_neighbours.update(self._beside([node.id]))
        self._stale_around.add(node.id)
        before = self._db.execute(
            "SELECT text, parent_id, scope FROM nodes WHERE id = ?", (node.id,)
        ).fetchone()
        if before is not None and before != (node.text, node.parent_id, node.scope):
            self._stale_paths.add(node.id)  # its breadcrumb or its descendants' changed
        row = _row(node)
        cols = [c.strip() for c in _COLUMNS.split(",")][1:]
        sets = ", ".join(f"{c} = ?" for c in cols)
        self._db.execute(f"UPDATE nodes SET {sets} WHERE id = ?", (*row[1:], node.id))
        self._db.execute("DELETE FROM node_tags WHERE node_id = ?", (node.id,))
        self._db.executemany(
            "INSERT INTO node_tags (tag, node_id) VALUES (?, ?)", [(t, node.id) for t in node.tags]
        )

    def _beside(self, node_ids: Sequence[str]) -> set[str]:
        """Siblings whose neighbour text may hold these nodes' text: the adjacent
        ones, and any with the same order key. Two siblings share a key while a
        document is rewritten in batches (a new chunk takes the key of one
        deleted in a later batch); neither is the other's neighbour until then."""
        found = {other for row in self.adjacent(node_ids) for other in row[1:] if other}
        for chunk in _chunks(list(node_ids)):
            marks = ",".join("?" * len(chunk))
            found.update(
                r[0]
                for r in self._db.execute(
                    "SELECT s.id FROM nodes d JOIN nodes s ON s.parent_id = d.parent_id "
                    f"AND s.order_key = d.order_key AND s.id != d.id WHERE d.id IN ({marks})",
                    tuple(chunk),
                )
            )
        return found

    def set_keys(self, changes: Sequence[tuple[str, float]]) -> None:
        """New order keys for some siblings (renumbering). Every child of their
        parents is rechecked at commit: a node about to move may still hold an
        old key among the renumbered ones."""
        for chunk in _chunks([i for i, _ in changes]):
            marks = ",".join("?" * len(chunk))
            self._stale_parents.update(
                r[0]
                for r in self._db.execute(
                    f"SELECT DISTINCT parent_id FROM nodes WHERE id IN ({marks})", tuple(chunk)
                )
            )
        self._db.executemany(
            "UPDATE nodes SET order_key = ? WHERE id = ?", [(k, i) for i, k in changes]
        )

    def set_root(self, node_ids: Sequence[str], root_id: str) -> None:
        self._db.executemany(
            "UPDATE nodes SET root_id = ? WHERE id = ?", [(root_id, i) for i in node_ids]
        )

    def mark_summaries_stale(self, node_id: str) -> None:
        """Mark `node_id` and its ancestors stale where they are summaries."""
        self._db.execute(
            """
            WITH RECURSIVE up(id) AS (
                SELECT ? UNION ALL
                SELECT n.parent_id FROM nodes n JOIN up ON n.id = up.id
                WHERE n.parent_id IS NOT NULL
            )
            UPDATE nodes SET stale = 1
            WHERE is_summary = 1 AND stale = 0 AND id IN (SELECT id FROM up)
            """,
            (node_id,),
        )

    def set_token_counts(self, changes: Sequence[tuple[str, int]]) -> None:
        self._db.executemany(
            "UPDATE nodes SET token_count = ? WHERE id = ?", [(c, i) for i, c in changes]
        )

    def delete(self, node_ids: Sequence[str]) -> None:
        """Delete exactly these nodes; callers pass children before parents."""
        self._stale_neighbours.update(self._beside(node_ids))
        for chunk in _chunks(list(node_ids)):
            marks = ",".join("?" * len(chunk))
            self._db.execute(f"DELETE FROM nodes WHERE id IN ({marks})", tuple(chunk))

    def add_versions(self, versions: Sequence[NodeVersion], *, skip_existing: bool = False) -> None:
        """Append history; `skip_existing` keeps rows already stored (re-imports)."""
        verb = "INSERT OR IGNORE" if skip_existing else "INSERT"
        self._db.executemany(
            f"{verb} INTO node_versions VALUES (?, ?, ?, ?, ?, ?)",
            [
                (
                    v.node_id,
                    v.version,
                    v.op,
                    v.change_id,
                    v.recorded_at,
                    json.dumps(v.node.to_dict(), ensure_ascii=False),
                )
                for v in versions
            ],
        )


def _translate_errors(cls: type[SQLiteStore]) -> type[SQLiteStore]:
    """Reads outside `transaction()` also report a broken file as StorageError."""
    for name in (
        "get",
        "get_many",
        "children",
        "child_count",
        "child_counts",
        "roots",
        "tree_nodes",
        "subtree",
        "last_key",
        "sibling_keys",
        "key_taken",
        "stale_summaries",
        "versions",
        "versions_of_change",
        "latest_versions",
        "stats",
        "get_setting",
        "visible",
        "lexical",
        "pending_vectors",
        "count_pending_vectors",
        "load_vectors",
        "count_vectors",
        "vector_marks",
        "vector_tombstones",
        "access_times",
        "access_ages",
        "adjacent",
        "term_documents",
        "document_total",
        "ancestor_links",
        "roots_of_type",
        "count_by_root",
        "find_path",
        "paths_under",
        "snapshots",
        "captured",
        "get_captured",
    ):
        setattr(cls, name, _guarded(getattr(cls, name)))
    return cls


def _guarded(method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def wrapper(self: SQLiteStore, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except sqlite3.IntegrityError:
            raise
        except sqlite3.DatabaseError as exc:
            raise self._storage_error(exc) from None

    return wrapper


_translate_errors(SQLiteStore)
