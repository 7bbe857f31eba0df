"""Erasure on Postgres: what a purge removes, and every row that holds it."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING

from ..records import PurgeCounts
from .connections import Connections

ERASED_SUMMARY = "(summary erased: it covered memories that were purged)"
# Tables a purge rewrites, so their freed space holds no erased text.
_REWRITTEN = ("nodes", "node_versions", "snapshots", "captured", "consolidation_runs")


class ErasureQueries:
    """Mixed into PostgresStore, which provides the node writes."""

    _db: Connections
    _stale_paths: set[str]
    _stale_around: set[str]
    _term_counts: tuple[int, dict[str, int]]

    if TYPE_CHECKING:

        def delete(self, node_ids: Sequence[str]) -> None: ...

        def ancestor_links(self, node_ids: Sequence[str]) -> dict[str, str | None]: ...

        def transaction(self) -> AbstractContextManager[None]: ...

    def purge_closure(self, node_ids: Sequence[str]) -> list[str]:
        """These nodes, their subtrees and the memories captured from any of
        them: everything a purge of `node_ids` removes, deepest first."""
        wanted = set(node_ids)
        found: list[str] = []
        frontier = sorted(wanted)
        while frontier:
            found.extend(frontier)
            below = {
                r[0]
                for r in self._db.execute(
                    "SELECT id FROM nodes WHERE parent_id = ANY(%s) UNION "
                    "SELECT n.id FROM nodes n WHERE jsonb_typeof(n.metadata::jsonb -> "
                    "'source_messages') = 'array' AND EXISTS (SELECT 1 FROM "
                    "jsonb_array_elements_text(n.metadata::jsonb -> 'source_messages') s "
                    "WHERE s = ANY(%s))",
                    (frontier, frontier),
                )
            }
            frontier = sorted(below - wanted)
            wanted.update(frontier)
        return list(reversed(found))

    def phrase_ids(self, phrase: str, scopes: Sequence[str] | None) -> list[str]:
        """Nodes whose own text or name holds `phrase` (its words, in order)."""
        if scopes is not None and not scopes:
            return []
        own = "(to_tsvector('english', left(n.text, 200000)) || n.name_words)"
        sql = (
            "SELECT n.id FROM nodes n, phraseto_tsquery('english', %s) q "
            f"WHERE n.words @@ q AND {own} @@ q"
        )
        args: list[object] = [phrase]
        if scopes is not None:
            sql += " AND n.scope = ANY(%s)"
            args.append(list(scopes))
        return [r[0] for r in self._db.execute(sql + " ORDER BY n.seq", args)]

    def scope_ids(self, scope: str) -> list[str]:
        found = self._db.execute("SELECT id FROM nodes WHERE scope = %s ORDER BY seq", (scope,))
        return [r[0] for r in found]

    def node_count(self) -> int:
        ((count,),) = self._db.execute("SELECT count(*) FROM nodes")
        return int(count)

    def purge(self, node_ids: Sequence[str], record: tuple[str, str, str, str]) -> PurgeCounts:
        """Remove `node_ids` (a closure: see `purge_closure`) and every row
        derived from them, in one transaction; `record` is the audit row's
        (id, at, key id, selector kind)."""
        ids = list(node_ids)
        self._term_counts = (0, {})  # the words searched for: nothing erased stays in memory
        with self.transaction():
            other = self._erase_summaries_above(ids)
            versions = self._db.changed("DELETE FROM node_versions WHERE node_id = ANY(%s)", (ids,))
            other += self._db.changed("DELETE FROM snapshots WHERE source_id = ANY(%s)", (ids,))
            other += self._db.changed(
                "DELETE FROM captured WHERE memory_id = ANY(%s) OR session_id = ANY(%s) "
                "OR EXISTS (SELECT 1 FROM jsonb_array_elements_text(captured.sources::jsonb) s "
                "WHERE s = ANY(%s))",
                (ids, ids, ids),
            )
            other += self._db.changed(
                "DELETE FROM consolidation_runs WHERE EXISTS (SELECT 1 FROM unnest(%s::text[]) i "
                "WHERE strpos(consolidation_runs.actions, i) > 0 "
                "OR strpos(consolidation_runs.undo, i) > 0)",
                (ids,),
            )
            # Verdicts are keyed by a hash of both texts and may quote them: a cache.
            other += self._db.changed("DELETE FROM judgements")
            self.delete(ids)  # cascades: tags, vectors, accesses, usage, relations...
            counts = PurgeCounts(len(ids), versions, other)
            self._db.execute(
                "INSERT INTO purges VALUES (%s, %s, %s, %s, %s, %s, %s)", (*record, *counts)
            )
        return counts

    def _erase_summaries_above(self, ids: list[str]) -> int:
        """Summaries over purged nodes said what they said: their text goes
        (marked stale, for a new summary), with their history, and the
        breadcrumbs and neighbour text that quoted them are rewritten."""
        gone = set(ids)
        above = sorted(a for a in self.ancestor_links(ids) if a not in gone)
        summaries = [
            r[0]
            for r in self._db.execute(
                "UPDATE nodes SET text = %s, stale = TRUE WHERE is_summary AND id = ANY(%s) "
                "RETURNING id",
                (ERASED_SUMMARY, above),
            )
        ]
        if not summaries:
            return 0
        self._stale_paths.update(summaries)
        self._stale_around.update(summaries)
        history = self._db.changed(
            "DELETE FROM node_versions WHERE node_id = ANY(%s)", (summaries,)
        )
        return len(summaries) + history

    def compact(self) -> bool:
        """Rewrite the tables a purge touched, so their freed space holds no
        erased text. False: Postgres keeps its write-ahead log segments until
        it recycles them, which a database user cannot force."""
        for table in _REWRITTEN:
            self._db.execute(f"VACUUM (FULL) {table}")
        self._db.execute("VACUUM")
        return False
