from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from mnemotree import Memory, ordering
from tests.conftest import PostgresServer
from tests.helpers import assert_derived_text
from tests.strategies import build, operation

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(st.lists(st.integers(min_value=0, max_value=10**6), min_size=1, max_size=120))
def test_inserts_anywhere_keep_the_order_of_a_list(picks: list[int]) -> None:
    with tempfile.TemporaryDirectory() as tmp, Memory(Path(tmp) / "m.db") as mem:
        root = mem.add("root")
        first, last = mem.append_many(root.id, ["first", "last"])
        mirror = [first.id, last.id]
        for i, pick in enumerate(picks):
            gap = pick % (len(mirror) - 1)
            node = mem.insert_between(mirror[gap], mirror[gap + 1], f"n{i}")
            mirror.insert(gap + 1, node.id)
        children = mem.children(root.id)
        assert [c.id for c in children] == mirror
        keys = [c.order_key for c in children]
        assert keys == sorted(set(keys))


@SETTINGS
@given(st.lists(operation, max_size=25), st.integers(min_value=0, max_value=400))
def test_expansion_never_exceeds_the_budget(
    ops: list[tuple[str, int, str, str]], budget: int
) -> None:
    with tempfile.TemporaryDirectory() as tmp, Memory(Path(tmp) / "m.db") as mem:
        build(mem, ops)
        for root in mem.roots():
            reading = [n.id for n in mem.serialize(root.id)]
            chosen = mem.expand_to_budget(root.id, budget)
            assert sum(n.token_count for n in chosen) <= budget
            ids = [n.id for n in chosen]
            # Reading order: a subsequence of the serialised document.
            positions = [reading.index(i) for i in ids]
            assert positions == sorted(positions)
            # Breadth first from the top: every chosen node's parent is chosen too.
            chosen_set = set(ids)
            assert all(n.parent_id in chosen_set for n in chosen if n.id != root.id)
            assert mem.expand_to_budget(root.id, budget) == chosen  # deterministic
            if root.token_count <= budget:
                assert ids[0] == root.id


@SETTINGS
@given(st.lists(operation, max_size=25))
def test_serialize_modes_agree_with_each_other(ops: list[tuple[str, int, str, str]]) -> None:
    with tempfile.TemporaryDirectory() as tmp, Memory(Path(tmp) / "m.db") as mem:
        build(mem, ops)
        for root in mem.roots():
            full = mem.serialize(root.id)
            skip = mem.serialize(root.id, "skip")
            collapsed = mem.serialize(root.id, "collapse")
            interior = {n.id for n in full if n.is_summary and mem.children(n.id)}
            assert [n.id for n in skip] == [n.id for n in full if n.id not in interior]
            hidden = {n.id for n in full if any(a.id in interior for a in mem.ancestors(n.id))}
            assert [n.id for n in collapsed] == [n.id for n in full if n.id not in hidden]


@given(
    st.floats(min_value=-1e6, max_value=1e6, allow_nan=False),
    st.floats(min_value=0, max_value=1e6, allow_nan=False),
)
def test_between_is_strictly_inside_or_asks_for_a_respread(a: float, width: float) -> None:
    b = a + width
    key = ordering.between(a, b)
    if key is not None:
        assert a < key < b
    else:
        assert b - a <= max(1.0, abs(a), abs(b)) * 2.0**-40 or not a < (4 * a + b) / 5 < b


@SETTINGS
@given(st.lists(operation, max_size=30))
def test_tree_invariants_hold_after_any_operations(ops: list[tuple[str, int, str, str]]) -> None:
    # Printed with a failure: the falsifying example has been shown as "ops=,".
    note(f"operations: {ops!r}")
    with tempfile.TemporaryDirectory() as tmp, Memory(Path(tmp) / "m.db") as mem:
        build(mem, ops)
        _check_invariants(mem)


@settings(SETTINGS, max_examples=25)
@given(ops=st.lists(operation, max_size=30))
def test_tree_invariants_hold_after_any_operations_on_postgres(
    postgres: PostgresServer, ops: list[tuple[str, int, str, str]]
) -> None:
    """The same on Postgres, whose derived text is written at insert when an
    append's siblings and breadcrumb are known, else recomputed at commit."""
    with Memory(postgres.new_database(migrated=True), embedder="hashing") as mem:
        build(mem, ops)
        _check_invariants(mem)


def _check_invariants(mem: Memory) -> None:
    """Root ids, token counts, history, positions, derived text and summaries."""
    nodes = {n.id: n for n in mem.store.iter_nodes()}
    by_parent: dict[str | None, list[float]] = {}
    for node in nodes.values():
        by_parent.setdefault(node.parent_id, []).append(node.order_key)
        top = node
        while top.parent_id is not None:
            top = nodes[top.parent_id]
        assert node.root_id == top.id  # root ids follow moves
        assert node.token_count == mem.tokenizer.count(node.text)
        versions = [v.version for v in mem.history(node.id)]
        assert versions == sorted(set(versions)) and versions[-1] == node.version
    for keys in by_parent.values():
        assert len(keys) == len(set(keys))  # siblings never share a position
    assert_derived_text(mem)
    for summary in (n for n in nodes.values() if n.is_summary):
        if not summary.stale:
            children = mem.children(summary.id)
            newest_child = max((c.updated_at for c in children), default="")
            assert newest_child <= summary.updated_at or newest_child == "", [
                (c.id, c.updated_at, c.version, mem.history(c.id)[-2:]) for c in children
            ]
