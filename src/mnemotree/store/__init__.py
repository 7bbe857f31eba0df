"""Storage backends behind one protocol."""

from .protocol import (
    CapturedRow,
    ContradictionRow,
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
    "ContradictionRow",
    "RelationRow",
    "SQLiteStore",
    "SnapshotRow",
    "Store",
    "StoreStats",
    "UsageCounts",
    "UsageRow",
]
