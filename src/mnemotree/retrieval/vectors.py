"""Cosine search over one embedder's stored vectors, held in memory.

Vectors are loaded once and then incrementally (by rowid); deletions arrive
as tombstones. A node's stored vector may hold more than one row: its own
(the text's start) first, then one per later passage of a long text or per
sentence of a shorter one (see `passages`); a node's cosine is its best
row's, and its rows lie together. Exact numpy search costs ~15 ms at 100k x
384 on two cores, so above `ann_min_rows` allowed rows an HNSW graph
(usearch, extra `ann`) of every row proposes nodes that are re-ranked
exactly by all their rows. Scopes and roots are masked
here and checked again in SQL by the caller, so a stale row never leaks a node.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from ..model import NodeFilter
from ..store import Store, VectorRow
from . import ann
from .passages import MAX_PASSAGES, effective_looks

# Below this many allowed rows exact search is fast enough. One query alone
# scans 20k rows in ~3 ms, but the scan is bound by memory bandwidth: under
# concurrent searches (a server) 10k rows took 64% of a search's CPU, and the
# graph, re-ranked exactly, returned the same top 10 at 40% of the cost.
ANN_MIN_ROWS = 5_000
# The graph is asked for this many times the wanted rows (more when the filter
# keeps a small share of them); its candidates are then scored exactly.
ANN_OVERSAMPLE = 2
ANN_MAX_CANDIDATES = 4_096
_LOAD_ROWS = 10_000  # vectors read per query while loading (bounds the bytes held twice)
# Half-precision rows an exact scan converted, kept as float32 with their
# filter (at most this many rows over all filters: 100 MB at 384 dimensions).
# numpy has no fast float16 product: converting 10k rows cost ~8 ms a search.
_GATHERED_ROWS = 65_536
_EXACT_CELLS = 32_000_000  # scores held at once by exact neighbour search (128 MB)
_GRAPH_BLOCK = 8192  # queries per batch graph search
BACKGROUND_SAMPLE = 256  # rows a query's cosines with the collection are read from
# A row's key in the graph: its stored vector's rowid times this, plus its
# place among the node's rows (0: its own), so every row has a lasting key.
KEY_ROWS = 64
assert MAX_PASSAGES + 1 <= KEY_ROWS


@dataclass
class _Allowed:
    """The rows a filter allows: a mask, how many nodes, an evenly spaced
    sample of the nodes' own rows, and how many rows (theirs and their
    sentences' and passages'); once scanned, the rows and their vectors."""

    mask: npt.NDArray[np.bool_]
    allowed: int
    sample: npt.NDArray[np.intp]
    rows: int
    gathered: tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]] | None = None


@dataclass
class _Codes:
    """Small integer codes for repeated strings (scopes, roots) so masks are vectorised."""

    of: dict[str, int] = field(default_factory=dict)

    def code(self, value: str) -> int:
        return self.of.setdefault(value, len(self.of))

    def codes(self, values: tuple[str, ...]) -> list[int]:
        return [self.of[v] for v in values if v in self.of]


class VectorSource(Protocol):
    """What retrieval asks of one embedder's vectors: this module's index in
    memory, or a store's own (`StoredVectors`)."""

    @property
    def kind(self) -> str:
        """How nearest neighbours are found (named in benchmark reports)."""
        ...

    def current(self) -> bool: ...

    def sync(self) -> None: ...

    def bulk(self, rows: int) -> AbstractContextManager[None]:
        """Around storing about `rows` vectors at once."""
        ...

    def prepare(self, progress: Callable[[int], None] | None = None) -> int: ...

    def save(self) -> None: ...

    def search(
        self, query: npt.NDArray[np.float32], where: NodeFilter, k: int
    ) -> list[tuple[str, float]]: ...

    def background(
        self, query: npt.NDArray[np.float32], where: NodeFilter
    ) -> tuple[float, float, int]: ...

    def similarity(
        self, query: npt.NDArray[np.float32], node_ids: list[str]
    ) -> dict[str, float]: ...

    def looks_of(self, node_ids: list[str]) -> dict[str, float]:
        """How many independent looks each node's rows are worth
        (`passages.effective_looks`; 1 for a node of one row)."""
        ...

    def vectors(self, node_ids: list[str]) -> dict[str, npt.NDArray[np.float32]]: ...

    def neighbours(self, node_ids: list[str], k: int) -> dict[str, list[tuple[str, float]]]: ...


