"""The SQLite backend: one file, FTS5 for text, vectors beside the nodes."""

from .store import SQLiteStore

__all__ = ["SQLiteStore"]
