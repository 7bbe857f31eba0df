"""What domain code may ask of a store, in narrow protocols named by meaning.

Domain modules depend on these protocols only (the narrowest that serves),
so another backend can be added without touching them. `Store` is their
union: what a backend implements.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from ..model import Node, NodeFilter, NodeVersion
from .records import (
    CapturedRow,
    ContradictionRow,
    KeyRow,
    MemoryStats,
    PurgeCounts,
    RelationRow,
    RunRow,
    Scopes,
    SnapshotRow,
    StoreStats,
    TableInfo,
    UsageCounts,
    UsageRow,
    VectorCursor,
    VectorRow,
)

# A usage event's context, by which citations are counted.
UsageSignal = Literal["file", "branch", "activity"]


class Lifecycle(Protocol):
    """Opening, closing and transactions: every write happens inside
    `transaction()`, and a public operation is one transaction."""

    @property
    def location(self) -> str: ...

    @property
    def schema_version(self) -> int: ...

    def close(self) -> None: ...

    def transaction(self) -> AbstractContextManager[None]: ...

    def try_write(self, work: Callable[[], object]) -> bool:
        """Run `work` in a write transaction only if the lock is free now."""
        ...

    def before_writes(self, prepare: Callable[[], object]) -> None:
        """Run `prepare` before a write takes the lock (slow set-up goes there)."""
        ...

    def reading(self) -> AbstractContextManager[None]:
        """One consistent view of the database for the reads inside."""
        ...

    def stats(self) -> StoreStats: ...


class Settings(Protocol):
    """Small named values the engine keeps beside its data (model identities, passes done)."""

    def get_setting(self, key: str) -> str | None: ...

    def set_setting(self, key: str, value: str) -> None: ...

    def delete_setting(self, key: str) -> None: ...


class Nodes(Protocol):
    """The tree: nodes, their order among siblings, and their version history.
    Writes go through `Tree` (which keeps a version of every replaced node)."""

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

    def roots_named(
        self, context_type: str, names: Sequence[str], scopes: Sequence[str] | None = None
    ) -> list[Node]:
        """Roots of `context_type` whose name is one of `names` (a code file's
        document by its file name), within `scopes` if given."""
        ...

    def count_by_root(self, root_ids: Sequence[str], context_type: str) -> dict[str, int]: ...

    def max_number(self, root_id: str, context_type: str, key: str) -> int: ...

    def tree_nodes(self, root_id: str) -> list[Node]: ...

    def find_path(self, root_id: str, path: str) -> Node | None: ...

    def paths_under(self, root_id: str, prefix: str) -> list[Node]: ...

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

    def insert(self, nodes: Sequence[Node]) -> None: ...

    def replace(self, node: Node) -> None: ...

    def set_keys(self, changes: Sequence[tuple[str, float]]) -> None: ...

    def set_root(self, node_ids: Sequence[str], root_id: str) -> None: ...

    def mark_summaries_stale(self, node_id: str) -> None: ...

    def set_token_counts(self, changes: Sequence[tuple[str, int]]) -> None: ...

    def delete(self, node_ids: Sequence[str]) -> None: ...

    def add_versions(
        self, versions: Sequence[NodeVersion], *, skip_existing: bool = False
    ) -> None: ...


class Memories(Protocol):
    """What typed memories carry besides their node: relations, context
    snapshots and captured candidates."""

    def typed_nodes(self, types: Sequence[str], where: NodeFilter, limit: int) -> list[Node]: ...

    def latest_of_types(
        self, types: Sequence[str], where: NodeFilter, per_type: int
    ) -> dict[str, list[Node]]:
        """{type: its newest `per_type` nodes passing the filter} in one read;
        each list as `typed_nodes` orders it."""
        ...

    def facts_with_key(self, key: str, where: NodeFilter, limit: int) -> list[Node]: ...

    def put_snapshot(self, node_id: str, rows: Sequence[SnapshotRow]) -> None: ...

    def snapshots(self, node_ids: Sequence[str]) -> dict[str, list[SnapshotRow]]: ...

    def put_relation(self, row: RelationRow) -> None: ...

    def relations(self, node_ids: Sequence[str]) -> list[RelationRow]: ...

    def relations_of_type(
        self, type: str, limit: int, scopes: Scopes = None
    ) -> list[RelationRow]: ...

    def relations_between(self, source_id: str, target_id: str, type: str | None) -> bool: ...

    def delete_relation(self, source_id: str, target_id: str, type: str) -> None: ...

    def children_of(self, parent_ids: Sequence[str], context_type: str) -> list[Node]: ...

    def artifact_nodes(
        self,
        refs: Sequence[str],
        names: Sequence[str],
        prefixes: Sequence[str],
        limit: int,
        scopes: Scopes = None,
    ) -> list[tuple[str, str, str, str]]: ...

    def put_captured(self, rows: Sequence[CapturedRow]) -> None: ...

    def captured(
        self, scopes: Sequence[str] | None, status: str | None, limit: int
    ) -> list[CapturedRow]: ...

    def get_captured(self, captured_id: str) -> CapturedRow | None: ...


class TextIndex(Protocol):
    """Full-text search over each node's text, name, breadcrumb and neighbours.
    Callers pass terms; how they are quoted and scored is the backend's business."""

    def lexical(
        self, terms: Sequence[str], where: NodeFilter, limit: int
    ) -> list[tuple[str, float]]:
        """(node id, relevance > 0) of nodes matching any of `terms`, best first."""
        ...

    def term_documents(
        self,
        terms: Sequence[str],
        *,
        in_names: bool = False,
        cap: int | None = None,
        context_type: str | None = None,
    ) -> dict[str, int]:
        """{term: nodes matching it} (in their names only, with `in_names`;
        counting stops at `cap`; only nodes of `context_type`, if given)."""
        ...

    def document_total(self) -> int: ...

    def visible(self, node_ids: Sequence[str], where: NodeFilter) -> dict[str, Node]: ...

    def ancestor_links(self, node_ids: Sequence[str]) -> dict[str, str | None]: ...

    def adjacent(self, node_ids: Sequence[str]) -> list[tuple[str, str | None, str | None]]: ...


