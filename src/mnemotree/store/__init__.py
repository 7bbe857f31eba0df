"""What domain code may ask of storage: protocols and the records they return.

Backends live in subpackages (`store.sqlite`); the composition root picks one."""

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

__all__ = [
    "CapturedRow",
    "ContradictionRow",
    "KeyRow",
    "MemoryStats",
    "PurgeCounts",
    "RelationRow",
    "RunRow",
    "SnapshotRow",
    "Store",
    "StoreStats",
    "TableInfo",
    "UsageCounts",
    "UsageRow",
]
