"""Vector search answered by the store itself (pgvector): the same questions
`VectorIndex` answers from memory, asked of the database each time, so
several processes on one database never hold vectors that could be stale."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from ..model import NodeFilter
from ..store import VectorSearch
from .vectors import BACKGROUND_SAMPLE


class StoredVectors:
    """One embedder's vectors in a store with its own index."""

    kind = "pgvector HNSW + exact fallback"
    uses_graph = True

    def __init__(self, store: VectorSearch, embedder: str, dimensions: int) -> None:
        self.store = store
        self.embedder = embedder
        self.dimensions = dimensions
        store.index_vectors(embedder, dimensions)

    def current(self) -> bool:
        return True  # the store indexes what it stores as it stores it

    def sync(self) -> None:
        """Nothing is held here to bring up to date."""

    def prepare(self, progress: Callable[[int], None] | None = None) -> int:
        """Index whatever is stored but not yet indexed; returns how many."""
        return self.store.index_vectors(self.embedder, self.dimensions, progress)

    def save(self) -> None:
        """The index lives in the database."""

    def search(
        self, query: npt.NDArray[np.float32], where: NodeFilter, k: int
    ) -> list[tuple[str, float]]:
        return self.store.nearest(self.embedder, query, k, where)

    def background(
        self, query: npt.NDArray[np.float32], where: NodeFilter
    ) -> tuple[float, float, int]:
        return self.store.vector_background(self.embedder, query, where, BACKGROUND_SAMPLE)

    def similarity(self, query: npt.NDArray[np.float32], node_ids: list[str]) -> dict[str, float]:
        return self.store.vector_similarity(self.embedder, query, node_ids)

    def looks_of(self, node_ids: list[str]) -> dict[str, int]:
        return self.store.passage_counts(self.embedder, node_ids)

    def vectors(self, node_ids: list[str]) -> dict[str, npt.NDArray[np.float32]]:
        return self.store.own_vectors(self.embedder, node_ids)

    def neighbours(self, node_ids: list[str], k: int) -> dict[str, list[tuple[str, float]]]:
        return self.store.vector_neighbours(self.embedder, node_ids, k)
