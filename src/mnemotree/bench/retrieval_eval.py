"""Retrieval evaluation shared by the benchmarks: metrics, and three baselines
computed in the same run on the same stored texts.

Metrics, per question, from the ranked ids a method returned and the gold
evidence ids, averaged over questions:

- R@k (k = 1, 5, 10, 20): the share of the evidence found in the top k;
- All@10: 1 if every piece of evidence is in the top 10;
- NDCG@10: binary gains, log2 discount, over the ideal ordering;
- latency p50 / p95 per method, in ms (the default search's includes its
  query embedding, as a user waits for it).

Baselines (never read from the engine's ranking; each collection of items,
e.g. one conversation, is indexed on its own):

- `fts5`: SQLite FTS5 bm25 with the store's tokenizer over each item's
  text; the query is the user's words, each quoted (no FTS5 syntax gets
  through), stopwords and very common words dropped as the engine drops
  them (retrieval.query), joined with OR.
- `dense`: cosine with the memory's own embedder between the query and the
  text the engine embeds for the node ("name: text"); MiniLM reads the first
  256 tokens of each text, as it does for the engine's node vectors. The
  query is embedded the way the engine embeds one (`embed_query` if the
  embedder has it).
- `rrf`: reciprocal-rank fusion of the two full rankings, score
  sum(1 / (60 + rank)) (Cormack, Clarke and Buettcher, SIGIR 2009). Its
  latency is the sum of its two parts' (one after the other).

`default_beats_every_baseline` compares R@10 over all questions; the margin
is the default's R@10 minus the best baseline's.
"""

from __future__ import annotations

import math
import sqlite3
import statistics
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from ..embed.protocol import Embedder, QueryEmbedder
from ..errors import InvalidInput
from ..retrieval.query import common_limit, lexical_query, without_common
from ..store.sqlite.search import match_any
from .stats import percentiles

KS = (1, 5, 10, 20)
DEPTH = max(KS)
HEADLINE = "recall@10"
BASELINES = ("fts5", "dense", "rrf")
METHODS = ("default", *BASELINES)
# The constant of the paper that introduced the fusion; not tuned here.
RRF_K = 60
# The store's FTS5 tokenizer: the baseline stems and folds words as the engine does.
TOKENIZER = "porter unicode61 remove_diacritics 2"
OVERALL = "overall"


def question_metrics(ranked: Sequence[str], evidence: Iterable[str]) -> dict[str, float]:
    """R@k, All@10 and NDCG@10 of one ranking against its evidence (not empty)."""
    relevant = set(evidence)
    if not relevant:
        raise InvalidInput("a question without evidence cannot be scored", list(ranked))
    top = list(dict.fromkeys(ranked))  # a repeated id counts once, at its best rank
    row = {f"recall@{k}": len(relevant & set(top[:k])) / len(relevant) for k in KS}
    row["all@10"] = float(relevant <= set(top[:10]))
    gains = sum(1 / math.log2(i + 2) for i, d in enumerate(top[:10]) if d in relevant)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(10, len(relevant))))
    row["ndcg@10"] = gains / ideal
    return row


@dataclass
class Scores:
    """Per-question metrics, averaged on report."""

    rows: list[dict[str, float]] = field(default_factory=list)

    def add(self, ranked: Sequence[str], evidence: Iterable[str]) -> None:
        self.rows.append(question_metrics(ranked, evidence))

    def summary(self) -> dict[str, float]:
        if not self.rows:
            return {"n": 0}
        out = {k: round(statistics.fmean(r[k] for r in self.rows), 4) for k in self.rows[0]}
        out["n"] = len(self.rows)
        return out


@dataclass
class MethodRun:
    """One method's scores per group of questions, and its latencies."""

    groups: dict[str, Scores] = field(default_factory=dict)
    latencies: list[float] = field(default_factory=list)

    def add(
        self, ranked: Sequence[str], evidence: Sequence[str], groups: Sequence[str], ms: float
    ) -> None:
        for group in groups:
            self.groups.setdefault(group, Scores()).add(ranked, evidence)
        self.latencies.append(ms)

    def report(self, by: str) -> dict[str, Any]:
        overall = self.groups.get(OVERALL, Scores())
        rest = {k: v.summary() for k, v in sorted(self.groups.items()) if k != OVERALL}
        timing = percentiles(self.latencies) if self.latencies else {}
        return {OVERALL: overall.summary(), by: rest, "latency_ms": timing}


