"""The Postgres store's own vector search: every row of a stored vector in
pgvector, an HNSW index per embedder, and the questions retrieval asks of
vectors (nearest, cosine with given nodes, a background sample, neighbours)
answered in SQL, so no process keeps vectors of its own that could go stale.

An embedder's vectors are indexed once a retriever names its dimensions
(`index_vectors`); until then (a restore, another process's writes before
this one knew the embedder) their rows wait, marked `NOT indexed`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

import numpy as np
import numpy.typing as npt

from ...model import NodeFilter
from .connections import EF_SEARCH, Connections
from .filters import filter_sql

_FILL_BATCH = 2_000  # stored vectors copied into pgvector rows per transaction
_MAX_EF_SEARCH = 1_000  # pgvector's upper bound for hnsw.ef_search
_NEIGHBOUR_BLOCK = 256  # nodes whose neighbours one statement asks for
# Below this many allowed nodes a search scans them exactly (as the in-memory
# index does below its ANN_MIN_ROWS).
EXACT_BELOW = 5_000
# From this many vectors stored at once, the HNSW index is built after them.
BULK_ROWS = 20_000


def _literal(text: str) -> str:
    """A quoted SQL string: the partial index's predicate must be a constant
    in the statement for the planner to match it."""
    return "'" + text.replace("'", "''") + "'"


def index_name(embedder: str) -> str:
    return "vector_passages_hnsw_" + hashlib.sha1(embedder.encode()).hexdigest()[:16]


class NearestQueries:
    """Mixed into PostgresStore."""

    _db: Connections
    _dimensions: dict[str, int]
    document_total: Callable[[], int]  # the text index's (TextQueries)

    # -- writing ----------------------------------------------------------------------

    def index_vectors(
        self, embedder: str, dimensions: int, progress: Callable[[int], None] | None = None
    ) -> int:
        """Copy `embedder`'s stored vectors not yet indexed into pgvector rows
        and make its HNSW index if missing; returns rows copied."""
        self._dimensions[embedder] = dimensions
        done = 0
        with self.bulk_vectors(embedder, self._unindexed(embedder)):
            while True:
                with self._db.transaction():
                    copied = self._index_unindexed(embedder, _FILL_BATCH)
                done += copied
                if progress is not None and copied:
                    progress(copied)
                if copied < _FILL_BATCH:
                    return done
        raise AssertionError("unreachable")  # pragma: no cover

    @contextmanager
    def bulk_vectors(self, embedder: str, rows: int) -> Iterator[None]:
        """Around the storing of about `rows` vectors: from `BULK_ROWS` on, the
        HNSW index is dropped first and built again after (adding a row to
        the graph costs ~30x what building over it does); meanwhile searches
        scan exactly. Whatever happens, the index exists afterwards."""
        if rows >= BULK_ROWS and self._has_index(embedder):
            with self._db.transaction():
                self._db.execute(f"DROP INDEX IF EXISTS {index_name(embedder)}")
        try:
            yield
        finally:
            if embedder in self._dimensions and not self._has_index(embedder):
                with self._db.transaction():
                    self._make_index(embedder)

    def restored(self) -> None:
        """Index the vectors a restore brought (inside its transaction), the
        graph built after them when there are many."""
        for embedder in self._dimensions:
            if self._unindexed(embedder) >= BULK_ROWS:
                self._db.execute(f"DROP INDEX IF EXISTS {index_name(embedder)}")
            self._index_unindexed(embedder)
            self._make_index(embedder)

    def _has_index(self, embedder: str) -> bool:
        ((exists,),) = self._db.execute(
            "SELECT to_regclass(%s) IS NOT NULL", (index_name(embedder),)
        )
        return bool(exists)

    def _make_index(self, embedder: str) -> None:
        """The embedder's HNSW index, if missing (inside a write transaction)."""
        # The graph is built in memory when it fits (else on disk, far slower).
        self._db.execute("SET LOCAL maintenance_work_mem = '1GB'")
        self._db.execute(
            f"CREATE INDEX IF NOT EXISTS {index_name(embedder)} ON vector_passages "
            f"USING hnsw ((embedding::vector({self._dimensions[embedder]})) vector_cosine_ops) "
            f"WHERE embedder = {_literal(embedder)}"
        )

    def _unindexed(self, embedder: str) -> int:
        ((count,),) = self._db.execute(
            "SELECT count(*) FROM vectors WHERE embedder = %s AND NOT indexed", (embedder,)
        )
        return int(count)

    def _index_unindexed(self, embedder: str, limit: int | None = None) -> int:
        """Index up to `limit` stored vectors not yet indexed (inside a write
        transaction); returns how many."""
        found = self._db.execute(
            "SELECT node_id, vector FROM vectors WHERE embedder = %s AND NOT indexed LIMIT %s",
            (embedder, limit),
        )
        self._index_rows(embedder, [(i, bytes(v)) for i, v in found])
        return len(found)

    def _index_stored(self, embedder: str, node_ids: Sequence[str]) -> None:
        """Index these nodes' stored vectors that are not yet (just written)."""
        found = self._db.execute(
            "SELECT node_id, vector FROM vectors WHERE embedder = %s AND NOT indexed "
            "AND node_id = ANY(%s)",
            (embedder, list(node_ids)),
        )
        self._index_rows(embedder, [(i, bytes(v)) for i, v in found])

    def _index_rows(self, embedder: str, stored: Sequence[tuple[str, bytes]]) -> None:
        """Replace the pgvector rows of these (node id, stored bytes) and mark them indexed."""
        dimensions = self._dimensions.get(embedder)
        if dimensions is None or not stored:
            return
        ids = [i for i, _ in stored]
        self._db.execute(
            "DELETE FROM vector_passages WHERE embedder = %s AND node_id = ANY(%s)", (embedder, ids)
        )
        rows: list[tuple[str, str, int, list[float]]] = []
        for node_id, data in stored:
            matrix = np.frombuffer(data, dtype=np.float32).reshape(-1, dimensions)
            rows.extend((node_id, embedder, n, r.tolist()) for n, r in enumerate(matrix))
        self._db.executemany(
            "INSERT INTO vector_passages (node_id, embedder, passage, embedding) "
            "VALUES (%s, %s, %s, %b::float4[]::vector)",
            rows,
        )
        self._db.execute(
            "UPDATE vectors SET indexed = TRUE WHERE embedder = %s AND node_id = ANY(%s)",
            (embedder, ids),
        )

    # -- reading ----------------------------------------------------------------------

    def _typed(self, embedder: str) -> tuple[str, str, str]:
        """The column, the cast of a query vector, and the embedder's constant,
        as the index has them."""
        dimensions = self._dimensions.get(embedder)
        cast = f"::vector({dimensions})" if dimensions else "::vector"
        return f"p.embedding{cast}", f"%b::float4[]{cast}", _literal(embedder)

    def nearest(
        self, embedder: str, vector: npt.NDArray[np.float32], k: int, where: NodeFilter
    ) -> list[tuple[str, float]]:
        """(node id, cosine of its best row) of the `k` nodes nearest `vector`
        among those `where` allows, best first. Through the HNSW index (its
        distances are exact, its candidates approximate); when the filter
        leaves fewer than `k` of them, by an exact scan of the allowed rows."""
        if k <= 0:
            return []
        # Few allowed nodes: scanning them is exact and faster than the index,
        # whose candidates the filter would mostly drop.
        exact = self._allowed(where) < EXACT_BELOW
        found = self._nearest_rows(embedder, vector, k, where, exact=exact, rows=k + 8)
        if len(found) < k and not exact:  # passages of one node, or the filter, took rows
            found = self._nearest_rows(embedder, vector, k, where, exact=False, rows=2 * k + 8)
        if len(found) < k and not exact:
            found = self._nearest_rows(embedder, vector, k, where, exact=True, rows=2 * k + 8)
        return found

    def _allowed(self, where: NodeFilter) -> int:
        """About how many nodes the filter's scopes and roots allow (archived
        ones counted too), counted up to `EXACT_BELOW` from their indexes."""
        if where.scopes is None and not where.roots:
            return self.document_total()
        scoped = NodeFilter(scopes=where.scopes, roots=where.roots, include_archived=True)
        conditions, args = filter_sql(scoped, "n")
        ((count,),) = self._db.execute(
            f"SELECT count(*) FROM (SELECT 1 FROM nodes n WHERE TRUE{conditions} LIMIT %s) a",
            (*args, EXACT_BELOW),
        )
        return int(count)

    def _nearest_rows(
        self,
        embedder: str,
        vector: npt.NDArray[np.float32],
        k: int,
        where: NodeFilter,
        *,
        exact: bool,
        rows: int,
    ) -> list[tuple[str, float]]:
        """The best nodes among the `rows` nearest rows (a node's passages may
        take several)."""
        column, query, name = self._typed(embedder)
        conditions, args = filter_sql(where, "n")
        rows = min(_MAX_EF_SEARCH, rows)
        # An index can only serve the distance itself; `+ 0` asks for a scan.
        order = f"({column} <=> q.v) + 0" if exact else f"{column} <=> q.v"
        sql = (
            f"SELECT p.node_id, 1 - ({column} <=> q.v) FROM vector_passages p "
            f"JOIN nodes n ON n.id = p.node_id, (SELECT {query} AS v) q "
            f"WHERE p.embedder = {name}{conditions} ORDER BY {order} LIMIT %s"
        )
        if rows <= EF_SEARCH:  # the connection's breadth will do
            found = self._db.execute(sql, (vector.tolist(), *args, rows))
        else:
            with self._db.reading():
                self._db.execute("SELECT set_config('hnsw.ef_search', %s, true)", (str(rows),))
                found = self._db.execute(sql, (vector.tolist(), *args, rows))
        best: dict[str, float] = {}
        for node_id, cosine in found:
            best.setdefault(node_id, float(cosine))  # rows come best first
        ranked = sorted(best.items(), key=lambda pair: (-pair[1], pair[0]))
        return ranked[:k]

    def vector_similarity(
        self, embedder: str, vector: npt.NDArray[np.float32], node_ids: Sequence[str]
    ) -> dict[str, float]:
        """Cosine of `vector` with each of these nodes' best row (those with one)."""
        if not node_ids:
            return {}
        column, query, name = self._typed(embedder)
        found = self._db.execute(
            f"SELECT p.node_id, max(1 - ({column} <=> {query})) "
            f"FROM vector_passages p WHERE p.embedder = {name} AND p.node_id = ANY(%s) "
            "GROUP BY p.node_id",
            (vector.tolist(), list(node_ids)),
        )
        return {i: float(c) for i, c in found}

    def vector_sample(self, embedder: str, where: NodeFilter, size: int) -> npt.NDArray[np.float32]:
        """The own rows of a random sample (fixed per row) of at most `size`
        nodes in `where`'s scopes and roots: what text at large looks like."""
        scoped = NodeFilter(scopes=where.scopes, roots=where.roots)
        conditions, args = filter_sql(scoped, "n")
        width = 4 * self._dimensions[embedder]
        # Chosen from the sample index alone; only the chosen rows are read.
        found = self._db.execute(
            "SELECT substring(v.vector FROM 1 FOR %s) FROM vectors v WHERE v.embedder = %s "
            "AND v.node_id = ANY(ARRAY(SELECT k.node_id FROM vector_passages k "
            "JOIN nodes n ON n.id = k.node_id WHERE k.embedder = %s AND k.passage = 0"
            f"{conditions} ORDER BY k.sample_key LIMIT %s))",
            (width, embedder, embedder, *args, size),
        )
        rows = [np.frombuffer(bytes(r[0]), dtype=np.float32) for r in found]
        dimensions = self._dimensions[embedder]
        return np.vstack(rows) if rows else np.zeros((0, dimensions), dtype=np.float32)

    def vector_row_sums(
        self, embedder: str, node_ids: Sequence[str]
    ) -> dict[str, tuple[int, float]]:
        """For each of these nodes with more than one row: how many, and the
        squared length of their sum (summed here: no vector leaves the server)."""
        if not node_ids:
            return {}
        found = self._db.execute(
            "SELECT node_id, count(*), -(sum(embedding) <#> sum(embedding)) "
            "FROM vector_passages WHERE embedder = %s AND node_id = ANY(%s) "
            "GROUP BY node_id HAVING count(*) > 1",
            (embedder, list(node_ids)),
        )
        return {i: (int(n), float(squared)) for i, n, squared in found}

    def own_vectors(
        self, embedder: str, node_ids: Sequence[str]
    ) -> dict[str, npt.NDArray[np.float32]]:
        """Each node's own row (its text's start), for those with a vector."""
        if not node_ids:
            return {}
        width = 4 * self._dimensions[embedder]
        found = self._db.execute(
            "SELECT node_id, substring(vector FROM 1 FOR %s) FROM vectors "
            "WHERE embedder = %s AND node_id = ANY(%s)",
            (width, embedder, list(node_ids)),
        )
        return {i: np.frombuffer(bytes(v), dtype=np.float32) for i, v in found}

    def vector_neighbours(
        self, embedder: str, node_ids: Sequence[str], k: int
    ) -> dict[str, list[tuple[str, float]]]:
        """For each node with a vector, its `k` nearest other nodes by their
        own rows (through the index, a block of nodes per statement)."""
        column, _, name = self._typed(embedder)
        other = column.replace("p.", "o.", 1)
        out: dict[str, list[tuple[str, float]]] = {}
        ids = list(node_ids)
        for start in range(0, len(ids), _NEIGHBOUR_BLOCK):
            block = ids[start : start + _NEIGHBOUR_BLOCK]
            with self._db.reading():
                self._db.execute(
                    "SELECT set_config('hnsw.ef_search', %s, true)", (str(max(40, 2 * k)),)
                )
                found = self._db.execute(
                    f"SELECT p.node_id, m.node_id, m.c FROM vector_passages p LEFT JOIN LATERAL "
                    f"(SELECT o.node_id, 1 - ({other} <=> {column}) AS c FROM vector_passages o "
                    f"WHERE o.embedder = {name} AND o.passage = 0 AND o.node_id != p.node_id "
                    f"ORDER BY {other} <=> {column} LIMIT %s) m ON TRUE "
                    f"WHERE p.embedder = {name} AND p.passage = 0 AND p.node_id = ANY(%s)",
                    (k + 1, block),
                )
            for node_id, near, cosine in found:
                mine = out.setdefault(node_id, [])
                if near is not None:
                    mine.append((near, float(cosine)))
        return {i: sorted(v, key=lambda pair: -pair[1])[:k] for i, v in out.items()}
