"""A backend with its own vector index (pgvector) answers nearest-neighbour
queries itself: retrieval asks it instead of its in-memory index, and a
native answer that is exact finds what the in-memory index finds."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt

from mnemotree import Memory
from mnemotree.model import NodeFilter
from mnemotree.store import NearestNeighbours
from mnemotree.store.sqlite import SQLiteStore

TEXTS = [
    "The deploy runs every Friday at noon",
    "Alice prefers green tea in the morning",
    "Backups are kept for thirty days",
    "The staging database moved to Frankfurt",
    "Bob reviews every pull request on Mondays",
    "Our API keys rotate each quarter",
    "The office plants need water twice a week",
    "Incidents are reported in the #ops channel",
]


class ExactNearest(SQLiteStore):
    """The SQLite store answering `nearest` by exact cosine over its stored vectors."""

    asked = 0

    def nearest(
        self, embedder: str, vector: npt.NDArray[np.float32], k: int, where: NodeFilter
    ) -> list[tuple[str, float]]:
        self.asked += 1
        best: dict[str, float] = {}
        for row in self.load_vectors(embedder, 0, 100_000):
            rows = np.frombuffer(row.data, dtype=np.float32).reshape(-1, len(vector))
            best[row.node_id] = max(best.get(row.node_id, -1.0), float((rows @ vector).max()))
        allowed = self.visible(sorted(best), where)
        ranked = sorted((i for i in best if i in allowed), key=lambda i: (-best[i], i))
        return [(i, best[i]) for i in ranked[:k]]


def _memory(path: Path, store: SQLiteStore | None = None) -> Memory:
    mem = Memory(path, store=store, embedder="hashing", llm="offline")
    root = mem.add("Notes", scope="team")
    mem.append_many(root.id, TEXTS)
    mem.flush()
    return mem


def test_a_store_with_its_own_index_is_asked_and_finds_the_same(tmp_path: Path) -> None:
    native = ExactNearest(tmp_path / "native.db")
    assert isinstance(native, NearestNeighbours)
    assert not isinstance(SQLiteStore(tmp_path / "plain.db"), NearestNeighbours)
    with _memory(tmp_path / "plain2.db") as plain, _memory(tmp_path / "n.db", native) as mem:
        for query in ("when do we deploy", "tea preference", "where is the database", "keys"):
            ours = [h.node.text for h in mem.search(query, scopes=["team"], record=False)]
            theirs = [h.node.text for h in plain.search(query, scopes=["team"], record=False)]
            assert ours == theirs, query
        assert native.asked >= 4
        assert mem.search("tea", scopes=["elsewhere"], record=False) == []
