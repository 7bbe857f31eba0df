"""Embeddings from any OpenAI-compatible endpoint (OpenAI, vLLM, llama.cpp, Ollama…).

Used only when configured: nothing here touches the network otherwise. Vectors
are L2-normalised here, since not every server returns unit vectors.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlparse

import numpy as np

from ..errors import InvalidInput, MissingExtra, ProviderError
from .protocol import Vectors

DEFAULT_MODEL = "text-embedding-3-small"
_BATCH = 128


class OpenAIEmbedder:
    """`identity` is `openai:<model>@<host>`: vectors from another server or model
    are never mixed with these."""

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        dimensions: int | None = None,
        timeout: float = 60.0,
    ) -> None:
        if not model or not model.strip():
            raise InvalidInput("embedding model name is empty; pass model='…'", model)
        if dimensions is not None and dimensions <= 0:
            raise InvalidInput(f"dimensions must be positive, got {dimensions}", dimensions)
        self.model = model
        self.base_url = base_url
        self._api_key = api_key
        self._requested = dimensions
        self._timeout = timeout
        self._dimensions = dimensions
        self._client: Any = None
        self._lock = threading.Lock()
        parsed = urlparse(base_url) if base_url else None
        host = f"{parsed.netloc}{parsed.path.rstrip('/')}" if parsed else "api.openai.com/v1"
        suffix = f"/{dimensions}" if dimensions else ""
        self.identity = f"openai:{model}{suffix}@{host}"

    @property
    def dimensions(self) -> int:
        """The vector size; asks the endpoint once when it was not given."""
        if self._dimensions is None:
            self._dimensions = int(self._call(["dimension probe"]).shape[1])
        return self._dimensions

    def _connect(self) -> Any:
        with self._lock:
            if self._client is None:
                try:
                    import openai
                except ImportError:
                    raise MissingExtra(
                        "the OpenAI-compatible embedder needs the openai package: "
                        "pip install 'mnemotree[openai]'",
                        "openai",
                    ) from None
                self._client = openai.OpenAI(
                    base_url=self.base_url,
                    # Local servers accept any key; the SDK insists on one.
                    api_key=self._api_key or os.environ.get("OPENAI_API_KEY") or "unused",
                    timeout=self._timeout,
                    max_retries=2,
                )
            return self._client

    def _call(self, texts: list[str]) -> Vectors:
        import openai

        client = self._connect()
        extra: dict[str, Any] = {"dimensions": self._requested} if self._requested else {}
        where = f"{self.model} at {self.base_url or 'api.openai.com'}"
        try:
            reply = client.embeddings.create(model=self.model, input=texts, **extra)
        except openai.APIError as exc:
            raise ProviderError(f"embedding request to {where} failed: {exc}", where) from None
        except (AttributeError, TypeError, ValueError, KeyError) as exc:
            # The SDK trips over bodies that are not an embeddings list (HTML, errors).
            raise ProviderError(
                f"{where} answered something that is not an embeddings list ({exc!r})", where
            ) from None
        try:
            rows = sorted(reply.data, key=lambda d: d.index)
            vectors = np.asarray([r.embedding for r in rows], dtype=np.float32)
        except (AttributeError, TypeError, ValueError, KeyError) as exc:
            raise ProviderError(
                f"{where} answered something that is not an embeddings list ({exc})", where
            ) from None
        if len(rows) != len(texts):
            raise ProviderError(
                f"{where} returned {len(rows)} embeddings for {len(texts)} texts", len(rows)
            )
        if not np.isfinite(vectors).all():
            raise ProviderError(f"{where} returned vectors with NaN or infinite values", where)
        if vectors.ndim != 2 or (self._dimensions and vectors.shape[1] != self._dimensions):
            raise ProviderError(
                f"{where} returned vectors of shape {vectors.shape}, "
                f"expected {self._dimensions} dimensions",
                vectors.shape,
            )
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        normalised: Vectors = vectors / np.clip(norms, 1e-12, None)
        return normalised

    def embed_batch(self, texts: Sequence[str]) -> Vectors:
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for start in range(0, len(texts), _BATCH):
            # The API refuses empty strings; a blank embeds like a space.
            chunk = [t if t.strip() else " " for t in texts[start : start + _BATCH]]
            out[start : start + len(chunk)] = self._call(chunk)
        return out


def from_environment() -> OpenAIEmbedder:
    """Configured by MNEMOTREE_EMBED_MODEL, MNEMOTREE_EMBED_BASE_URL (or
    OPENAI_BASE_URL), MNEMOTREE_EMBED_API_KEY (or OPENAI_API_KEY) and
    MNEMOTREE_EMBED_DIMENSIONS."""
    dims = os.environ.get("MNEMOTREE_EMBED_DIMENSIONS")
    if dims is not None and not dims.isdigit():
        raise InvalidInput(f"MNEMOTREE_EMBED_DIMENSIONS must be a number, got {dims!r}", dims)
    return OpenAIEmbedder(
        os.environ.get("MNEMOTREE_EMBED_MODEL", DEFAULT_MODEL),
        base_url=os.environ.get("MNEMOTREE_EMBED_BASE_URL") or os.environ.get("OPENAI_BASE_URL"),
        api_key=os.environ.get("MNEMOTREE_EMBED_API_KEY"),
        dimensions=int(dims) if dims else None,
    )
