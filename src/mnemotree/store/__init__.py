"""Storage backends behind one protocol."""

from .protocol import (
    CapturedRow,
    ContradictionRow,
    KeyRow,
    MemoryStats,
    PurgeCounts,
    RelationRow,
    RunRow,
    SnapshotRow,
    Store,
    StoreStats,
    TableInfo,
    UsageCounts,
    UsageRow,
)
from .sqlite import SQLiteStore

__all__ = [
    "CapturedRow",
    "ContradictionRow",
    "KeyRow",
    "MemoryStats",
    "PurgeCounts",
    "RelationRow",
    "RunRow",
    "SQLiteStore",
    "SnapshotRow",
    "Store",
    "StoreStats",
    "TableInfo",
    "UsageCounts",
    "UsageRow",
]
