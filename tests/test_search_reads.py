"""A search reads what it needs of its keyword candidates while the query is
embedded (`Reads`): the answers are the store's own, each node is read once
per search, nothing is read once the vector is ready, and the ranking is the
same whether anything was read ahead or not."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from mnemotree import Memory
from mnemotree.embed import get_embedder
from mnemotree.model import Node, NodeFilter
from mnemotree.retrieval.rank import ACCESSES_COUNTED
from mnemotree.retrieval.reads import Reads
from mnemotree.timeutil import to_iso
from tests.helpers import Clock

pytestmark = pytest.mark.both_stores


class SlowEmbedder:
    """The hashing embedder, taking as long as a real model to embed a query."""

    def __init__(self) -> None:
        self.inner = get_embedder("hashing")
        self.identity = self.inner.identity
        self.dimensions = self.inner.dimensions
        self.slow = False

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        if self.slow:
            time.sleep(0.05)
        return self.inner.embed_batch(texts)


def _notes(memory: Memory) -> tuple[Node, list[Node]]:
    """A document in scope `team`, its sections and their notes."""
    guide = memory.add("Deployment guide", scope="team")
    sections = [memory.append_child(guide.id, f"Section {n}") for n in range(3)]
    notes = [
        memory.append_child(section.id, f"note {n} about deploys on {day}")
        for section in sections
        for n, day in enumerate(("Monday", "Friday", "Sunday"))
    ]
    return guide, [*sections, *notes]


def test_the_answers_are_the_stores_own(memory: Memory) -> None:
    guide, nodes = _notes(memory)
    memory.search("deploys on Friday", record=True)  # some accesses to read
    store, where = memory.store, NodeFilter(scopes=("team",))
    ids = sorted(n.id for n in nodes)
    now = memory.clock()
    reads = Reads(store, where, now)
    reads.ahead(ids[:4], busy=lambda: True)  # some read ahead, some not
    assert reads.visible(ids) == store.visible(ids, where)
    assert sorted(reads.adjacent(ids)) == sorted(store.adjacent(ids))
    assert reads.access_ages(ids) == store.access_ages(ids, to_iso(now), ACCESSES_COUNTED)
    assert reads.usage_counts(ids) == store.usage_counts(ids)
    assert reads.ancestor_links(ids) == store.ancestor_links(ids)
    assert reads.ancestors([guide.id, "no-such-node"]) == store.visible([guide.id], where)


def test_a_node_is_read_once_per_search(memory: Memory) -> None:
    _, nodes = _notes(memory)
    note, sibling = nodes[-1], nodes[-2]
    reads = Reads(memory.store, NodeFilter(scopes=("team",)), memory.clock())
    reads.visible([note.id])  # a keyword candidate, read by the search
    reads.ahead([note.id], busy=lambda: True)  # its sibling, read while the query is embedded
    for node in (note, sibling):
        memory.update(node.id, text="rewritten after the search began")
    assert reads.visible([note.id, sibling.id]) == {note.id: note, sibling.id: sibling}
    fresh = Reads(memory.store, NodeFilter(scopes=("team",)), memory.clock())
    assert {n.text for n in fresh.visible([note.id, sibling.id]).values()} == {
        "rewritten after the search began"
    }


def test_nothing_is_read_ahead_once_the_vector_is_ready(memory: Memory) -> None:
    _, nodes = _notes(memory)
    note, sibling = nodes[-1], nodes[-2]
    reads = Reads(memory.store, NodeFilter(scopes=("team",)), memory.clock())
    reads.visible([note.id])
    reads.ahead([note.id], busy=lambda: False)
    memory.update(sibling.id, text="rewritten before it was asked for")
    assert reads.visible([sibling.id])[sibling.id].text == "rewritten before it was asked for"


def test_reading_ahead_leaves_the_ranking_as_it_was(db_path: Path, clock: Clock) -> None:
    embedder = SlowEmbedder()
    with Memory(db_path, embedder=embedder, clock=clock) as memory:
        _notes(memory)
        for n in range(30):
            memory.add(f"deploy log {n}: shipped on Friday, rolled back {n % 4} times")
        memory.flush()
        embedder.slow = True  # the keyword side is read ahead while the query is embedded
        queries = ["deploys on Friday", "rolled back twice", "Sunday note", "shipped logs"]
        ahead = {q: memory.search(q, record=False) for q in queries}
        memory.retriever.parallel = False  # one thread: nothing is read ahead
        memory.retriever.forget_queries()
        for query, hits in ahead.items():
            alone = memory.search(query, record=False)
            assert [(h.node.id, h.score, h.parts) for h in hits] == [
                (h.node.id, h.score, h.parts) for h in alone
            ]
            assert [[a.id for a in h.ancestry] for h in hits] == [
                [a.id for a in h.ancestry] for h in alone
            ]
