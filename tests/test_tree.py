from __future__ import annotations

import sqlite3
from datetime import datetime
from itertools import pairwise
from pathlib import Path

import pytest

from mnemotree import InvalidInput, InvalidOperation, Memory, NewNode, NotFound
from tests.helpers import snapshot, texts

pytestmark = pytest.mark.both_stores  # every test using the memory fixtures runs on both


def test_append_orders_children_and_counts_tokens(mem: Memory) -> None:
    root = mem.add("Project Atlas", context_type="space")
    a = mem.append_child(root.id, "We chose SQLite.")
    b = mem.add("Alice leads the team.", parent=root.id, context_type="memory")
    assert [c.id for c in mem.children(root.id)] == [a.id, b.id]
    assert (a.order_key, b.order_key) == (1.0, 2.0)
    assert a.root_id == root.id and a.parent_id == root.id
    assert a.token_count == mem.tokenizer.count("We chose SQLite.") > 0
    assert mem.roots() == [root]


def test_insert_between_uses_twenty_percent_interpolation(mem: Memory) -> None:
    root = mem.add("root")
    a = mem.append_child(root.id, "a")
    b = mem.append_child(root.id, "b")
    c = mem.insert_between(a.id, b.id, "c")
    assert c.order_key == pytest.approx((4 * a.order_key + b.order_key) / 5)
    assert texts(mem, root.id) == ["root", "a", "c", "b"]
    # Either argument order names the same gap.
    d = mem.insert_between(b.id, c.id, "d")
    assert texts(mem, root.id) == ["root", "a", "c", "d", "b"]
    assert c.order_key < d.order_key < b.order_key


@pytest.mark.slow
@pytest.mark.sqlite_only  # 10,000 write transactions: 1.5 min on Postgres; renumbering is
# tested there by test_tight_gaps_among_few_siblings_renumber_in_place
@pytest.mark.parametrize("side", ["after_first", "before_second"])
def test_ten_thousand_inserts_at_one_spot_stay_ordered(mem: Memory, side: str) -> None:
    root = mem.add("root")
    first = mem.append_child(root.id, "first")
    last = mem.append_child(root.id, "last")
    expected = [first.id, last.id]
    left, right = first, last
    for i in range(10_000):
        node = mem.insert_between(left.id, right.id, f"n{i}")
        position = expected.index(right.id)
        expected.insert(position, node.id)
        # Keep inserting at the same spot: right after `first`, or right before `last`.
        if side == "after_first":
            right = node
        else:
            left = node
    children = mem.children(root.id)
    assert [c.id for c in children] == expected
    keys = [c.order_key for c in children]
    assert all(x < y for x, y in pairwise(keys))


def test_insert_between_rejects_bad_pairs_without_writing(mem: Memory) -> None:
    root = mem.add("root")
    a = mem.append_child(root.id, "a")
    b = mem.append_child(root.id, "b")
    c = mem.append_child(root.id, "c")
    child = mem.append_child(a.id, "child of a")
    before = snapshot(mem)
    with pytest.raises(InvalidOperation, match="different parents") as info:
        mem.insert_between(child.id, b.id, "x")
    assert info.value.value == (child.id, b.id)
    with pytest.raises(InvalidOperation, match="not adjacent"):
        mem.insert_between(a.id, c.id, "x")
    with pytest.raises(InvalidOperation, match="itself"):
        mem.insert_between(a.id, a.id, "x")
    with pytest.raises(NotFound, match="nope") as missing:
        mem.insert_between(a.id, "nope", "x")
    assert missing.value.value == "nope"
    with pytest.raises(InvalidInput, match="empty"):
        mem.insert_between(a.id, b.id, "   ")
    assert snapshot(mem) == before


