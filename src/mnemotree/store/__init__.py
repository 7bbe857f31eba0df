"""Storage backends behind one protocol."""

from .protocol import (
    CapturedRow,
    ContradictionRow,
    MemoryStats,
    RelationRow,
    RunRow,
    SnapshotRow,
    Store,
    StoreStats,
    UsageCounts,
    UsageRow,
)
from .sqlite import SQLiteStore

__all__ = [
    "CapturedRow",
    "ContradictionRow",
    "MemoryStats",
    "RelationRow",
    "RunRow",
    "SQLiteStore",
    "SnapshotRow",
    "Store",
    "StoreStats",
    "UsageCounts",
    "UsageRow",
]
