"""The SQLite store's queries for consolidation: contradictions, fact keys,
runs and their undo, the archive, decay and judgements."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: one process per file is assumed
    fcntl = None  # type: ignore[assignment]

from ...errors import StorageError
from ...model import Node, NodeFilter
from ..columns import run_row, run_values
from ..records import ContradictionRow, MemoryStats, RunRow, Scopes
from .connections import Connected
from .rows import _N_COLUMNS, _chunks, _node
from .search import _filter_sql


class ConsolidateQueries(Connected):
    _path: str
    """Mixed into SQLiteStore; kept apart so each module stays readable."""

    def facts_with_key(self, key: str, where: NodeFilter, limit: int) -> list[Node]:
        """Facts whose key is `key` (by the facts_by_key index), oldest first."""
        clause, args = _filter_sql(where, "n")
        # No ORDER BY: with one, SQLite walks every fact along the (type, time)
        # index instead of looking the key up; a key has few facts to sort.
        sql = (
            f"SELECT {_N_COLUMNS}, n.seq FROM nodes n WHERE json_extract(n.metadata, '$.key') = ? "
            f"AND n.context_type = 'fact'{clause}"
        )
        rows = sorted(self._db.execute(sql, (key, *args)), key=lambda r: (r[6], r[-1]))
        return [_node(r[:-1]) for r in rows[:limit]]

    def put_contradiction(self, row: ContradictionRow) -> bool:
        """Record a contradiction; False if this pair is already recorded."""
        cursor = self._db.execute(
            "INSERT OR IGNORE INTO contradictions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            row,
        )
        return bool(cursor.rowcount)

    def get_contradiction(self, contradiction_id: str) -> ContradictionRow | None:
        row = self._db.execute(
            "SELECT * FROM contradictions WHERE id = ?", (contradiction_id,)
        ).fetchone()
        return None if row is None else ContradictionRow(*row)

    def set_contradiction(self, row: ContradictionRow) -> None:
        self._db.execute(
            "UPDATE contradictions SET status = ?, resolution = ?, note = ?, resolved_at = ? "
            "WHERE id = ?",
            (row.status, row.resolution, row.note, row.resolved_at, row.id),
        )

    def contradictions(
        self, status: str | None, scopes: Scopes, limit: int, resolution: str | None = None
    ) -> list[ContradictionRow]:
        """Newest first; `status` and `resolution` None for any."""
        parts, args = [], []
        if status is not None:
            parts.append("status = ?")
            args.append(status)
        if resolution is not None:
            parts.append("resolution = ?")
            args.append(resolution)
        if scopes is not None:
            parts.append(f"scope IN ({','.join('?' * len(scopes))})")
            args.extend(scopes)
        where = f" WHERE {' AND '.join(parts)}" if parts else ""
        rows = self._db.execute(
            f"SELECT * FROM contradictions{where} ORDER BY detected_at DESC, id LIMIT ?",
            (*args, limit),
        )
        return [ContradictionRow(*r) for r in rows]

    def contradictions_of(
        self, node_ids: Sequence[str], statuses: Sequence[str]
    ) -> list[ContradictionRow]:
        """Rows of these statuses naming any of the nodes, oldest first."""
        found: dict[str, ContradictionRow] = {}
        states = ",".join("?" * len(statuses))
        for chunk in _chunks(list(node_ids)):
            marks = ",".join("?" * len(chunk))
            sql = (
                f"SELECT * FROM contradictions WHERE status IN ({states}) "
                f"AND (a_id IN ({marks}) OR b_id IN ({marks}))"
            )
            for row in self._db.execute(sql, (*statuses, *chunk, *chunk)):
                found[row[0]] = ContradictionRow(*row)
        return sorted(found.values(), key=lambda r: (r.detected_at, r.id))

    # -- consolidation runs, archive, decay --

    def live_memories(self, types: Sequence[str]) -> list[tuple[Node, float | None]]:
        """Every node of these types not archived, with its stored decay, oldest first."""
        marks = ",".join("?" * len(types))
        sql = (
            f"SELECT {_N_COLUMNS}, n.decay FROM nodes n WHERE n.context_type IN ({marks}) "
            "AND n.archived_at IS NULL ORDER BY n.created_at, n.seq"
        )
        return [(_node(r[:-1]), r[-1]) for r in self._db.execute(sql, tuple(types))]

    def decays(self, node_ids: Sequence[str]) -> dict[str, float | None]:
        found: dict[str, float | None] = {}
        for chunk in _chunks(list(node_ids)):
            marks = ",".join("?" * len(chunk))
            found.update(
                self._db.execute(
                    f"SELECT id, decay FROM nodes WHERE id IN ({marks})", tuple(chunk)
                ).fetchall()
            )
        return found

    def memory_stats(self, usage_since: str) -> dict[str, MemoryStats]:
        """Accesses (ever) and usage since `usage_since` per node that has any."""
        found: dict[str, list[Any]] = {}
        for node_id, count, last in self._db.execute(
            "SELECT node_id, count(*), max(at) FROM accesses GROUP BY node_id"
        ):
            found[node_id] = [count, last, 0, 0, 0]
        for node_id, retrieved, cited, ignored in self._db.execute(
            "SELECT node_id, sum(event = 'retrieved'), sum(event = 'cited'), "
            "sum(event = 'ignored') FROM usage WHERE at >= ? GROUP BY node_id",
            (usage_since,),
        ):
            row = found.setdefault(node_id, [0, None, 0, 0, 0])
            row[2:] = [retrieved, cited, ignored]
        return {k: MemoryStats(*v) for k, v in found.items()}

    def co_cited_pairs(
        self, since: str, min_batches: int, limit: int
    ) -> list[tuple[str, str, int]]:
        """Pairs of nodes cited in the same context at least `min_batches` times."""
        sql = """
            SELECT a.node_id, b.node_id, count(DISTINCT a.batch) AS together
            FROM usage a JOIN usage b ON b.batch = a.batch AND b.node_id > a.node_id
            WHERE a.event = 'cited' AND b.event = 'cited' AND a.at >= ?
            GROUP BY a.node_id, b.node_id HAVING together >= ?
            ORDER BY together DESC, a.node_id, b.node_id LIMIT ?
        """
        return [(a, b, n) for a, b, n in self._db.execute(sql, (since, min_batches, limit))]

    def archive(self, node_ids: Sequence[str], at: str) -> list[str]:
        """Archive these nodes (those not archived yet, which are returned):
        their vectors go, so the vector index forgets them too."""
        done: list[str] = []
        for chunk in _chunks(list(node_ids)):
            marks = ",".join("?" * len(chunk))
            rows = self._db.execute(
                f"UPDATE nodes SET archived_at = ? WHERE id IN ({marks}) "
                "AND archived_at IS NULL RETURNING id",
                (at, *chunk),
            ).fetchall()
            ids = tuple(r[0] for r in rows)
            if ids:
                marks = ",".join("?" * len(ids))
                self._db.execute(f"DELETE FROM vectors WHERE node_id IN ({marks})", ids)
                self._db.execute(f"DELETE FROM vector_queue WHERE node_id IN ({marks})", ids)
                done.extend(ids)
        return done

    def unarchive(self, node_ids: Sequence[str]) -> list[str]:
        """Restore archived nodes (returned); their vectors are queued again."""
        done: list[str] = []
        for chunk in _chunks(list(node_ids)):
            marks = ",".join("?" * len(chunk))
            rows = self._db.execute(
                f"UPDATE nodes SET archived_at = NULL WHERE id IN ({marks}) "
                "AND archived_at IS NOT NULL RETURNING id",
                tuple(chunk),
            ).fetchall()
            ids = [r[0] for r in rows]
            self._db.executemany(
                "INSERT OR IGNORE INTO vector_queue VALUES (?)", [(i,) for i in ids]
            )
            done.extend(ids)
        return done

    def archived(self, node_ids: Sequence[str]) -> dict[str, str]:
        """{node id: archived at} for the archived ones among these."""
        found: dict[str, str] = {}
        for chunk in _chunks(list(node_ids)):
            marks = ",".join("?" * len(chunk))
            found.update(
                self._db.execute(
                    f"SELECT id, archived_at FROM nodes WHERE id IN ({marks}) "
                    "AND archived_at IS NOT NULL",
                    tuple(chunk),
                ).fetchall()
            )
        return found

    def archived_nodes(self, scopes: Scopes, limit: int) -> list[tuple[Node, str]]:
        """Archived nodes, most recently archived first."""
        clause, args = "", []
        if scopes is not None:
            clause = f" AND n.scope IN ({','.join('?' * len(scopes))})"
            args = list(scopes)
        sql = (
            f"SELECT {_N_COLUMNS}, n.archived_at FROM nodes n "
            f"WHERE n.archived_at IS NOT NULL{clause} ORDER BY n.archived_at DESC, n.seq LIMIT ?"
        )
        return [(_node(r[:-1]), r[-1]) for r in self._db.execute(sql, (*args, limit))]

    def set_decay(self, changes: Sequence[tuple[str, float | None]]) -> None:
        self._db.executemany(
            "UPDATE nodes SET decay = ? WHERE id = ?", [(v, i) for i, v in changes]
        )

    def set_importance(self, changes: Sequence[tuple[str, float]]) -> None:
        self._db.executemany(
            "UPDATE nodes SET importance = ? WHERE id = ?", [(v, i) for i, v in changes]
        )

    def relations_between(self, source_id: str, target_id: str, type: str | None) -> bool:
        """Whether `source_id` relates to `target_id` (by `type`, or by any)."""
        sql = "SELECT 1 FROM relations WHERE source_id = ? AND target_id = ?"
        args: tuple[str, ...] = (source_id, target_id)
        if type is not None:
            sql, args = sql + " AND type = ?", (*args, type)
        return self._db.execute(sql, args).fetchone() is not None

    def delete_relation(self, source_id: str, target_id: str, type: str) -> None:
        self._db.execute(
            "DELETE FROM relations WHERE source_id = ? AND target_id = ? AND type = ?",
            (source_id, target_id, type),
        )

    def delete_contradiction(self, contradiction_id: str) -> None:
        self._db.execute("DELETE FROM contradictions WHERE id = ?", (contradiction_id,))

    def put_run(self, row: RunRow) -> None:
        self._db.execute(
            "INSERT INTO consolidation_runs VALUES (?, ?, ?, ?, ?, ?, ?)",
            run_values(row),
        )

    def get_run(self, run_id: str) -> RunRow | None:
        row = self._db.execute(
            "SELECT * FROM consolidation_runs WHERE id = ?", (run_id,)
        ).fetchone()
        return None if row is None else run_row(row)

    @contextmanager
    def alone(self, task: str) -> Iterator[bool]:
        """A lock file beside the database (`<file>.<task>.lock`), held for
        the task: processes sharing the file run it one at a time. An
        in-memory database has one process."""
        path = self._path
        if path == ":memory:" or fcntl is None:
            yield True
            return
        lock = f"{path}.{task}.lock"
        try:
            handle = open(lock, "a")  # noqa: SIM115 (closed below, after the lock's use)
        except OSError as exc:  # the folder went away or is read-only
            raise StorageError(f"cannot open the lock file {lock}: {exc.strerror}", lock) from None
        with handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                yield False
                return
            try:
                yield True
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def runs(self, limit: int) -> list[RunRow]:
        """Applied runs, newest first."""
        rows = self._db.execute(
            "SELECT * FROM consolidation_runs ORDER BY applied_at DESC, id LIMIT ?", (limit,)
        )
        return [run_row(r) for r in rows]

    def set_run_undone(self, run_id: str, at: str) -> None:
        self._db.execute("UPDATE consolidation_runs SET undone_at = ? WHERE id = ?", (at, run_id))

    def judgement(self, pair: str) -> tuple[str, str] | None:
        row = self._db.execute(
            "SELECT verdict, reason FROM judgements WHERE pair = ?", (pair,)
        ).fetchone()
        return None if row is None else (row[0], row[1])

    def put_judgement(self, pair: str, verdict: str, reason: str, at: str) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO judgements VALUES (?, ?, ?, ?)", (pair, verdict, reason, at)
        )
