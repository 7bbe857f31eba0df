"""Synthetic scale benchmark: write throughput, search latency, baselines, peak RSS.

The corpus has a Zipfian vocabulary and log-normal lengths (about 15 words),
in sessions of 100 memories. Queries are 3-6 words drawn from a random
memory, so each has a real target.
"""

from __future__ import annotations

import math
import random
import resource
import tempfile
import time
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from ..memory import Memory
from ..retrieval.query import lexical_query
from ..retrieval.vectors import VectorIndex
from ..store.sqlite import SQLiteStore
from ..store.sqlite.search import match_any
from .stats import percentiles

VOCABULARY = 20_000
PER_SESSION = 100


def _vocabulary(rng: random.Random) -> list[str]:
    """Real English words (the embedder's whole-word vocabulary), so texts
    tokenise like real ones; Zipf ranks are assigned at random."""
    vocab = resources.files("mnemotree.embed").joinpath("minilm_vocab.txt").read_text("utf-8")
    words = sorted({w for w in vocab.split() if w.isalpha() and w.isascii() and len(w) >= 3})
    rng.shuffle(words)
    return words[:VOCABULARY]


def corpus(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    words = _vocabulary(rng)
    weights = [1 / (rank + 1) ** 1.07 for rank in range(VOCABULARY)]
    cumulative = np.cumsum(weights) / sum(weights)
    texts = []
    for _ in range(n):
        length = max(3, min(60, int(rng.lognormvariate(math.log(15), 0.5))))
        picks = np.searchsorted(cumulative, [rng.random() for _ in range(length)])
        texts.append(" ".join(words[min(int(i), VOCABULARY - 1)] for i in picks).capitalize())
    return texts


def run(
    n: int,
    embedder: str = "minilm",
    queries: int = 200,
    progress: Callable[[str], None] = lambda _: None,
    location: str | None = None,
) -> dict[str, Any]:
    """On the empty database at `location` (else a temporary SQLite file)."""
    texts = corpus(n)
    asks = _asks(texts, random.Random(11), queries)
    with (
        tempfile.TemporaryDirectory() as tmp,
        Memory(location or Path(tmp) / "scale.db", embedder=embedder) as memory,
    ):
        memory.tokenizer.count("warm up")
        write_s = _fill(memory, texts)
        progress(f"wrote {n:,} memories in {write_s:.1f} s; embedding…")
        started = time.perf_counter()
        embedded = memory.flush()
        embed_s = time.perf_counter() - started
        progress(f"embedded {embedded:,} nodes in {embed_s:.1f} s; searching…")
        started = time.perf_counter()
        memory.search(asks[0], record=False)  # load model and index outside the timings
        index_s = time.perf_counter() - started
        ours = []
        for ask in asks:
            # The query's embedding is part of what is timed, also for the
            # warm-up's question and any drawn twice.
            memory.retriever.forget_query_vectors()
            t = time.perf_counter()
            memory.search(ask, record=False)
            ours.append((time.perf_counter() - t) * 1000)
        # Peak memory of writing, embedding and searching, before the baselines
        # (the numpy baseline alone holds a float32 copy of every vector).
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        fts, exact = _baselines(memory, asks)
    return {
        "n": n,
        "embedder": embedder,
        "write_per_s_vectors_pending": round(n / write_s, 1),
        "write_per_s_vectors_done": round(n / (write_s + embed_s), 1),
        "embed_per_s": round(embedded / embed_s, 1) if embed_s else None,
        "vector_search": memory.retriever.index.kind,
        "first_search_s": round(index_s, 2),  # loads vectors, builds the graph if used
        "search_ms": percentiles(ours),
        "store": "sqlite" if isinstance(memory.store, SQLiteStore) else "postgres",
        "baseline_fts5_ms": percentiles(fts),  # on Postgres: tsquery + ts_rank
        "baseline_numpy_exact_ms": percentiles(exact),
        "peak_rss_mb": round(peak_mb, 1),
    }


def _asks(texts: list[str], rng: random.Random, queries: int) -> list[str]:
    """Queries of three to six consecutive words from the corpus."""
    asks = []
    for _ in range(queries):
        words = rng.choice(texts).lower().split()
        size = min(len(words), rng.randint(3, 6))
        begin = rng.randint(0, len(words) - size)
        asks.append(" ".join(words[begin : begin + size]))
    return asks


def _fill(memory: Memory, texts: list[str]) -> float:
    """Write the corpus in sessions; returns the seconds it took."""
    started = time.perf_counter()
    root = memory.add("Scale benchmark", context_type="space")
    for start in range(0, len(texts), PER_SESSION):
        session = memory.append_child(root.id, f"Session {start // PER_SESSION}")
        memory.append_many(session.id, texts[start : start + PER_SESSION])
    return time.perf_counter() - started


def _baselines(memory: Memory, asks: list[str]) -> tuple[list[float], list[float]]:
    """Milliseconds per query of plain FTS5 and of exact numpy cosine."""
    db = memory.store._db  # type: ignore[attr-defined]  # baselines read the tables directly
    postgres = not isinstance(memory.store, SQLiteStore)
    fts = []
    for ask in asks:
        terms = lexical_query(ask).terms
        t = time.perf_counter()
        if postgres:  # plain full-text search: the tsquery, ts_rank, the best 10
            db.execute(
                "SELECT id FROM nodes, websearch_to_tsquery('english', %s) q "
                "WHERE words @@ q ORDER BY ts_rank(words, q) DESC LIMIT 10",
                (" or ".join(terms),),
            )
        else:
            db.execute(
                "SELECT rowid FROM nodes_fts WHERE nodes_fts MATCH ? ORDER BY rank LIMIT 10",
                (match_any(terms),),
            ).fetchall()
        fts.append((time.perf_counter() - t) * 1000)
    index = memory.retriever.index
    matrix = index.matrix if isinstance(index, VectorIndex) else _stored_matrix(memory)
    vectors = memory.retriever.embedder.embed_batch(asks)
    exact = []
    for vector in vectors:
        t = time.perf_counter()
        scores = matrix @ vector
        np.argpartition(-scores, 10)[:10]
        exact.append((time.perf_counter() - t) * 1000)
    return fts, exact


def _stored_matrix(memory: Memory) -> np.ndarray[Any, np.dtype[np.float32]]:
    """Every node's own stored vector, read from the store (a store with its
    own vector index keeps none in memory)."""
    identity, width = memory.retriever.embedder.identity, memory.retriever.embedder.dimensions
    rows: list[np.ndarray[Any, np.dtype[np.float32]]] = []
    after = 0
    while found := memory.store.load_vectors(identity, after, 10_000):
        rows.extend(np.frombuffer(r.data[: 4 * width], dtype=np.float32) for r in found)
        after = found[-1].cursor
    return np.vstack(rows) if rows else np.zeros((0, width), dtype=np.float32)
