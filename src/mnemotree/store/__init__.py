"""Storage backends behind one protocol."""

from .protocol import SnapshotRow, Store, StoreStats
from .sqlite import SQLiteStore

__all__ = ["SQLiteStore", "SnapshotRow", "Store", "StoreStats"]
