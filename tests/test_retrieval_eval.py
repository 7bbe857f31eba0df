"""The shared retrieval evaluation: metrics on hand-made rankings, and the
three baselines on a small collection (hashing embedder: no model needed)."""

from __future__ import annotations

import math

import pytest

from mnemotree.bench.retrieval_eval import (
    Baselines,
    Evaluation,
    Item,
    compare,
    fuse,
    question_metrics,
)
from mnemotree.embed import get_embedder
from mnemotree.errors import InvalidInput


def test_metrics_of_a_known_ranking() -> None:
    row = question_metrics(["x", "a", "y", "b"], ["a", "b"])
    assert row["recall@1"] == 0.0
    assert row["recall@5"] == 1.0
    assert row["all@10"] == 1.0
    gains = 1 / math.log2(3) + 1 / math.log2(5)  # hits at ranks 2 and 4
    ideal = 1 + 1 / math.log2(3)  # both at the top
    assert row["ndcg@10"] == pytest.approx(gains / ideal)
    assert row["ndcg@10"] == pytest.approx(0.6509, abs=1e-4)


def test_evidence_beyond_ten_is_not_all_at_ten() -> None:
    ranked = [f"n{i}" for i in range(30)]
    row = question_metrics(ranked, ["n0", "n12"])
    assert row["recall@10"] == 0.5 and row["recall@20"] == 1.0
    assert row["all@10"] == 0.0


def test_a_repeated_id_counts_once_at_its_best_rank() -> None:
    # A message found directly and again under a summary is one find.
    row = question_metrics(["a", "a", "b"], ["b"])
    assert row["recall@1"] == 0.0
    assert row["ndcg@10"] == pytest.approx(1 / math.log2(3))


def test_a_question_without_evidence_is_refused() -> None:
    with pytest.raises(InvalidInput):
        question_metrics(["a"], [])


def test_reciprocal_rank_fusion() -> None:
    # b: 1/62 + 1/61 beats a: 1/61 + 1/63; c only in one list comes last.
    assert fuse([["a", "b", "c"], ["b", "d", "a"]]) == ["b", "a", "d", "c"]
    assert fuse([[], ["x", "y"]]) == ["x", "y"]


def test_comparison_names_the_best_baseline_and_the_margin() -> None:
    def figures(r10: float, p50: float) -> dict[str, object]:
        return {"overall": {"recall@10": r10, "n": 3}, "latency_ms": {"p50": p50}}

    baselines = {"fts5": figures(0.4, 1.0), "dense": figures(0.6, 4.0), "rrf": figures(0.5, 5.0)}
    verdict = compare(figures(0.55, 6.0), baselines)
    assert verdict["best_baseline"] == "dense"
    assert verdict["margin"] == pytest.approx(-0.05)
    assert verdict["default_beats_every_baseline"] is False
    assert verdict["latency_p50_vs_dense"] == 1.5
    assert compare(figures(0.61, 4.0), baselines)["default_beats_every_baseline"] is True


def _items() -> list[Item]:
    said = [
        ("m1", "user", "My sister Lena moved to Rotterdam for a job at the harbour."),
        ("m2", "assistant", "Moving abroad is a big step; here is how to plan the first week."),
        ("m3", "user", "I prefer tea over coffee, especially green tea in the afternoon."),
        ("m4", "user", "The quarterly report is due on Friday and I have not started."),
    ]
    return [Item(i, f"[1 May 2024] {who}: {text}", f"{who}: {text}") for i, who, text in said]


def test_baselines_rank_a_collection() -> None:
    with Baselines(_items(), get_embedder("hashing")) as baselines:
        found = baselines.all("Where does Lena live now, which city?")
        assert found["fts5"].ids[0] == "m1"
        assert set(found["dense"].ids) == {"m1", "m2", "m3", "m4"}  # cosine ranks every item
        assert found["rrf"].ids[0] == "m1"
        assert found["rrf"].ms >= found["fts5"].ms + found["dense"].ms
        # Only function words: nothing for FTS5 to match; the fusion is the cosine ranking.
        empty = baselines.all("what is it that they were?")
        assert empty["fts5"].ids == []
        assert empty["rrf"].ids == empty["dense"].ids
        # FTS5 syntax in the user's words is only words.
        assert baselines.fts5('tea" OR NEAR(coffee*').ids[0] == "m3"


def test_an_empty_collection_ranks_nothing() -> None:
    with Baselines([], get_embedder("hashing")) as baselines:
        assert all(r.ids == [] for r in baselines.all("green tea").values())


def test_evaluation_reports_every_method_per_group() -> None:
    evaluation = Evaluation()
    for method, ranked in (
        ("default", ["a"]),
        ("fts5", ["b", "a"]),
        ("dense", ["b"]),
        ("rrf", ["a"]),
    ):
        evaluation.add(method, ranked, ["a"], ["overall", "preference"], 2.0)
    report = evaluation.report("by_ability")
    assert report["default"]["overall"]["recall@1"] == 1.0
    assert report["baselines"]["fts5"]["by_ability"]["preference"]["recall@1"] == 0.0
    assert report["baselines"]["fts5"]["by_ability"]["preference"]["recall@5"] == 1.0
    assert report["default"]["latency_ms"]["p50"] == 2.0
    verdict = report["comparison"]
    assert verdict["best_baseline"] in ("fts5", "rrf") and verdict["margin"] == 0.0
    assert verdict["default_beats_every_baseline"] is False  # a tie is not a win
