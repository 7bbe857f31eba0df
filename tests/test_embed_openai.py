"""The OpenAI-compatible embedder against a real local HTTP server."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from mnemotree import Memory, ProviderError
from mnemotree.embed import OpenAIEmbedder, get_embedder
from tests.openai_server import Script, openai_server


def test_vectors_come_back_in_order_and_normalised() -> None:
    script = Script(dimensions=8)
    with openai_server(script) as url:
        embedder = OpenAIEmbedder("local-embed", base_url=url, api_key="k")
        vectors = embedder.embed_batch(["green tea", "", "black coffee"] * 50)
    assert vectors.shape == (150, 8)
    assert np.allclose(np.linalg.norm(vectors[vectors.any(axis=1)], axis=1), 1.0)
    assert np.allclose(vectors[0], vectors[3])  # same text, same row, despite reordering
    assert embedder.identity == f"openai:local-embed@{url.split('/', 2)[2]}"  # host and path
    sizes = [len(r["input"]) for r in script.requests if r["input"] != ["dimension probe"]]
    assert sizes == [128, 22] and all(r["model"] == "local-embed" for r in script.requests)
    assert all(t != "" for r in script.requests for t in r["input"])  # blanks sent as " "


def test_memory_searches_with_the_endpoint(db_path: Path) -> None:
    script = Script(dimensions=32)
    with openai_server(script) as url:
        embedder = OpenAIEmbedder("local-embed", base_url=url, dimensions=32)
        with Memory(db_path, embedder=embedder) as mem:
            tea = mem.remember("Alice drinks green tea every morning")
            mem.remember("The invoice is due on Friday")
            hits = mem.search("green tea", record=False)
            assert hits[0].node.id == tea.id and hits[0].parts["semantic"] > 0.5
        assert all(r.get("dimensions") == 32 for r in script.requests)


def test_a_query_the_endpoint_cannot_embed_fails_the_search_not_the_memory(
    db_path: Path,
) -> None:
    # The query is embedded on the search's worker thread: its failure must
    # still reach the caller as the typed error, and the next search must work.
    script = Script(dimensions=16)
    with openai_server(script) as url:
        embedder = OpenAIEmbedder("local-embed", base_url=url, dimensions=16)
        with Memory(db_path, embedder=embedder) as mem:
            tea = mem.remember("Alice drinks green tea every morning")
            mem.flush()
            script.fail_with = 500
            with pytest.raises(ProviderError, match="local-embed"):
                mem.search("green tea", record=False)
            script.fail_with = None
            assert mem.search("green tea", record=False)[0].node.id == tea.id


def test_endpoint_failures_are_provider_errors_naming_the_endpoint() -> None:
    with openai_server(Script(fail_with=500)) as url:
        embedder = OpenAIEmbedder("local-embed", base_url=url, dimensions=4)
        with pytest.raises(ProviderError, match=re.escape(f"local-embed at {url}")):
            embedder.embed_batch(["x"])


def test_a_wrong_vector_size_is_refused() -> None:
    with openai_server(Script(dimensions=8)) as url:
        embedder = OpenAIEmbedder("local-embed", base_url=url, dimensions=4)
        with pytest.raises(ProviderError, match="expected 4 dimensions"):
            embedder.embed_batch(["x"])


@pytest.mark.parametrize(
    ("reply", "complaint"),
    [
        ("<html>busy</html>", "not an embeddings list|failed"),
        ({"error": {"message": "overloaded"}}, "not an embeddings list|failed"),
        ({"data": [{"index": 0, "embedding": [1.0, "NaN"]}]}, "NaN|not an embeddings list"),
        ({"data": [{"index": 0, "embedding": [1.0, None]}]}, "not an embeddings list|NaN"),
    ],
)
def test_nonsense_replies_are_provider_errors(reply: object, complaint: str) -> None:
    with openai_server(Script(raw_reply=reply)) as url:
        embedder = OpenAIEmbedder("local-embed", base_url=url, dimensions=2)
        with pytest.raises(ProviderError, match=complaint):
            embedder.embed_batch(["x"])


def test_the_registry_reads_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    with openai_server(Script(dimensions=12)) as url:
        monkeypatch.setenv("MNEMOTREE_EMBED_BASE_URL", url)
        monkeypatch.setenv("MNEMOTREE_EMBED_MODEL", "env-model")
        embedder = get_embedder("openai")
        assert embedder.identity.startswith("openai:env-model@127.0.0.1")
        assert embedder.dimensions == 12
