"""Storage backends behind one protocol."""

from .protocol import (
    CapturedRow,
    RelationRow,
    SnapshotRow,
    Store,
    StoreStats,
    UsageCounts,
    UsageRow,
)
from .sqlite import SQLiteStore

__all__ = [
    "CapturedRow",
    "RelationRow",
    "SQLiteStore",
    "SnapshotRow",
    "Store",
    "StoreStats",
    "UsageCounts",
    "UsageRow",
]