class VectorIndex:
    """Rows grow in place (exactly as much as a sync needs, else by at most
    64k rows), so each sync costs what it adds."""

    def __init__(
        self,
        store: Store,
        embedder: str,
        dimensions: int,
        *,
        ann_path: Path | None = None,
        database: str = "",
        ann_min_rows: int | None = ANN_MIN_ROWS,
    ) -> None:
        """`ann_min_rows=None` never uses the graph; it is used only if usearch is installed."""
        self.store = store
        self.embedder = embedder
        self.dimensions = dimensions
        self.ann_path = ann_path
        self.database = database
        self.ann_min_rows = ann_min_rows if ann.available() else None
        # Once the graph is in use, exact scoring only meets gathered rows
        # (re-ranking, narrow filters), so half-precision storage costs little
        # time and halves memory (1M x 384: 0.8 GB instead of 1.5 GB). Below
        # that size rows stay float32: full scans need it (numpy has no fast
        # float16 product; converting 10k rows per search cost ~5 ms).
        self._ann: ann.AnnIndex | None = None
        self._graph_lock = threading.Lock()
        self._masks: dict[tuple[Any, ...], _Allowed] = {}
        self._gathered_rows = 0  # rows the masks' gathered vectors hold
        self._reset()

    def _reset(self) -> None:
        self._data: npt.NDArray[Any] = np.zeros((0, self.dimensions), dtype=np.float32)
        self._alive = np.zeros(0, dtype=bool)
        self._scope = np.zeros(0, dtype=np.int32)
        self._root = np.zeros(0, dtype=np.int32)
        self._n = 0
        self._rowids = np.zeros(0, dtype=np.int64)
        self._passage = np.zeros(0, dtype=bool)  # a later passage, not a node's own row
        self._looks = np.zeros(0, dtype=np.int32)  # on a node's own row: its row count
        self._worth = np.zeros(0, dtype=np.float32)  # on a node's own row: its effective looks
        self._keys = np.zeros(0, dtype=np.int64)  # each row's key in the graph
        self._passages = 0  # passage rows loaded (none: one row per node)
        self._ids: list[str] = []
        self._row_of: dict[str, int] = {}
        self._scopes = _Codes()
        self._roots = _Codes()
        self._last_rowid = 0
        self._last_tombstone = 0
        self._forget_masks()
        self._ann = None  # rebuilt (or reconciled from its file) on next use

    @property
    def matrix(self) -> npt.NDArray[np.float32]:
        """A float32 copy of every loaded row (dead ones included), for baselines."""
        return self._data[: self._n].astype(np.float32)

    def _vectors(self, rows: npt.NDArray[np.int64]) -> npt.NDArray[np.float32]:
        return self._data[rows].astype(np.float32, copy=False)

    @property
    def uses_graph(self) -> bool:
        return self._ann is not None

    @property
    def live(self) -> int:
        """Nodes with a live vector."""
        return int((self._alive[: self._n] & ~self._passage[: self._n]).sum())

    def _graphed(self) -> bool:
        """Whether whole-collection work goes through the graph: its rows are
        as many as `ann_min_rows` (rows turn half-precision from then on)."""
        live_rows = int(self._alive[: self._n].sum())
        return self.ann_min_rows is not None and live_rows >= self.ann_min_rows

    @property
    def kind(self) -> str:
        return "usearch graph + exact re-rank" if self.uses_graph else "numpy exact"

    def looks_of(self, node_ids: list[str]) -> dict[str, float]:
        rows = {i: r for i in node_ids if (r := self._row_of.get(i)) is not None}
        return {i: float(self._worth[r]) for i, r in rows.items()}

    def _reserve(self, extra: int) -> None:
        need = self._n + extra
        if need <= len(self._data):
            return
        capacity = max(need, min(2 * len(self._data), need + 65_536), 1024)

        def grown(array: npt.NDArray[Any], dtype: Any = None) -> npt.NDArray[Any]:
            bigger = np.zeros((capacity, *array.shape[1:]), dtype=dtype or array.dtype)
            bigger[: self._n] = array[: self._n]
            return bigger

        half = self.ann_min_rows is not None and need >= self.ann_min_rows
        self._data = grown(self._data, np.float16 if half else np.float32)
        self._alive = grown(self._alive)
        self._scope = grown(self._scope)
        self._root = grown(self._root)
        self._rowids = grown(self._rowids)
        self._passage = grown(self._passage)
        self._looks = grown(self._looks)
        self._worth = grown(self._worth)
        self._keys = grown(self._keys)

    def bulk(self, rows: int) -> AbstractContextManager[None]:
        """Rows stored at once arrive by the next sync, as any others do."""
        return nullcontext()

    def current(self) -> bool:
        """Whether no vector was stored or deleted since the last sync (one cheap read)."""
        last_vector, last_tombstone = self.store.vector_marks(self.embedder)
        return last_vector <= self._last_rowid and last_tombstone <= self._last_tombstone

    def sync(self) -> None:
        """Apply deletions, then load vectors stored since the last sync."""
        last, deleted, complete = self.store.vector_tombstones(self.embedder, self._last_tombstone)
        if not complete:  # this index is older than the kept tombstones
            self._reset()
        elif deleted:
            dead = np.flatnonzero(np.isin(self._rowids[: self._n], deleted))
            self._alive[dead] = False
            self._forget_masks()
            if self._ann is not None:
                self._ann.remove(self._keys[dead])
        self._last_tombstone = last
        waiting = self.store.count_vectors(self.embedder, self._last_rowid)
        if not waiting:
            return
        self._forget_masks()
        self._reserve(waiting)  # once, exactly: growing by doubling would copy 1.5 GB at 1M
        while rows := self.store.load_vectors(self.embedder, self._last_rowid, _LOAD_ROWS):
            self._append(rows)

    def _append(self, rows: list[VectorRow]) -> None:
        width = 4 * self.dimensions
        counts = [max(1, len(r.data) // width) for r in rows]
        self._reserve(sum(counts))
        start, end = self._n, self._n + sum(counts)
        block = np.frombuffer(b"".join(r.data for r in rows), dtype=np.float32)
        self._data[start:end] = block.reshape(end - start, self.dimensions)
        self._alive[start:end] = True
        self._passage[start:end] = True
        replaced: list[int] = []
        row = start
        for (rowid, node_id, scope, root, _), count in zip(rows, counts, strict=True):
            old = self._row_of.get(node_id)
            if old is not None:  # re-embedded: the old rows are outdated
                self._alive[old : old + self._looks[old]] = False
                replaced.extend(range(old, old + self._looks[old]))
            self._row_of[node_id] = row
            self._passage[row] = False
            self._looks[row] = count
            self._worth[row] = (
                effective_looks(self._data[row : row + count].astype(np.float32))
                if count > 1
                else 1.0
            )
            self._keys[row : row + count] = rowid * KEY_ROWS + np.arange(count)
            self._ids.extend([node_id] * count)
            self._rowids[row : row + count] = rowid
            self._scope[row : row + count] = self._scopes.code(scope)
            self._root[row : row + count] = self._roots.code(root)
            row += count
        self._passages += end - start - len(rows)
        self._n = end
        self._last_rowid = rows[-1].cursor
        if self._ann is not None:
            self._ann.remove(self._keys[np.asarray(replaced, dtype=np.int64)])
            added = np.arange(start, end, dtype=np.int64)
            self._ann.add(self._keys[added], self._data, added)

    def _forget_masks(self) -> None:
        self._masks = {}
        self._gathered_rows = 0

    def _gathered(self, allowed: _Allowed) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
        """The rows `allowed` lets through and their vectors as float32, kept
        with the filter while it is cached (until the index changes) when
        converting them from half precision is what a scan costs."""
        if allowed.gathered is not None:
            return allowed.gathered
        rows = np.flatnonzero(allowed.mask)
        found = rows, self._vectors(rows)
        half = self._data.dtype != np.float32
        if half and self._gathered_rows + len(rows) <= _GATHERED_ROWS:
            self._gathered_rows += len(rows)
            allowed.gathered = found
        return found

    def _allowed(self, where: NodeFilter) -> _Allowed:
        """`_mask`, and an evenly spaced sample of the allowed rows."""
        key = (where.scopes, where.roots)
        cached = self._masks.get(key)
        if cached is not None:
            return cached
        mask: npt.NDArray[np.bool_] = self._alive[: self._n].copy()
        if where.scopes is not None:
            mask &= np.isin(self._scope[: self._n], self._scopes.codes(where.scopes))
        if where.roots:
            mask &= np.isin(self._root[: self._n], self._roots.codes(where.roots))
        if len(self._masks) > 64:
            self._forget_masks()
        rows = np.flatnonzero(mask & ~self._passage[: self._n])
        sample = rows[:: max(1, len(rows) // BACKGROUND_SAMPLE)][:BACKGROUND_SAMPLE]
        # Kept and returned from a local: another search may clear the cache meanwhile.
        found = self._masks[key] = _Allowed(mask, len(rows), sample, int(mask.sum()))
        return found

    def search(
        self, query: npt.NDArray[np.float32], where: NodeFilter, k: int
    ) -> list[tuple[str, float]]:
        """The `k` nearest node ids by cosine (a node's best row's), among
        rows the filter allows."""
        allowed = self._allowed(where)
        mask = allowed.mask
        if allowed.allowed == 0 or k <= 0:
            return []
        take = min(k, allowed.allowed)
        # What a scan costs is the rows it reads, not the nodes they belong to.
        if self.ann_min_rows is not None and allowed.rows >= self.ann_min_rows:
            found = self._search_graph(query, allowed, take)
            if found is not None:
                return found
        if allowed.allowed * 4 < self._n or self._data.dtype != np.float32:
            rows, vectors = self._gathered(allowed)
            scores = vectors @ query
        else:  # one pass over contiguous memory beats gathering most rows
            rows = np.arange(self._n)
            scores = self._data[: self._n] @ query
            scores[~mask] = -np.inf
        rows, scores = self._per_node(rows, scores)
        return self._best(rows, scores, take)

    def _per_node(
        self, rows: npt.NDArray[np.int64], scores: npt.NDArray[np.float32]
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
        """Ascending rows and their scores -> each node's own row and its best
        score (a node's rows lie together, its own first)."""
        if not self._passages or not len(rows):
            return rows, scores
        starts = np.flatnonzero(~self._passage[rows])
        return rows[starts], np.maximum.reduceat(scores, starts)

    def _node_scores(
        self, heads: npt.NDArray[np.int64], query: npt.NDArray[np.float32]
    ) -> npt.NDArray[np.float32]:
        """The best cosine of each node (by its own row) over its rows."""
        if not self._passages or not len(heads):
            return self._vectors(heads) @ query
        looks = self._looks[heads].astype(np.int64)
        starts = np.concatenate(([0], np.cumsum(looks)[:-1]))
        rows = np.repeat(heads - starts, looks) + np.arange(int(looks.sum()))
        return np.maximum.reduceat(self._vectors(rows) @ query, starts)

    def background(
        self, query: npt.NDArray[np.float32], where: NodeFilter
    ) -> tuple[float, float, int]:
        """Mean and spread of the query's cosines with the rows the filter
        allows (an evenly spaced sample of at most `BACKGROUND_SAMPLE`), and
        how many rows the sample has."""
        sample = self._allowed(where).sample
        if len(sample) == 0:
            return 0.0, 0.0, 0
        scores = self._vectors(sample) @ query  # the nodes' own rows: what text at large scores
        return float(scores.mean()), float(scores.std()), len(sample)

    def _best(
        self, rows: npt.NDArray[np.int64], scores: npt.NDArray[np.float32], take: int
    ) -> list[tuple[str, float]]:
        best = np.argpartition(-scores, take - 1)[:take]
        best = best[np.argsort(-scores[best], kind="stable")]
        return [(self._ids[rows[i]], float(scores[i])) for i in best]

    def _search_graph(
        self, query: npt.NDArray[np.float32], allowed: _Allowed, take: int
    ) -> list[tuple[str, float]] | None:
        """The nodes of the graph's nearest rows (any of a node's rows),
        re-ranked exactly by all their rows; None when too few pass the filter."""
        share = allowed.allowed / max(1, self.live)
        count = min(
            ANN_MAX_CANDIDATES, math.ceil(take * ANN_OVERSAMPLE * self._rows_per_node() / share)
        )
        rows = self._heads_of(self.graph().search(query, count))
        rows = rows[allowed.mask[rows]]
        if len(rows) < take:
            return None
        return self._best(rows, self._node_scores(rows, query), take)

    def _rows_per_node(self) -> float:
        """The graph's rows per live node: a node may fill several of its places."""
        return max(1.0, len(self.graph()) / max(1, self.live))

    def _heads_of(self, keys: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        """The nodes' own rows, each once, of the rows with these graph keys
        (unknown ones dropped)."""
        rowids = keys // KEY_ROWS
        rows = np.searchsorted(self._rowids[: self._n], rowids)  # a node's first row: its own
        known = rows < self._n
        rows, rowids = rows[known], rowids[known]
        rows = rows[self._rowids[rows] == rowids]
        heads: npt.NDArray[np.int64] = np.unique(rows[~self._passage[rows]])
        return heads

    def graph(self, progress: Callable[[int], None] | None = None) -> ann.AnnIndex:
        """The HNSW graph over the live rows, loaded from its file or built
        (`progress` hears of every block of rows added)."""
        if self._ann is None:
            with self._graph_lock:  # concurrent searches: one of them builds it
                if self._ann is None:
                    graph = ann.AnnIndex(
                        self.dimensions,
                        self.ann_path,
                        # Graphs of older versions were keyed by node, not by row.
                        f"{self.embedder} in {self.database}, every row",
                    )
                    live = np.flatnonzero(self._alive[: self._n])
                    graph.reconcile(self._keys[live], self._data, live, progress)
                    self._ann = graph
        return self._ann

    def prepare(self, progress: Callable[[int], None] | None = None) -> int:
        """Load every vector and, when the graph would be used, build it now rather
        than in the first search; returns the rows the graph holds (0 if none)."""
        self.sync()
        if not self._graphed():
            return 0
        return len(self.graph(progress))

    def save(self) -> None:
        """Keep the graph on disk, so the next session does not rebuild it."""
        if self._ann is not None:
            self._ann.save()

    def similarity(self, query: npt.NDArray[np.float32], node_ids: list[str]) -> dict[str, float]:
        """Cosine of the query with these nodes' vectors (where they have a
        live one; a node's best row's)."""
        live = {i: self._row_of[i] for i in node_ids if i in self._row_of}
        live = {i: r for i, r in live.items() if self._alive[r]}
        if not live:
            return {}
        rows = np.fromiter(live.values(), dtype=np.int64, count=len(live))
        scores = self._node_scores(rows, query)
        return {node_id: float(s) for node_id, s in zip(live, scores, strict=True)}

    def vectors(self, node_ids: list[str]) -> dict[str, npt.NDArray[np.float32]]:
        """The live vectors of these nodes (those that have one)."""
        rows = {i: r for i in node_ids if (r := self._row_of.get(i)) is not None and self._alive[r]}
        found = self._vectors(np.fromiter(rows.values(), dtype=np.int64, count=len(rows)))
        return dict(zip(rows, found, strict=True))

    def neighbours(self, node_ids: list[str], k: int) -> dict[str, list[tuple[str, float]]]:
        """For each node with a live vector, its `k` nearest other nodes by cosine.

        Through the graph when it is in use (a batch search over every core),
        else exactly, a block of queries at a time: no pairs are listed. The
        caller syncs first (`Retriever.neighbours`).
        """
        rows = np.fromiter(
            (r for i in node_ids if (r := self._row_of.get(i)) is not None and self._alive[r]),
            dtype=np.int64,
        )
        if not len(rows) or k <= 0:
            return {}
        out: dict[str, list[tuple[str, float]]] = {}
        use_graph = self._graphed()
        step = _GRAPH_BLOCK if use_graph else max(16, _EXACT_CELLS // max(1, self._n))
        for start in range(0, len(rows), step):
            block = rows[start : start + step]
            queries = self._vectors(block)
            if use_graph:
                wanted = math.ceil((k + 1) * self._rows_per_node())
                found = self._graph_neighbours(queries, wanted)
            else:
                scores = queries @ self._data[: self._n].T
                scores[:, ~self._alive[: self._n] | self._passage[: self._n]] = -np.inf
                take = min(k + 1, self._n)
                best = np.argpartition(-scores, take - 1, axis=1)[:, :take]
                found = [
                    [(int(c), float(scores[q, c])) for c in best[q] if np.isfinite(scores[q, c])]
                    for q in range(len(block))
                ]
            for row, near in zip(block, found, strict=True):
                mine = [(self._ids[c], s) for c, s in near if c != row]
                mine.sort(key=lambda pair: -pair[1])
                out[self._ids[row]] = mine[:k]
        return out

    def _graph_neighbours(
        self, queries: npt.NDArray[np.float32], count: int
    ) -> list[list[tuple[int, float]]]:
        """Graph candidates per query, scored exactly: [(row, cosine)]."""
        keys = self.graph().search_many(queries, count)
        found: list[list[tuple[int, float]]] = []
        for q, near in enumerate(keys):
            rows = self._heads_of(near[near >= 0])
            rows = rows[self._alive[rows]]
            scores = self._vectors(rows) @ queries[q]
            found.append([(int(r), float(s)) for r, s in zip(rows, scores, strict=True)])
        return found
