"""Vector search answered by the store itself (pgvector): the same questions
`VectorIndex` answers from memory, asked of the database each time, so
several processes on one database never hold vectors that could be stale."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

import numpy as np
import numpy.typing as npt

from ..model import NodeFilter
from ..store import VectorSearch
from .passages import effective_looks_of
from .vectors import BACKGROUND_SAMPLE

SAMPLE_SECONDS = 60.0  # how long a background sample serves
SAMPLES_KEPT = 64  # filters whose samples are kept


class StoredVectors:
    """One embedder's vectors in a store with its own index."""

    kind = "pgvector HNSW + exact fallback"
    uses_graph = True

    def __init__(self, store: VectorSearch, embedder: str, dimensions: int) -> None:
        self.store = store
        self.embedder = embedder
        self.dimensions = dimensions
        # Background samples per (scopes, roots): when taken, and their rows.
        self._samples: dict[tuple[Any, ...], tuple[float, npt.NDArray[np.float32]]] = {}
        self._lock = threading.Lock()
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

    def bulk(self, rows: int) -> AbstractContextManager[None]:
        return self.store.bulk_vectors(self.embedder, rows)

    def search(
        self, query: npt.NDArray[np.float32], where: NodeFilter, k: int
    ) -> list[tuple[str, float]]:
        return self.store.nearest(self.embedder, query, k, where)

    def background(
        self, query: npt.NDArray[np.float32], where: NodeFilter
    ) -> tuple[float, float, int]:
        """Mean and spread of the query's cosines with a sample of the
        collection. The sample's rows are kept for up to `SAMPLE_SECONDS`:
        choosing them costs ~2 ms a search, and a statistic of 256 rows moves
        little in a minute; they never decide what a search may return."""
        key = (where.scopes, where.roots)
        now = time.monotonic()
        with self._lock:
            kept = self._samples.get(key)
        if kept is None or now - kept[0] > SAMPLE_SECONDS:
            kept = (now, self.store.vector_sample(self.embedder, where, BACKGROUND_SAMPLE))
            with self._lock:
                if len(self._samples) >= SAMPLES_KEPT:
                    self._samples.clear()
                self._samples[key] = kept
        scores = kept[1] @ query
        if not len(scores):
            return 0.0, 0.0, 0
        return float(scores.mean()), float(scores.std()), len(scores)

    def forget(self) -> None:
        """Drop the kept samples (a purge: no erased text's vector stays here)."""
        with self._lock:
            self._samples.clear()

    def similarity(self, query: npt.NDArray[np.float32], node_ids: list[str]) -> dict[str, float]:
        return self.store.vector_similarity(self.embedder, query, node_ids)

    def looks_of(self, node_ids: list[str]) -> dict[str, float]:
        sums = self.store.vector_row_sums(self.embedder, node_ids)
        return {i: effective_looks_of(*sums[i]) if i in sums else 1.0 for i in node_ids}

    def vectors(self, node_ids: list[str]) -> dict[str, npt.NDArray[np.float32]]:
        return self.store.own_vectors(self.embedder, node_ids)

    def neighbours(self, node_ids: list[str], k: int) -> dict[str, list[tuple[str, float]]]:
        return self.store.vector_neighbours(self.embedder, node_ids, k)
