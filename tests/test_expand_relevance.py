"""Relevance-aware expansion: best first by meaning, within the budget."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mnemotree import InvalidInput, Memory
from tests.helpers import Clock


@pytest.fixture
def memory() -> Iterator[Memory]:
    with (
        tempfile.TemporaryDirectory() as tmp,
        Memory(Path(tmp) / "m.db", embedder="hashing", clock=Clock()) as m,
    ):
        yield m


def test_a_relevant_branch_deep_down_opens_before_an_irrelevant_one(memory: Memory) -> None:
    root = memory.add("Project notes")
    cooking = memory.append_child(root.id, "Kitchen and cooking")
    for i in range(6):
        memory.append_child(cooking.id, f"Recipe {i}: bake bread with flour, yeast and water")
    auth = memory.append_child(root.id, "Security")
    login = memory.append_child(auth.id, "Login tokens and sessions")
    deep = memory.append_child(login.id, "Session tokens expire after one hour; refresh tokens")
    budget = sum(n.token_count for n in (root, cooking, auth, login, deep))
    breadth = memory.expand_to_budget(root.id, budget)
    best = memory.expand_to_budget(root.id, budget, query="session token expiry")
    assert deep.id not in {n.id for n in breadth}  # BFS spends the budget on recipes
    assert deep.id in {n.id for n in best}
    assert sum(n.token_count for n in best) <= budget


def test_bad_budgets_are_refused(memory: Memory) -> None:
    root = memory.add("x")
    for bad in (-1, True, "10"):
        with pytest.raises(InvalidInput, match="budget"):
            memory.expand_to_budget(root.id, bad, query="x")  # type: ignore[arg-type]


WORDS = "alpha beta gamma delta tokens bread login".split()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    shape=st.lists(st.integers(min_value=0, max_value=30), min_size=1, max_size=25),
    words=st.lists(st.sampled_from(WORDS), min_size=1, max_size=25),
    budget=st.integers(min_value=0, max_value=400),
    query=st.sampled_from(["alpha tokens", "bread", "login delta"]),
)
def test_expansion_keeps_parents_order_and_budget(
    shape: list[int], words: list[str], budget: int, query: str
) -> None:
    with (
        tempfile.TemporaryDirectory() as tmp,
        Memory(Path(tmp) / "m.db", embedder="hashing", clock=Clock()) as m,
    ):
        nodes = [m.add("root of it all")]
        for i, parent in enumerate(shape):
            text = " ".join(words[: 1 + i % len(words)]) + f" {i}"
            nodes.append(m.append_child(nodes[parent % len(nodes)].id, text))
        got = m.expand_to_budget(nodes[0].id, budget, query=query)
        ids = [n.id for n in got]
        assert sum(n.token_count for n in got) <= budget
        assert len(set(ids)) == len(ids)
        chosen = set(ids)
        assert all(n.parent_id is None or n.parent_id in chosen for n in got)
        order = [n.id for _, n in m.serialize_with_depth(nodes[0].id)] if got else []
        assert ids == [i for i in order if i in chosen]  # reading order
        assert got == m.expand_to_budget(nodes[0].id, budget, query=query)  # deterministic
