"""A backend with its own vector index (pgvector) answers what retrieval asks
of vectors itself: no process keeps vectors in memory, and on a collection
small enough to be searched exactly it finds what the in-memory index finds."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

from mnemotree import Memory
from mnemotree.model import NodeFilter
from mnemotree.retrieval.stored import StoredVectors
from mnemotree.retrieval.vectors import VectorIndex
from mnemotree.store import VectorSearch
from mnemotree.store.postgres import PostgresStore
from mnemotree.store.sqlite import SQLiteStore
from tests.conftest import PostgresServer
from tests.test_passages import ShortHashing

assert ShortHashing.max_tokens  # registered as SHORT on import

TEXTS = [
    "The deploy runs every Friday at noon",
    "Alice prefers green tea in the morning",
    "Backups are kept for thirty days",
    "The staging database moved to Frankfurt",
    "Bob reviews every pull request on Mondays",
    "Our API keys rotate each quarter",
    "The office plants need water twice a week",
    "Incidents are reported in the #ops channel",
]
SHORT = "short-hashing"  # reads a text's first 50 words: longer ones get passages
FILLER = " ".join(f"word{i}" for i in range(400))  # a long text: several passages


def _fill(mem: Memory) -> list[str]:
    root = mem.add("Notes", scope="team")
    ids = [n.id for n in mem.append_many(root.id, TEXTS)]
    other = mem.add("Elsewhere", scope="other")
    mem.append_child(other.id, "Alice prefers green tea in the morning, says the other team")
    ids.append(mem.append_child(root.id, f"{FILLER} the harbour ferry leaves at dawn").id)
    mem.flush()
    return ids


def test_postgres_answers_vector_questions_itself_and_agrees_with_memory(
    postgres: PostgresServer, tmp_path: Path
) -> None:
    store = PostgresStore(postgres.new_database())
    assert isinstance(store, VectorSearch)
    assert not isinstance(SQLiteStore(tmp_path / "plain.db"), VectorSearch)
    with (
        Memory(tmp_path / "plain2.db", embedder=SHORT, llm="offline") as plain,
        Memory(store=store, embedder=SHORT, llm="offline") as mem,
    ):
        plain_ids = _fill(plain)
        ids = _fill(mem)
        assert isinstance(mem.retriever.index, StoredVectors)
        assert isinstance(plain.retriever.index, VectorIndex)
        for query in ("when do we deploy", "tea preference", "where is the database", "ferry"):
            ours = [h.node.text for h in mem.search(query, scopes=["team"], record=False)]
            theirs = [h.node.text for h in plain.search(query, scopes=["team"], record=False)]
            assert ours == theirs, query
        assert mem.search("tea", scopes=["elsewhere"], record=False) == []
        # The questions one by one, against the in-memory index's answers.
        vector = mem.retriever.embed_query("green tea in the morning")
        where = NodeFilter(scopes=("team",))
        found = mem.retriever.index.search(vector, where, 3)
        known = plain.retriever.index.search(vector, where, 3)
        assert [t for t, _ in _texts(mem, found)] == [t for t, _ in _texts(plain, known)]
        assert np.allclose([c for _, c in found], [c for _, c in known], atol=1e-5)
        (long_id,) = [i for i in ids if mem.get(i).text.startswith("word0")]
        looks = mem.retriever.index.looks_of([long_id, ids[0]])
        assert looks[long_id] > 1 and looks[ids[0]] == 1
        plain.retriever.index.sync()
        same = plain.retriever.index.looks_of([plain_ids[-1], plain_ids[0]])
        assert [looks[long_id], looks[ids[0]]] == pytest.approx(list(same.values()), rel=1e-5)
        ferry = mem.retriever.embed_query("the harbour ferry leaves at dawn")
        own = mem.retriever.index.vectors([long_id])[long_id]
        assert mem.retriever.index.similarity(ferry, [long_id])[long_id] > float(own @ ferry)
        mean, spread, sampled = mem.retriever.index.background(vector, where)
        assert sampled == plain.retriever.index.background(vector, where)[2] == len(ids) + 1
        assert spread > 0 and -1 < mean < 1  # the root, its children: all sampled
        near = mem.retriever.index.neighbours(ids[:2], 2)
        assert set(near) == set(ids[:2]) and all(len(v) == 2 for v in near.values())
        assert all(i not in [n for n, _ in near[i]] for i in near)  # never itself


def _texts(mem: Memory, found: list[tuple[str, float]]) -> list[tuple[str, float]]:
    return [(mem.get(i).text, c) for i, c in found]


def test_a_filter_that_keeps_few_rows_still_finds_them(postgres: PostgresServer) -> None:
    """The index proposes candidates before the filter applies; too few left
    means an exact scan of what the filter allows, not a short answer."""
    with Memory(postgres.new_database(), embedder="hashing", llm="offline") as mem:
        root = mem.add("Many", scope="big")
        mem.append_many(root.id, [f"note number {i} about tea and cakes" for i in range(300)])
        small = mem.add("Few", scope="small")
        kept = mem.append_child(small.id, "a single note about motorcycles")
        mem.flush()
        vector = mem.retriever.embed_query("tea and cakes")
        found = mem.retriever.index.search(vector, NodeFilter(scopes=("small",)), 5)
        assert sorted(i for i, _ in found) == sorted([small.id, kept.id])
        assert len(mem.retriever.index.search(vector, NodeFilter(scopes=("big",)), 50)) == 50


def test_restored_and_edited_vectors_are_indexed(postgres: PostgresServer, tmp_path: Path) -> None:
    out = io.StringIO()
    with Memory(tmp_path / "a.db", embedder="hashing", llm="offline") as source:
        _fill(source)
        source.exchange.export_jsonl(out, include_vectors=True)
    with Memory(postgres.new_database(), embedder="hashing", llm="offline") as mem:
        mem.exchange.import_jsonl(out.getvalue().splitlines())
        assert mem.pending_vectors() == 0  # the vectors came with the backup
        hits = mem.search("green tea", scopes=["team"], record=False)
        assert hits and hits[0].node.text == TEXTS[1]
        vector = mem.retriever.embed_query("green tea")
        assert mem.retriever.index.search(vector, NodeFilter(scopes=("team",)), 1)
        tea = hits[0].node
        mem.update(tea.id, "Alice switched to black coffee")
        mem.flush()
        coffee = mem.retriever.embed_query("black coffee")
        (best, _), *_ = mem.retriever.index.search(coffee, NodeFilter(scopes=("team",)), 1)
        assert best == tea.id


def test_many_vectors_at_once_build_the_index_after_them(
    postgres: PostgresServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """From BULK_ROWS vectors stored at once the HNSW index is dropped and built
    again after them (adding rows to the graph one by one is ~30x slower);
    afterwards it exists and searches use it; a restore does the same."""
    from mnemotree.store.postgres import nearest

    monkeypatch.setattr(nearest, "BULK_ROWS", 20)
    with Memory(postgres.new_database(), embedder="hashing", llm="offline") as mem:
        store = mem.store
        assert isinstance(store, PostgresStore)
        embedder = mem.retriever.embedder.identity
        root = mem.add("Notes", scope="team")
        mem.append_many(root.id, [f"note {i} on the {TEXTS[i % 8].lower()}" for i in range(40)])
        seen: list[bool] = []
        mem.retriever.flush(progress=lambda _: seen.append(store._has_index(embedder)))
        assert seen and not any(seen)  # no graph while the rows went in
        assert store._has_index(embedder)
        hits = mem.search("green tea", scopes=["team"], record=False)
        assert hits and "tea" in hits[0].node.text
        out = io.StringIO()
        mem.exchange.export_jsonl(out, include_vectors=True)
    with Memory(postgres.new_database(), embedder="hashing", llm="offline") as copy:
        copy.exchange.import_jsonl(out.getvalue().splitlines())
        assert copy.store._has_index(embedder)  # type: ignore[attr-defined]
        assert copy.pending_vectors() == 0
        vector = copy.retriever.embed_query("green tea")
        assert len(copy.retriever.index.search(vector, NodeFilter(scopes=("team",)), 5)) == 5