@dataclass
class Evaluation:
    """The default search and the three baselines over the same questions."""

    runs: dict[str, MethodRun] = field(default_factory=lambda: {m: MethodRun() for m in METHODS})

    def add(
        self,
        method: str,
        ranked: Sequence[str],
        evidence: Sequence[str],
        groups: Sequence[str],
        ms: float,
    ) -> None:
        self.runs[method].add(ranked, evidence, groups, ms)

    def report(self, by: str) -> dict[str, Any]:
        """{"default": ..., "baselines": {name: ...}, "comparison": ...}; each
        method's figures over all questions, per group (`by`) and latencies."""
        default = self.runs["default"].report(by)
        baselines = {name: self.runs[name].report(by) for name in BASELINES}
        return {
            "default": default,
            "baselines": baselines,
            "comparison": compare(default, baselines),
        }


def compare(default: dict[str, Any], baselines: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Whether the default beat every baseline on R@10, and by how much."""
    ours = default[OVERALL].get(HEADLINE, 0.0)
    best = max(baselines, key=lambda name: baselines[name][OVERALL].get(HEADLINE, 0.0))
    theirs = baselines[best][OVERALL].get(HEADLINE, 0.0)
    out: dict[str, Any] = {
        "metric": HEADLINE,
        "default": ours,
        "best_baseline": best,
        "best_baseline_value": theirs,
        "margin": round(ours - theirs, 4),
        "default_beats_every_baseline": bool(ours > theirs),
    }
    dense = baselines["dense"].get("latency_ms", {}).get("p50")
    mine = default.get("latency_ms", {}).get("p50")
    if dense and mine:
        out["latency_p50_vs_dense"] = round(mine / dense, 2)
    return out


@dataclass(frozen=True, slots=True)
class Item:
    """One stored text as the baselines see it."""

    id: str  # what the gold evidence names
    text: str  # what FTS5 indexes
    embedded: str  # what the engine embeds for this node


@dataclass(frozen=True, slots=True)
class Ranked:
    """One baseline's ranking of a query's items, and how long it took."""

    ids: list[str]
    ms: float


class Baselines:
    """FTS5, cosine and their fusion over one collection of items."""

    def __init__(self, items: Sequence[Item], embedder: Embedder) -> None:
        self.ids = [item.id for item in items]
        self.embedder = embedder
        self._db = sqlite3.connect(":memory:")
        self._db.execute(f"CREATE VIRTUAL TABLE t USING fts5(body, tokenize='{TOKENIZER}')")
        self._db.executemany(
            "INSERT INTO t(rowid, body) VALUES (?, ?)",
            [(row, item.text) for row, item in enumerate(items)],
        )
        texts = [item.embedded for item in items]
        dims = embedder.dimensions
        self._vectors: npt.NDArray[np.float32] = (
            embedder.embed_batch(texts) if texts else np.zeros((0, dims), dtype=np.float32)
        )

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Baselines:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def fts5(self, question: str) -> Ranked:
        started = time.perf_counter()
        query = lexical_query(question)
        total = len(self.ids)
        if query and total > common_limit(total):  # only then can a term be common
            query = without_common(query, self._documents(query.terms), total)
        rows: list[int] = []
        if query:
            sql = "SELECT rowid FROM t WHERE t MATCH ? ORDER BY bm25(t)"
            rows = [r[0] for r in self._db.execute(sql, (match_any(query.terms),))]
        return Ranked([self.ids[r] for r in rows], _ms(started))

    def _documents(self, terms: Sequence[str]) -> dict[str, int]:
        sql = "SELECT count(*) FROM t WHERE t MATCH ?"
        return {
            term: int(self._db.execute(sql, ('"' + term.replace('"', '""') + '"',)).fetchone()[0])
            for term in terms
        }

    def dense(self, question: str) -> Ranked:
        started = time.perf_counter()
        if isinstance(self.embedder, QueryEmbedder):
            vector = self.embedder.embed_query(question)
        else:
            vector = self.embedder.embed_batch([question])[0]
        scores = self._vectors @ vector
        order = np.argsort(-scores, kind="stable")
        return Ranked([self.ids[int(i)] for i in order], _ms(started))

    def all(self, question: str) -> dict[str, Ranked]:
        """Every baseline's full ranking of the collection for `question`."""
        lexical = self.fts5(question)
        dense = self.dense(question)
        started = time.perf_counter()
        fused = fuse([lexical.ids, dense.ids])
        fused_ms = lexical.ms + dense.ms + _ms(started)
        return {"fts5": lexical, "dense": dense, "rrf": Ranked(fused, fused_ms)}


def fuse(rankings: Sequence[Sequence[str]], k: int = RRF_K) -> list[str]:
    """Reciprocal-rank fusion: ids by the sum of 1 / (k + rank), rank from 1;
    ties keep the order in which ids were first seen."""
    score: dict[str, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, 1):
            score[item] = score.get(item, 0.0) + 1 / (k + rank)
    return sorted(score, key=lambda item: -score[item])


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000
