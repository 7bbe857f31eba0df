"""Small helpers shared by the tests."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone

import numpy as np

from mnemotree import Memory
from mnemotree.embed import get_embedder
from mnemotree.model import Node

START = datetime(2026, 1, 1, tzinfo=timezone.utc)


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


class CountingEmbedder:
    """The hashing embedder, counting its batches (one model call each) and
    how often each text was embedded."""

    def __init__(self) -> None:
        self.inner = get_embedder("hashing")
        self.identity = self.inner.identity
        self.dimensions = self.inner.dimensions
        self.meaning = getattr(self.inner, "meaning", True)  # word overlap, not meaning
        self.batches: list[int] = []
        self.texts: Counter[str] = Counter()

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        self.batches.append(len(texts))
        self.texts.update(texts)
        return self.inner.embed_batch(texts)


def texts(memory: Memory, node_id: str, mode: str = "include") -> list[str]:
    return [n.text for n in memory.serialize(node_id, mode)]


def snapshot(memory: Memory) -> list[dict[str, object]]:
    """Every node and every kept version, for before/after comparisons."""
    nodes = [n.to_dict() for n in memory.store.iter_nodes()]
    versions = [v.to_dict() for v in memory.store.iter_versions()]
    return sorted(nodes, key=lambda d: str(d["id"])) + versions


def assert_derived_text(memory: Memory) -> None:
    """The indexed neighbour text and breadcrumbs match the tree as it is now,
    taking text only from nodes in the node's own scope (and neighbour text
    only from siblings of its own context type)."""
    from mnemotree.store.sqlite.derived import PATH_CHARS
    from mnemotree.store.sqlite.neighbours import piece

    nodes = {n.id: n for n in memory.store.iter_nodes()}
    db = memory.store._db  # type: ignore[attr-defined]  # either store's connection
    rows = db.execute("SELECT id, neighbours, path FROM nodes")
    rows = rows.fetchall() if hasattr(rows, "fetchall") else rows  # SQLite's is a cursor
    stored = {i: f"{neighbours}\0{path}" for i, neighbours, path in rows}
    by_parent: dict[str | None, list[Node]] = {}
    for node in nodes.values():
        by_parent.setdefault(node.parent_id, []).append(node)
    for parent, siblings in by_parent.items():
        siblings.sort(key=lambda n: n.order_key)
        for i, node in enumerate(siblings):
            prev = siblings[i - 1] if parent and i > 0 else None
            nxt = siblings[i + 1] if parent and i + 1 < len(siblings) else None
            texts = [
                piece(s.context_name, s.text)
                if s is not None and (s.scope, s.context_type) == (node.scope, node.context_type)
                else ""
                for s in (prev, nxt)
            ]
            crumbs = [
                a.text[:PATH_CHARS]
                for a in reversed(memory.ancestors(node.id))
                if a.scope == node.scope
            ]
            expected = "\n".join(texts) + "\0" + "\n".join(crumbs)
            assert stored[node.id] == expected, (node.text, stored[node.id], expected)


@contextmanager
def mixed_scopes(mem: Memory, *scopes: str) -> Iterator[None]:
    """Build a tree whose parents sit in other scopes, as databases made before
    the tree required shared scopes for that may hold: the scopes are shared
    while building and unshared after, so readers must still filter ancestry."""
    for scope in scopes:
        mem.keys.share_scope(scope)
    try:
        yield
    finally:
        for scope in scopes:
            mem.keys.share_scope(scope, shared=False)