class Vectors(Protocol):
    """Stored embeddings, the queue of nodes waiting for one, and a log of
    deletions, read incrementally by position (`VectorCursor`)."""

    def pending_vectors(self, limit: int) -> list[Node]: ...

    def count_pending_vectors(self) -> int: ...

    def put_vectors(
        self, embedder: str, rows: Sequence[tuple[str, str, bytes, str, str]]
    ) -> None: ...

    def vector_marks(self, embedder: str) -> tuple[VectorCursor, VectorCursor]:
        """(position of `embedder`'s last stored vector, of the last deletion), 0 for none."""
        ...

    def count_vectors(self, embedder: str, after: VectorCursor) -> int: ...

    def load_vectors(self, embedder: str, after: VectorCursor, limit: int) -> list[VectorRow]:
        """`embedder`'s vectors stored after position `after`, in order of position."""
        ...

    def vector_tombstones(
        self, embedder: str, after: VectorCursor
    ) -> tuple[VectorCursor, list[VectorCursor], bool]:
        """(last deletion, positions of the vectors deleted after `after`, whether
        the log still reaches back to `after`)."""
        ...

    def drop_vectors(self, keep_embedder: str | None = None) -> int: ...

    def queue_missing_vectors(self, embedder: str) -> int: ...

    def queue_single_vectors(
        self, embedder: str, row_bytes: int, min_chars: int, *, broken: bool = False
    ) -> int:
        """Queue nodes of at least `min_chars` whose vector is one row of
        `row_bytes` (and, if `broken`, whose text has a sentence break: '.',
        '!' or '?' before a space, or a line break)."""
        ...

    def prune_tombstones(self, keep: int = 100_000) -> None: ...


