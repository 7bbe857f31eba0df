"""Texts are judged whole: a model that reads a text's start gets one more
vector per later passage of a long text, or per sentence of a shorter one;
search scores a node by its best row (less the log of how many independent
looks its rows are worth), and older databases are brought up to it."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mnemotree import Memory
from mnemotree.embed import register_embedder
from mnemotree.embed.hashing import HashingEmbedder
from mnemotree.model import NodeFilter
from mnemotree.retrieval.passages import (
    MAX_PASSAGES,
    OVERLAP,
    effective_looks,
    later_rows,
    passages,
    window_words,
)
from mnemotree.retrieval.rank import Surprise
from mnemotree.retrieval.vectors import VectorIndex


def _index(mem: Memory) -> VectorIndex:
    """The in-memory vector index (these tests run on SQLite)."""
    index = mem.retriever.index
    assert isinstance(index, VectorIndex)
    return index


class ShortHashing(HashingEmbedder):
    """The hashing embedder reading only a text's first 50 tokens, as MiniLM
    reads its first 256."""

    max_tokens = 50

    def __init__(self) -> None:
        super().__init__()
        self.identity = "hashing-256-first-50"

    def embed_batch(self, texts):  # type: ignore[no-untyped-def]
        return super().embed_batch([" ".join(t.split()[: self.max_tokens]) for t in texts])


register_embedder("short-hashing", ShortHashing)
FILLER = "tea coffee river mountain garden budget meeting window lamp chair".split()


def filler(words: int, seed: int) -> str:
    rng = random.Random(seed)
    return " ".join(rng.choice(FILLER) for _ in range(words))


@given(st.integers(0, 20_000), st.integers(16, 300))
def test_passages_cover_every_word_after_the_first_window(words: int, window: int) -> None:
    text = " ".join(f"w{i}" for i in range(words))
    found = passages(text, window)
    if words <= window:
        assert found == []
        return
    assert 1 <= len(found) <= MAX_PASSAGES
    assert all(len(p.split()) <= window for p in found)
    starts = [int(p.split()[0][1:]) for p in found]
    assert starts == sorted(starts) and starts[0] > 0
    assert int(found[-1].split()[-1][1:]) == words - 1  # the text's end is read
    if len(found) < MAX_PASSAGES:  # every word is in the first window or a passage
        step = int(window * (1 - OVERLAP))
        assert all(b - a <= step for a, b in zip([0, *starts], starts, strict=False))


def test_only_an_embedder_that_reads_a_start_gets_passages() -> None:
    assert window_words(HashingEmbedder()) is None
    assert window_words(ShortHashing()) == 30
    assert passages("word " * 10_000, None) == []


def test_the_best_of_many_looks_has_less_evidence() -> None:
    surprise = Surprise(0.1, 0.1)
    one, many = surprise.meaning(0.5), surprise.meaning(0.5, looks=8)
    assert many == pytest.approx(one - 2.0794, abs=1e-3)  # ln 8
    assert surprise.meaning(0.12, looks=30) == 0.0  # never below nothing


def test_a_long_message_is_found_by_a_passage_far_past_its_start(db_path: Path) -> None:
    with Memory(db_path, embedder="short-hashing") as mem:
        chat = mem.add("Chat")
        late = "the harbour ferry leaves at dawn from pier seven"
        long = mem.append_child(chat.id, f"{filler(400, 1)} {late} {filler(60, 2)}")
        others = mem.append_many(chat.id, [filler(20, s) for s in range(3, 80)])
        mem.flush()
        index = _index(mem)
        index.sync()
        looks = index.looks_of([long.id, *(o.id for o in others)])
        assert looks[long.id] > 1 and all(looks[o.id] == 1 for o in others)
        hits = mem.search("harbour ferry pier", limit=5, record=False)
        assert hits[0].node.id == long.id
        # The node's own row (its start) knows nothing of the ferry; its passage does.
        own = index.vectors([long.id])[long.id]
        query = mem.retriever.embed_query("harbour ferry pier")
        best = hits[0].parts["semantic"]
        assert float(own @ query) < 0.0 < best
        assert best == pytest.approx(index.similarity(query, [long.id])[long.id])
        # Only the nodes' own rows are neighbours, each node once.
        near = index.neighbours([others[0].id], 100)[others[0].id]
        assert len({i for i, _ in near}) == len(near) and long.id in {i for i, _ in near}


def test_a_node_is_listed_once_whatever_its_passages(db_path: Path) -> None:
    with Memory(db_path, embedder="short-hashing", ann_min_rows=50) as mem:
        root = mem.add("Notes")
        nodes = mem.append_many(root.id, [filler(300, s) for s in range(120)])
        mem.flush()
        _index(mem).sync()
        query = mem.retriever.embed_query("river mountain garden")
        for ann in (50, None):  # through the graph, then exactly
            _index(mem).ann_min_rows = ann
            found = _index(mem).search(query, NodeFilter(), 30)
            assert len(found) == 30 == len({i for i, _ in found})
            assert {i for i, _ in found} <= {n.id for n in nodes}
            scores = _index(mem).similarity(query, [i for i, _ in found])
            assert [s for _, s in found] == pytest.approx([scores[i] for i, _ in found])
            assert _index(mem).uses_graph  # built by the first, graph search


def test_an_edit_or_delete_retires_every_passage(db_path: Path) -> None:
    with Memory(db_path, embedder="short-hashing") as mem:
        root = mem.add("Notes")
        long = mem.append_child(root.id, f"{filler(200, 1)} zeppelin hangar {filler(40, 2)}")
        mem.append_many(root.id, [filler(20, s) for s in range(3, 70)])
        mem.flush()
        assert mem.search("zeppelin hangar", record=False)[0].node.id == long.id
        mem.update(long.id, filler(200, 5))
        mem.flush()
        assert all(h.node.id != long.id for h in mem.search("zeppelin hangar", record=False))
        mem.delete(long.id)
        mem.flush()
        _index(mem).sync()
        assert _index(mem).similarity(mem.retriever.embed_query("tea"), [long.id]) == {}


def test_an_older_database_gets_passages_for_its_long_texts(db_path: Path) -> None:
    with Memory(db_path, embedder="short-hashing") as mem:
        root = mem.add("Notes")
        long = mem.append_child(root.id, f"{filler(200, 1)} zeppelin hangar")
        short = mem.append_child(root.id, "a short note")
        mem.flush()
        # As an older version left it: one row per node, no passage setting.
        single = mem.retriever.embedder.embed_batch([long.text])[0]
        with mem.store.transaction():
            mem.store.put_vectors(
                mem.retriever.embedder.identity,
                [(long.id, "old", single.tobytes(), long.text, long.context_name)],
            )
            mem.store.set_setting("passage_words", "")
    with Memory(db_path, embedder="short-hashing") as mem:
        assert mem.pending_vectors() == 1  # the long one only, not `short`
        mem.flush()
        _index(mem).sync()
        assert _index(mem).looks_of([long.id])[long.id] > 1
        assert _index(mem).looks_of([short.id])[short.id] == 1


def test_a_text_of_several_sentences_gets_a_row_per_sentence() -> None:
    text = "Melanie: Thanks for the tip! BTW, I had a setback last month. I got hurt at pottery."
    assert later_rows(text, 150, "Melanie") == [
        "Melanie: Thanks for the tip!",
        "Melanie: BTW, I had a setback last month.",
        "Melanie: I got hurt at pottery.",
    ]
    assert later_rows("Wow! Thanks so much.", 150) == []  # no sentence of three words
    assert later_rows("One plain sentence of words here.", 150) == []
    assert later_rows(text, None, "Melanie") == []  # an embedder that reads any length
    long = " ".join(f"Sentence number {i} is here." for i in range(100))
    assert later_rows(long, 40) == passages(long, 40)  # a long text: its passages


def test_sentences_beyond_the_limit_are_spread_over_the_text() -> None:
    text = " ".join(f"Item {i} was packed." for i in range(3 * MAX_PASSAGES))
    rows = later_rows(text, 10_000)
    assert len(rows) == MAX_PASSAGES
    assert (
        rows[0] == "Item 0 was packed." and rows[-1] == f"Item {3 * MAX_PASSAGES - 1} was packed."
    )


unit_rows = st.lists(
    st.lists(st.floats(-1, 1, allow_nan=False), min_size=4, max_size=4).filter(
        lambda v: sum(x * x for x in v) > 1e-3
    ),
    min_size=1,
    max_size=8,
)


@given(unit_rows)
def test_effective_looks_lie_between_one_and_the_row_count(raw: list[list[float]]) -> None:
    rows = np.array(raw, dtype=np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    worth = effective_looks(rows)
    assert 1.0 <= worth <= len(rows) + 1e-6


def test_alike_rows_are_one_look_and_unlike_rows_are_many() -> None:
    same = np.tile(np.array([[0.6, 0.8, 0.0]], dtype=np.float32), (5, 1))
    assert effective_looks(same) == pytest.approx(1.0)
    assert effective_looks(np.eye(4, dtype=np.float32)) == pytest.approx(4.0)
    # Two rows at 60 degrees (cosine 0.5): 2 / (1 + 0.5) draws.
    pair = np.array([[1.0, 0.0], [0.5, 3**0.5 / 2]], dtype=np.float32)
    assert effective_looks(pair) == pytest.approx(2 / 1.5, rel=1e-5)


def test_a_sentence_inside_a_message_is_matched_on_its_own(db_path: Path) -> None:
    with Memory(db_path, embedder="short-hashing") as mem:
        chat = mem.add("Chat")
        said = mem.append_child(
            chat.id,
            f"{filler(12, 1)}. {filler(10, 2)}. The zeppelin hangar flooded overnight. "
            f"{filler(12, 3)}.",
        )
        mem.append_many(chat.id, [f"{filler(14, s)}." for s in range(4, 60)])
        mem.flush()
        index = _index(mem)
        index.sync()
        assert 1.0 < index.looks_of([said.id])[said.id] < 5  # four sentences, alike in part
        query = mem.retriever.embed_query("zeppelin hangar flooded overnight")
        own = index.vectors([said.id])[said.id]
        best = index.similarity(query, [said.id])[said.id]
        assert best > 2 * float(own @ query)  # the sentence row, not the whole
        assert (
            mem.search("zeppelin hangar flooded overnight", limit=3, record=False)[0].node.id
            == said.id
        )


def test_an_older_database_gets_sentence_rows_for_its_messages(db_path: Path) -> None:
    text = "We moved the launch to May. Priya owns the migration. Tickets are 420 a month."
    with Memory(db_path, embedder="short-hashing") as mem:
        root = mem.add("Notes")
        said = mem.append_child(root.id, text)
        mem.flush()
        single = mem.retriever.embedder.embed_batch([said.text])[0]
        with mem.store.transaction():  # as a version before sentence rows left it
            mem.store.put_vectors(
                mem.retriever.embedder.identity,
                [(said.id, "old", single.tobytes(), said.text, said.context_name)],
            )
            mem.store.set_setting("passage_words", "30")
    with Memory(db_path, embedder="short-hashing") as mem:
        assert mem.pending_vectors() == 1
        mem.flush()
        _index(mem).sync()
        assert _index(mem).looks_of([said.id])[said.id] > 1


def test_fewer_nodes_than_the_threshold_with_more_rows_search_through_the_graph(
    db_path: Path,
) -> None:
    """A scan reads rows, not nodes: 20 nodes of several passages each go
    through the graph at a threshold of 50 rows, as 50 one-row nodes would,
    and find what an exact scan finds."""
    with Memory(db_path, embedder="short-hashing", ann_min_rows=50) as mem:
        root = mem.add("Notes")
        mem.append_many(root.id, [filler(150, s) for s in range(20)])
        mem.flush()
        index = _index(mem)
        index.sync()
        rows = int(index._alive[: index._n].sum())
        assert index.live == 21 < 50 <= rows  # the root and the notes; their rows
        query = mem.retriever.embed_query("river mountain garden")
        graphed = index.search(query, NodeFilter(), 10)
        assert index.uses_graph and index.kind == "usearch graph + exact re-rank"
        index.ann_min_rows = None
        assert index.search(query, NodeFilter(), 10) == graphed
