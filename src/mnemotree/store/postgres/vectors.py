"""The Postgres store's vectors: the queue of nodes waiting for one, stored
vectors read by position (`VectorCursor`), and the log of deletions."""

from __future__ import annotations

from collections.abc import Sequence

from ...model import Node
from ..records import VectorCursor, VectorRow
from .connections import Connections
from .nearest import NearestQueries
from .rows import COLUMNS, node

_N_COLUMNS = ", ".join("n." + c.strip() for c in COLUMNS.split(","))
_CURRENT = "EXISTS (SELECT 1 FROM nodes WHERE id = %s AND text = %s AND context_name = %s)"


class VectorQueries(NearestQueries):
    """Mixed into PostgresStore (with the vector search over what it stores)."""

    _db: Connections

    def pending_vectors(self, limit: int) -> list[Node]:
        """Queued nodes: their vector is missing or outdated (oldest first)."""
        found = self._db.execute(
            f"SELECT {_N_COLUMNS} FROM vector_queue q JOIN nodes n ON n.id = q.node_id "
            'ORDER BY q.node_id COLLATE "C" LIMIT %s',  # ids sort by creation time
            (limit,),
        )
        return [node(r) for r in found]

    def count_pending_vectors(self) -> int:
        ((count,),) = self._db.execute("SELECT count(*) FROM vector_queue")
        return int(count)

    def queue_missing_vectors(self, embedder: str) -> int:
        """Queue every live node without a vector from `embedder`."""
        return self._db.changed(
            "INSERT INTO vector_queue SELECT n.id FROM nodes n WHERE n.archived_at IS NULL "
            "AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.node_id = n.id AND v.embedder = %s) "
            "ON CONFLICT DO NOTHING",
            (embedder,),
        )

    def queue_single_vectors(
        self, embedder: str, row_bytes: int, min_chars: int, *, broken: bool = False
    ) -> int:
        """Queue nodes of at least `min_chars` whose vector from `embedder` is
        one row of `row_bytes` (and, if `broken`, whose text has a sentence break)."""
        breaks = r" AND n.text ~ '[.!?] |\n'" if broken else ""
        return self._db.changed(
            "INSERT INTO vector_queue SELECT v.node_id FROM vectors v "
            "JOIN nodes n ON n.id = v.node_id WHERE v.embedder = %s "
            f"AND octet_length(v.vector) = %s AND length(n.text) >= %s{breaks} "
            "ON CONFLICT DO NOTHING",
            (embedder, row_bytes, min_chars),
        )

    def put_vectors(self, embedder: str, rows: Sequence[tuple[str, str, bytes, str, str]]) -> None:
        """Store (node id, content hash, float32 bytes, text, name) and unqueue
        those nodes; one deleted meanwhile, or whose text or name changed since
        it was read, is skipped (and stays queued)."""
        self._db.executemany(
            "INSERT INTO vectors (node_id, embedder, content_hash, vector) "
            f"SELECT %s, %s, %s, %s WHERE {_CURRENT} ON CONFLICT (node_id, embedder) DO UPDATE "
            "SET content_hash = excluded.content_hash, vector = excluded.vector, id = DEFAULT, "
            "indexed = FALSE",
            [(i, embedder, digest, blob, i, text, name) for i, digest, blob, text, name in rows],
        )
        if embedder in self._dimensions:  # else indexed once a retriever names them
            self._index_stored(embedder, [r[0] for r in rows])
        self._db.executemany(
            f"DELETE FROM vector_queue WHERE node_id = %s AND {_CURRENT}",
            [(i, i, text, name) for i, _, _, text, name in rows],
        )

    def vector_marks(self, embedder: str) -> tuple[VectorCursor, VectorCursor]:
        ((last, tombstone),) = self._db.execute(
            "SELECT (SELECT max(id) FROM vectors WHERE embedder = %s), "
            "(SELECT max(seq) FROM vector_tombstones)",
            (embedder,),
        )
        return int(last or 0), int(tombstone or 0)

    def count_vectors(self, embedder: str, after: VectorCursor) -> int:
        ((count,),) = self._db.execute(
            "SELECT count(*) FROM vectors WHERE embedder = %s AND id > %s", (embedder, after)
        )
        return int(count)

    def load_vectors(self, embedder: str, after: VectorCursor, limit: int) -> list[VectorRow]:
        found = self._db.execute(
            "SELECT v.id, v.node_id, n.scope, n.root_id, v.vector FROM vectors v "
            "JOIN nodes n ON n.id = v.node_id WHERE v.embedder = %s AND v.id > %s "
            "ORDER BY v.id LIMIT %s",
            (embedder, after, limit),
        )
        return [VectorRow(int(c), i, s, r, bytes(v)) for c, i, s, r, v in found]

    def vector_tombstones(
        self, embedder: str, after: VectorCursor
    ) -> tuple[VectorCursor, list[VectorCursor], bool]:
        """(last deletion, positions deleted after `after`, whether the log still
        reaches back to `after`: False, reload)."""
        ((low, high),) = self._db.execute(
            "SELECT coalesce(min(seq), 0), coalesce(max(seq), 0) FROM vector_tombstones"
        )
        complete = low == 0 or after >= low - 1
        deleted = self._db.execute(
            "SELECT vector_rowid FROM vector_tombstones WHERE seq > %s AND embedder = %s",
            (after, embedder),
        )
        return max(int(high), after), [int(r[0]) for r in deleted], complete

    def prune_tombstones(self, keep: int = 100_000) -> None:
        self._db.execute(
            "DELETE FROM vector_tombstones "
            "WHERE seq <= (SELECT max(seq) FROM vector_tombstones) - %s",
            (keep,),
        )

    def drop_vectors(self, keep_embedder: str | None = None) -> int:
        """Delete vectors of every other embedder (all when None); returns how many."""
        return self._db.changed(
            "DELETE FROM vectors WHERE embedder IS DISTINCT FROM %s", (keep_embedder,)
        )
