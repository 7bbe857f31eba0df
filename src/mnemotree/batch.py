"""The one way nodes reach the store.

Tree operations, ingest, imports, tree sync and consolidation all write
through a `NodeBatch`, so none of them can forget history: a node a batch
replaces or deletes is kept as a version first, under the batch's change id.
A batch does not open a transaction; its caller holds one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence

from .errors import InvalidOperation
from .model import Node, NodeVersion
from .store import Nodes

# What a node is: a change to any of these is a new version of it.
_CONTENT = (
    "id",
    "root_id",
    "parent_id",
    "order_key",
    "text",
    "context_type",
    "context_name",
    "context_value",
    "scope",
    "version",
    "is_summary",
    "importance",
)


def snapshot(node: Node, op: str, change_id: str, now: str) -> NodeVersion:
    """`node` as it was, kept under `change_id` (op: update, move, delete)."""
    return NodeVersion(node.id, node.version, op, change_id, now, node)


class NodeBatch:
    """Writes of one change (`change` id, at `now`), inside the caller's transaction.
    `now` may be a clock, read once and only if a version is kept."""

    def __init__(self, store: Nodes, change: str, now: str | Callable[[], str]) -> None:
        self._store = store
        self.change = change
        self._now = now

    @property
    def now(self) -> str:
        if callable(self._now):
            self._now = self._now()
        return self._now

    def insert(self, nodes: Sequence[Node]) -> None:
        """New nodes, parents before children."""
        if nodes:
            self._store.insert(nodes)

    def replace(self, pairs: Sequence[tuple[Node, Node]], op: str = "update") -> None:
        """Each (before, after): `before` is kept as a version, then `after` stored."""
        if not pairs:
            return
        self._store.add_versions(
            [snapshot(before, op, self.change, self.now) for before, _ in pairs]
        )
        for _, after in pairs:
            self._store.replace(after)

    def delete(self, nodes: Sequence[Node]) -> None:
        """Delete nodes given parents first: each is kept as a version in that
        order (a restore rebuilds them from it), then deleted children first."""
        if not nodes:
            return
        self._store.add_versions([snapshot(n, "delete", self.change, self.now) for n in nodes])
        self._store.delete([n.id for n in reversed(nodes)])

    def annotate(self, node: Node) -> None:
        """Store what the engine notes in a node's metadata about itself (a file's
        size and time, a write in progress) without a new version: anything else
        changed is a content change, refused here (use `replace`)."""
        current = self._store.get(node.id)
        if current is None:
            raise InvalidOperation(f"node {node.id} is gone; nothing to annotate", node.id)
        changed = [f for f in _CONTENT if getattr(current, f) != getattr(node, f)]
        if changed:
            raise InvalidOperation(
                f"annotating node {node.id} would change its {', '.join(changed)}: "
                "that is a new version (replace it)",
                node.id,
            )
        self._store.replace(dataclasses.replace(node, updated_at=current.updated_at))

    def reorder(self, keys: Sequence[tuple[str, float]]) -> None:
        """New order keys among the same siblings (the order, not the content)."""
        if keys:
            self._store.set_keys(keys)

    def reroot(self, node_ids: Sequence[str], root_id: str) -> None:
        """Nodes moved with their subtree under another root."""
        self._store.set_root(node_ids, root_id)

    def touch(self, parent_ids: Iterable[str]) -> None:
        """The summaries above these nodes no longer cover what is below them."""
        for parent_id in parent_ids:
            self._store.mark_summaries_stale(parent_id)

    def recount(self, counts: Sequence[tuple[str, int]]) -> None:
        """Token counts by another tokenizer: derived, not content."""
        self._store.set_token_counts(counts)

    def keep_versions(self, versions: Sequence[NodeVersion], *, skip_existing: bool) -> None:
        """History that arrives with imported nodes, kept as it was."""
        if versions:
            self._store.add_versions(versions, skip_existing=skip_existing)
