"""The int8 query graph kept on disk between processes: a process that finds
it searches without loading the full model; an entry that does not check out
is discarded and never used; a cache that cannot be written costs only time."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from mnemotree.config import ENV_CACHE, ENV_QUERY_GRAPH
from mnemotree.embed.minilm import MiniLMEmbedder
from mnemotree.errors import InvalidInput

QUERY = "when did Alice move to Munich"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv(ENV_CACHE, str(folder))
    return folder


def _reference() -> npt.NDArray[np.float32]:
    """The query's vector by the full model, in batch (the stored vectors' path)."""
    vector: npt.NDArray[np.float32] = MiniLMEmbedder().embed_batch([QUERY])[0]
    return vector


def test_a_second_process_loads_the_kept_graph_without_the_full_model(cache: Path) -> None:
    first = MiniLMEmbedder()
    vector = first.embed_query(QUERY)
    kept = sorted(p.suffix for p in cache.iterdir())
    assert kept == ([".json", ".onnx"] if first.query_path == "int8 graph" else [".json"])

    later = MiniLMEmbedder()  # as a new process would
    again = later.embed_query(QUERY)
    assert later.query_path == first.query_path
    assert later._session is None  # the batch model was never loaded
    assert np.allclose(again, vector, atol=1e-6)
    assert float(again @ _reference()) > 0.999


def test_a_corrupted_graph_is_discarded_and_rebuilt(cache: Path) -> None:
    first = MiniLMEmbedder()
    first.embed_query(QUERY)
    if first.query_path != "int8 graph":
        pytest.skip("this machine answers queries with the full model: no graph is kept")
    (graph,) = cache.glob("*.onnx")
    data = bytearray(graph.read_bytes())
    data[len(data) // 2] ^= 0xFF  # one weight byte: still a loadable model, a wrong one
    graph.write_bytes(bytes(data))

    later = MiniLMEmbedder()
    vector = later.embed_query(QUERY)
    assert later._session is not None  # it probed again against the full model
    assert float(vector @ _reference()) > 0.999
    # The new probe times both paths again and may choose either; whichever it
    # chose is the new entry, and the damaged bytes are kept nowhere.
    if later.query_path == "int8 graph":
        assert graph.read_bytes() != bytes(data)
    else:
        assert not graph.exists()
    assert all(p.read_bytes() != bytes(data) for p in cache.iterdir())

    third = MiniLMEmbedder()
    assert np.allclose(third.embed_query(QUERY), vector, atol=1e-6)
    assert third.query_path == later.query_path
    assert third._session is None


def test_an_entry_of_another_shape_is_discarded(cache: Path) -> None:
    MiniLMEmbedder().embed_query(QUERY)
    (meta,) = cache.glob("*.json")
    meta.write_text('{"path": "a faster graph"}')
    later = MiniLMEmbedder()
    assert float(later.embed_query(QUERY) @ _reference()) > 0.999
    assert '"a faster graph"' not in meta.read_text()


def test_a_cache_that_cannot_be_written_costs_only_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the cache folder would be")
    monkeypatch.setenv(ENV_CACHE, str(blocked))
    embedder = MiniLMEmbedder()
    assert float(embedder.embed_query(QUERY) @ _reference()) > 0.999


def test_a_pinned_full_model_embeds_queries_as_documents_are(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_QUERY_GRAPH, "FULL")
    embedder = MiniLMEmbedder()
    assert np.array_equal(embedder.embed_query(QUERY), _reference())
    assert embedder.query_path == "full model"
    assert not cache.exists() or not any(cache.iterdir())  # nothing probed, nothing kept


def test_an_unknown_query_graph_names_the_value_and_the_choices(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_QUERY_GRAPH, "fastest")
    with pytest.raises(InvalidInput, match=r"MNEMOTREE_QUERY_GRAPH='fastest'.*'full' or 'auto'"):
        MiniLMEmbedder().embed_query(QUERY)


def test_a_query_gets_the_same_vector_whatever_is_queued(cache: Path, db_path: Path) -> None:
    from mnemotree import Memory

    with Memory(db_path, embedder="minilm") as mem:
        moved = mem.add("Alice moved to Munich in the spring of 2021")
        mem.flush()
        mem.add("Bob adopted a grey cat called Pixel")  # queued: embedded in the search
        assert mem.pending_vectors() == 1
        hit = next(h for h in mem.search(QUERY, record=False) if h.node.id == moved.id)
        alone = mem.retriever.embed_query(QUERY)
        stored = mem.retriever.vectors([moved.id])[moved.id]
        assert hit.parts["semantic"] == pytest.approx(float(alone @ stored), abs=1e-6)
