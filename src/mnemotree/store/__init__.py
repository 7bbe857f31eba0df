"""Storage backends behind one protocol."""

from .protocol import Store, StoreStats
from .sqlite import SQLiteStore

__all__ = ["SQLiteStore", "Store", "StoreStats"]