def test_update_recounts_bumps_version_and_keeps_history(db_path: Path) -> None:
    moments = iter(["2026-01-01T00:00:00+00:00", "2026-01-02T00:00:00+00:00"])
    mem = Memory(db_path, clock=lambda: datetime.fromisoformat(next(moments)))
    root = mem.add("root")
    updated = mem.update(root.id, "a much longer root text than before", context_name="n")
    assert updated.version == 2
    assert updated.token_count == mem.tokenizer.count("a much longer root text than before")
    assert updated.updated_at > root.updated_at and updated.created_at == root.created_at
    assert updated.context_name == "n"
    history = mem.history(root.id)
    assert [(v.version, v.op, v.node.text) for v in history] == [
        (1, "update", "root"),
        (2, "current", "a much longer root text than before"),
    ]
    with pytest.raises(InvalidInput, match="nothing to update"):
        mem.update(root.id)
    mem.close()


def test_restore_brings_back_an_old_version(mem: Memory) -> None:
    root = mem.add("first text")
    mem.update(root.id, "second text")
    restored = mem.restore(root.id, 1)
    assert restored.text == "first text" and restored.version == 3
    assert mem.get(root.id).text == "first text"
    with pytest.raises(NotFound, match="no version 9"):
        mem.restore(root.id, 9)
    with pytest.raises(InvalidOperation, match="already at version 3"):
        mem.restore(root.id, 3)


def test_delete_cascades_and_restore_undeletes_the_subtree(mem: Memory) -> None:
    root = mem.add("root")
    a = mem.append_child(root.id, "a")
    a1 = mem.append_child(a.id, "a1")
    mem.append_child(a1.id, "a1x")
    b = mem.append_child(root.id, "b")
    assert mem.delete(a.id) == 3
    assert texts(mem, root.id) == ["root", "b"]
    assert mem.find(a1.id) is None
    assert [v.op for v in mem.history(a1.id)] == ["delete"]
    with pytest.raises(InvalidOperation, match=f"restore {a.id} first"):
        mem.restore(a1.id, 1)
    mem.restore(a.id, 1)
    assert texts(mem, root.id) == ["root", "a", "a1", "a1x", "b"]
    assert mem.get(b.id).version == 1


def test_delete_of_a_root_removes_the_whole_tree(mem: Memory) -> None:
    root = mem.add("root")
    mem.append_many(root.id, [f"m{i}" for i in range(50)])
    other = mem.add("other")
    assert mem.delete(root.id) == 51
    assert mem.roots() == [other]
    assert mem.stats().nodes == 1


def test_move_reparents_and_reorders(mem: Memory) -> None:
    root = mem.add("root")
    a = mem.append_child(root.id, "a")
    b = mem.append_child(root.id, "b")
    c = mem.append_child(root.id, "c")
    a1 = mem.append_child(a.id, "a1")
    mem.move(c.id, before=a.id)
    assert texts(mem, root.id) == ["root", "c", "a", "a1", "b"]
    mem.move(c.id, after=a.id)
    assert texts(mem, root.id) == ["root", "a", "a1", "c", "b"]
    moved = mem.move(b.id, parent=a.id)
    assert moved.parent_id == a.id and moved.version == 2
    assert texts(mem, root.id) == ["root", "a", "a1", "b", "c"]
    with pytest.raises(InvalidOperation, match="own descendant"):
        mem.move(a.id, parent=a1.id)
    with pytest.raises(InvalidOperation, match="itself"):
        mem.move(a.id, after=a.id)
    with pytest.raises(InvalidInput, match="needs a target"):
        mem.move(a.id)


def test_move_across_trees_updates_root_ids(mem: Memory) -> None:
    one = mem.add("one")
    two = mem.add("two")
    branch = mem.append_child(one.id, "branch")
    leaf = mem.append_child(branch.id, "leaf")
    mem.move(branch.id, parent=two.id)
    assert mem.get(leaf.id).root_id == two.id
    assert texts(mem, two.id) == ["two", "branch", "leaf"]
    assert texts(mem, one.id) == ["one"]