class UsageLog(Protocol):
    """When memories were read, retrieved, cited or ignored, and together with what."""

    def record_accesses(self, node_ids: Sequence[str], at: str, keep: int = 50) -> None: ...

    def record_accesses_soon(self, node_ids: Sequence[str], at: str) -> None:
        """Record accesses without waiting for the write lock (buffered if taken)."""
        ...

    def access_times(self, node_ids: Sequence[str]) -> dict[str, list[str]]: ...

    def access_ages(self, node_ids: Sequence[str], now: str, latest: int) -> dict[str, list[float]]:
        """Seconds from each node's `latest` newest accesses to `now`, newest first."""
        ...

    def put_usage(self, rows: Sequence[UsageRow]) -> None: ...

    def usage_counts(self, node_ids: Sequence[str]) -> dict[str, UsageCounts]: ...

    def co_cited(
        self, node_ids: Sequence[str], since: str, limit: int, scopes: Scopes = None
    ) -> tuple[int, dict[str, int]]: ...

    def cited_under(
        self, signal: UsageSignal, value: str, since: str, limit: int, scopes: Scopes = None
    ) -> tuple[int, dict[str, int]]: ...

    def cited_at_hours(
        self, hours: Sequence[int], since: str, limit: int, scopes: Scopes = None
    ) -> tuple[int, dict[str, int]]: ...

    def memory_stats(self, usage_since: str) -> dict[str, MemoryStats]: ...

    def co_cited_pairs(
        self, since: str, min_batches: int, limit: int
    ) -> list[tuple[str, str, int]]: ...


class ConsolidationLog(Protocol):
    """Contradictions, applied runs (with their undo), archive, decay and
    importance, and cached judgements."""

    def put_contradiction(self, row: ContradictionRow) -> bool: ...

    def get_contradiction(self, contradiction_id: str) -> ContradictionRow | None: ...

    def set_contradiction(self, row: ContradictionRow) -> None: ...

    def contradictions(
        self, status: str | None, scopes: Scopes, limit: int, resolution: str | None = None
    ) -> list[ContradictionRow]: ...

    def contradictions_of(
        self, node_ids: Sequence[str], statuses: Sequence[str]
    ) -> list[ContradictionRow]: ...

    def delete_contradiction(self, contradiction_id: str) -> None: ...

    def live_memories(self, types: Sequence[str]) -> list[tuple[Node, float | None]]: ...

    def decays(self, node_ids: Sequence[str]) -> dict[str, float | None]: ...

    def set_decay(self, changes: Sequence[tuple[str, float | None]]) -> None: ...

    def set_importance(self, changes: Sequence[tuple[str, float]]) -> None: ...

    def archive(self, node_ids: Sequence[str], at: str) -> list[str]: ...

    def unarchive(self, node_ids: Sequence[str]) -> list[str]: ...

    def archived(self, node_ids: Sequence[str]) -> dict[str, str]: ...

    def archived_nodes(self, scopes: Scopes, limit: int) -> list[tuple[Node, str]]: ...

    def put_run(self, row: RunRow) -> None: ...

    def alone(self, task: str) -> AbstractContextManager[bool]:
        """Whether this process may run `task` now: True inside while no other
        process sharing the store runs it (several servers on one database
        each schedule consolidation; one runs it at a time), False at once
        if another does."""
        ...

    def get_run(self, run_id: str) -> RunRow | None: ...

    def runs(self, limit: int) -> list[RunRow]: ...

    def set_run_undone(self, run_id: str, at: str) -> None: ...

    def judgement(self, pair: str) -> tuple[str, str] | None: ...

    def put_judgement(self, pair: str, verdict: str, reason: str, at: str) -> None: ...


class Keys(Protocol):
    """API keys (hashes only) and their scopes."""

    def put_key(self, row: KeyRow) -> None: ...

    def get_key(self, key_id: str) -> KeyRow | None: ...

    def keys(self) -> list[KeyRow]: ...

    def revoke_key(self, key_id: str, at: str) -> bool: ...

    def touch_key(self, key_id: str, at: str) -> None: ...


