"""The narrow store interface that domain code talks to.

Domain modules depend on this protocol only, so another backend (Postgres)
can be added without touching them. Writes happen inside `transaction()`;
a public operation is one transaction, so nothing is ever half-written.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

from ..model import Node, NodeFilter, NodeVersion


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


Scopes = tuple[str, ...] | None  # None: every scope


class UsageRow(NamedTuple):
    """One usage event of the context engine (seed 004's usage tracker)."""

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
    summary: str  # JSON: actions per step
    actions: str  # JSON list of actions
    undo: str  # JSON list of inverse operations
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
    sources: str  # JSON list of message ids
    status: str  # pending, promoted or dismissed
    memory_id: str | None
    created_at: str


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


class Store(Protocol):
    """Persistence for nodes, their tags and their version history."""

    @property
    def location(self) -> str: ...

    @property
    def schema_version(self) -> int: ...

    def close(self) -> None: ...

    def transaction(self) -> AbstractContextManager[None]: ...

    def try_write(self, work: Callable[[], object]) -> bool:
        """Run `work` in a write transaction only if the lock is free now."""
        ...

    def record_accesses_soon(self, node_ids: Sequence[str], at: str) -> None:
        """Record accesses without waiting for the write lock (buffered if taken)."""
        ...

    def before_writes(self, prepare: Callable[[], object]) -> None:
        """Run `prepare` before a write takes the lock (slow set-up goes there)."""
        ...

    # settings
    def get_setting(self, key: str) -> str | None: ...

    def set_setting(self, key: str, value: str) -> None: ...

    # reads
    def get(self, node_id: str) -> Node | None: ...

    def get_many(self, node_ids: Sequence[str]) -> list[Node]: ...

    def children(
        self, parent_id: str, *, after_key: float | None = None, limit: int | None = None
    ) -> list[Node]: ...

    def child_count(self, parent_id: str) -> int: ...

    def child_counts(
        self, parent_ids: Sequence[str], scopes: Sequence[str] | None = None
    ) -> dict[str, int]:
        """{id: number of children (in `scopes`, if given)} for those of
        `parent_ids` that have any."""
        ...

    def roots(self) -> list[Node]: ...

    def roots_of_type(
        self, context_type: str, scopes: Sequence[str] | None = None
    ) -> list[Node]: ...

    def count_by_root(self, root_ids: Sequence[str], context_type: str) -> dict[str, int]: ...

    def max_number(self, root_id: str, context_type: str, key: str) -> int: ...

    def tree_nodes(self, root_id: str) -> list[Node]: ...

    def find_path(self, root_id: str, path: str) -> Node | None: ...

    def paths_under(self, root_id: str, prefix: str) -> list[Node]: ...

    def put_snapshot(self, node_id: str, rows: Sequence[SnapshotRow]) -> None: ...

    def snapshots(self, node_ids: Sequence[str]) -> dict[str, list[SnapshotRow]]: ...

    def put_relation(self, row: RelationRow) -> None: ...

    def relations(self, node_ids: Sequence[str]) -> list[RelationRow]: ...

    def put_captured(self, rows: Sequence[CapturedRow]) -> None: ...

    def captured(
        self, scopes: Sequence[str] | None, status: str | None, limit: int
    ) -> list[CapturedRow]: ...

    def get_captured(self, captured_id: str) -> CapturedRow | None: ...

    def typed_nodes(self, types: Sequence[str], where: NodeFilter, limit: int) -> list[Node]: ...

    def subtree(self, node_id: str) -> list[Node]: ...

    def iter_nodes(self) -> Iterator[Node]: ...

    def last_key(self, parent_id: str | None) -> float | None: ...

    def sibling_keys(
        self, parent_id: str | None, key: float, *, below: bool, limit: int
    ) -> list[tuple[str, float]]: ...

    def key_taken(self, parent_id: str | None, key: float) -> bool: ...

    def latest_versions(self, node_ids: Sequence[str]) -> dict[str, int]: ...

    def stale_summaries(self) -> list[Node]: ...

    def versions(self, node_id: str) -> list[NodeVersion]: ...

    def versions_of_change(self, change_id: str) -> list[NodeVersion]: ...

    def iter_versions(self) -> Iterator[NodeVersion]: ...

    def stats(self) -> StoreStats: ...

    # backup: whole tables, rows as they are
    def schema_tables(self) -> list[str]: ...

    def backup_tables(self, *, keys: bool, vectors: bool) -> list[str]: ...

    def reading(self) -> AbstractContextManager[None]:
        """One consistent view of the database for the reads inside."""
        ...

    def table_info(self, tables: Sequence[str]) -> list[TableInfo]: ...

    def table_rows(self, table: TableInfo) -> Iterator[tuple[Any, ...]]: ...

    def restore_rows(self, table: TableInfo, rows: Iterable[Sequence[Any]]) -> int:
        """Insert rows verbatim, inside a transaction (references checked at commit)."""
        ...

    def check_references(self) -> None:
        """Raise InvalidInput if a row refers to a missing one."""
        ...

    def is_empty(self) -> bool: ...

    def staging(self, version: int) -> StagingArea:
        """A temporary database at schema `version` (older than this one)."""
        ...

    # erasure
    def phrase_ids(self, phrase: str, scopes: Sequence[str] | None) -> list[str]: ...

    def scope_ids(self, scope: str) -> list[str]: ...

    def node_count(self) -> int: ...

    def purge_closure(self, node_ids: Sequence[str]) -> list[str]: ...

    def purge(self, node_ids: Sequence[str], record: tuple[str, str, str, str]) -> PurgeCounts:
        """Remove the nodes and every row that holds their text (its own transaction)."""
        ...

    def compact(self) -> bool:
        """Rewrite the file so no freed page or WAL frame keeps old content."""
        ...

    # retrieval
    def visible(self, node_ids: Sequence[str], where: NodeFilter) -> dict[str, Node]: ...

    def lexical(self, match: str, where: NodeFilter, limit: int) -> list[tuple[str, float]]: ...

    def ancestor_links(self, node_ids: Sequence[str]) -> dict[str, str | None]: ...

    def term_documents(
        self,
        terms: Sequence[str],
        column: str | None = None,
        cap: int | None = None,
        context_type: str | None = None,
    ) -> dict[str, int]: ...

    def document_total(self) -> int: ...

    def adjacent(self, node_ids: Sequence[str]) -> list[tuple[str, str | None, str | None]]: ...

    def pending_vectors(self, limit: int) -> list[Node]: ...

    def count_pending_vectors(self) -> int: ...

    def vector_marks(self, embedder: str) -> tuple[int, int]:
        """(last rowid of `embedder`'s vectors, last tombstone seq), 0 for none."""
        ...

    def count_vectors(self, embedder: str, after_rowid: int) -> int: ...

    def load_vectors(
        self, embedder: str, after_rowid: int, limit: int
    ) -> list[tuple[int, str, str, str, bytes]]: ...

    def vector_tombstones(self, embedder: str, after_seq: int) -> tuple[int, list[int], bool]: ...

    def access_times(self, node_ids: Sequence[str]) -> dict[str, list[str]]: ...

    def access_ages(self, node_ids: Sequence[str], now: str, latest: int) -> dict[str, list[float]]:
        """Seconds from each node's `latest` newest accesses to `now`, newest first."""
        ...

    # -- context engine: usage log and artifacts --
    def put_usage(self, rows: Sequence[UsageRow]) -> None: ...

    def usage_counts(self, node_ids: Sequence[str]) -> dict[str, UsageCounts]: ...

    def co_cited(
        self, node_ids: Sequence[str], since: str, limit: int, scopes: Scopes = None
    ) -> tuple[int, dict[str, int]]: ...

    def cited_under(
        self, column: str, value: str, since: str, limit: int, scopes: Scopes = None
    ) -> tuple[int, dict[str, int]]: ...

    def cited_at_hours(
        self, hours: Sequence[int], since: str, limit: int, scopes: Scopes = None
    ) -> tuple[int, dict[str, int]]: ...

    def artifact_nodes(
        self,
        refs: Sequence[str],
        names: Sequence[str],
        prefixes: Sequence[str],
        limit: int,
        scopes: Scopes = None,
    ) -> list[tuple[str, str, str, str]]: ...

    def relations_of_type(
        self, type: str, limit: int, scopes: Scopes = None
    ) -> list[RelationRow]: ...

    def children_of(self, parent_ids: Sequence[str], context_type: str) -> list[Node]: ...

    # -- consolidation: contradictions --
    def facts_with_key(self, key: str, where: NodeFilter, limit: int) -> list[Node]: ...

    def put_contradiction(self, row: ContradictionRow) -> bool: ...

    def get_contradiction(self, contradiction_id: str) -> ContradictionRow | None: ...

    def set_contradiction(self, row: ContradictionRow) -> None: ...

    def contradictions(
        self, status: str | None, scopes: Scopes, limit: int, resolution: str | None = None
    ) -> list[ContradictionRow]: ...

    def contradictions_of(
        self, node_ids: Sequence[str], statuses: Sequence[str]
    ) -> list[ContradictionRow]: ...

    # -- consolidation: runs, archive, decay --
    def live_memories(self, types: Sequence[str]) -> list[tuple[Node, float | None]]: ...

    def decays(self, node_ids: Sequence[str]) -> dict[str, float | None]: ...

    def memory_stats(self, usage_since: str) -> dict[str, MemoryStats]: ...

    def co_cited_pairs(
        self, since: str, min_batches: int, limit: int
    ) -> list[tuple[str, str, int]]: ...

    def archive(self, node_ids: Sequence[str], at: str) -> list[str]: ...

    def unarchive(self, node_ids: Sequence[str]) -> list[str]: ...

    def archived(self, node_ids: Sequence[str]) -> dict[str, str]: ...

    def archived_nodes(self, scopes: Scopes, limit: int) -> list[tuple[Node, str]]: ...

    def set_decay(self, changes: Sequence[tuple[str, float | None]]) -> None: ...

    def set_importance(self, changes: Sequence[tuple[str, float]]) -> None: ...

    def relations_between(self, source_id: str, target_id: str, type: str | None) -> bool: ...

    def delete_relation(self, source_id: str, target_id: str, type: str) -> None: ...

    def delete_contradiction(self, contradiction_id: str) -> None: ...

    def put_run(self, row: RunRow) -> None: ...

    def get_run(self, run_id: str) -> RunRow | None: ...

    def runs(self, limit: int) -> list[RunRow]: ...

    def set_run_undone(self, run_id: str, at: str) -> None: ...

    def put_key(self, row: KeyRow) -> None: ...

    def get_key(self, key_id: str) -> KeyRow | None: ...

    def keys(self) -> list[KeyRow]: ...

    def revoke_key(self, key_id: str, at: str) -> bool: ...

    def touch_key(self, key_id: str, at: str) -> None: ...

    def judgement(self, pair: str) -> tuple[str, str] | None: ...

    def put_judgement(self, pair: str, verdict: str, reason: str, at: str) -> None: ...

    # writes (call inside transaction())
    def insert(self, nodes: Sequence[Node]) -> None: ...

    def replace(self, node: Node) -> None: ...

    def set_keys(self, changes: Sequence[tuple[str, float]]) -> None: ...

    def set_root(self, node_ids: Sequence[str], root_id: str) -> None: ...

    def mark_summaries_stale(self, node_id: str) -> None: ...

    def set_token_counts(self, changes: Sequence[tuple[str, int]]) -> None: ...

    def delete(self, node_ids: Sequence[str]) -> None: ...

    def put_vectors(
        self, embedder: str, rows: Sequence[tuple[str, str, bytes, str, str]]
    ) -> None: ...

    def drop_vectors(self, keep_embedder: str | None = None) -> int: ...

    def queue_missing_vectors(self, embedder: str) -> int: ...

    def queue_single_vectors(self, embedder: str, row_bytes: int, min_chars: int) -> int: ...

    def prune_tombstones(self, keep: int = 100_000) -> None: ...

    def record_accesses(self, node_ids: Sequence[str], at: str, keep: int = 50) -> None: ...

    def add_versions(
        self, versions: Sequence[NodeVersion], *, skip_existing: bool = False
    ) -> None: ...