def test_add_summary_wraps_contiguous_leaves_at_their_position(mem: Memory) -> None:
    root = mem.add("root")
    a, b, c, d = mem.append_many(root.id, ["a", "b", "c", "d"])
    summary = mem.add_summary([c.id, b.id], "b and c")
    assert summary.is_summary and summary.context_type == "summary"
    assert summary.parent_id == root.id
    assert [n.id for n in mem.children(root.id)] == [a.id, summary.id, d.id]
    assert [n.id for n in mem.children(summary.id)] == [b.id, c.id]
    assert texts(mem, root.id) == ["root", "a", "b and c", "b", "c", "d"]
    # Summaries of summaries are allowed: they are the units of compression.
    top = mem.add_summary([a.id, summary.id], "a to c")
    assert texts(mem, root.id, "collapse") == ["root", "a to c", "d"]
    assert texts(mem, root.id, "skip") == ["root", "a", "b", "c", "d"]
    assert mem.get(top.id).parent_id == root.id


def test_add_summary_rejects_bad_sets_naming_the_node(mem: Memory) -> None:
    root = mem.add("root")
    a, b, c = mem.append_many(root.id, ["a", "b", "c"])
    inner = mem.append_child(b.id, "inner")
    other_root = mem.add("other")
    before = snapshot(mem)
    with pytest.raises(InvalidOperation, match=f"nodes are not contiguous: {b.id}"):
        mem.add_summary([a.id, c.id], "s")
    with pytest.raises(InvalidOperation, match=f"node {b.id} has children") as info:
        mem.add_summary([b.id], "s")
    assert info.value.value == b.id
    with pytest.raises(InvalidOperation, match=f"node {inner.id} has parent"):
        mem.add_summary([a.id, inner.id], "s")
    with pytest.raises(InvalidOperation, match="root"):
        mem.add_summary([other_root.id], "s")
    with pytest.raises(InvalidInput, match="twice"):
        mem.add_summary([a.id, a.id], "s")
    with pytest.raises(NotFound):
        mem.add_summary(["missing"], "s")
    assert snapshot(mem) == before


def test_summary_goes_stale_when_a_child_changes(mem: Memory) -> None:
    root = mem.add("root")
    a, b, c = mem.append_many(root.id, ["a", "b", "c"])
    low = mem.add_summary([a.id, b.id], "a and b")
    high = mem.add_summary([low.id, c.id], "all")
    assert mem.stale_summaries() == []
    mem.update(a.id, "a changed")
    assert {n.id for n in mem.stale_summaries()} == {low.id, high.id}
    mem.update(low.id, "a changed and b")
    assert [n.id for n in mem.stale_summaries()] == [high.id]
    mem.update(high.id, "all, refreshed")
    mem.append_child(low.id, "late message")
    assert {n.id for n in mem.stale_summaries()} == {low.id, high.id}


def test_serialize_modes(mem: Memory) -> None:
    root = mem.add("Book")
    ch1 = mem.append_child(root.id, "Chapter 1")
    p1, p2 = mem.append_many(ch1.id, ["p1", "p2"])
    mem.add_summary([p1.id, p2.id], "p1+p2")
    mem.append_child(root.id, "Chapter 2")
    assert texts(mem, root.id) == ["Book", "Chapter 1", "p1+p2", "p1", "p2", "Chapter 2"]
    assert texts(mem, root.id, "skip") == ["Book", "Chapter 1", "p1", "p2", "Chapter 2"]
    assert texts(mem, root.id, "collapse") == ["Book", "Chapter 1", "p1+p2", "Chapter 2"]
    assert texts(mem, ch1.id) == ["Chapter 1", "p1+p2", "p1", "p2"]
    with pytest.raises(InvalidInput, match="unknown serialize mode 'nope'"):
        mem.serialize(root.id, "nope")


