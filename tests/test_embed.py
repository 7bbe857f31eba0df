from __future__ import annotations

import numpy as np
import pytest

from mnemotree import InvalidInput
from mnemotree.embed import get_embedder


def test_hashing_embedder_is_deterministic_unit_and_topical() -> None:
    embedder = get_embedder("hashing")
    vectors = embedder.embed_batch(["the cat sat on the mat", "a cat sat on a mat", "stock prices"])
    assert vectors.shape == (3, embedder.dimensions) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    similarity = vectors @ vectors.T
    assert similarity[0, 1] > 0.4 > abs(similarity[0, 2])
    assert np.array_equal(
        vectors,
        embedder.embed_batch(["the cat sat on the mat", "a cat sat on a mat", "stock prices"]),
    )


def test_minilm_gives_the_reference_geometry() -> None:
    embedder = get_embedder("minilm")
    assert embedder.identity.startswith("all-MiniLM-L6-v2-int8@8199be6f")
    texts = [
        "A man is eating food.",
        "A man is eating a piece of bread.",
        "The new movie is awesome",
    ]
    vectors = embedder.embed_batch(texts)
    assert vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    similarity = vectors @ vectors.T
    # all-MiniLM-L6-v2 scores this classic pair ~0.75 and unrelated sentences near 0.
    assert 0.70 < similarity[0, 1] < 0.80
    assert abs(similarity[0, 2]) < 0.15
    # Batching and padding do not change a text's vector.
    alone = embedder.embed_batch([texts[1]])[0]
    assert np.allclose(alone, vectors[1], atol=1e-4)
    long_text = "word " * 1000  # truncated at 256 tokens, not an error
    assert embedder.embed_batch([long_text]).shape == (1, 384)


def test_unknown_embedder_names_the_choices() -> None:
    with pytest.raises(InvalidInput, match=r"unknown embedder 'bert'.*hashing"):
        get_embedder("bert")
