"""Storage backends behind one protocol."""

from .protocol import RelationRow, SnapshotRow, Store, StoreStats
from .sqlite import SQLiteStore

__all__ = ["RelationRow", "SQLiteStore", "SnapshotRow", "Store", "StoreStats"]
