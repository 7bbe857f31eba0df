"""Approximate nearest neighbours with usearch (extra `ann`), persisted beside the database.

Keys are the `vectors` table's row ids, which are never reused, so a saved
index stays valid across sessions: on open it is reconciled with the live
rows (missing ones added, dead ones removed) instead of rebuilt. Callers
re-rank its candidates exactly, so only recall, never scores, is approximate.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import MissingExtra

log = logging.getLogger(__name__)

CONNECTIVITY = 16
EXPANSION_ADD = 128
EXPANSION_SEARCH = 96
_ADD_BLOCK = 16_384  # rows converted to float32 at a time (25 MB); builds as fast as 64k


def available() -> bool:
    """Whether usearch is installed (found, not imported: importing it costs
    a process that never builds a graph ~30 ms)."""
    return importlib.util.find_spec("usearch") is not None


def _usearch() -> Any:
    try:
        from usearch.index import Index
    except ImportError:
        raise MissingExtra(
            "approximate vector search needs usearch: pip install 'mnemotree[ann]'", "usearch"
        ) from None
    return Index


class AnnIndex:
    """An HNSW graph over int8-quantised cosine vectors, keyed by vector row id."""

    def __init__(self, dimensions: int, path: Path | None, identity: str) -> None:
        """`identity` names the embedder and the database: a graph file left by
        another database (row ids start again at 1) must never be trusted."""
        self.dimensions = dimensions
        self.path = path
        self.identity = identity
        self.dirty = False
        self._index = self._fresh()
        if path is not None and path.exists() and self._meta_matches():
            try:
                self._index.load(str(path))
            except (RuntimeError, ValueError) as exc:
                # A damaged cache is rebuilt from the database, which holds every vector.
                log.warning("rebuilding the vector index: %s could not be read (%s)", path, exc)
                self._index = self._fresh()

    def _fresh(self) -> Any:
        return _usearch()(
            ndim=self.dimensions,
            metric="cos",
            dtype="i8",
            connectivity=CONNECTIVITY,
            expansion_add=EXPANSION_ADD,
            expansion_search=EXPANSION_SEARCH,
        )

    def _meta_path(self) -> Path:
        assert self.path is not None
        return self.path.with_name(self.path.name + ".json")

    def _meta_matches(self) -> bool:
        try:
            meta = json.loads(self._meta_path().read_text("utf-8"))
        except (OSError, ValueError):
            return False
        return bool(meta == {"embedder": self.identity, "dimensions": self.dimensions})

    def __len__(self) -> int:
        return len(self._index)

    def reconcile(
        self,
        rowids: npt.NDArray[np.int64],
        data: npt.NDArray[Any],
        rows: npt.NDArray[np.int64],
        progress: Callable[[int], None] | None = None,
    ) -> None:
        """Make the graph hold exactly the live rows `data[rows]`, keyed by `rowids`
        (after a load or a reset)."""
        if len(self._index):
            held = np.asarray(self._index.keys, dtype=np.int64)
            stale = np.setdiff1d(held, rowids, assume_unique=True)
            if len(stale):
                self.remove(stale)
            fresh = ~np.asarray(self._index.contains(rowids), dtype=bool)
            rowids, rows = rowids[fresh], rows[fresh]
        self.add(rowids, data, rows, progress)

    def add(
        self,
        rowids: npt.NDArray[np.int64],
        data: npt.NDArray[Any],
        rows: npt.NDArray[np.int64],
        progress: Callable[[int], None] | None = None,
    ) -> None:
        """Add `data[rows]` keyed by `rowids`, a block at a time (no full copy at 1M)."""
        for start in range(0, len(rows), _ADD_BLOCK):
            block = rows[start : start + _ADD_BLOCK]
            vectors = np.ascontiguousarray(data[block], dtype=np.float32)
            self._index.add(rowids[start : start + _ADD_BLOCK], vectors, threads=0)
            self.dirty = True
            if progress is not None:
                progress(len(block))

    def remove(self, rowids: npt.NDArray[np.int64]) -> None:
        if len(rowids):
            self._index.remove(rowids)
            self.dirty = True

    def search(self, query: npt.NDArray[np.float32], count: int) -> npt.NDArray[np.int64]:
        """Row ids of about the `count` nearest vectors."""
        if not len(self._index):
            return np.zeros(0, dtype=np.int64)
        # One query: a thread pool costs more than it saves (0.56 vs 0.70 ms at 100k).
        matches = self._index.search(query, min(count, len(self._index)), threads=1)
        return np.asarray(matches.keys, dtype=np.int64)

    def search_many(self, queries: npt.NDArray[np.float32], count: int) -> npt.NDArray[np.int64]:
        """Row ids of about the `count` nearest vectors of each query (-1 pads a row)."""
        if not len(self._index) or not len(queries):
            return np.full((len(queries), 0), -1, dtype=np.int64)
        count = min(count, len(self._index))
        matches = self._index.search(np.ascontiguousarray(queries), count, threads=0)
        keys = np.asarray(matches.keys, dtype=np.int64).reshape(len(queries), -1)
        counts = np.asarray(matches.counts).reshape(-1)
        # Rows with fewer matches carry undefined keys after their count.
        keys[np.arange(keys.shape[1])[None, :] >= counts[:, None]] = -1
        return keys

    def save(self) -> None:
        """Write the graph beside the database (only if it changed)."""
        if self.path is None or not self.dirty:
            return
        tmp = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")  # processes may race
        self._index.save(str(tmp))
        tmp.replace(self.path)
        meta = {"embedder": self.identity, "dimensions": self.dimensions}
        self._meta_path().write_text(json.dumps(meta), "utf-8")
        self.dirty = False