def test_expand_to_budget_is_breadth_first_in_reading_order(mem: Memory) -> None:
    root = mem.add("Root")
    s1 = mem.append_child(root.id, "Section one")
    s2 = mem.append_child(root.id, "Section two")
    mem.append_many(s1.id, ["alpha beta", "gamma delta"])
    mem.append_many(s2.id, ["epsilon zeta"])
    cost = {n.text: n.token_count for n in mem.serialize(root.id)}
    depth1 = cost["Root"] + cost["Section one"] + cost["Section two"]
    got = [n.text for n in mem.expand_to_budget(root.id, depth1)]
    assert got == ["Root", "Section one", "Section two"]
    budget = depth1 + cost["alpha beta"]
    got = [n.text for n in mem.expand_to_budget(root.id, budget)]
    assert got == ["Root", "Section one", "alpha beta", "Section two"]
    everything = sum(cost.values())
    assert [n.text for n in mem.expand_to_budget(root.id, everything)] == texts(mem, root.id)
    assert mem.expand_to_budget(root.id, 0) == []
    with pytest.raises(InvalidInput, match="-1"):
        mem.expand_to_budget(root.id, -1)


def test_scope_is_inherited_down_the_tree(mem: Memory) -> None:
    space = mem.add("kb", scope="kb")
    with pytest.raises(InvalidOperation, match="unless that scope is shared"):
        mem.append_child(space.id, "Alice", scope="user:42")
    assert mem.children(space.id) == []
    assert mem.keys.share_scope("kb") == frozenset({"kb"})
    user = mem.append_child(space.id, "Alice", scope="user:42")
    fact = mem.append_child(user.id, "Alice likes tea")
    note = mem.append_child(space.id, "shared note")
    assert (fact.scope, note.scope, mem.add("plain").scope) == ("user:42", "kb", "default")
    with pytest.raises(InvalidInput, match="scope is empty"):
        mem.add("x", scope=" ")


@pytest.mark.sqlite_only  # reads the file's tables
def test_tags_are_parsed_and_indexed(mem: Memory, db_path: Path) -> None:
    root = mem.add("Meeting with @Alice and @bob.smith about @project-x; mail bob@example.com")
    assert root.tags == ["alice", "bob.smith", "project-x"]
    mem.update(root.id, "Only @carol now")
    with sqlite3.connect(db_path) as raw:
        rows = raw.execute("SELECT tag FROM node_tags WHERE node_id = ?", (root.id,)).fetchall()
    assert rows == [("carol",)]


@pytest.mark.sqlite_only  # reads the FTS5 table
def test_fts_index_follows_inserts_updates_and_deletes(mem: Memory, db_path: Path) -> None:
    root = mem.add("Gardening notes")
    leaf = mem.append_child(root.id, "Tomatoes need full sun", context_name="tomato")

    def hits(word: str) -> list[str]:
        with sqlite3.connect(db_path) as raw:
            rows = raw.execute(
                "SELECT n.id FROM nodes_fts JOIN nodes n ON n.seq = nodes_fts.rowid "
                "WHERE nodes_fts MATCH ?",
                (f'"{word}"',),
            ).fetchall()
        return [r[0] for r in rows]

    assert hits("tomatoes") == [leaf.id]
    assert hits("tomato") == [leaf.id]  # porter stemming, and the name column
    mem.update(leaf.id, "Peppers like heat")
    assert hits("peppers") == [leaf.id] and hits("sun") == []
    mem.delete(root.id)
    assert hits("peppers") == [] and hits("gardening") == []


def test_bad_text_is_rejected_with_the_reason(mem: Memory) -> None:
    root = mem.add("root")
    bad_utf8 = b"caf\xe9".decode("utf-8", "surrogateescape")
    cases = {"": "empty", "  \n\t": "empty", bad_utf8: "UTF-8", "a\x00b": "NUL"}
    for text, reason in cases.items():
        with pytest.raises(InvalidInput, match=reason):
            mem.append_child(root.id, text)
    with pytest.raises(InvalidInput, match="UTF-8"):
        mem.append_many(root.id, [NewNode("fine"), NewNode(bad_utf8)])
    assert mem.children(root.id) == []


def test_append_many_is_one_transaction(mem: Memory) -> None:
    root = mem.add("root")
    nodes = mem.append_many(root.id, [NewNode(f"m{i}", context_type="message") for i in range(500)])
    assert [n.order_key for n in nodes] == [float(i + 1) for i in range(500)]
    assert len(mem.children(root.id)) == 500
    with pytest.raises(NotFound):
        mem.append_many("missing", ["x"])


