"""Contradiction detection on labelled statement pairs.

The set (`data/contradiction_pairs.jsonl`, 301 pairs) was written for this
benchmark by a separate agent that had not seen the detectors: 150 pairs
where a later statement contradicts an earlier one (25 each of moves, job
changes, changed preferences, corrected dates, changed numbers and plain
negations) and 151 that must not be flagged (near-paraphrases, compatible
additions, other subjects, other attributes, negations that agree, the same
number written differently, unrelated statements sharing words), in varied
first- and third-person notes. The detectors were tuned while looking at the
odd-numbered lines (1, 3, 5, ...) only; the even-numbered lines are reported
apart as held out.

A pair counts as flagged the way a consolidation scan flags it: the two
statements' embeddings must be at least `contradiction_cosine` similar, and
then a detector must fire (or, with `judge`, the LLM must say so).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from ..consolidate.detect import compare
from ..consolidate.judge import Judge
from ..consolidate.plan import Policy
from ..embed import get_embedder


def load(path: Path | None = None) -> list[dict[str, str]]:
    if path is None:
        text = resources.files("mnemotree.bench").joinpath("data/contradiction_pairs.jsonl")
        lines = text.read_text(encoding="utf-8").splitlines()
    else:
        lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def _score(rows: list[dict[str, Any]]) -> dict[str, Any]:
    tp = sum(r["flagged"] and r["label"] == "contradiction" for r in rows)
    fp = sum(r["flagged"] and r["label"] != "contradiction" for r in rows)
    fn = sum(not r["flagged"] and r["label"] == "contradiction" for r in rows)
    return {
        "pairs": len(rows),
        "recall": round(tp / (tp + fn), 3) if tp + fn else None,
        "precision": round(tp / (tp + fp), 3) if tp + fp else None,
        "true_positives": tp, "false_positives": fp, "false_negatives": fn,
    }  # fmt: skip


def run(
    embedder: str,
    judge: Judge | None,
    path: Path | None = None,
    progress: Callable[[str], None] = lambda _: None,
) -> dict[str, Any]:
    pairs = load(path)
    policy = Policy()
    model = get_embedder(embedder)
    progress(f"{len(pairs)} pairs; embedding with {model.identity}…")
    texts = [p["a"] for p in pairs] + [p["b"] for p in pairs]
    vectors = np.asarray(model.embed_batch(texts), dtype=np.float32)
    n = len(pairs)
    cosines = (vectors[:n] * vectors[n:]).sum(axis=1)
    rows: list[dict[str, Any]] = []
    for i, (pair, cosine) in enumerate(zip(pairs, cosines, strict=True)):
        similar = bool(cosine >= policy.contradiction_cosine)
        found = compare(pair["a"], pair["b"])
        verdict = None
        if judge is not None and similar:
            verdict = judge.contradicts(pair["a"], pair["b"])
        flagged = similar and (verdict if verdict is not None else found is not None)
        rows.append({**pair, "line": i + 1, "cosine": round(float(cosine), 3),
                     "detector": found is not None, "flagged": flagged})  # fmt: skip
    kinds = sorted({r["kind"] for r in rows})
    return {
        "embedder": model.identity,
        "contradiction_cosine": policy.contradiction_cosine,
        "judge": None if judge is None else judge.identity,
        "overall": _score(rows),
        "tuned_on_odd_lines": _score([r for r in rows if r["line"] % 2 == 1]),
        "held_out_even_lines": _score([r for r in rows if r["line"] % 2 == 0]),
        "detector_without_similarity_gate": _score([{**r, "flagged": r["detector"]} for r in rows]),
        "flagged_by_kind": {
            k: f"{sum(r['flagged'] for r in rows if r['kind'] == k)}/"
            f"{sum(r['kind'] == k for r in rows)}"
            for k in kinds
        },
    }