class Backup(Protocol):
    """Whole tables, rows as they are, for a lossless backup and restore."""

    def schema_tables(self) -> list[str]: ...

    def backup_tables(self, *, keys: bool, vectors: bool) -> list[str]: ...

    def table_info(self, tables: Sequence[str]) -> list[TableInfo]: ...

    def table_rows(self, table: TableInfo) -> Iterator[tuple[Any, ...]]: ...

    def restore_rows(self, table: TableInfo, rows: Iterable[Sequence[Any]]) -> int:
        """Insert rows verbatim, inside a transaction (references checked at commit)."""
        ...

    def check_references(self) -> None:
        """Raise InvalidInput if a row refers to a missing one."""
        ...

    def restored(self) -> None:
        """Every row of a restore is in (inside its transaction): make what the
        store derives from them (the Postgres store indexes the vectors)."""
        ...

    def is_empty(self) -> bool: ...

    @property
    def backup_format(self) -> int:
        """The version of the table format a backup of this store holds: the
        SQLite schema's numbering, whose tables every backend keeps, so a
        backup moves between backends. Older formats are staged (on SQLite) by
        the caller before they restore."""
        ...


class Erasure(Protocol):
    """Finding what to erase and removing every row that holds it."""

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


@runtime_checkable
class VectorSearch(Protocol):
    """A backend with a vector index of its own (pgvector) answers what
    retrieval asks of vectors itself, so no process keeps a copy of them;
    without one, retrieval keeps an index in memory."""

    def index_vectors(
        self, embedder: str, dimensions: int, progress: Callable[[int], None] | None = None
    ) -> int:
        """Index `embedder`'s stored vectors (rows of `dimensions`) not yet
        indexed, making its index if missing; returns how many."""
        ...

    def bulk_vectors(self, embedder: str, rows: int) -> AbstractContextManager[None]:
        """Around storing about `rows` vectors at once (the index may be built
        after them rather than grown row by row)."""
        ...

    def nearest(
        self, embedder: str, vector: npt.NDArray[np.float32], k: int, where: NodeFilter
    ) -> list[tuple[str, float]]:
        """(node id, cosine) of the `k` nodes `where` allows whose best stored
        row is nearest `vector`, best first."""
        ...

    def vector_similarity(
        self, embedder: str, vector: npt.NDArray[np.float32], node_ids: Sequence[str]
    ) -> dict[str, float]:
        """Cosine of `vector` with each of these nodes' best row (those with one)."""
        ...

    def vector_sample(self, embedder: str, where: NodeFilter, size: int) -> npt.NDArray[np.float32]:
        """The own rows of a sample of at most `size` nodes in `where`'s scopes
        and roots, the same rows each time while the collection stays put."""
        ...

    def vector_row_sums(
        self, embedder: str, node_ids: Sequence[str]
    ) -> dict[str, tuple[int, float]]:
        """For each of these nodes with more than one row (its own, then its
        passages' or sentences'): how many, and the squared length of their
        sum, which tells how alike they are."""
        ...

    def own_vectors(
        self, embedder: str, node_ids: Sequence[str]
    ) -> dict[str, npt.NDArray[np.float32]]:
        """Each node's own row, for those with a vector."""
        ...

    def vector_neighbours(
        self, embedder: str, node_ids: Sequence[str], k: int
    ) -> dict[str, list[tuple[str, float]]]:
        """For each node with a vector, its `k` nearest other nodes, best first."""
        ...


class Store(
    Lifecycle,
    Settings,
    Nodes,
    Memories,
    TextIndex,
    Vectors,
    UsageLog,
    ConsolidationLog,
    Keys,
    Backup,
    Erasure,
    Protocol,
):
    """Everything a backend implements: the union of the narrow protocols."""
