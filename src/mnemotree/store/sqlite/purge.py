"""Erasure on the SQLite store: the text leaves every row that holds it, then
the file is rewritten so that no freed page, WAL frame or index segment
keeps a copy.

Deleting a node keeps its history by design (it can be restored); a purge
is the one operation that does not. What holds a node's words besides its
row: its versions, the full-text index (segments keep deleted tokens until
merged), path snapshots that quoted it, capture-queue rows made from it,
memories captured from it (`source_messages`), summaries above it, the
undo log of consolidation runs that touched it, the judgement cache, its
siblings' `neighbours` text, and freed pages of the file and its WAL.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING

from ..records import PurgeCounts
from .connections import Connected
from .rows import _chunks
from .transactions import is_busy

ERASED_SUMMARY = "(summary erased: it covered memories that were purged)"


class PurgeQueries(Connected):
    """Mixed into SQLiteStore, which provides `delete` (neighbours kept right)."""

    _stale_paths: set[str]  # derived text SQLiteStore recomputes at commit
    _stale_around: set[str]

    if TYPE_CHECKING:  # provided by SQLiteStore and its query mixins

        def delete(self, node_ids: Sequence[str]) -> None: ...

        def ancestor_links(self, node_ids: Sequence[str]) -> dict[str, str | None]: ...

        def transaction(self) -> AbstractContextManager[None]: ...

    def purge_closure(self, node_ids: Sequence[str]) -> list[str]:
        """These nodes, their subtrees and the memories captured from any of
        them: everything a purge of `node_ids` removes, children first."""
        wanted = set(node_ids)
        found: list[str] = []
        frontier = sorted(wanted)
        while frontier:
            found.extend(frontier)
            below = self._ids(
                "SELECT id FROM nodes WHERE parent_id IN ({marks})", frontier
            ) | self._ids(
                "SELECT DISTINCT n.id FROM nodes n, json_each(n.metadata, '$.source_messages') s "
                "WHERE json_type(n.metadata, '$.source_messages') = 'array' "
                "AND s.value IN ({marks})",
                frontier,
            )
            frontier = sorted(below - wanted)
            wanted.update(frontier)
        return list(reversed(found))  # deepest first

    def phrase_ids(self, phrase: str, scopes: Sequence[str] | None) -> list[str]:
        """Nodes whose own text or name holds `phrase` (its words, in order)."""
        if scopes is not None and not scopes:
            return []
        match = '{text context_name} : "' + phrase.replace('"', '""') + '"'
        sql = (
            "SELECT n.id FROM nodes_fts CROSS JOIN nodes n ON n.seq = nodes_fts.rowid "
            "WHERE nodes_fts MATCH ?"
        )
        args: list[str] = [match]
        if scopes is not None:
            sql += f" AND +n.scope IN ({','.join('?' * len(scopes))})"
            args.extend(scopes)
        return [r[0] for r in self._db.execute(sql, args)]

    def scope_ids(self, scope: str) -> list[str]:
        return [r[0] for r in self._db.execute("SELECT id FROM nodes WHERE scope = ?", (scope,))]

    def node_count(self) -> int:
        return int(self._db.execute("SELECT count(*) FROM nodes").fetchone()[0])

    def _ids(self, sql: str, ids: Sequence[str]) -> set[str]:
        out: set[str] = set()
        for chunk in _chunks(list(ids)):
            query = sql.format(marks=",".join("?" * len(chunk)))
            out.update(r[0] for r in self._db.execute(query, tuple(chunk)))
        return out

    def purge(self, node_ids: Sequence[str], record: tuple[str, str, str, str]) -> PurgeCounts:
        """Remove `node_ids` (a closure: see `purge_closure`) and every row
        derived from them, in one transaction; `record` is the audit row's
        (id, at, key id, selector kind)."""
        db = self._db
        # Freed space is zeroed until this purge commits (neighbour text
        # rewritten at commit included), not after: it costs every write.
        before = db.execute("PRAGMA secure_delete").fetchone()[0]
        db.execute("PRAGMA secure_delete = ON")
        try:
            with self.transaction():
                return self._purge(list(node_ids), record)
        finally:
            db.execute(f"PRAGMA secure_delete = {int(before)}")

    def _purge(self, ids: list[str], record: tuple[str, str, str, str]) -> PurgeCounts:
        db = self._db
        other = self._erase_summaries_above(ids)
        versions = self._count_deleted("DELETE FROM node_versions WHERE node_id IN ({marks})", ids)
        other += self._count_deleted("DELETE FROM snapshots WHERE source_id IN ({marks})", ids)
        other += self._count_deleted(
            "DELETE FROM captured WHERE memory_id IN ({marks}) OR session_id IN ({marks}) "
            "OR EXISTS (SELECT 1 FROM json_each(captured.sources) s WHERE s.value IN ({marks}))",
            ids,
            repeat=3,
        )
        other += db.execute(
            "DELETE FROM consolidation_runs WHERE EXISTS (SELECT 1 FROM json_each(?) i "
            "WHERE instr(consolidation_runs.actions, i.value) "
            "OR instr(consolidation_runs.undo, i.value))",
            (json.dumps(ids),),
        ).rowcount
        # Verdicts are keyed by a hash of both texts and may quote them: a cache.
        other += db.execute("DELETE FROM judgements").rowcount
        self.delete(ids)  # cascades: tags, vectors, accesses, usage, relations...
        db.execute("INSERT INTO nodes_fts(nodes_fts) VALUES ('optimize')")
        counts = PurgeCounts(len(ids), versions, other)
        db.execute("INSERT INTO purges VALUES (?, ?, ?, ?, ?, ?, ?)", (*record, *counts))
        return counts

    def _erase_summaries_above(self, ids: list[str]) -> int:
        """Summaries over purged nodes said what they said: their text goes
        (marked stale, for a new summary), and their history with it."""
        gone = set(ids)
        links = self.ancestor_links(ids)
        above = sorted(a for a in links if a not in gone)
        summaries = (
            sorted(
                self._ids("SELECT id FROM nodes WHERE is_summary = 1 AND id IN ({marks})", above)
            )
            if above
            else []
        )
        for chunk in _chunks(summaries):
            marks = ",".join("?" * len(chunk))
            self._db.execute(
                f"UPDATE nodes SET text = ?, stale = 1 WHERE id IN ({marks})",
                (ERASED_SUMMARY, *chunk),
            )
        if not summaries:
            return 0
        # Their old text is in the breadcrumbs below them and their siblings'
        # neighbour text: both are recomputed at commit.
        self._stale_paths.update(summaries)
        self._stale_around.update(summaries)
        history = "DELETE FROM node_versions WHERE node_id IN ({marks})"
        return len(summaries) + self._count_deleted(history, summaries)

    def _count_deleted(self, sql: str, ids: Sequence[str], *, repeat: int = 1) -> int:
        total = 0
        for chunk in _chunks(list(ids)):
            query = sql.format(marks=",".join("?" * len(chunk)))
            total += self._db.execute(query, tuple(chunk) * repeat).rowcount
        return total

    def compact(self) -> bool:
        """Rewrite the file without free pages and empty the WAL; False if
        another connection's read kept the WAL from being emptied (its old
        frames go at the next checkpoint nobody reads through)."""
        db = self._db
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        try:
            db.execute("VACUUM")
        except sqlite3.OperationalError as exc:  # another of our connections is reading
            if "in progress" not in str(exc) and not is_busy(exc):
                raise
            return False
        busy, _, _ = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        return not busy
