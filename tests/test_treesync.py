"""Writing a planned tree (as ingest does, in batches): the stored subtree
equals the plan, with the fewest writes."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mnemotree import InvalidOperation, Memory, NewNode
from mnemotree.ingest.write import Writes, prepare, write
from mnemotree.treesync import Planned
from tests.helpers import assert_derived_text

ROOT = "doc:root"
WORDS = ["alpha", "beta", "gamma", "delta beta", "epsilon"]

# A plan as a flat list: (parent index among earlier nodes, id, text).
plans = st.lists(
    st.tuples(
        st.integers(0, 20), st.sampled_from([f"n{i}" for i in range(10)]), st.sampled_from(WORDS)
    ),
    max_size=12,
)


def build(rows: list[tuple[int, str, str]], scope: str = "kb") -> Planned:
    root = Planned(ROOT, NewNode("Document", "document", scope=scope))
    made = [root]
    for parent, node_id, text in rows:
        if any(p.id == node_id for p in made):
            continue
        node = Planned(node_id, NewNode(text, "chunk", metadata={"w": text}))
        made[parent % len(made)].children.append(node)
        made.append(node)
    return root


def shape(memory: Memory, node_id: str) -> tuple[str, str, list[object]]:
    node = memory.get(node_id)
    return (node.id, node.text, [shape(memory, c.id) for c in memory.children(node_id)])


def planned_shape(plan: Planned) -> tuple[str, str, list[object]]:
    return (plan.id, plan.new.text, [planned_shape(c) for c in plan.children])


def sync(memory: Memory, plan: Planned) -> Writes:
    writes = prepare(memory._tree, plan, lambda _: True)
    write(memory.store, writes, batch_nodes=3)  # several batches, as a large file takes
    return writes


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(first=plans, second=plans)
def test_the_stored_tree_is_the_plan_and_unchanged_nodes_are_untouched(
    first: list[tuple[int, str, str]], second: list[tuple[int, str, str]]
) -> None:
    with (
        tempfile.TemporaryDirectory() as tmp,
        Memory(Path(tmp) / "m.db", embedder="hashing") as mem,
    ):
        before_plan, after_plan = build(first), build(second)
        sync(mem, before_plan)
        assert shape(mem, ROOT) == planned_shape(before_plan)
        before = {n.id: n for n in mem.store.subtree(ROOT)}
        result = sync(mem, after_plan)
        assert shape(mem, ROOT) == planned_shape(after_plan)
        after = {n.id: n for n in mem.store.subtree(ROOT)}
        assert all(n.scope == "kb" for n in after.values())
        for node_id, node in after.items():
            old = before.get(node_id)
            if old is not None and (old.text, old.parent_id) == (node.text, node.parent_id):
                assert node.version == old.version  # nothing to change, nothing written
        for gone in before.keys() - after.keys():
            assert mem.history(gone)[-1].op == "delete"  # kept in history
        assert sync(mem, after_plan).written == []  # a second sync writes nothing
        assert len(result.gone) == len(before.keys() - after.keys())
        assert_derived_text(mem)
        # Ids deleted earlier can come back (their versions continue).
        sync(mem, before_plan)
        assert shape(mem, ROOT) == planned_shape(before_plan)


def test_a_planned_id_owned_by_another_tree_is_refused(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db", embedder="hashing") as mem:
        other = mem.add("Other")
        plan = Planned(ROOT, NewNode("Doc"), [Planned(other.id, NewNode("steal"))])
        with pytest.raises(InvalidOperation, match=other.id):
            sync(mem, plan)
        assert mem.find(ROOT) is None  # nothing half-written
        assert mem.get(other.id).text == "Other"


def test_a_changed_node_gets_a_new_version_with_history(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db", embedder="hashing") as mem:
        sync(mem, Planned(ROOT, NewNode("Doc"), [Planned("a", NewNode("one"))]))
        result = sync(mem, Planned(ROOT, NewNode("Doc"), [Planned("a", NewNode("two"))]))
        assert len(result.updates) == 1 and result.written == ["a"]
        node = mem.get("a")
        assert (node.text, node.version) == ("two", 2)
        assert [v.node.text for v in mem.history("a")][:1] == ["one"]
