"""Path memory (the path-memory design): JSON entries under paths, one node per path segment.

Real temporary SQLite files, the deterministic hashing embedder and a clock the
test moves by hand; no mocks.
"""

from __future__ import annotations

import json
import math
import sqlite3
import tempfile
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mnemotree import InvalidInput, InvalidOperation, Memory, NotFound
from mnemotree.structured.path_memory import PathMemory, clean_path, render
from mnemotree.timeutil import to_iso
from tests.helpers import START, Clock


def space_id(pm: PathMemory) -> str:
    root = pm._space(create=False)
    assert root is not None
    return root


def node_count(memory: Memory) -> int:
    return memory.stats().nodes


# -- 1. the path tree is the node tree ------------------------------------------------


def test_paths_make_heading_nodes_and_entries(memory: Memory) -> None:
    pm = memory.paths()
    c = pm.save("A/B/C", {"x": 1}, context_tokens=0)
    d = pm.save("A/B/D", "hello", context_tokens=0)
    e = pm.save("A/E", [1, 2], context_tokens=0)

    space = memory.get(space_id(pm))
    assert space.parent_id is None
    assert space.context_type == "paths"
    assert space.metadata.get("container") is True

    # One node per segment: A and A/B are headings made on the way, without content.
    (a,) = memory.children(space.id)
    assert (a.context_type, a.context_name, a.context_value) == ("path", "A", "A")
    assert "content" not in a.metadata
    b, e_node = memory.children(a.id)
    assert (b.context_name, b.context_value) == ("B", "A/B")
    assert (e_node.id, e_node.context_value, e_node.text) == (e.node_id, "A/E", "- 1\n- 2")
    c_node, d_node = memory.children(b.id)
    assert (c_node.id, c_node.context_name, c_node.context_value) == (c.node_id, "C", "A/B/C")
    assert c_node.metadata["content"] == {"x": 1}
    assert c_node.text == render({"x": 1}) == "x: 1"
    assert (d_node.id, d_node.text) == (d.node_id, "hello")
    assert [n.id for n in pm.children("")] == [a.id]
    assert [n.id for n in pm.children("A")] == [b.id, e_node.id]
    assert [n.id for n in pm.children("A/B")] == [c.node_id, d.node_id]

    # Export renders interior nodes as headings, one level deeper per segment.
    md = memory.exchange.export_markdown(space.id)
    lines = md.splitlines()
    assert "# Structured memory (default)" in lines
    assert "## A" in lines and "### B" in lines
    assert "x: 1" in lines and "hello" in lines
    assert lines.index("## A") < lines.index("### B") < lines.index("x: 1")
    assert "## E" not in lines and "### C" not in lines  # entries without children are leaves

    # The headings show in the listing, with has_content telling them apart.
    listed = pm.list()
    assert [x.path for x in listed] == ["A", "A/B", "A/B/C", "A/B/D", "A/E"]
    assert [x.has_content for x in listed] == [False, False, True, True, True]
    assert [x.heading for x in listed] == ["A", "B", "C", "D", "E"]
    assert listed[2].content == {"x": 1}


def test_list_prefix_matches_whole_segments(memory: Memory) -> None:
    pm = memory.paths()
    for path in ("A/B/C", "A/B/D", "A/Bee", "A/B%", "A/B_", "AB/x", "A/E"):
        pm.save(path, path, context_tokens=0)
    assert [e.path for e in pm.list("A/B")] == ["A/B", "A/B/C", "A/B/D"]
    assert [e.path for e in pm.list("A/B/C")] == ["A/B/C"]
    assert [e.path for e in pm.list("/A/B/")] == ["A/B", "A/B/C", "A/B/D"]
    assert sorted(e.path for e in pm.list("A")) == sorted(
        ["A", "A/B", "A/B%", "A/B/C", "A/B/D", "A/B_", "A/Bee", "A/E"]
    )
    assert pm.list("A/Be") == []
    assert pm.list("Nope") == []
    assert memory.paths("elsewhere").list() == []


def test_segments_are_trimmed(memory: Memory) -> None:
    pm = memory.paths()
    entry = pm.save("  Goals / Phase 1 ", "x", context_tokens=0)
    assert entry.path == "Goals/Phase 1"
    assert entry.heading == "Phase 1"
    assert pm.get("Goals/Phase 1").node_id == entry.node_id
    assert clean_path("a/b") == "a/b"
    assert clean_path(" /a/b/ ", allow_empty=True) == "a/b"
    assert clean_path("  ", allow_empty=True) == ""


