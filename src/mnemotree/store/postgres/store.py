"""The Postgres store: one database shared by several processes. It offers
every store protocol (`tests/test_store_conformance.py` holds it to the
same contract as SQLite) and answers vector searches itself (pgvector)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any

from ...errors import InvalidInput
from ...model import Node, NodeVersion
from ..records import StoreStats
from . import derived, rows
from .backup import BackupQueries
from .connections import Connections
from .consolidate import ConsolidateQueries
from .erasure import ErasureQueries
from .keys import KeyQueries
from .memories import MemoryQueries
from .migrations import migrate
from .rows import COLUMNS, MARKS, SELECT, node, values
from .text import TextQueries
from .usage import UsageQueries
from .vectors import VectorQueries

_VERSIONS = "SELECT node_id, version, op, change_id, recorded_at, state FROM node_versions"


_COPY_FROM = 8  # nodes written at once from which COPY is faster than INSERTs


def _under(parent_id: str | None) -> str:
    """Children of `parent_id` (roots for None) in a form the parent index
    serves (`IS NOT DISTINCT FROM` is never served by an index)."""
    return "parent_id IS NULL" if parent_id is None else "parent_id = %s"


def _parent_args(parent_id: str | None) -> tuple[str, ...]:
    return () if parent_id is None else (parent_id,)


class PostgresStore(
    KeyQueries,
    ConsolidateQueries,
    UsageQueries,
    MemoryQueries,
    VectorQueries,
    TextQueries,
    ErasureQueries,
    BackupQueries,
):
    """Every store protocol, on Postgres."""

    def __init__(self, uri: str, *, pool_size: int = 8, upto: int | None = None) -> None:
        self._db = Connections(uri, pool_size)
        self._db.on_commit = self._before_commit
        self._dimensions: dict[str, int] = {}  # of embedders whose vectors are indexed
        # What this transaction's writes may have made stale in the derived
        # text (kept per transaction: writers are one at a time).
        self._stale_neighbours: set[str] = set()  # to recompute as they are
        self._stale_around: set[str] = set()  # these and their siblings at commit
        self._stale_parents: set[str | None] = set()  # every child of these
        self._stale_paths: set[str] = set()  # these and their subtrees
        with self._db.transaction():
            self._version = migrate(self._db.execute, upto)

    def migrate_fully(self) -> None:
        """Bring a database opened at an older schema (`upto`) to this one."""
        with self._db.transaction():
            self._version = migrate(self._db.execute)

    # -- lifecycle ----------------------------------------------------------------

    @property
    def location(self) -> str:
        return self._db.location

    @property
    def schema_version(self) -> int:
        return self._version

    def close(self) -> None:
        self._db.close()

    def transaction(self) -> AbstractContextManager[None]:
        return self._db.transaction()

    def try_write(self, work: Callable[[], object]) -> bool:
        return self._db.try_write(work)

    def before_writes(self, prepare: Callable[[], object]) -> None:
        self._db.before_writes(prepare)

    def reading(self) -> AbstractContextManager[None]:
        return self._db.reading()

    def record_accesses_soon(self, node_ids: Sequence[str], at: str) -> None:
        self._db.buffer_accesses(node_ids, at)

    def _before_commit(self) -> None:
        """Derived text of what the transaction changed, and buffered accesses."""
        around = sorted(self._stale_around)
        ids = self._stale_neighbours | self._stale_around
        if around:
            ids |= self._beside(around)
        for parent in self._stale_parents:
            ids.update(
                r[0]
                for r in self._db.execute(
                    f"SELECT id FROM nodes WHERE {_under(parent)}", _parent_args(parent)
                )
            )
        derived.recompute_neighbours(self._db, ids)
        derived.refresh_paths(self._db, self._stale_paths)
        for stale in (self._stale_neighbours, self._stale_around, self._stale_paths):
            stale.clear()
        self._stale_parents.clear()
        self._flush_accesses()

    def _flush_accesses(self) -> None:
        """Buffered accesses go with the next commit."""
        by_time: dict[str, list[str]] = {}
        for node_id, at in self._db.take_accesses():
            by_time.setdefault(at, []).append(node_id)
        for at, ids in by_time.items():
            alive = [
                r[0] for r in self._db.execute("SELECT id FROM nodes WHERE id = ANY(%s)", (ids,))
            ]
            self.record_accesses([i for i in ids if i in set(alive)], at)

    def stats(self) -> StoreStats:
        ((count, roots, summaries, stale, tokens),) = self._db.execute(
            "SELECT count(*), count(*) FILTER (WHERE parent_id IS NULL), "
            "count(*) FILTER (WHERE is_summary), count(*) FILTER (WHERE is_summary AND stale), "
            "coalesce(sum(token_count), 0) FROM nodes"
        )
        ((versions,),) = self._db.execute("SELECT count(*) FROM node_versions")
        ((tags,),) = self._db.execute("SELECT count(DISTINCT tag) FROM node_tags")
        ((size,),) = self._db.execute("SELECT pg_database_size(current_database())")
        return StoreStats(
            path=self.location,
            schema_version=self._version,
            nodes=int(count),
            roots=int(roots),
            summaries=int(summaries),
            stale_summaries=int(stale),
            versions=int(versions),
            tags=int(tags),
            tokens=int(tokens),
            size_bytes=int(size),
            warnings=self._setup_warnings(),
        )

    def _setup_warnings(self) -> tuple[str, ...]:
        """What the server's setup costs searches, with the fix."""
        warning = buffers_warning(*self.buffers_and_vector_index())
        return (warning,) if warning else ()

    def buffers_and_vector_index(self) -> tuple[str, int, int]:
        """The server's shared_buffers (as set, and in bytes) and the bytes
        of this database's vector indexes."""
        ((buffers, buffer_bytes, index_bytes),) = self._db.execute(
            "SELECT current_setting('shared_buffers'), "
            "pg_size_bytes(current_setting('shared_buffers')), "
            "coalesce(sum(pg_relation_size(c.oid)), 0) FROM pg_class c "
            "WHERE c.relkind = 'i' AND c.relname LIKE 'vector\\_passages\\_hnsw\\_%'"
        )
        return str(buffers), int(buffer_bytes), int(index_bytes)

    # -- settings -----------------------------------------------------------------

    def get_setting(self, key: str) -> str | None:
        found = self._db.execute("SELECT value FROM settings WHERE key = %s", (key,))
        return str(found[0][0]) if found else None

    def set_setting(self, key: str, value: str) -> None:
        self._db.execute(
            "INSERT INTO settings (key, value) VALUES (%s, %s) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def delete_setting(self, key: str) -> None:
        self._db.execute("DELETE FROM settings WHERE key = %s", (key,))

    # -- nodes: reads ---------------------------------------------------------------

    def _nodes(self, sql: str, args: Sequence[Any] = ()) -> list[Node]:
        return [node(r) for r in self._db.execute(sql, args)]

    def get(self, node_id: str) -> Node | None:
        found = self._nodes(f"{SELECT} WHERE id = %s", (node_id,))
        return found[0] if found else None

    def get_many(self, node_ids: Sequence[str]) -> list[Node]:
        found = {n.id: n for n in self._nodes(f"{SELECT} WHERE id = ANY(%s)", (list(node_ids),))}
        return [found[i] for i in node_ids if i in found]

    def children(
        self, parent_id: str, *, after_key: float | None = None, limit: int | None = None
    ) -> list[Node]:
        sql = f"{SELECT} WHERE parent_id = %s"
        args: list[Any] = [parent_id]
        if after_key is not None:
            sql += " AND order_key > %s"
            args.append(after_key)
        sql += " ORDER BY order_key, id"
        if limit is not None:
            sql += " LIMIT %s"
            args.append(limit)
        return self._nodes(sql, args)

    def child_count(self, parent_id: str) -> int:
        ((count,),) = self._db.execute(
            "SELECT count(*) FROM nodes WHERE parent_id = %s", (parent_id,)
        )
        return int(count)

    def child_counts(
        self, parent_ids: Sequence[str], scopes: Sequence[str] | None = None
    ) -> dict[str, int]:
        sql = "SELECT parent_id, count(*) FROM nodes WHERE parent_id = ANY(%s)"
        args: list[Any] = [list(parent_ids)]
        if scopes is not None:
            sql += " AND scope = ANY(%s)"
            args.append(list(scopes))
        return {p: int(c) for p, c in self._db.execute(sql + " GROUP BY 1", args)}

    def roots(self) -> list[Node]:
        return self._nodes(f"{SELECT} WHERE parent_id IS NULL ORDER BY order_key, id")

    def roots_of_type(self, context_type: str, scopes: Sequence[str] | None = None) -> list[Node]:
        sql = f"{SELECT} WHERE parent_id IS NULL AND context_type = %s"
        args: list[Any] = [context_type]
        if scopes is not None:
            sql += " AND scope = ANY(%s)"
            args.append(list(scopes))
        return self._nodes(sql + " ORDER BY order_key, id", args)

    def roots_named(
        self, context_type: str, names: Sequence[str], scopes: Sequence[str] | None = None
    ) -> list[Node]:
        sql = f"{SELECT} WHERE parent_id IS NULL AND context_type = %s AND context_name = ANY(%s)"
        args: list[Any] = [context_type, list(names)]
        if scopes is not None:
            sql += " AND scope = ANY(%s)"
            args.append(list(scopes))
        return self._nodes(sql + " ORDER BY order_key, id", args)

    def count_by_root(self, root_ids: Sequence[str], context_type: str) -> dict[str, int]:
        found = self._db.execute(
            "SELECT root_id, count(*) FROM nodes WHERE root_id = ANY(%s) "
            "AND context_type = %s GROUP BY root_id",
            (list(root_ids), context_type),
        )
        return {r: int(c) for r, c in found}

    def max_number(self, root_id: str, context_type: str, key: str) -> int:
        """The largest integer metadata `key` among the tree's nodes of `context_type`."""
        if not key.isidentifier():
            raise InvalidInput(f"metadata key must be a plain name, got {key!r}", key)
        ((found,),) = self._db.execute(
            "SELECT max(CASE WHEN jsonb_typeof(metadata::jsonb -> %s) = 'number' "
            "THEN floor((metadata::jsonb ->> %s)::numeric) END) "
            "FROM nodes WHERE root_id = %s AND context_type = %s",
            (key, key, root_id, context_type),
        )
        return int(found or 0)

    def tree_nodes(self, root_id: str) -> list[Node]:
        return self._nodes(f"{SELECT} WHERE root_id = %s", (root_id,))

    def find_path(self, root_id: str, path: str) -> Node | None:
        found = self._nodes(
            f"{SELECT} WHERE root_id = %s AND context_value = %s AND context_type = 'path'",
            (root_id, path),
        )
        return found[0] if found else None

    def paths_under(self, root_id: str, prefix: str) -> list[Node]:
        sql = f"{SELECT} WHERE root_id = %s AND context_type = 'path'"
        args: list[Any] = [root_id]
        if prefix:
            # A range instead of LIKE (paths may hold % and _); "0" sorts after "/".
            sql += " AND (context_value = %s OR (context_value >= %s AND context_value < %s))"
            args += [prefix, prefix + "/", prefix + "0"]
        return self._nodes(sql + ' ORDER BY context_value COLLATE "C"', args)

    def subtree(self, node_id: str) -> list[Node]:
        """The node and all its descendants, parents before children."""
        columns = ", ".join("n." + c.strip() for c in COLUMNS.split(","))
        return self._nodes(
            "WITH RECURSIVE sub(id, depth) AS ("
            " SELECT id, 0 FROM nodes WHERE id = %s"
            " UNION ALL SELECT n.id, sub.depth + 1 FROM nodes n JOIN sub ON n.parent_id = sub.id"
            f") SELECT {columns} FROM sub JOIN nodes n ON n.id = sub.id ORDER BY sub.depth, n.seq",
            (node_id,),
        )

    def iter_nodes(self) -> Iterator[Node]:
        yield from self._nodes(f"{SELECT} ORDER BY seq")

    def last_key(self, parent_id: str | None) -> float | None:
        ((found,),) = self._db.execute(
            f"SELECT max(order_key) FROM nodes WHERE {_under(parent_id)}", _parent_args(parent_id)
        )
        return None if found is None else float(found)

    def sibling_keys(
        self, parent_id: str | None, key: float, *, below: bool, limit: int
    ) -> list[tuple[str, float]]:
        compare, order = ("<", "DESC") if below else (">", "ASC")
        found = self._db.execute(
            f"SELECT id, order_key FROM nodes WHERE {_under(parent_id)} "
            f"AND order_key {compare} %s ORDER BY order_key {order}, id {order} "
            + ("LIMIT %s" if limit >= 0 else ""),
            (*_parent_args(parent_id), key, *([limit] if limit >= 0 else [])),
        )
        return [(i, float(k)) for i, k in found]

    def key_taken(self, parent_id: str | None, key: float) -> bool:
        return bool(
            self._db.execute(
                f"SELECT 1 FROM nodes WHERE {_under(parent_id)} AND order_key = %s LIMIT 1",
                (*_parent_args(parent_id), key),
            )
        )

    def latest_versions(self, node_ids: Sequence[str]) -> dict[str, int]:
        found = self._db.execute(
            "SELECT node_id, max(version) FROM node_versions WHERE node_id = ANY(%s) "
            "GROUP BY node_id",
            (list(node_ids),),
        )
        return {i: int(v) for i, v in found}

    def stale_summaries(self) -> list[Node]:
        return self._nodes(f"{SELECT} WHERE stale AND is_summary ORDER BY root_id, order_key")

    def versions(self, node_id: str) -> list[NodeVersion]:
        found = self._db.execute(f"{_VERSIONS} WHERE node_id = %s ORDER BY version", (node_id,))
        return [rows.version(r) for r in found]

    def versions_of_change(self, change_id: str) -> list[NodeVersion]:
        found = self._db.execute(f"{_VERSIONS} WHERE change_id = %s ORDER BY seq", (change_id,))
        return [rows.version(r) for r in found]

    def iter_versions(self) -> Iterator[NodeVersion]:
        yield from (rows.version(r) for r in self._db.execute(f"{_VERSIONS} ORDER BY seq"))

    # -- nodes: writes (inside transaction(), through the batch writer) ---------------

    def insert(self, nodes: Sequence[Node]) -> None:
        known, followed = derived.at_insert(self._db, nodes)
        written = [(*values(n), *known.get(n.id, ("", ""))) for n in nodes]
        if len(written) >= _COPY_FROM:
            self._db.copy_in("nodes", f"{COLUMNS}, neighbours, path", written)
        else:
            self._db.executemany(
                f"INSERT INTO nodes ({COLUMNS}, neighbours, path) VALUES {MARKS[:-1]}, %s, %s)",
                written,
            )
        self._tags(nodes)
        self._db.execute(
            "INSERT INTO vector_queue SELECT unnest(%s::text[]) ON CONFLICT DO NOTHING",
            ([n.id for n in nodes],),
        )
        ids = {n.id for n in nodes}
        rest = [n for n in nodes if n.id not in known]
        self._stale_around.update(n.id for n in rest)
        # Appended nodes' text is known; the sibling they follow has a new next.
        self._stale_neighbours.update(followed)
        # A breadcrumb comes from above: the batch's tops carry their subtrees.
        self._stale_paths.update(n.id for n in rest if n.parent_id not in ids)

    def replace(self, changed: Node) -> None:
        self._stale_neighbours.update(self._beside([changed.id]))  # where it was
        self._stale_around.add(changed.id)  # where it is
        before = self._db.execute(
            "SELECT text, parent_id, scope FROM nodes WHERE id = %s", (changed.id,)
        )
        if before and tuple(before[0]) != (changed.text, changed.parent_id, changed.scope):
            self._stale_paths.add(changed.id)
        sets = ", ".join(f"{c.strip()} = %s" for c in COLUMNS.split(",")[1:])
        self._db.execute(
            f"UPDATE nodes SET {sets} WHERE id = %s", (*values(changed)[1:], changed.id)
        )
        self._db.execute("DELETE FROM node_tags WHERE node_id = %s", (changed.id,))
        self._tags([changed])

    def _tags(self, nodes: Sequence[Node]) -> None:
        self._db.executemany(
            "INSERT INTO node_tags (tag, node_id) VALUES (%s, %s) ON CONFLICT DO NOTHING",
            [(tag, n.id) for n in nodes for tag in n.tags],
        )

    def set_keys(self, changes: Sequence[tuple[str, float]]) -> None:
        """New order keys; every child of their parents is rechecked at commit."""
        self._stale_parents.update(
            r[0]
            for r in self._db.execute(
                "SELECT DISTINCT parent_id FROM nodes WHERE id = ANY(%s)",
                ([i for i, _ in changes],),
            )
        )
        self._db.executemany(
            "UPDATE nodes SET order_key = %s WHERE id = %s", [(k, i) for i, k in changes]
        )

    def set_root(self, node_ids: Sequence[str], root_id: str) -> None:
        self._db.execute(
            "UPDATE nodes SET root_id = %s WHERE id = ANY(%s)", (root_id, list(node_ids))
        )

    def mark_summaries_stale(self, node_id: str) -> None:
        """Mark `node_id` and its ancestors stale where they are summaries."""
        self._db.execute(
            "WITH RECURSIVE up(id) AS (SELECT %s::text UNION ALL SELECT n.parent_id"
            " FROM nodes n JOIN up ON n.id = up.id WHERE n.parent_id IS NOT NULL)"
            " UPDATE nodes SET stale = TRUE WHERE is_summary AND NOT stale "
            " AND id IN (SELECT id FROM up)",
            (node_id,),
        )

    def set_token_counts(self, changes: Sequence[tuple[str, int]]) -> None:
        self._db.executemany(
            "UPDATE nodes SET token_count = %s WHERE id = %s", [(c, i) for i, c in changes]
        )

    def delete(self, node_ids: Sequence[str]) -> None:
        """Delete exactly these nodes; callers pass children before parents."""
        self._stale_neighbours.update(self._beside(node_ids))
        self._db.execute("DELETE FROM nodes WHERE id = ANY(%s)", (list(node_ids),))

    def add_versions(self, versions: Sequence[NodeVersion], *, skip_existing: bool = False) -> None:
        conflict = " ON CONFLICT (node_id, version) DO NOTHING" if skip_existing else ""
        self._db.executemany(
            "INSERT INTO node_versions (node_id, version, op, change_id, recorded_at, state) "
            f"VALUES (%s, %s, %s, %s, %s, %s){conflict}",
            [
                (v.node_id, v.version, v.op, v.change_id, v.recorded_at, rows.state(v))
                for v in versions
            ],
        )


def buffers_warning(buffers: str, buffer_bytes: int, index_bytes: int) -> str:
    """A warning when the vector indexes outgrow the server's shared buffers:
    each search then copies its graph pages in from the OS (at 100k MiniLM
    vectors here, a 197 MB index: search p50 26.9 ms with 128 MB of buffers,
    24.4 ms with 1 GB; medians of four runs of 200 searches)."""
    if index_bytes <= buffer_bytes:
        return ""
    needed = -(-index_bytes // 2**20) * 2  # MB, with room for the rows it points to
    return (
        f"the vector index ({index_bytes / 2**20:,.0f} MB) is larger than the server's "
        f"shared_buffers ({buffers}), so searches read it from the OS each time: set "
        f"shared_buffers to at least {needed:,} MB (ALTER SYSTEM SET shared_buffers = "
        f"'{needed}MB'; then restart Postgres)"
    )
