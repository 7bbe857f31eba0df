"""Background embedding: writes never wait for the model; a node waiting for its
vector is found by its words, and by its meaning once the worker has embedded it."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from mnemotree import InvalidInput, InvalidOperation, Memory
from mnemotree.retrieval.search import content_hash, embed_text


def test_the_worker_embeds_what_is_written(db_path: Path) -> None:
    with Memory(db_path, embedder="hashing", background=True) as mem:
        written = [mem.remember(f"note number {i} about gardens") for i in range(300)]
        assert mem.wait_for_vectors(timeout=30)
        assert mem.pending_vectors() == 0
        stored = mem.store._db.execute("SELECT count(*) FROM vectors").fetchone()[0]  # type: ignore[attr-defined]
        assert stored >= len(written)


def test_a_search_right_after_a_write_finds_the_node(db_path: Path) -> None:
    with Memory(db_path, embedder="hashing", background=True) as mem:
        for i in range(50):
            mem.remember(f"filler {i}")
        fresh = mem.remember("the spare key is under the blue flowerpot")
        # Found at once by its words, whether or not the worker has embedded it
        # (a search leaves the queue to the worker)...
        hits = mem.search("spare key flowerpot", record=False)
        assert hits and hits[0].node.id == fresh.id
        # ...and by its meaning once the worker has.
        assert mem.wait_for_vectors(timeout=30)
        hits = mem.search("spare key flowerpot", record=False)
        assert hits[0].node.id == fresh.id and hits[0].parts["semantic"] > 0


def test_background_needs_a_file(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="memory"):
        Memory(":memory:", embedder="hashing", background=True)


def test_without_a_worker_waiting_flushes_inline(db_path: Path) -> None:
    with Memory(db_path, embedder="hashing") as mem:
        mem.remember("hello")
        assert mem.pending_vectors() == 2  # the note and its scope's space
        assert mem.wait_for_vectors()
        assert mem.pending_vectors() == 0


class GatedEmbedder:
    """The hashing embedder behind a gate: each batch waits until the test opens it."""

    def __init__(self) -> None:
        from mnemotree.embed import get_embedder

        self.inner = get_embedder("hashing")
        self.identity = "gated-" + self.inner.identity
        self.dimensions = self.inner.dimensions
        self.gate = threading.Event()
        self.entered = threading.Event()

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        self.entered.set()
        assert self.gate.wait(30)
        return self.inner.embed_batch(texts)


def test_an_edit_during_embedding_is_not_overwritten_by_the_old_vector(db_path: Path) -> None:
    embedder = GatedEmbedder()
    with Memory(db_path, embedder=embedder, background=True) as mem:
        node = mem.remember("the old words about tea")
        assert embedder.entered.wait(10)  # the worker holds the old text now
        mem.update(node.id, "entirely new words about rivers")
        embedder.gate.set()
        assert mem.wait_for_vectors(timeout=30)
        db = mem.store._db  # type: ignore[attr-defined]
        (digest,) = db.execute(
            "SELECT content_hash FROM vectors WHERE node_id = ?", (node.id,)
        ).fetchone()
        assert digest == content_hash(embed_text(mem.get(node.id)))


def test_closing_does_not_wait_for_a_long_queue(db_path: Path) -> None:
    embedder = GatedEmbedder()
    embedder.gate.set()
    with Memory(db_path, embedder="hashing") as mem:
        root = mem.add("Backlog")
        mem.append_many(root.id, [f"note {i}" for i in range(3000)])
    mem = Memory(db_path, embedder=embedder, background=True)
    assert embedder.entered.wait(10)
    embedder.gate.clear()  # the worker is stuck in its current batch until we open it
    threading.Timer(0.3, embedder.gate.set).start()
    mem.close()  # returns after the current step, not after the whole queue
    with Memory(db_path, embedder="hashing") as again:
        assert again.store.count_pending_vectors() > 0  # left for later, not lost


def test_a_locked_database_delays_the_worker_but_does_not_stop_it(db_path: Path) -> None:
    embedder = GatedEmbedder()
    with Memory(db_path, embedder=embedder, background=True) as mem:
        mem.remember("written before the lock")
        assert embedder.entered.wait(10)  # the worker is embedding it
        locker = sqlite3.connect(db_path, isolation_level=None)
        locker.execute("BEGIN IMMEDIATE")  # another writer holds the lock for a while
        embedder.gate.set()  # the worker's write now waits for the lock and fails
        time.sleep(2.5)
        locker.execute("ROLLBACK")
        locker.close()
        for _ in range(5):
            try:
                if mem.wait_for_vectors(timeout=30):
                    break
            except InvalidOperation as exc:
                assert "retry" in str(exc)
        assert mem._worker is not None and mem._worker.error is not None  # it did fail
        assert mem.pending_vectors() == 0