# -- 2. upsert and versions -----------------------------------------------------------


def test_saving_again_updates_with_a_new_version(cmem: Memory, clock: Clock) -> None:
    pm = cmem.paths()
    first = pm.save("Goals/Phase1", {"status": "todo"}, context_tokens=0)
    assert first.version == 1
    assert first.created == first.modified == to_iso(START)
    count = node_count(cmem)

    clock.advance(days=2)
    second = pm.save("Goals/Phase1", {"status": "done"}, context_tokens=0)
    assert second.node_id == first.node_id
    assert second.version == 2
    assert second.created == to_iso(START)
    assert second.modified == to_iso(START + timedelta(days=2))
    assert node_count(cmem) == count  # no new node

    history = cmem.history(first.node_id)
    assert [v.version for v in history] == [1, 2]
    assert history[0].node.metadata["content"] == {"status": "todo"}
    assert history[0].node.text == "status: todo"
    assert history[-1].node.metadata["content"] == {"status": "done"}
    got = pm.get("Goals/Phase1")
    assert (got.content, got.version, got.created) == ({"status": "done"}, 2, to_iso(START))


def test_saving_over_a_heading_gives_it_content(memory: Memory) -> None:
    pm = memory.paths()
    pm.save("A/B", 1, context_tokens=0)
    heading = pm.get("A")
    assert not heading.has_content
    entry = pm.save("A", {"about": "A"}, context_tokens=0)
    assert entry.node_id == heading.node_id
    assert entry.has_content and pm.get("A").content == {"about": "A"}
    assert [e.path for e in pm.list()] == ["A", "A/B"]


# -- 3. get ---------------------------------------------------------------------------


def test_get_returns_content_snapshot_metadata_and_records_access(
    cmem: Memory, clock: Clock
) -> None:
    pm = cmem.paths()
    conversation = [{"role": "user", "content": "phase one needs the sqlite schema"}]
    saved = pm.save("Goals/Phase1", {"goal": "schema"}, conversation=conversation)
    assert saved.accessed is None
    assert cmem.store.access_times([saved.node_id]) == {}

    clock.advance(hours=3)
    got = pm.get("Goals/Phase1")
    assert got.content == {"goal": "schema"}
    assert got.has_content
    assert [c.text for c in got.snapshot] == ["phase one needs the sqlite schema"]
    assert got.snapshot[0].role == "user"
    assert got.version == 1
    assert got.created == got.modified == to_iso(START)
    at = to_iso(START + timedelta(hours=3))
    assert got.accessed == at
    assert cmem.store.access_times([saved.node_id]) == {saved.node_id: [at]}

    data = got.to_dict()
    assert data["metadata"] == {
        "id": saved.node_id,
        "version": 1,
        "created": to_iso(START),
        "modified": to_iso(START),
        "accessed": at,
    }
    assert data["contextChunks"][0]["text"] == "phase one needs the sqlite schema"
    assert "embedding" not in data["contextChunks"][0]

    # record=False reads without an access.
    clock.advance(hours=1)
    pm.get("Goals/Phase1", record=False)
    assert cmem.store.access_times([saved.node_id]) == {saved.node_id: [at]}


def test_get_missing_path_and_heading(memory: Memory) -> None:
    pm = memory.paths()
    with pytest.raises(NotFound, match="Nope/There"):
        pm.get("Nope/There")  # no space yet
    pm.save("Goals/Phase1", "x", context_tokens=0)
    with pytest.raises(NotFound, match="Goals/Phase2") as info:
        pm.get("Goals/Phase2")
    assert info.value.value == "Goals/Phase2"
    heading = pm.get("Goals")
    assert heading.has_content is False
    assert heading.content is None
    assert heading.snapshot == []


# -- 4. snapshots ---------------------------------------------------------------------


CONVERSATION = [
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": "the database schema uses sqlite tables"},
    {"role": "assistant", "content": "we like bananas and apples in the kitchen"},
    {"role": "user", "content": "schema migration for the database"},
    {"role": "assistant", "content": ""},
    {"role": "user", "content": "a quick weather report for tomorrow morning, sunny and warm"},
]


