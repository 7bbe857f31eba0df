"""The records a store returns: plain values, never a backend's rows.

JSON never leaks out of a store: a list is a tuple here, decoded by the backend.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

Scopes = tuple[str, ...] | None  # None: every scope
# A position in a backend's log of stored vectors: a number that only grows,
# one per stored vector row. Callers compare positions and hand them back to
# ask for what came after; they never read meaning into them.
VectorCursor = int


class SnapshotRow(NamedTuple):
    """One chunk of an entry's context snapshot, copied so it outlives its source."""

    text: str
    source_id: str | None
    role: str
    similarity: float
    tokens: int
    embedder: str
    embedding: bytes | None  # float32, from `embedder`


class RelationRow(NamedTuple):
    source_id: str
    target_id: str
    type: str
    strength: float
    created_at: str


class UsageRow(NamedTuple):
    """One usage event of the context engine (the living-memory design's usage tracker)."""

    batch: str  # one context's feedback: memories used together share it
    node_id: str
    event: str  # retrieved | cited | ignored
    at: str
    hour: int  # UTC hour of `at`, for routines by time of day
    file: str
    branch: str
    activity: str = ""


class ContradictionRow(NamedTuple):
    id: str
    a_id: str  # the earlier memory
    b_id: str  # the later one
    kind: str  # same_key | ...
    reason: str
    scope: str
    detected_at: str
    status: str  # open | review | resolved
    resolution: str | None  # a_wins | b_wins | both_valid | merged | update
    note: str
    resolved_at: str | None
    # Versions of a and b (a path update: one entry, two versions); 0 is "as now".
    a_version: int = 0
    b_version: int = 0


class KeyRow(NamedTuple):
    """An API key: the secret itself is never stored, only its hash."""

    id: str
    secret_hash: str
    name: str
    scopes: tuple[str, ...]  # ("*",) is every scope
    created_at: str
    last_used_at: str | None
    revoked_at: str | None


class RunRow(NamedTuple):
    """One applied consolidation, with what undoes it."""

    id: str
    started_at: str
    applied_at: str
    summary: dict[str, int]  # actions per step
    actions: tuple[dict[str, Any], ...]
    undo: tuple[dict[str, Any], ...]  # inverse operations, applied last first
    undone_at: str | None


class MemoryStats(NamedTuple):
    """What consolidation knows of one memory's use."""

    accesses: int
    last_access: str | None
    retrieved: int
    cited: int
    ignored: int


class UsageCounts(NamedTuple):
    retrieved: int
    cited: int
    ignored: int
    ignored_since_cited: int


class CapturedRow(NamedTuple):
    id: str
    session_id: str
    scope: str
    text: str
    type: str
    confidence: float
    sources: tuple[str, ...]  # ids of the messages it was captured from
    status: str  # pending, promoted or dismissed
    memory_id: str | None
    created_at: str
    # What it carries beyond its text, kept for when it is promoted by hand:
    # an action item's owner and due date, a standing instruction's mark.
    fields: tuple[tuple[str, str], ...] = ()


class PurgeCounts(NamedTuple):
    """What a purge removed: nodes, their versions, and derived rows."""

    nodes: int
    versions: int
    other_rows: int


class TableInfo(NamedTuple):
    """One table of a backup: its name, columns and row count."""

    name: str
    columns: tuple[str, ...]
    rows: int


class StagingArea(Protocol):
    """A temporary database at an older schema: a backup of that schema is
    restored into it, migrated, then read out (`migrated`)."""

    def restore_rows(self, table: TableInfo, rows: Iterable[Sequence[Any]]) -> int: ...

    def migrated(
        self, tables: Sequence[str]
    ) -> Iterator[tuple[TableInfo, Iterator[tuple[Any, ...]]]]: ...

    def close(self) -> None: ...


@dataclass(frozen=True, slots=True)
class StoreStats:
    path: str
    schema_version: int
    nodes: int
    roots: int
    summaries: int
    stale_summaries: int
    versions: int
    tags: int
    tokens: int
    size_bytes: int
    # What the store found worth fixing in how it is set up, each naming the fix.
    warnings: tuple[str, ...] = ()


class VectorRow(NamedTuple):
    """One stored vector and where it belongs."""

    cursor: VectorCursor
    node_id: str
    scope: str
    root_id: str
    data: bytes  # float32, one or more rows of the embedder's dimensions
