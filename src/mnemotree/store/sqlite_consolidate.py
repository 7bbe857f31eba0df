"""The SQLite store's queries for consolidation: contradictions and fact keys."""

from __future__ import annotations

import sqlite3

from ..model import Node, NodeFilter
from .protocol import ContradictionRow, Scopes
from .rows import _N_COLUMNS, _node
from .sqlite_search import _filter_sql


class ConsolidateQueries:
    """Mixed into SQLiteStore; kept apart so each module stays readable."""

    _db: sqlite3.Connection

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
            "INSERT OR IGNORE INTO contradictions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", row
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
        self, status: str | None, scopes: Scopes, limit: int
    ) -> list[ContradictionRow]:
        """Newest first; `status` None for all."""
        parts, args = [], []
        if status is not None:
            parts.append("status = ?")
            args.append(status)
        if scopes is not None:
            parts.append(f"scope IN ({','.join('?' * len(scopes))})")
            args.extend(scopes)
        where = f" WHERE {' AND '.join(parts)}" if parts else ""
        rows = self._db.execute(
            f"SELECT * FROM contradictions{where} ORDER BY detected_at DESC, id LIMIT ?",
            (*args, limit),
        )
        return [ContradictionRow(*r) for r in rows]
