"""The Postgres store's queries for API keys."""

from __future__ import annotations

from ..columns import key_row, key_values
from ..records import KeyRow
from .connections import Connections


class KeyQueries:
    """Mixed into PostgresStore."""

    _db: Connections

    def put_key(self, row: KeyRow) -> None:
        self._db.execute(
            "INSERT INTO api_keys VALUES (%s, %s, %s, %s, %s, %s, %s)",
            key_values(row),
        )

    def get_key(self, key_id: str) -> KeyRow | None:
        # A missing id reads and parses a stand-in row: the same work either
        # way, so response times do not tell which key ids exist.
        (found,) = self._db.execute(
            "(SELECT * FROM api_keys WHERE id = %s UNION ALL "
            "SELECT '', %s, '', '[\"-\"]', '', NULL, NULL) LIMIT 1",
            (key_id, "0" * 64),
        )
        parsed = key_row(found)
        return parsed if parsed.id else None

    def keys(self) -> list[KeyRow]:
        """Every key, revoked ones too, oldest first."""
        return [
            key_row(r) for r in self._db.execute("SELECT * FROM api_keys ORDER BY created_at, id")
        ]

    def revoke_key(self, key_id: str, at: str) -> bool:
        """False when there is no such key or it was revoked already."""
        return bool(
            self._db.changed(
                "UPDATE api_keys SET revoked_at = %s WHERE id = %s AND revoked_at IS NULL",
                (at, key_id),
            )
        )

    def touch_key(self, key_id: str, at: str) -> None:
        self._db.execute("UPDATE api_keys SET last_used_at = %s WHERE id = %s", (at, key_id))