def test_tight_gaps_among_few_siblings_renumber_in_place(mem: Memory) -> None:
    root = mem.add("root")
    _z, a, m, n, _b = mem.append_many(root.id, list("zamnb"))
    for i in range(60):  # each move halves the gap right after `a`
        mem.move((m if i % 2 == 0 else n).id, after=a.id)
        assert texts(mem, root.id)[1:3] == ["z", "a"]
    node = mem.insert_between(a.id, mem.children(root.id)[2].id, "x")
    order = texts(mem, root.id)
    assert order[:4] == ["root", "z", "a", "x"] and sorted(order[4:]) == ["b", "m", "n"]
    keys = [c.order_key for c in mem.children(root.id)]
    assert keys == sorted(set(keys)) and node.order_key in keys


def test_restored_node_takes_a_free_position(mem: Memory) -> None:
    root = mem.add("root")
    _a, b = mem.append_many(root.id, ["a", "b"])
    mem.delete(b.id)
    c = mem.append_child(root.id, "c")  # takes b's old key
    mem.restore(b.id, 1)
    keys = [n.order_key for n in mem.children(root.id)]
    assert len(set(keys)) == 3
    assert texts(mem, root.id) == ["root", "a", "b", "c"]
    mem.insert_between(b.id, c.id, "x")
    assert texts(mem, root.id) == ["root", "a", "b", "x", "c"]


def test_a_change_deep_below_a_summary_makes_it_stale(mem: Memory) -> None:
    root = mem.add("root")
    a, b = mem.append_many(root.id, ["a", "b"])
    summary = mem.add_summary([a.id, b.id], "a and b")
    detail = mem.append_child(a.id, "a correction")
    mem.update(summary.id, "a and b, refreshed")
    mem.update(detail.id, "a better correction")
    assert [n.id for n in mem.stale_summaries()] == [summary.id]


def test_a_summary_takes_its_childrens_scope_and_never_mixes_scopes(mem: Memory) -> None:
    mem.keys.share_scope("kb")
    space = mem.add("shared", scope="kb")
    private = mem.append_child(space.id, "Alice's diagnosis", scope="user:42")
    public = mem.append_child(space.id, "office hours")
    summary = mem.add_summary([private.id], "health note")
    assert summary.scope == "user:42"
    with pytest.raises(InvalidOperation, match=r"different scopes \['kb', 'user:42'\]"):
        mem.add_summary([summary.id, public.id], "everything")


def test_metadata_must_be_plain_json(mem: Memory) -> None:
    from datetime import date

    for bad, reason in (
        ({"when": date(2024, 1, 1)}, "not plain JSON"),
        ({1: "a"}, "keys must be strings"),
        ([], "must be a JSON object"),
        ({"x": float("nan")}, "not plain JSON"),
    ):
        with pytest.raises(InvalidInput, match=reason):
            mem.add("x", metadata=bad)  # type: ignore[arg-type]
    assert mem.stats().nodes == 0
    assert mem.add("x", metadata={"tags": ["a"], "n": 1.5}).metadata == {"tags": ["a"], "n": 1.5}


def test_summaries_and_their_children_never_drift_apart_in_scope(mem: Memory) -> None:
    mem.keys.share_scope("public")
    root = mem.add("Team", scope="public")
    c1, c2 = mem.append_many(root.id, ["Bob: salary 90k", "Bob: started in May"])
    summary = mem.add_summary([c1.id, c2.id], "Bob: salary 90k, started in May")
    private = mem.append_child(root.id, "HR file", scope="hr")
    before = snapshot(mem)
    with pytest.raises(InvalidOperation, match="share one scope"):
        mem.update(c1.id, scope="hr")
    with pytest.raises(InvalidOperation, match="share one scope"):
        mem.update(summary.id, scope="hr")
    with pytest.raises(InvalidOperation, match="share one scope"):
        mem.move(private.id, parent=summary.id)
    assert snapshot(mem) == before
    mem.update(c1.id, "Bob: salary 95k")  # other changes stay allowed
