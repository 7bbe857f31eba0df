"""Background embedding: writes never wait for the model, searches never miss a node."""

from __future__ import annotations

from pathlib import Path

import pytest

from mnemotree import InvalidInput, Memory


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
        hits = mem.search("spare key flowerpot", record=False)
        assert hits and hits[0].node.id == fresh.id
        assert hits[0].parts["semantic"] > 0  # its vector was there, made by whoever came first


def test_background_needs_a_file(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="memory"):
        Memory(":memory:", embedder="hashing", background=True)


def test_without_a_worker_waiting_flushes_inline(db_path: Path) -> None:
    with Memory(db_path, embedder="hashing") as mem:
        mem.remember("hello")
        assert mem.pending_vectors() == 2  # the note and its scope's space
        assert mem.wait_for_vectors()
        assert mem.pending_vectors() == 0
