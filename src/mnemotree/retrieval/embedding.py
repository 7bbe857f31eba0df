"""The vectors a retriever makes for stored nodes: each node's own row, then
its passages' or sentences' (`passages.later_rows`), made in batches; kept in
memory when a search made them (a read never writes) and stored by `flush`
or on closing; and the queue of nodes to embed kept in step with the
embedder and with how texts are cut into rows."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from ..embed import Embedder
from ..errors import StorageError
from ..model import Node, NodeFilter
from ..store import Store
from .hits import content_hash, embed_text
from .passages import later_rows
from .shared_lock import SharedLock
from .vectors import VectorSource

log = logging.getLogger(__name__)

_EMBEDDER_SETTING = "embedder"
_PASSAGE_SETTING = "passage_words"
_TWO_SENTENCES_CHARS = 24  # "I moved. It was hard." is 21: shorter texts hold one
# Nodes read per flush step. The model sorts each step by length so a batch pads
# little: 1,024 gave ~335 embeddings/s on 15-word texts where 256 gave ~300, and
# a stop request (closing with a background worker) waits at most one step.
_EMBED_BATCH = 1024
_PROGRESS_SLICE = 128  # nodes embedded between two reports of progress
_MADE_KEPT = 1024  # vectors searches made, kept in memory until stored


def queue_for(store: Store, embedder: Embedder, window: int | None) -> None:
    """Queue the nodes whose vectors this embedder, cutting texts into rows
    of `window` words, must make again."""
    if store.get_setting(_EMBEDDER_SETTING) != embedder.identity:
        # A new model: every node without its vector must be (re)embedded.
        with store.transaction():
            store.queue_missing_vectors(embedder.identity)
            store.set_setting(_EMBEDDER_SETTING, embedder.identity)
    passage = f"{window or 0} sentences"
    if window and store.get_setting(_PASSAGE_SETTING) != passage:
        # Vectors made before every part of a text got its row: texts of
        # one row are embedded again if they may need passages (fewer
        # characters than twice the window's words fit in it) or have a
        # sentence break (one without would come out the same).
        with store.transaction():
            row = 4 * embedder.dimensions
            store.queue_single_vectors(embedder.identity, row, 2 * window)
            store.queue_single_vectors(embedder.identity, row, _TWO_SENTENCES_CHARS, broken=True)
            store.set_setting(_PASSAGE_SETTING, passage)


class Embedding:
    """Mixed into `Retriever`: the vectors it makes, keeps and stores."""

    store: Store
    embedder: Embedder
    window: int | None  # words a passage holds (None: the model reads any length)
    index: VectorSource
    _lock: threading.Lock
    _index_lock: SharedLock
    # Vectors searches made for queued nodes, kept until flush or close store them.
    _made: dict[str, tuple[Node, str, npt.NDArray[np.float32]]]

    def keep_vector(self, node: Node, text: str, vector: npt.NDArray[np.float32]) -> bool:
        """Store `vector`, computed from `text`, as `node`'s own if `text` is what
        its vector is made from (saves embedding it again) and it has no later
        passages to embed; False otherwise."""
        if embed_text(node) != text or later_rows(text, self.window, node.context_name):
            return False
        self._store_vectors([node], [text], [vector])
        return True

    def vectors(self, node_ids: list[str]) -> dict[str, npt.NDArray[np.float32]]:
        """Current vectors of these nodes (archived ones have none). Those still
        waiting for theirs are embedded now, and kept if the write lock is
        free: the cost grows with the nodes asked for, never with the queue."""
        self._synced()
        with self._index_lock.shared():
            found = self.index.vectors(node_ids)
        waiting = self.store.visible([i for i in node_ids if i not in found], NodeFilter())
        if waiting:
            nodes = list(waiting.values())
            texts, made, _ = self._embed(nodes)
            self._keep_vectors(nodes, texts, made)
            found.update({n.id: v[0] for n, v in zip(nodes, made, strict=True)})
        return found

    def _embed(
        self, nodes: list[Node], also: list[str] | None = None
    ) -> tuple[list[str], list[npt.NDArray[np.float32]], npt.NDArray[np.float32]]:
        """Each node's text and rows (its own vector, then its passages' or sentences'),
        and the vectors of the texts `also`, made in one batch."""
        texts = [embed_text(n) for n in nodes]
        later = [
            later_rows(t, self.window, n.context_name) for t, n in zip(texts, nodes, strict=True)
        ]
        extra = also or []
        made = self.embedder.embed_batch([*texts, *(p for ps in later for p in ps), *extra])
        rows, cursor = [], len(texts)
        for own, more in zip(made, later, strict=False):
            rows.append(np.vstack([own, made[cursor : cursor + len(more)]]))
            cursor += len(more)
        return texts, rows, made[cursor:]

    def pending(self) -> int:
        return self.store.count_pending_vectors()

    def flush(
        self,
        progress: Callable[[int], None] | None = None,
        stop: Callable[[], bool] | None = None,
    ) -> int:
        """Embed every node that lacks a vector (until `stop()` says so, checked
        between batches); returns how many were embedded."""
        done = self.store_made()
        with self.index.bulk(self.store.count_pending_vectors()):
            while stop is None or not stop():
                nodes = self.store.pending_vectors(_EMBED_BATCH)
                if not nodes:
                    return done
                texts: list[str] = []
                rows: list[npt.NDArray[np.float32]] = []
                # Embedded a slice at a time so progress moves while a batch is made.
                for start in range(0, len(nodes), _PROGRESS_SLICE):
                    part = nodes[start : start + _PROGRESS_SLICE]
                    made_texts, made_rows, _ = self._embed(part)
                    texts += made_texts
                    rows += made_rows
                    if progress is not None:
                        progress(len(part))
                self._store_vectors(nodes, texts, rows)
                done += len(nodes)
        return done

    def _vector_rows(self, nodes: list[Node], texts: list[str], vectors: Any) -> list[Any]:
        # Each vector carries the text it was computed from: a node edited
        # meanwhile (by another thread or process) keeps its place in the queue.
        return [
            (n.id, content_hash(t), v.astype(np.float32).tobytes(), n.text, n.context_name)
            for n, t, v in zip(nodes, texts, vectors, strict=True)
        ]

    def _store_vectors(self, nodes: list[Node], texts: list[str], vectors: Any) -> None:
        rows = self._vector_rows(nodes, texts, vectors)
        with self.store.transaction():
            self.store.put_vectors(self.embedder.identity, rows)
            self.store.prune_tombstones()

    def _keep_vectors(self, nodes: list[Node], texts: list[str], vectors: Any) -> None:
        """Keep vectors a read computed in memory: a search never writes. The
        next search uses them as they are, and `flush` (or closing) stores them."""
        with self._lock:
            for node, text, rows in zip(nodes, texts, vectors, strict=True):
                self._made[node.id] = (node, text, rows)
            while len(self._made) > _MADE_KEPT:  # the oldest go first
                self._made.pop(next(iter(self._made)))

    def _made_for(self, nodes: list[Node]) -> dict[str, npt.NDArray[np.float32]]:
        """Rows a read made earlier for these nodes, where their text is the same."""
        with self._lock:
            kept = [(n, self._made.get(n.id)) for n in nodes]
        return {
            node.id: found[2]
            for node, found in kept
            if found is not None and found[1] == embed_text(node)
        }

    def store_made(self) -> int:
        """Store the vectors searches made for nodes whose text is still what
        they were made from (the write a search does not do); returns how many.
        A file that cannot be written keeps them in memory."""
        with self._lock:
            made = list(self._made.values())
            self._made.clear()
        current = {n.id: n for n in self.store.get_many([node.id for node, _, _ in made])}
        kept = [
            (current[node.id], text, rows)
            for node, text, rows in made
            if node.id in current and embed_text(current[node.id]) == text
        ]
        if not kept:
            return 0
        nodes, texts, rows = (list(column) for column in zip(*kept, strict=True))
        try:
            self._store_vectors(nodes, texts, rows)
        except StorageError as exc:  # a read-only file: the work is kept for later
            log.warning("vectors not stored: %s", exc)
            self._keep_vectors(nodes, texts, rows)
            return 0
        return len(kept)

    def _synced(self) -> None:
        """Bring the index up to the store: alone, and only when it is behind."""
        if not self.index.current():
            with self._index_lock.exclusive():
                self.index.sync()
