"""The relevance floor's invariants over any hits (hypothesis), and its
behaviour through the facade: a limit is a maximum, nothing is returned
for a query about nothing stored, and a floor of 0 is no floor."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mnemotree import InvalidInput, Memory
from mnemotree.model import Node
from mnemotree.retrieval.hits import RELATIVE_FLOOR, Hit, above_floor, evidence
from mnemotree.retrieval.rank import Weights
from tests.cli_runner import run_cli

PARTS = ("semantic", "keyword", "match", "name", "neighbours", "parent", "time", "recency")
WEIGHTS = Weights()


def hit(number: int, parts: dict[str, float], text: str) -> Hit:
    node = Node(f"n{number:03d}", "r", None, float(number), text, 1, "t", "t")
    return Hit(node, sum(parts.values()), [], parts)


hits_strategy = st.lists(
    st.tuples(
        st.fixed_dictionaries({p: st.floats(0, 1) for p in PARTS}),
        st.sampled_from(["billing runs nightly", "the office plant", "billing database", ""]),
    ),
    max_size=12,
).map(lambda rows: [hit(i, parts, text) for i, (parts, text) in enumerate(rows)])


@settings(max_examples=300, deadline=None)
@given(hits_strategy, st.sampled_from([(), ("billing",), ("billing", "database", "runs")]))
def test_the_floor_keeps_an_ordered_subset_around_the_best(
    hits: list[Hit], terms: tuple[str, ...]
) -> None:
    kept = above_floor(hits, WEIGHTS, terms)
    assert [h for h in hits if h in kept] == kept  # a subset, in the given order
    if kept:
        best = max(evidence(h, WEIGHTS) for h in hits)
        assert max(evidence(h, WEIGHTS) for h in kept) == best
        assert all(evidence(h, WEIGHTS) >= RELATIVE_FLOOR * best for h in kept)
    # Recency (or importance, accesses, usage) never lifts a hit over the floor.
    calmer = [hit(i, {**h.parts, "recency": 0.0}, h.node.text) for i, h in enumerate(hits)]
    assert [h.node.id for h in above_floor(calmer, WEIGHTS, terms)] == [h.node.id for h in kept]
    assert above_floor(hits, WEIGHTS, terms, 0.0) == hits  # no floor


def test_without_meaning_or_enough_shared_words_nothing_is_about_the_query() -> None:
    one_word = hit(1, {"keyword": 1.0, "semantic": 0.1}, "billing runs nightly")
    assert above_floor([one_word], WEIGHTS, ("billing", "database", "owner")) == []
    # Two of the query's telling words, or half of them, are enough.
    assert above_floor([one_word], WEIGHTS, ("billing", "runs", "owner")) == [one_word]
    assert above_floor([one_word], WEIGHTS, ("billing", "database")) == [one_word]
    close = hit(2, {"semantic": 0.5}, "the office plant")
    assert above_floor([close], WEIGHTS, ("greenery",)) == [close]


def test_a_limit_is_a_maximum_through_the_facade(memory: Memory) -> None:
    for i in range(30):
        memory.add(f"Trivia note {i}: the coffee machine was cleaned on day {i}.")
    billing = memory.add("Billing invoices are sent on the first working day of the month.")
    found = memory.search("when are billing invoices sent", limit=20, record=False)
    assert [h.node.id for h in found] == [billing.id]
    assert memory.search("xylophone zeppelin marmalade", limit=20, record=False) == []


def test_the_floor_is_set_per_search_and_zero_is_none(memory: Memory) -> None:
    for i in range(5):
        memory.add(f"Trivia note {i}: the coffee machine was cleaned on day {i}.")
    weak = "coffee for the xylophone zeppelin"  # one word of four in common
    assert memory.search(weak, record=False) == []
    anything = memory.search(weak, min_relevance=0, record=False)
    assert len(anything) == 5  # no floor: the best of whatever there is
    with pytest.raises(InvalidInput, match="min_relevance"):
        memory.search("coffee", min_relevance=-1)


def test_the_cli_names_a_document_hits_source(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    guide = tmp_path / "guide.md"
    guide.write_text("# Field Guide\n\n## Install\n\nRun the installer as root on Linux.\n")
    with Memory(db, embedder="hashing") as memory:
        memory.ingest(guide, scope="kb")
    shown = run_cli(db, "search", "installer root Linux", embedder="hashing")
    assert shown.returncode == 0, shown.stderr
    assert "Field Guide (guide.md) > Install" in shown.stdout
    api = run_cli(db, "--json", "search", "installer", "--min-relevance", "0", embedder="hashing")
    assert json.loads(api.stdout)[0]["source"]["file"] == "guide.md"
