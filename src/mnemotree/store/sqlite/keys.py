"""The SQLite store's queries for API keys."""

from __future__ import annotations

from ..columns import key_row, key_values
from ..records import KeyRow
from .connections import Connected


class KeyQueries(Connected):
    """Mixed into SQLiteStore."""

    def put_key(self, row: KeyRow) -> None:
        self._db.execute(
            "INSERT INTO api_keys VALUES (?, ?, ?, ?, ?, ?, ?)",
            key_values(row),
        )

    def get_key(self, key_id: str) -> KeyRow | None:
        # A missing id reads and parses a stand-in row: the same work either
        # way, so response times do not tell which key ids exist.
        found = self._db.execute(
            "SELECT * FROM api_keys WHERE id = ? "
            "UNION ALL SELECT '', ?, '', '[\"-\"]', '', NULL, NULL LIMIT 1",
            (key_id, "0" * 64),
        ).fetchone()
        parsed = key_row(found)
        return parsed if parsed.id else None

    def keys(self) -> list[KeyRow]:
        """Every key, revoked ones too, oldest first."""
        rows = self._db.execute("SELECT * FROM api_keys ORDER BY created_at, id")
        return [key_row(r) for r in rows]

    def revoke_key(self, key_id: str, at: str) -> bool:
        """False when there is no such key or it was revoked already."""
        cursor = self._db.execute(
            "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", (at, key_id)
        )
        return bool(cursor.rowcount)

    def touch_key(self, key_id: str, at: str) -> None:
        self._db.execute("UPDATE api_keys SET last_used_at = ? WHERE id = ?", (at, key_id))