def test_snapshot_from_conversation_is_ranked_and_within_budget(memory: Memory) -> None:
    pm = memory.paths()
    count = memory.tokenizer.count
    full = pm.save("Project/Schema", "database schema", conversation=CONVERSATION)
    texts = [c.text for c in full.snapshot]
    # Every non-empty message is a candidate; the empty one is skipped.
    assert sorted(texts) == sorted(m["content"] for m in CONVERSATION if m["content"])
    assert texts[0] == "the database schema uses sqlite tables"
    assert full.snapshot[0].role == "user"
    sims = [c.similarity for c in full.snapshot]
    assert sims == sorted(sims, reverse=True)
    assert sims[0] > 0
    assert all(c.source_id is None for c in full.snapshot)
    assert all(c.tokens == count(c.text) for c in full.snapshot)
    assert all(c.embedding is not None for c in full.snapshot)

    for budget in (1, 5, 11, 12, 20, 40):
        entry = pm.save(
            "Project/Schema", "database schema", conversation=CONVERSATION, context_tokens=budget
        )
        got = pm.get("Project/Schema").snapshot
        assert [c.text for c in got] == [c.text for c in entry.snapshot]
        assert sum(c.tokens for c in got) <= budget
        assert all(c.tokens == count(c.text) for c in got)
        # Greedy by similarity: the best chunk goes in whenever it fits alone.
        if count(texts[0]) <= budget:
            assert got[0].text == texts[0]
        # Chosen chunks keep the ranking order.
        assert [c.text for c in got] == [t for t in texts if t in {c.text for c in got}]

    tight = pm.save(
        "Project/Tight",
        "database schema",
        conversation=CONVERSATION,
        context_tokens=count(texts[0]),
    )
    assert [c.text for c in tight.snapshot] == [texts[0]]


def test_snapshot_from_memory_stays_in_scope_and_survives_sources(memory: Memory) -> None:
    mine = memory.remember("database schema design in sqlite", scope="a")
    other = memory.remember("database schema design for another team", scope="b")
    also_mine = memory.remember("the sqlite database schema has three tables", scope="a")
    memory.remember("a recipe for banana bread", scope="a")
    pa = memory.paths("a")
    pa.save("Other/Entry", "database schema sqlite", context_tokens=0)  # path nodes: no chunks
    entry = pa.save("Project/Schema", "database schema sqlite")

    assert entry.snapshot, "memories of the same scope should be snapshotted"
    sources = {c.source_id for c in entry.snapshot}
    assert None not in sources
    assert {mine.id, also_mine.id} <= sources
    assert other.id not in sources
    for chunk in entry.snapshot:
        node = memory.get(chunk.source_id or "")
        assert node.scope == "a"
        assert node.context_type != "path"
        assert chunk.text == node.text
        assert chunk.tokens == memory.tokenizer.count(chunk.text)
    assert sum(c.tokens for c in entry.snapshot) <= 1000

    # The copy outlives its sources.
    for chunk in entry.snapshot:
        memory.delete(chunk.source_id or "")
    got = pa.get("Project/Schema")
    assert [c.text for c in got.snapshot] == [c.text for c in entry.snapshot]
    assert "database schema design in sqlite" in [c.text for c in got.snapshot]

    # The other scope's entries snapshot only the other scope.
    pb = memory.paths("b")
    b_entry = pb.save("Project/Schema", "database schema sqlite")
    assert {c.source_id for c in b_entry.snapshot} == {other.id}


@pytest.mark.parametrize("from_conversation", [False, True])
def test_a_saved_entry_keeps_the_vector_its_snapshot_was_ranked_with(
    memory: Memory, from_conversation: bool
) -> None:
    # The snapshot query's meaning is the entry's own vector text, so a save
    # embeds once and leaves nothing pending; the stored vector is the one a
    # flush would compute.
    memory.remember("database schema design in sqlite")
    memory.flush()
    pm = memory.paths()
    conversation = CONVERSATION if from_conversation else None
    entry = pm.save("Project/Schema", {"db": "sqlite"}, conversation=conversation)
    heading = memory.store.find_path(space_id(pm), "Project")
    assert heading is not None
    waiting = {n.id for n in memory.store.pending_vectors(100)}
    assert entry.node_id not in waiting and heading.id in waiting  # a heading is embedded later
    node = memory.get(entry.node_id)
    stored = memory.retriever.vectors([entry.node_id])[entry.node_id]
    fresh = memory.retriever.embedder.embed_batch([f"{node.context_name}: {node.text}"])[0]
    assert np.allclose(stored, fresh, atol=1e-6)


