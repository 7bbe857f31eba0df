"""The usearch graph (extra `ann`): same answers as exact search, kept in sync, persisted."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from mnemotree import Memory
from mnemotree.model import NodeFilter
from mnemotree.retrieval.vectors import VectorIndex


def _index(mem: Memory) -> VectorIndex:
    """The in-memory vector index (these tests run on SQLite)."""
    index = mem.retriever.index
    assert isinstance(index, VectorIndex)
    return index


pytest.importorskip("usearch")

WORDS = "tea coffee river mountain garden invoice budget meeting python sqlite vector".split()


def _texts(n: int, seed: int = 3) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choice(WORDS) for _ in range(6)) + f" item{i}" for i in range(n)]


def test_graph_candidates_are_scored_exactly(db_path: Path) -> None:
    with Memory(db_path, embedder="hashing", ann_min_rows=100) as mem:
        root = mem.add("Notes")
        nodes = mem.append_many(root.id, _texts(600))
        mem.flush()
        index = _index(mem)
        index.sync()
        embedder = mem.retriever.embedder
        everything = NodeFilter()
        found_itself = 0
        for node in nodes[::60]:
            vector = embedder.embed_batch([node.text])[0]
            graph = index.search(vector, everything, 10)
            assert index.uses_graph
            # The graph only proposes; every score is the exact cosine, best first.
            exact_scores = index.similarity(vector, [i for i, _ in graph])
            assert [s for _, s in graph] == pytest.approx([exact_scores[i] for i, _ in graph])
            assert [s for _, s in graph] == sorted((s for _, s in graph), reverse=True)
            found_itself += node.id in [i for i, _ in graph]
            saved, index.ann_min_rows = index.ann_min_rows, None
            exact = index.search(vector, everything, 10)
            index.ann_min_rows = saved
            # Approximate recall: most of the true top ten (HNSW builds vary by run).
            found = {round(s, 3) for _, s in graph}
            assert sum(round(s, 3) in found for _, s in exact) >= 5
        # Its own vector is found (the graph is approximate: a build may miss one
        # of ten among 600 near-alike hashing vectors; seen once in many runs).
        assert found_itself >= 9


def test_graph_follows_deletes_updates_and_scopes(db_path: Path) -> None:
    with Memory(db_path, embedder="hashing", ann_min_rows=50) as mem:
        nodes = [mem.remember(t, scope="a") for t in _texts(120)]
        hidden = mem.remember("tea garden secret", scope="b")
        mem.flush()  # a search leaves a long queue to flush (or the worker)
        mem.search("warm up the graph", scopes=["a", "b"], record=False)
        assert _index(mem).uses_graph
        target = nodes[7]
        mem.update(target.id, "a tea garden by the river")
        gone = nodes[8]
        mem.delete(gone.id)
        hits = mem.search("tea garden river", scopes=["a"], limit=20, record=False)
        found = [h.node.id for h in hits]
        # Among the top: a few random notes hold all three words as well.
        assert target.id in found[:5]
        assert gone.id not in found and hidden.id not in found


def test_graph_is_saved_beside_the_database_and_reused(db_path: Path) -> None:
    with Memory(db_path, embedder="hashing", ann_min_rows=50) as mem:
        root = mem.add("Notes")
        mem.append_many(root.id, _texts(200))
        mem.flush()  # a search leaves a long queue to flush (or the worker)
        mem.search("tea", record=False)
    files = list(db_path.parent.glob("memory.db.*.usearch"))
    assert len(files) == 1
    with Memory(db_path, embedder="hashing", ann_min_rows=50) as mem:
        extra = mem.remember("zebra crossing at noon")
        hits = mem.search("zebra crossing", record=False)
        assert hits[0].node.id == extra.id  # the reloaded graph took in the new row
        index = _index(mem)
        assert index.uses_graph and len(index.graph()) == index.live


def test_a_damaged_graph_file_is_rebuilt(db_path: Path) -> None:
    with Memory(db_path, embedder="hashing", ann_min_rows=50) as mem:
        root = mem.add("Notes")
        mem.append_many(root.id, _texts(120))
        mem.flush()  # a search leaves a long queue to flush (or the worker)
        mem.search("tea", record=False)
    (graph_file,) = db_path.parent.glob("memory.db.*.usearch")
    graph_file.write_bytes(b"not a graph")
    with Memory(db_path, embedder="hashing", ann_min_rows=50) as mem:
        assert mem.search("tea coffee", record=False)
        assert len(_index(mem).graph()) == 121


def test_the_exact_path_is_used_below_the_threshold(db_path: Path) -> None:
    with Memory(db_path, embedder="hashing") as mem:
        mem.remember("tea")
        mem.search("tea", record=False)
        assert not _index(mem).uses_graph
        assert np.isfinite(_index(mem).matrix).all()


def test_a_graph_left_by_an_earlier_database_is_not_trusted(db_path: Path) -> None:
    with Memory(db_path, embedder="hashing", ann_min_rows=50) as mem:
        root = mem.add("Old")
        mem.append_many(root.id, _texts(200, seed=1))
        mem.flush()  # a search leaves a long queue to flush (or the worker)
        mem.search("tea", record=False)
    assert list(db_path.parent.glob("memory.db.*.usearch"))  # the graph left behind
    for leftover in db_path.parent.glob("memory.db*"):
        if not leftover.name.endswith((".usearch", ".usearch.json")):
            leftover.unlink()
    with Memory(db_path, embedder="hashing", ann_min_rows=50) as mem:
        root = mem.add("New")
        fresh = mem.append_many(root.id, [f"zebra {i} crossing" for i in range(200)])
        mem.flush()
        index = _index(mem)
        index.sync()
        vector = mem.retriever.embedder.embed_batch([fresh[7].text])[0]
        found = index.search(vector, NodeFilter(), 5)
        assert index.uses_graph and found[0][0] == fresh[7].id


def test_the_graph_can_be_built_ahead_with_progress(db_path: Path) -> None:
    with Memory(db_path, embedder="hashing", ann_min_rows=50) as mem:
        root = mem.add("Notes")
        mem.append_many(root.id, _texts(300))
        steps: list[int] = []
        rows = mem.prepare_index(steps.append)
        assert rows == 301 and sum(steps) == 301  # the notes and their root
        index = _index(mem)
        assert index.uses_graph
        graph = index.graph()
        mem.search("tea", record=False)
        assert index.graph() is graph  # the first search reuses it
    with Memory(db_path, embedder="hashing", ann_min_rows=50) as mem:
        steps = []
        assert mem.prepare_index(steps.append) == 301
        assert sum(steps) == 0  # loaded from its file: nothing to add


def test_a_narrow_scan_of_half_precision_rows_converts_them_once(db_path: Path) -> None:
    """Rows kept at half precision are converted for an exact scan once per
    filter and kept with it, until the index changes: a vector stored after
    is found by the next search."""
    with Memory(db_path, embedder="hashing", ann_min_rows=100) as mem:
        big, small = mem.add("Big"), mem.add("Small")
        mem.append_many(big.id, _texts(400))
        mem.append_many(small.id, _texts(30, seed=5))
        mem.flush()
        index = _index(mem)
        index.sync()
        assert index._data.dtype == np.float16
        query = mem.retriever.embed_query("river garden budget")
        narrow = NodeFilter(roots=(small.id,))
        first = index.search(query, narrow, 5)
        allowed = index._allowed(narrow)
        assert allowed.gathered is not None and allowed.gathered[1].dtype == np.float32
        assert index.search(query, narrow, 5) == first
        index.ann_min_rows = None  # the same answer without the graph, converting anew
        index._forget_masks()
        assert index.search(query, narrow, 5) == first
        added = mem.append_child(small.id, "river garden budget river garden budget")
        mem.flush()
        index.sync()
        assert index.search(query, narrow, 1)[0][0] == added.id
