"""The Postgres backend (being built; see `store.IMPLEMENTED`)."""

from .store import IMPLEMENTED, PostgresStore

__all__ = ["IMPLEMENTED", "PostgresStore"]