def test_an_entry_whose_text_a_search_would_clean_is_embedded_by_flush(memory: Memory) -> None:
    memory.remember("padding words")
    pm = memory.paths()
    entry = pm.save("Notes/Long", "x " * 1500)  # its vector text is cut for a query
    assert entry.node_id in {n.id for n in memory.store.pending_vectors(100)}
    assert memory.flush() >= 1


def test_zero_context_tokens_gives_an_empty_snapshot(memory: Memory) -> None:
    memory.remember("database schema design in sqlite")
    pm = memory.paths()
    assert pm.save("A", "database schema", context_tokens=0).snapshot == []
    assert (
        pm.save("B", "database schema", conversation=CONVERSATION, context_tokens=0).snapshot == []
    )
    assert pm.get("A").snapshot == [] and pm.get("B").snapshot == []


def test_snapshot_rows_and_migration(memory: Memory, db_path: Path) -> None:
    pm = memory.paths()
    entry = pm.save("P/Q", "database schema", conversation=CONVERSATION, context_tokens=40)
    db = sqlite3.connect(db_path)
    try:
        names = {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
        assert {"snapshots", "nodes_by_path"} <= names
        rows = db.execute(
            "SELECT position, text, tokens, embedder, length(embedding) FROM snapshots "
            "WHERE node_id = ? ORDER BY position",
            (entry.node_id,),
        ).fetchall()
    finally:
        db.close()
    assert [r[1] for r in rows] == [c.text for c in entry.snapshot]
    assert [r[0] for r in rows] == list(range(len(rows)))
    identity = memory.retriever.embedder.identity
    assert all(r[3] == identity for r in rows)
    assert all(r[4] == 4 * len(entry.snapshot[0].embedding or []) for r in rows)

    # Saving again replaces the snapshot instead of adding to it.
    again = pm.save("P/Q", "database schema", conversation=CONVERSATION[:2])
    assert [c.text for c in pm.get("P/Q").snapshot] == [c.text for c in again.snapshot]
    assert len(again.snapshot) == 2


def test_bad_conversation_is_invalid_input(memory: Memory) -> None:
    pm = memory.paths()
    before = node_count(memory)
    for conversation in (["text"], [{"role": "user", "content": 5}]):
        with pytest.raises(InvalidInput):
            pm.save("A", "x", conversation=conversation)  # type: ignore[arg-type]
    assert node_count(memory) == before


# -- 5. query_heading -----------------------------------------------------------------


def test_query_heading_without_query_is_newest_first(cmem: Memory, clock: Clock) -> None:
    pm = cmem.paths()
    pm.save("Goals/One", "one", context_tokens=0)
    clock.advance(days=1)
    pm.save("Goals/Two", "two", context_tokens=0)
    clock.advance(days=1)
    pm.save("Goals/Three/Sub", "three", context_tokens=0)  # the heading Three is made now
    clock.advance(days=1)
    pm.save("Goals/One", "one again", context_tokens=0)
    pm.save("Elsewhere/X", "x", context_tokens=0)

    children = pm.query_heading("Goals")
    assert [e.path for e in children] == ["Goals/One", "Goals/Three", "Goals/Two"]
    assert all(e.score is None for e in children)
    assert children[0].content == "one again"
    assert children[1].has_content is False
    assert [e.path for e in pm.query_heading("Goals", "   ")] == [e.path for e in children]
    assert [e.path for e in pm.query_heading("Goals/Three")] == ["Goals/Three/Sub"]
    # The top level: every entry and heading directly under the space.
    assert sorted(e.path for e in pm.query_heading("")) == ["Elsewhere", "Goals"]
    assert pm.query_heading("Goals/Two") == []  # an entry without children


def test_query_heading_scores_similarity_against_recency(cmem: Memory, clock: Clock) -> None:
    pm = cmem.paths()
    query = "database schema sqlite tables"
    pm.save(
        "Goals/Old",
        "database schema sqlite tables",
        conversation=[{"role": "user", "content": "database schema sqlite tables"}],
    )
    clock.advance(days=20)
    pm.save("Goals/Mid", "database schema", context_tokens=0)
    clock.advance(days=40)
    pm.save(
        "Goals/New",
        "banana bread recipe",
        conversation=[{"role": "user", "content": "bake the bread at noon"}],
    )
    clock.advance(days=1)

    by_similarity = pm.query_heading("Goals", query, recency_bias=0.0)
    by_recency = pm.query_heading("Goals", query, recency_bias=1.0)
    assert [e.path for e in by_similarity] == ["Goals/Old", "Goals/Mid", "Goals/New"]
    assert [e.path for e in by_recency] == ["Goals/New", "Goals/Mid", "Goals/Old"]

    similarity = {e.path: e.score or 0.0 for e in by_similarity}
    recency = {e.path: e.score or 0.0 for e in by_recency}
    assert similarity["Goals/Old"] == pytest.approx(1.0, abs=1e-4)
    assert similarity["Goals/New"] == pytest.approx(0.0, abs=1e-6)
    for path, age in (("Goals/Old", 61), ("Goals/Mid", 41), ("Goals/New", 1)):
        assert recency[path] == pytest.approx(math.exp(-age / 30))
    for bias in (0.3, 0.5, 0.8):
        mixed = {e.path: e.score for e in pm.query_heading("Goals", query, recency_bias=bias)}
        for path in mixed:
            expected = (1 - bias) * similarity[path] + bias * recency[path]
            assert mixed[path] == pytest.approx(expected)

    # Relevant chunks: only those above 0.5 similarity to the query.
    old = by_similarity[0]
    assert [c.text for c in old.relevant] == ["database schema sqlite tables"]
    assert old.relevant[0].similarity == pytest.approx(1.0, abs=1e-4)
    assert by_similarity[2].relevant == []
    assert all(c.similarity > 0.5 for e in by_similarity for c in e.relevant)
    assert by_similarity[0].to_dict()["relevantChunks"][0]["text"] == query


def test_query_heading_missing_and_bad_bias(memory: Memory) -> None:
    pm = memory.paths()
    assert pm.query_heading("") == []  # nothing saved yet
    with pytest.raises(NotFound, match="Goals"):
        pm.query_heading("Goals", "x")
    pm.save("Goals/A", "a", context_tokens=0)
    with pytest.raises(NotFound, match="Goals/B"):
        pm.query_heading("Goals/B")
    for bias in (2, -0.1, 1.0001, float("nan"), "x", None):
        with pytest.raises(InvalidInput):
            pm.query_heading("Goals", "a", recency_bias=bias)  # type: ignore[arg-type]
    assert len(pm.query_heading("Goals", "a", recency_bias=0)) == 1
    assert len(pm.query_heading("Goals", "a", recency_bias=1)) == 1


def test_query_heading_non_string_query_is_invalid_input(memory: Memory) -> None:
    pm = memory.paths()
    pm.save("Goals/A", "a", context_tokens=0)
    with pytest.raises(InvalidInput):
        pm.query_heading("Goals", 5)  # type: ignore[arg-type]


# -- 6. delete ------------------------------------------------------------------------


def test_delete_leaf_heading_and_subtree(cmem: Memory, clock: Clock) -> None:
    pm = cmem.paths()
    c = pm.save("A/B/C", "c", context_tokens=0)
    d = pm.save("A/B/D", "d", context_tokens=0)
    pm.save("A/E", "e", context_tokens=0)
    b = pm.get("A/B", record=False)

    before = node_count(cmem)
    with pytest.raises(InvalidOperation, match="A/B"):
        pm.delete("A/B")
    assert node_count(cmem) == before

    clock.advance(days=1)
    assert pm.delete("A/B/C") == 1
    assert [e.path for e in pm.list()] == ["A", "A/B", "A/B/D", "A/E"]
    assert cmem.history(c.node_id)[-1].op == "delete"

    assert pm.delete("A/B", recursive=True) == 2
    assert [e.path for e in pm.list()] == ["A", "A/E"]
    for node_id in (b.node_id, d.node_id):
        assert cmem.find(node_id) is None
        last = cmem.history(node_id)[-1]
        assert last.op == "delete"
        assert last.recorded_at == to_iso(START + timedelta(days=1))
    with pytest.raises(NotFound):
        pm.get("A/B/D")
    # A leaf may be deleted with recursive too.
    assert pm.delete("A/E", recursive=True) == 1
    # The emptied heading stays until deleted itself.
    assert [e.path for e in pm.list()] == ["A"]
    assert pm.delete("A") == 1
    assert pm.list() == []


def test_delete_missing_path_is_not_found(memory: Memory) -> None:
    pm = memory.paths()
    with pytest.raises(NotFound, match="Nope"):
        pm.delete("Nope")  # no space yet
    pm.save("A/B", "x", context_tokens=0)
    before = node_count(memory)
    with pytest.raises(NotFound, match="A/C"):
        pm.delete("A/C", recursive=True)
    with pytest.raises(InvalidInput):
        pm.delete("A//B")
    assert node_count(memory) == before


def test_deleted_entry_can_be_saved_again(memory: Memory) -> None:
    pm = memory.paths()
    first = pm.save("A/B", "one", context_tokens=0)
    pm.delete("A/B")
    second = pm.save("A/B", "two", context_tokens=0)
    assert second.node_id != first.node_id
    assert second.version == 1
    assert pm.get("A/B").content == "two"


# -- 7. scopes ------------------------------------------------------------------------


def test_scopes_are_separate_spaces(memory: Memory) -> None:
    pa, pb = memory.paths("a"), memory.paths("b")
    secret = pa.save("Secrets/Zebra", "zebra giraffe okapi", context_tokens=0)
    assert pb.list() == []
    assert pb.query_heading("") == []
    with pytest.raises(NotFound):
        pb.get("Secrets/Zebra")
    with pytest.raises(NotFound):
        pb.query_heading("Secrets")
    with pytest.raises(NotFound):
        pb.delete("Secrets")

    public = pb.save("Secrets/Zebra", "zebra in b", context_tokens=0)
    assert public.node_id != secret.node_id
    assert pa.get("Secrets/Zebra").content == "zebra giraffe okapi"
    assert space_id(pa) != space_id(pb)
    assert memory.get(secret.node_id).scope == "a"
    assert memory.get(public.node_id).scope == "b"

    # Entries are searchable, but only in their scope.
    found_a = memory.search("zebra giraffe okapi", scopes=["a"])
    assert secret.node_id in [h.node.id for h in found_a]
    a_nodes = {e.node_id for e in pa.list()}
    for query in ("zebra giraffe okapi", "Secrets", "Zebra", "zebra"):
        hits = memory.search(query, scopes=["b"])
        assert all(h.node.scope == "b" for h in hits)
        assert not a_nodes & {h.node.id for h in hits}
    assert public.node_id in [h.node.id for h in memory.search("zebra", scopes=["b"])]

    pb.delete("Secrets", recursive=True)
    assert [e.path for e in pa.list()] == ["Secrets", "Secrets/Zebra"]
    with pytest.raises(InvalidInput):
        memory.paths("")


# -- 8. bad input ---------------------------------------------------------------------


class Opaque:
    pass


BAD_PATHS: list[Any] = [
    "",
    "   ",
    "a//b",
    "/a",
    "a/",
    "..",
    "a/../b",
    ".",
    "a/./b",
    "a/ /b",
    "x" * 1025,
    "é" * 513,
    "a\x00b",
    "a\nb/c",
    "a/b\x1bc",
    "a\n",  # control characters at an end are refused, not trimmed away
    "\ta",
    "a\x7f",
    "a\ud800b",  # a lone surrogate (undecodable bytes)
    None,
    5,
    b"a/b",
    ["a"],
]
BAD_CONTENT: list[Any] = [
    {1, 2},
    float("nan"),
    float("inf"),
    Opaque(),
    {"k": {1}},
    [b"bytes"],
    {("t",): 1},
]


@pytest.mark.parametrize("path", BAD_PATHS, ids=lambda v: repr(v)[:24])
def test_bad_paths_are_invalid_and_change_nothing(memory: Memory, path: Any) -> None:
    pm = memory.paths()
    pm.save("Keep/This", "x", context_tokens=0)
    before = node_count(memory)
    with pytest.raises(InvalidInput):
        pm.save(path, "content", context_tokens=0)
    with pytest.raises(InvalidInput):
        pm.get(path)
    with pytest.raises(InvalidInput):
        pm.delete(path, recursive=True)
    assert node_count(memory) == before
    assert [e.path for e in pm.list()] == ["Keep", "Keep/This"]


def test_path_length_limit_is_in_bytes(memory: Memory) -> None:
    pm = memory.paths()
    assert pm.save("x" * 1024, 1, context_tokens=0).path == "x" * 1024
    assert pm.save("é" * 512, 1, context_tokens=0).path == "é" * 512
    with pytest.raises(InvalidInput):
        pm.save("é" * 512 + "x", 1, context_tokens=0)


@pytest.mark.parametrize("content", BAD_CONTENT, ids=lambda v: repr(v)[:24])
def test_bad_content_is_invalid_and_changes_nothing(memory: Memory, content: Any) -> None:
    pm = memory.paths()
    before = node_count(memory)
    with pytest.raises(InvalidInput):
        pm.save("A/B", content)
    assert node_count(memory) == before
    assert pm.list() == []


def test_bad_options_are_invalid_and_change_nothing(memory: Memory) -> None:
    pm = memory.paths()
    pm.save("A/B", "x", context_tokens=0)
    before = node_count(memory)
    for tokens in (-1, "x", True, False, 1.5, 100_001, None):
        with pytest.raises(InvalidInput):
            pm.save("A/C", "y", context_tokens=tokens)  # type: ignore[arg-type]
    for bias in (2, -0.1):
        with pytest.raises(InvalidInput):
            pm.query_heading("A", "x", recency_bias=bias)
    assert node_count(memory) == before
    assert pm.get("A/B").version == 1


def test_lone_surrogate_path_is_invalid_input(memory: Memory) -> None:
    pm = memory.paths()
    with pytest.raises(InvalidInput):
        pm.save("a\ud800b", 1, context_tokens=0)


# -- 9. property: the listing is the model ----------------------------------------------

SEGMENT = st.sampled_from(["a", "b", "c"])
PATH = st.lists(SEGMENT, min_size=1, max_size=3).map("/".join)
OPS = st.lists(
    st.one_of(
        st.tuples(st.just("save"), PATH, st.integers(0, 9)),
        st.tuples(st.just("delete"), PATH, st.booleans()),
    ),
    max_size=14,
)


def _prefixes(path: str) -> list[str]:
    parts = path.split("/")
    return ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=OPS)
