"""The SQLite store's retrieval queries: filters, FTS5, vectors and accesses."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from ...errors import InvalidInput
from ...model import Node, NodeFilter
from ...perf import paused_gc
from ..records import VectorCursor, VectorRow
from .connections import Connected
from .rows import _N_COLUMNS, _chunks, _node

# Column weights: text, name (speaker, heading), adjacent siblings' text,
# ancestors' text (breadcrumb).
_SELECTIVE_KEPT = 1_000  # filters remembered as selective
_BM25 = "bm25(nodes_fts, 1.0, 0.5, 0.4, 0.2)"


def _quoted(term: str) -> str:
    """One term as an FTS5 string: user text never reaches MATCH as syntax."""
    return '"' + term.replace('"', '""') + '"'


def match_any(terms: Sequence[str]) -> str:
    """The FTS5 MATCH expression for rows holding any of `terms`. Each term is
    double-quoted (quotes doubled inside), so no input can raise a syntax
    error or use an operator (NEAR, AND, -, :, ^, *)."""
    return " OR ".join(_quoted(term) for term in terms)


class RetrievalQueries(Connected):
    """Mixed into SQLiteStore; kept apart so each module stays readable."""

    _lock: threading.RLock
    # Filters whose rows are too few among the index's best to filter afterwards.
    _selective_filters: dict[tuple[object, ...], None]

    def visible(self, node_ids: Sequence[str], where: NodeFilter) -> dict[str, Node]:
        """The nodes among `node_ids` that pass the filter (scopes included)."""
        clause, args = _filter_sql(where, "n")
        found: dict[str, Node] = {}
        for chunk in _chunks(list(node_ids)):
            marks = ",".join("?" * len(chunk))
            sql = f"SELECT {_N_COLUMNS} FROM nodes n WHERE n.id IN ({marks}){clause}"
            for row in self._db.execute(sql, (*chunk, *args)):
                found[row[0]] = _node(row)
        return found

    def adjacent(self, node_ids: Sequence[str]) -> list[tuple[str, str | None, str | None]]:
        """(id, previous sibling id, next sibling id) for each node, in one query."""
        out: list[tuple[str, str | None, str | None]] = []
        for chunk in _chunks(list(node_ids)):
            marks = ",".join("?" * len(chunk))
            sql = f"""
                SELECT n.id,
                    (SELECT s.id FROM nodes s WHERE s.parent_id = n.parent_id
                        AND s.order_key < n.order_key ORDER BY s.order_key DESC LIMIT 1),
                    (SELECT s.id FROM nodes s WHERE s.parent_id = n.parent_id
                        AND s.order_key > n.order_key ORDER BY s.order_key LIMIT 1)
                FROM nodes n WHERE n.id IN ({marks}) AND n.parent_id IS NOT NULL
            """
            out.extend((r[0], r[1], r[2]) for r in self._db.execute(sql, tuple(chunk)))
        return out

    def ancestor_links(self, node_ids: Sequence[str]) -> dict[str, str | None]:
        """{ancestor id: its parent id} for every ancestor of these nodes, in one query."""
        links: dict[str, str | None] = {}
        for chunk in _chunks(list(node_ids)):
            marks = ",".join("?" * len(chunk))
            sql = f"""
                WITH RECURSIVE up(id) AS (
                    SELECT parent_id FROM nodes WHERE id IN ({marks}) AND parent_id IS NOT NULL
                    UNION
                    SELECT n.parent_id FROM nodes n JOIN up ON n.id = up.id
                    WHERE n.parent_id IS NOT NULL
                )
                SELECT n.id, n.parent_id FROM nodes n WHERE n.id IN (SELECT id FROM up)
            """
            links.update(self._db.execute(sql, tuple(chunk)).fetchall())
        return links

    def lexical(
        self, terms: Sequence[str], where: NodeFilter, limit: int
    ) -> list[tuple[str, float]]:
        """(node id, relevance > 0) of nodes matching any of `terms`, best BM25 first."""
        if isinstance(terms, str):  # a str is a Sequence[str] of letters
            raise InvalidInput("lexical() takes a list of terms, not one string", terms)
        if not terms:
            return []
        match = match_any(terms)
        clause, args = _filter_sql(where, "n")
        # First the best rows of the whole index, filtered afterwards: when the
        # filter keeps most rows (one big scope) this skips a join per match.
        # The answer is exact either way: if too few pass, the joined query
        # runs, and a filter that needed it once goes straight to it next time
        # (a scope that is a small share of the index: one chat among many).
        selective = (clause, *args)
        if selective not in self._selective_filters:
            deeper = 4 * limit
            ranked = self._db.execute(
                f"SELECT rowid, -{_BM25} FROM nodes_fts WHERE nodes_fts MATCH ? "
                f"ORDER BY {_BM25} LIMIT ?",
                (match, deeper),
            ).fetchall()
            passed = self._ids_of_seqs([r[0] for r in ranked], clause, args)
            if len(passed) >= limit or len(ranked) < deeper:
                kept = [(passed[seq], score) for seq, score in ranked if seq in passed]
                return kept[:limit]
            self._selective_filters[selective] = None
            while len(self._selective_filters) > _SELECTIVE_KEPT:  # the oldest go first
                self._selective_filters.pop(next(iter(self._selective_filters)), None)
        sql = (
            f"SELECT n.id, -{_BM25} FROM nodes_fts "
            "CROSS JOIN nodes n ON n.seq = nodes_fts.rowid "
            f"WHERE nodes_fts MATCH ?{clause} ORDER BY {_BM25} LIMIT ?"
        )
        return [(r[0], r[1]) for r in self._db.execute(sql, (match, *args, limit))]

    def _ids_of_seqs(self, seqs: list[int], clause: str, args: list[Any]) -> dict[int, str]:
        found: dict[int, str] = {}
        for chunk in _chunks(seqs):
            marks = ",".join("?" * len(chunk))
            sql = f"SELECT n.seq, n.id FROM nodes n WHERE n.seq IN ({marks}){clause}"
            found.update(self._db.execute(sql, (*chunk, *args)).fetchall())
        return found

    def term_documents(
        self,
        terms: Sequence[str],
        *,
        in_names: bool = False,
        cap: int | None = None,
        context_type: str | None = None,
    ) -> dict[str, int]:
        """{term: documents matching it} for query terms; with `in_names`, matching
        in the name column only; with `cap`, counting stops there; with
        `context_type`, only nodes of that type count.

        Each term is counted by FTS5 itself (stemmed as MATCH will be); the cap
        keeps a term found in half a million rows from costing 50 ms to count
        when all the caller needs to know is that it is common.
        """
        counts: dict[str, int] = {}
        limit = " LIMIT ?" if cap is not None else ""
        typed = context_type is not None
        # CROSS JOIN and `+`: FTS5 drives. Left to itself SQLite walked every
        # node of the type and ran MATCH per row (240 ms over 5k messages).
        join = " CROSS JOIN nodes n ON n.seq = nodes_fts.rowid" if typed else ""
        where = " AND +n.context_type = ?" if typed else ""
        sql = (
            f"SELECT count(*) FROM (SELECT 1 FROM nodes_fts{join} "
            f"WHERE nodes_fts MATCH ?{where}{limit})"
        )
        for term in terms:
            phrase = _quoted(term)
            args: list[Any] = [f"context_name : {phrase}" if in_names else phrase]
            if typed:
                args.append(context_type)
            if cap is not None:
                args.append(cap)
            counts[term] = int(self._db.execute(sql, args).fetchone()[0])
        return counts

    def document_total(self) -> int:
        """About how many nodes there are (the highest row number: fast, never low)."""
        return int(self._db.execute("SELECT coalesce(max(seq), 0) FROM nodes").fetchone()[0])

    def pending_vectors(self, limit: int) -> list[Node]:
        """Queued nodes: their vector is missing or outdated (oldest first)."""
        sql = (
            f"SELECT {_N_COLUMNS} FROM vector_queue q JOIN nodes n ON n.id = q.node_id "
            "ORDER BY q.node_id LIMIT ?"  # ids sort by creation time
        )
        return [_node(r) for r in self._db.execute(sql, (limit,))]

    def count_pending_vectors(self) -> int:
        return int(self._db.execute("SELECT count(*) FROM vector_queue").fetchone()[0])

    def queue_missing_vectors(self, embedder: str) -> int:
        """Queue every node without a vector from `embedder` (after a change of
        model, a restore); not archived ones: archiving drops their vectors and
        unarchiving queues them."""
        cursor = self._db.execute(
            "INSERT OR IGNORE INTO vector_queue SELECT n.id FROM nodes n "
            "WHERE n.archived_at IS NULL AND NOT EXISTS "
            "(SELECT 1 FROM vectors v WHERE v.node_id = n.id AND v.embedder = ?)",
            (embedder,),
        )
        return cursor.rowcount

    def queue_single_vectors(
        self, embedder: str, row_bytes: int, min_chars: int, *, broken: bool = False
    ) -> int:
        """Queue nodes of at least `min_chars` whose vector from `embedder` is
        one row of `row_bytes` (and, if `broken`, whose text has a sentence break)."""
        breaks = " AND (n.text GLOB '*[.!?] *' OR instr(n.text, char(10)) > 0)" if broken else ""
        cursor = self._db.execute(
            "INSERT OR IGNORE INTO vector_queue SELECT v.node_id FROM vectors v "
            "JOIN nodes n ON n.id = v.node_id WHERE v.embedder = ? "
            f"AND length(v.vector) = ? AND length(n.text) >= ?{breaks}",
            (embedder, row_bytes, min_chars),
        )
        return cursor.rowcount

    def put_vectors(self, embedder: str, rows: Sequence[tuple[str, str, bytes, str, str]]) -> None:
        """Store (node id, content hash, float32 bytes, text, name) and unqueue those
        nodes; a node deleted meanwhile, or whose text or name changed since it
        was read, is skipped (and stays queued)."""
        current = "EXISTS (SELECT 1 FROM nodes WHERE id = ? AND text = ? AND context_name = ?)"
        self._db.executemany(
            "INSERT OR REPLACE INTO vectors (node_id, embedder, content_hash, vector) "
            f"SELECT ?, ?, ?, ? WHERE {current}",
            [(i, embedder, digest, blob, i, text, name) for i, digest, blob, text, name in rows],
        )
        self._db.executemany(
            f"DELETE FROM vector_queue WHERE node_id = ? AND {current}",
            [(i, i, text, name) for i, _, _, text, name in rows],
        )

    def vector_marks(self, embedder: str) -> tuple[VectorCursor, VectorCursor]:
        """(last rowid of `embedder`'s vectors, last tombstone seq), 0 for none."""
        row = self._db.execute(
            "SELECT (SELECT max(id) FROM vectors WHERE embedder = ?), "
            "(SELECT max(seq) FROM vector_tombstones)",
            (embedder,),
        ).fetchone()
        return row[0] or 0, row[1] or 0

    def count_vectors(self, embedder: str, after: VectorCursor) -> int:
        sql = "SELECT count(*) FROM vectors WHERE embedder = ? AND id > ?"
        return int(self._db.execute(sql, (embedder, after)).fetchone()[0])

    def load_vectors(self, embedder: str, after: VectorCursor, limit: int) -> list[VectorRow]:
        """The first `limit` vectors stored after `after` (a cursor is the vector's rowid)."""
        sql = (
            "SELECT v.id, v.node_id, n.scope, n.root_id, v.vector FROM vectors v "
            "JOIN nodes n ON n.id = v.node_id WHERE v.embedder = ? AND v.id > ? "
            "ORDER BY v.id LIMIT ?"
        )
        with paused_gc():
            rows = self._db.execute(sql, (embedder, after, limit)).fetchall()
        return [VectorRow(*r) for r in rows]

    def vector_tombstones(
        self, embedder: str, after: VectorCursor
    ) -> tuple[VectorCursor, list[VectorCursor], bool]:
        """(last seq, rowids of `embedder` vectors deleted after seq `after`, complete).

        `complete` is False when tombstones after `after` were pruned: reload.
        """
        after_seq = after
        bounds = self._db.execute("SELECT min(seq), max(seq) FROM vector_tombstones").fetchone()
        low, high = bounds[0] or 0, bounds[1] or 0
        complete = low == 0 or after_seq >= low - 1
        rows = self._db.execute(
            "SELECT vector_rowid FROM vector_tombstones WHERE seq > ? AND embedder = ?",
            (after_seq, embedder),
        ).fetchall()
        return max(high, after_seq), [r[0] for r in rows], complete

    def prune_tombstones(self, keep: int = 100_000) -> None:
        self._db.execute(
            "DELETE FROM vector_tombstones "
            "WHERE seq <= (SELECT max(seq) FROM vector_tombstones) - ?",
            (keep,),
        )

    def drop_vectors(self, keep_embedder: str | None = None) -> int:
        """Delete vectors of every other embedder (all when None); returns how many."""
        cursor = self._db.execute("DELETE FROM vectors WHERE embedder IS NOT ?", (keep_embedder,))
        return cursor.rowcount

    def record_accesses(self, node_ids: Sequence[str], at: str, keep: int = 50) -> None:
        """Log an access per node and keep only each node's last `keep` accesses."""
        self._db.executemany(
            "INSERT INTO accesses (node_id, at) VALUES (?, ?)", [(i, at) for i in node_ids]
        )
        self._db.executemany(
            "DELETE FROM accesses WHERE node_id = ? AND rowid NOT IN "
            "(SELECT rowid FROM accesses WHERE node_id = ? ORDER BY at DESC LIMIT ?)",
            [(i, i, keep) for i in node_ids],
        )

    def access_ages(self, node_ids: Sequence[str], now: str, latest: int) -> dict[str, list[float]]:
        """Seconds from each of a node's `latest` newest accesses to `now`
        (newest first): SQLite computes them, so a search does not parse
        thousands of timestamps."""
        found: dict[str, list[float]] = {}
        for chunk in _chunks(list(node_ids)):
            marks = ",".join("?" * len(chunk))
            sql = f"""
                SELECT node_id, (julianday(?) - julianday(at)) * 86400.0 FROM (
                    SELECT node_id, at, row_number() OVER (
                        PARTITION BY node_id ORDER BY at DESC) AS newest
                    FROM accesses WHERE node_id IN ({marks}))
                WHERE newest <= ? ORDER BY node_id, at DESC
            """
            for node_id, age in self._db.execute(sql, (now, *chunk, latest)):
                found.setdefault(node_id, []).append(age)
        return found

    def access_times(self, node_ids: Sequence[str]) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for chunk in _chunks(list(node_ids)):
            marks = ",".join("?" * len(chunk))
            sql = f"SELECT node_id, at FROM accesses WHERE node_id IN ({marks})"
            for node_id, at in self._db.execute(sql, tuple(chunk)):
                found.setdefault(node_id, []).append(at)
        return found


def _valid_sql(alias: str) -> str:
    """SQL true when node `alias` is valid at the time bound twice after it: a
    node is valid from when it was written unless its metadata says otherwise
    (`typed.valid_since` in Python)."""
    metadata = f"{alias}.metadata"
    end = f"json_extract({metadata}, '$.valid_to')"
    # Written after its own end ("true until March"): it held since always.
    written = f"CASE WHEN {end} < {alias}.created_at THEN '' ELSE {alias}.created_at END"
    start = f"COALESCE(json_extract({metadata}, '$.valid_from'), {written})"
    return f"{start} <= ? AND ({end} IS NULL OR {end} > ?)"


def _filter_sql(where: NodeFilter, alias: str) -> tuple[str, list[Any]]:
    """` AND ...` conditions for a filter; scopes first, as the hard boundary.

    Every caller drives the query by ids or FTS rows, so the columns carry a
    unary `+`: it keeps SQLite from walking the scope (or type) index instead,
    which read every node of a 10k-node scope to check 300 ids (3 ms a call).
    """
    parts: list[str] = [] if where.include_archived else [f"{alias}.archived_at IS NULL"]
    args: list[Any] = []

    def among(column: str, values: Sequence[str]) -> None:
        parts.append(f"+{alias}.{column} IN ({','.join('?' * len(values))})")
        args.extend(values)

    if where.scopes is not None:
        if not where.scopes:
            parts.append("0")  # no scope at all: nothing is visible
        else:
            among("scope", where.scopes)
    if where.roots:
        among("root_id", where.roots)
    if where.context_types:
        among("context_type", where.context_types)
    if where.tags:
        marks = ",".join("?" * len(where.tags))
        parts.append(
            f"EXISTS (SELECT 1 FROM node_tags t "
            f"WHERE t.node_id = {alias}.id AND t.tag IN ({marks}))"
        )
        args.extend(where.tags)
    if where.created_after is not None:
        parts.append(f"+{alias}.created_at >= ?")
        args.append(where.created_after)
    if where.created_before is not None:
        parts.append(f"+{alias}.created_at < ?")
        args.append(where.created_before)
    if where.min_importance is not None:
        parts.append(f"+{alias}.importance >= ?")
        args.append(where.min_importance)
    if where.valid_at is not None:
        # A level of a multi-level memory (an episode's summary) is valid when
        # its memory is.
        parts.append(_valid_sql(alias))
        parts.append(
            f"({alias}.context_type != 'level' OR EXISTS (SELECT 1 FROM nodes p "
            f"WHERE p.id = {alias}.parent_id AND {_valid_sql('p')}))"
        )
        args.extend([where.valid_at] * 4)
    return "".join(f" AND {p}" for p in parts), args
