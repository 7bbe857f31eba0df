"""The embedder protocol: what retrieval and consolidation ask of a model."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]
DEFAULT_EMBEDDER = "minilm"


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors.

    `identity` names the model and its exact weights; it is stored with every
    vector so that a change of model is noticed and re-embedded. An embedder
    that reads only a text's start says how far with an int `max_tokens`
    attribute; longer texts are then embedded in passages as well.
    """

    @property
    def identity(self) -> str: ...

    @property
    def dimensions(self) -> int: ...

    def embed_batch(self, texts: Sequence[str]) -> Vectors: ...


@runtime_checkable
class QueryEmbedder(Protocol):
    """An embedder with a faster path for one query (MiniLM's int8 graph).

    Its vectors are close to `embed_batch`'s (MiniLM: cosine >= 0.998) and are compared
    with stored vectors, but never stored as a node's own.
    """

    def embed_query(self, text: str) -> npt.NDArray[np.float32]: ...


def knows_meaning(embedder: Embedder) -> bool:
    """Whether cosines of this embedder tell texts about the same thing from
    texts that merely share words (False for the hashing embedder)."""
    return bool(getattr(embedder, "meaning", True))
