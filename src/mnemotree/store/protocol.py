"""The narrow store interface that domain code talks to.

Domain modules depend on this protocol only, so another backend (Postgres)
can be added without touching them. Writes happen inside `transaction()`;
a public operation is one transaction, so nothing is ever half-written.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Protocol

from ..model import Node, NodeVersion


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

    def roots(self) -> list[Node]: ...

    def tree_nodes(self, root_id: str) -> list[Node]: ...

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

    # writes (call inside transaction())
    def insert(self, nodes: Sequence[Node]) -> None: ...

    def replace(self, node: Node) -> None: ...

    def set_keys(self, changes: Sequence[tuple[str, float]]) -> None: ...

    def set_root(self, node_ids: Sequence[str], root_id: str) -> None: ...

    def set_stale(self, node_ids: Sequence[str], stale: bool) -> None: ...

    def mark_summaries_stale(self, node_id: str) -> None: ...

    def set_token_counts(self, changes: Sequence[tuple[str, int]]) -> None: ...

    def delete(self, node_ids: Sequence[str]) -> None: ...

    def add_versions(
        self, versions: Sequence[NodeVersion], *, skip_existing: bool = False
    ) -> None: ...
