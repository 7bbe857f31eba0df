"""A deterministic feature-hashing embedder: fast, dependency-free, for tests."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from itertools import pairwise

import numpy as np

from .protocol import Vectors

_WORD = re.compile(r"\w+")


class HashingEmbedder:
    """Bag of words (and word bigrams) hashed into signed buckets, L2-normalised.

    Texts sharing words get similar vectors, so ranking code can be tested
    with real geometry and no model.
    """

    # Its cosine counts shared words, not meaning: no gate of "about the
    # same thing" can rest on it (`embed.knows_meaning`).
    meaning = False

    def __init__(self, dimensions: int = 256) -> None:
        self.dimensions = dimensions
        self.identity = f"hashing-{dimensions}-v1"

    def embed_batch(self, texts: Sequence[str]) -> Vectors:
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for row, text in enumerate(texts):
            words = _WORD.findall(text.lower())
            features = words + [a + " " + b for a, b in pairwise(words)]
            for feature in features:
                digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
                value = int.from_bytes(digest, "little")
                out[row, value % self.dimensions] += 1.0 if value >> 63 else -1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        normalised: Vectors = out / norms
        return normalised