def test_listing_follows_a_model(ops: list[tuple[str, str, Any]]) -> None:
    with (
        tempfile.TemporaryDirectory() as tmp,
        Memory(Path(tmp) / "m.db", embedder="hashing") as memory,
    ):
        pm = memory.paths()
        nodes: dict[str, Any] = {}  # path -> content (None for a heading)
        for op, path, arg in ops:
            if op == "save":
                for prefix in _prefixes(path)[:-1]:
                    nodes.setdefault(prefix, None)
                nodes[path] = arg
                assert pm.save(path, arg, context_tokens=0).content == arg
            elif path not in nodes:
                with pytest.raises(NotFound):
                    pm.delete(path, recursive=arg)
            else:
                below = [p for p in nodes if p.startswith(path + "/")]
                if below and not arg:
                    with pytest.raises(InvalidOperation):
                        pm.delete(path)
                else:
                    assert pm.delete(path, recursive=arg) == 1 + len(below)
                    for p in [path, *below]:
                        del nodes[p]

            listed = pm.list()
            assert [e.path for e in listed] == sorted(nodes, key=lambda p: p.split("/"))
            assert {e.path: e.content for e in listed if e.has_content} == {
                p: c for p, c in nodes.items() if c is not None
            }
        if nodes:
            space = space_id(pm)
            for entry in pm.list():
                node = memory.get(entry.node_id)
                names = [n.context_name for n in reversed(memory.ancestors(node.id))]
                assert names[0] == "" and memory.ancestors(node.id)[-1].id == space
                assert node.context_value == "/".join([*names[1:], node.context_name])
                assert node.context_type == "path"
                if entry.has_content:
                    assert node.text == render(nodes[entry.path])
            total = node_count(memory)
            assert total == 1 + len(nodes)  # the space and one node per path
            assert json.loads(json.dumps([e.to_dict() for e in pm.list()]))
