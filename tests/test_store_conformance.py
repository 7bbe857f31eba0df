"""The store's contract, as tests any backend must pass.

Each test speaks to the store protocols only (never to SQL), so a second
backend runs this same file by adding itself to `BACKENDS`. Scopes are a
hard boundary in every read that filters; writes happen in transactions;
what a store returns is plain values (tuples, not JSON).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import cast

import numpy as np
import pytest

from mnemotree.errors import InvalidInput
from mnemotree.model import Node, NodeFilter, NodeVersion
from mnemotree.store import (
    CapturedRow,
    ContradictionRow,
    KeyRow,
    RelationRow,
    RunRow,
    SnapshotRow,
    Store,
    UsageRow,
    protocol,
)
from mnemotree.store.sqlite import SQLiteStore
from tests.conftest import PostgresServer

NOW = "2026-03-01T10:00:00.000000Z"
LATER = "2026-03-02T10:00:00.000000Z"
PROTOCOLS = (
    protocol.Lifecycle, protocol.Settings, protocol.Nodes, protocol.Memories,
    protocol.TextIndex, protocol.Vectors, protocol.UsageLog, protocol.ConsolidationLog,
    protocol.Keys, protocol.Backup, protocol.Erasure,
)  # fmt: skip


def test_every_backend_offers_every_store_method() -> None:
    """Both stores offer every method of every protocol (Postgres also
    answers vector searches itself)."""
    from mnemotree.store.postgres import PostgresStore

    wanted = {n for p in PROTOCOLS for n in vars(p) if not n.startswith("_")}
    for backend in (SQLiteStore, PostgresStore):
        assert sorted(n for n in wanted if not hasattr(backend, n)) == [], backend
    assert {n for n in vars(protocol.VectorSearch) if not n.startswith("_")} <= set(
        dir(PostgresStore)
    )


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest) -> Callable[[Path], Store]:
    """Opens an empty store of the backend under test in a folder."""
    if request.param == "sqlite":
        return lambda folder: SQLiteStore(folder / "conformance.db")
    from mnemotree.store.postgres import PostgresStore

    server: PostgresServer = request.getfixturevalue("postgres")
    return lambda _: cast(Store, PostgresStore(server.new_database()))


@pytest.fixture
def store(backend: Callable[[Path], Store], tmp_path: Path) -> Iterator[Store]:
    opened = backend(tmp_path)
    try:
        yield opened
    finally:
        opened.close()


_SEQ = iter(range(1, 1_000_000))


def node(
    text: str,
    parent: Node | None = None,
    *,
    scope: str = "s1",
    key: float | None = None,
    kind: str = "",
    name: str = "",
    value: str = "",
    metadata: dict[str, object] | None = None,
) -> Node:
    n = next(_SEQ)
    node_id = f"01TESTNODE{n:016d}"
    return Node(
        id=node_id,
        root_id=parent.root_id if parent else node_id,
        parent_id=parent.id if parent else None,
        order_key=float(n) if key is None else key,
        text=text,
        token_count=len(text.split()),
        created_at=NOW,
        updated_at=NOW,
        context_type=kind,
        context_name=name,
        context_value=value,
        scope=scope,
        metadata=dict(metadata or {}),
    )


def tree(store: Store, scope: str = "s1") -> tuple[Node, list[Node]]:
    root = node("Garden notes", scope=scope)
    kids = [node(t, root, scope=scope) for t in ("tomatoes need sun", "basil likes water")]
    with store.transaction():
        store.insert([root, *kids])
    return root, kids


# -- lifecycle and settings ----------------------------------------------------


def test_a_new_store_is_empty_and_at_its_schema(store: Store) -> None:
    assert store.is_empty()
    assert store.schema_version > 0
    assert store.stats().nodes == 0


def test_a_failed_transaction_writes_nothing(store: Store) -> None:
    with pytest.raises(RuntimeError), store.transaction():
        store.insert([node("never kept")])
        raise RuntimeError("abort")
    assert store.roots() == []


def test_settings_round_trip(store: Store) -> None:
    assert store.get_setting("model") is None
    with store.transaction():
        store.set_setting("model", "minilm")
        store.set_setting("model", "hashing")
    assert store.get_setting("model") == "hashing"


# -- nodes ---------------------------------------------------------------------


def test_nodes_read_back_as_written(store: Store) -> None:
    root, kids = tree(store)
    assert store.get(root.id) == root
    assert store.get("01NOSUCHNODE0000000000000") is None
    assert store.children(root.id) == kids
    assert store.child_count(root.id) == 2
    assert store.child_counts([root.id, kids[0].id]) == {root.id: 2}
    assert store.roots() == [root]
    assert [n.id for n in store.subtree(root.id)] == [root.id, *(k.id for k in kids)]
    assert {n.id for n in store.get_many([kids[1].id, root.id])} == {root.id, kids[1].id}
    assert store.last_key(root.id) == kids[1].order_key
    assert store.key_taken(root.id, kids[0].order_key)
    assert not store.key_taken(root.id, 0.5)


AWKWARD = ["tab\there", "new\nline", "back\\slash \\N", "quote ' \" ;--", "ünïcødé ✓ 🌱", "", " "]


def test_many_nodes_at_once_read_back_as_written(store: Store) -> None:
    """A batch large enough to be written another way (COPY on Postgres)
    keeps every character of text and metadata, and roots are siblings."""
    roots = [node(f"root {i}", key=float(i)) for i in range(3)]
    kids = [
        node(text, roots[0], name=text, metadata={"note": text, "n": [1, None]})
        for text in AWKWARD * 3
    ]
    with store.transaction():
        store.insert([*roots, *kids])
    assert store.children(roots[0].id) == kids
    assert sorted(store.get_many([k.id for k in kids]), key=lambda n: n.order_key) == kids
    assert store.last_key(None) == 2.0
    assert store.key_taken(None, 1.0) and not store.key_taken(None, 1.5)
    assert [i for i, _ in store.sibling_keys(None, 0.0, below=False, limit=5)] == [
        r.id for r in roots[1:]
    ]


def test_children_page_by_key(store: Store) -> None:
    root, kids = tree(store)
    assert store.children(root.id, after_key=kids[0].order_key) == [kids[1]]
    assert store.children(root.id, limit=1) == [kids[0]]


def test_child_counts_respect_scopes(store: Store) -> None:
    root, _ = tree(store)
    other = node("a secret", root, scope="s2")
    with store.transaction():
        store.insert([other])
    assert store.child_counts([root.id], scopes=["s1"]) == {root.id: 2}
    assert store.child_counts([root.id], scopes=["s3"]) == {}


def test_replace_delete_and_history(store: Store) -> None:
    _, kids = tree(store)
    changed = dataclasses.replace(kids[0], text="tomatoes need more sun", version=2)
    with store.transaction():
        store.add_versions([NodeVersion(kids[0].id, 1, "update", "c1", LATER, kids[0])])
        store.replace(changed)
    assert store.get(kids[0].id) == changed
    assert [v.node for v in store.versions(kids[0].id)] == [kids[0]]
    assert store.latest_versions([kids[0].id, kids[1].id]) == {kids[0].id: 1}
    with store.transaction():
        store.add_versions([NodeVersion(kids[1].id, 1, "delete", "c2", LATER, kids[1])])
        store.delete([kids[1].id])
    assert store.get(kids[1].id) is None
    assert [v.node_id for v in store.versions_of_change("c2")] == [kids[1].id]
    assert {v.change_id for v in store.iter_versions()} == {"c1", "c2"}


def test_roots_of_a_type_in_scopes(store: Store) -> None:
    mine = node("space", scope="s1", kind="space")
    theirs = node("space", scope="s2", kind="space")
    with store.transaction():
        store.insert([mine, theirs, node("plain root")])
    assert store.roots_of_type("space", ["s1"]) == [mine]
    assert {n.id for n in store.roots_of_type("space")} == {mine.id, theirs.id}


# -- text index ----------------------------------------------------------------


def test_lexical_search_finds_terms_within_scopes(store: Store) -> None:
    _, kids = tree(store)
    secret = node("tomatoes in the other garden", scope="s2")
    with store.transaction():
        store.insert([secret])
    hits = store.lexical(["tomatoes"], NodeFilter(scopes=("s1",)), 10)
    # A sibling's text counts a little too (it is the node's context), never more.
    assert hits[0][0] == kids[0].id and secret.id not in dict(hits)
    assert all(score > 0 for _, score in hits)
    assert [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)
    everywhere = {i for i, _ in store.lexical(["tomatoes"], NodeFilter(), 10)}
    assert {kids[0].id, secret.id} <= everywhere
    assert store.lexical([], NodeFilter(), 10) == []


def test_lexical_ranks_by_bm25(store: Store) -> None:
    """Rare terms weigh more than common ones, a short text more than a long
    one with the same words."""
    root = node("Notes")
    short = node("green tea", root)
    long = node("green tea " + " ".join(f"filler{i}" for i in range(40)), root)
    other = node("Elsewhere")  # no sibling lends it words
    rare = node("coffee zebra", other)
    common = [node(f"coffee number {i}", root) for i in range(20)]
    with store.transaction():
        store.insert([root, short, long, *common, other, rare])
    ranked = [i for i, _ in store.lexical(["tea"], NodeFilter(), 10)]
    assert ranked.index(short.id) < ranked.index(long.id)
    assert store.lexical(["coffee", "zebra"], NodeFilter(), 5)[0][0] == rare.id


def test_terms_never_act_as_query_syntax(store: Store) -> None:
    tree(store)
    hostile = ['"', "OR", "NEAR(a b)", "tomatoes*", "-basil", "text:x", "^", "a AND b", "'"]
    for term in hostile:
        store.lexical([term], NodeFilter(), 5)  # no error, whatever it finds
    counts = store.term_documents(hostile)
    assert set(counts) == set(hostile) and all(n >= 0 for n in counts.values())


def test_lexical_refuses_one_string_for_a_list_of_terms(store: Store) -> None:
    with pytest.raises(InvalidInput):
        store.lexical("tomatoes", NodeFilter(), 5)


def test_term_documents_count_matches(store: Store) -> None:
    root = node("Log")
    named = [node(f"entry {i}", root, name="Tea") for i in range(5)]
    with store.transaction():
        store.insert([root, *named])
    counts = store.term_documents(["entry", "nothing"])
    assert counts["nothing"] == 0 and counts["entry"] >= 5
    assert store.term_documents(["tea", "entry"], in_names=True) == {"tea": 5, "entry": 0}
    assert store.term_documents(["entry"], cap=3)["entry"] == 3
    # A count stopped at its cap is not taken for the whole count.
    assert store.term_documents(["entry"])["entry"] >= 5
    assert store.term_documents(["entry", "entry"], cap=50) == {"entry": counts["entry"]}
    assert store.document_total() >= 6


def test_visible_filters_by_scope_type_and_ancestry(store: Store) -> None:
    root, kids = tree(store)
    other = node("other", scope="s2")
    with store.transaction():
        store.insert([other])
    ids = [kids[0].id, other.id]
    assert set(store.visible(ids, NodeFilter(scopes=("s1",)))) == {kids[0].id}
    assert store.ancestor_links([kids[0].id]) == {root.id: None}
    assert store.adjacent([kids[0].id]) == [(kids[0].id, None, kids[1].id)]


# -- vectors -------------------------------------------------------------------


def _vec(*values: float) -> bytes:
    v = np.asarray(values, dtype=np.float32)
    return bytes((v / np.linalg.norm(v)).tobytes())


def test_vectors_are_read_by_cursor_and_deletions_logged(store: Store) -> None:
    root, kids = tree(store)
    with store.transaction():
        store.queue_missing_vectors("e1")
    pending = {n.id for n in store.pending_vectors(10)}
    assert pending == {root.id, *(k.id for k in kids)}
    assert store.count_pending_vectors() == 3
    rows = [
        (n.id, f"h{n.id}", _vec(1, i, 0), n.text, n.context_name)
        for i, n in enumerate([root, *kids])
    ]
    with store.transaction():
        store.put_vectors("e1", rows)
    assert store.count_pending_vectors() == 0
    loaded = store.load_vectors("e1", 0, 10)
    assert [r.node_id for r in loaded] == [root.id, kids[0].id, kids[1].id]
    assert loaded[1].scope == "s1" and loaded[1].root_id == root.id
    assert loaded[1].data == rows[1][2]
    cursors = [r.cursor for r in loaded]
    assert cursors == sorted(cursors) and len(set(cursors)) == 3
    assert store.load_vectors("e1", cursors[0], 10) == loaded[1:]
    assert store.count_vectors("e1", cursors[1]) == 1
    last, _ = store.vector_marks("e1")
    assert last == cursors[-1]
    with store.transaction():
        store.delete([kids[0].id])
    _, deleted, complete = store.vector_tombstones("e1", 0)
    assert deleted == [cursors[1]] and complete


def test_a_vector_of_changed_text_is_not_stored(store: Store) -> None:
    _, kids = tree(store)
    with store.transaction():
        store.queue_missing_vectors("e1")
        store.put_vectors("e1", [(kids[0].id, "h", _vec(1, 0), "old text", "")])
    assert store.load_vectors("e1", 0, 10) == []
    assert kids[0].id in {n.id for n in store.pending_vectors(10)}


# -- memories: relations, snapshots, captured --------------------------------------


def test_relations_snapshots_and_captured_round_trip(store: Store) -> None:
    _, (a, b) = tree(store)
    relation = RelationRow(a.id, b.id, "depends_on", 0.7, NOW)
    snap = SnapshotRow("context text", b.id, "user", 0.9, 3, "e1", None)
    captured = CapturedRow(
        "c1",
        a.id,
        "s1",
        "call the plumber",
        "action",
        0.6,
        (a.id, b.id),
        "pending",
        None,
        NOW,
        (("due", "2026-03-06"), ("owner", "Dana")),
    )
    with store.transaction():
        store.put_relation(relation)
        store.put_snapshot(a.id, [snap])
        store.put_captured([captured])
    assert store.relations([b.id]) == [relation]
    assert store.relations_between(a.id, b.id, "depends_on")
    assert store.snapshots([a.id]) == {a.id: [snap]}
    assert store.get_captured("c1") == captured
    assert store.get_captured("c1").sources == (a.id, b.id)  # type: ignore[union-attr]
    assert store.captured(["s2"], None, 10) == []
    assert store.captured(["s1"], "pending", 10) == [captured]
    # A promotion replaces the row: its status, and what it carries, given in any order.
    promoted = captured._replace(
        status="promoted", memory_id=b.id, fields=(("status", "open"), ("owner", "Dana"))
    )
    with store.transaction():
        store.put_captured([promoted])
    assert store.get_captured("c1") == promoted._replace(
        fields=(("owner", "Dana"), ("status", "open"))
    )


# -- usage log -----------------------------------------------------------------


def test_accesses_and_usage_are_counted(store: Store) -> None:
    _, (a, b) = tree(store)
    with store.transaction():
        store.record_accesses([a.id], NOW)
        store.record_accesses([a.id], LATER)
        store.put_usage(
            [
                UsageRow("b1", a.id, "cited", NOW, 10, "app.py", "main"),
                UsageRow("b1", b.id, "ignored", NOW, 10, "app.py", "main"),
            ]
        )
    assert sorted(store.access_times([a.id])[a.id]) == [NOW, LATER]
    counts = store.usage_counts([a.id, b.id])
    assert (counts[a.id].cited, counts[b.id].ignored) == (1, 1)
    contexts, cited = store.cited_under("file", "app.py", "2026-01-01", 10)
    assert (contexts, cited) == (1, {a.id: 1})
    with pytest.raises(InvalidInput):
        store.cited_under("column; DROP", "x", "2026", 10)  # type: ignore[arg-type]


# -- consolidation log ---------------------------------------------------------


def test_contradictions_are_recorded_once_and_filtered_by_scope(store: Store) -> None:
    _, (a, b) = tree(store)
    row = ContradictionRow(
        "k1", a.id, b.id, "same_key", "differ", "s1", NOW, "open", None, "", None
    )
    with store.transaction():
        assert store.put_contradiction(row)
        assert not store.put_contradiction(row._replace(id="k2"))  # the same pair
    assert store.get_contradiction("k1") == row
    assert store.contradictions("open", ("s1",), 10) == [row]
    assert store.contradictions("open", ("s2",), 10) == []
    assert store.contradictions_of([a.id], ["open"]) == [row]


def test_runs_come_back_decoded(store: Store) -> None:
    run = RunRow(
        "r1",
        NOW,
        LATER,
        {"merge": 2},
        ({"op": "merge", "nodes": ["a"]},),
        ({"op": "node", "state": {}},),
        None,
    )
    with store.transaction():
        store.put_run(run)
        store.set_run_undone("r1", LATER)
    assert store.get_run("r1") == run._replace(undone_at=LATER)
    assert store.runs(5) == [run._replace(undone_at=LATER)]


def test_archive_decay_and_judgements(store: Store) -> None:
    _, (a, b) = tree(store)
    with store.transaction():
        assert store.archive([a.id], NOW) == [a.id]
        assert store.archive([a.id], NOW) == []
        store.set_decay([(b.id, 0.25)])
        store.put_judgement("a|b", "contradiction", "differ", NOW)
    assert store.archived([a.id, b.id]) == {a.id: NOW}
    assert [n.id for n, _ in store.archived_nodes(("s1",), 10)] == [a.id]
    assert store.archived_nodes(("s2",), 10) == []
    assert store.visible([a.id], NodeFilter()) == {}  # archived: hidden unless asked
    assert set(store.visible([a.id], NodeFilter(include_archived=True))) == {a.id}
    assert store.decays([b.id]) == {b.id: 0.25}
    assert store.judgement("a|b") == ("contradiction", "differ")
    with store.transaction():
        assert store.unarchive([a.id]) == [a.id]
    assert store.archived([a.id]) == {}


# -- keys ----------------------------------------------------------------------


def test_keys_keep_hashes_and_scopes(store: Store) -> None:
    key = KeyRow("k1", "0" * 64, "ci", ("s1", "s2"), NOW, None, None)
    with store.transaction():
        store.put_key(key)
        store.touch_key("k1", LATER)
    assert store.get_key("k1") == key._replace(last_used_at=LATER)
    with store.transaction():
        assert store.revoke_key("k1", LATER)
        assert not store.revoke_key("nope", LATER)
    assert store.keys()[0].revoked_at == LATER


# -- backup and erasure --------------------------------------------------------


def test_tables_copy_row_for_row(
    store: Store, backend: Callable[[Path], Store], tmp_path: Path
) -> None:
    tree(store)
    tables = store.backup_tables(keys=False, vectors=False)
    assert "nodes" in tables
    with store.reading():
        infos = store.table_info(tables)
        copied = {t.name: (t, list(store.table_rows(t))) for t in infos}
    (tmp_path / "copy").mkdir()
    target = backend(tmp_path / "copy")
    try:
        with target.transaction():
            for info, rows in copied.values():
                assert target.restore_rows(info, rows) == len(rows)
            target.check_references()
        assert {n.text for n in target.iter_nodes()} == {n.text for n in store.iter_nodes()}
    finally:
        target.close()


def test_purge_removes_a_phrase_everywhere(store: Store) -> None:
    root, (a, b) = tree(store)
    with store.transaction():
        store.add_versions([NodeVersion(a.id, 1, "update", "c", NOW, a)])
    found = store.phrase_ids("need sun", ["s1"])
    assert found == [a.id]
    assert store.phrase_ids("need sun", ["s2"]) == []
    closure = store.purge_closure(found)
    counts = store.purge(closure, ("p1", NOW, "", "phrase"))
    assert counts.nodes == 1 and counts.versions == 1
    assert store.get(a.id) is None and store.versions(a.id) == []
    assert store.lexical(["sun"], NodeFilter(), 10) == []
    assert set(store.scope_ids("s1")) == {root.id, b.id}


def test_the_latest_of_each_type_in_one_read(store: Store) -> None:
    root = node("Memories", kind="space")
    kinds = ["decision", "episode", "decision", "fact", "decision"]
    made = [node(f"memory {i}", root, kind=k) for i, k in enumerate(kinds)]
    made = [
        dataclasses.replace(n, created_at=f"2026-03-0{i + 1}T10:00:00.000000Z")
        for i, n in enumerate(made)
    ]
    hidden = node("memory elsewhere", kind="decision", scope="s2")
    with store.transaction():
        store.insert([root, *made, hidden])
    where = NodeFilter(scopes=("s1",))
    latest = store.latest_of_types(["decision", "episode", "goal"], where, 2)
    assert latest == {
        "decision": store.typed_nodes(["decision"], where, 2),
        "episode": store.typed_nodes(["episode"], where, 2),
        "goal": [],
    }
    assert [n.text for n in latest["decision"]] == ["memory 4", "memory 2"]
    assert store.latest_of_types([], where, 2) == {}


# -- the rest of the contract: every protocol method is exercised ----------------


def test_lifecycle_names_its_location_and_writes_only_when_free(store: Store) -> None:
    assert store.location
    prepared: list[int] = []
    store.before_writes(lambda: prepared.append(1))
    with store.transaction():  # slow set-up runs before a write takes the lock
        store.set_setting("k", "v")
    assert prepared
    assert store.try_write(lambda: store.set_setting("k", "w"))  # free: done at once
    assert store.get_setting("k") == "w"
    _, (a, _) = tree(store)
    store.record_accesses_soon([a.id], NOW)  # the lock is free: written at once
    assert store.access_times([a.id]) == {a.id: [NOW]}
    assert store.access_ages([a.id], LATER, 5) == {a.id: [86_400.0]}


def test_order_keys_roots_and_counts(store: Store) -> None:
    root, (a, b) = tree(store)
    below = store.sibling_keys(root.id, b.order_key, below=True, limit=5)
    assert below == [(a.id, a.order_key)]
    assert store.sibling_keys(root.id, a.order_key, below=False, limit=5) == [(b.id, b.order_key)]
    with store.transaction():
        store.set_keys([(a.id, 10.0), (b.id, 5.0)])
    assert [n.id for n in store.children(root.id)] == [b.id, a.id]
    assert store.count_by_root([root.id], "") == {root.id: 3}
    assert {n.id for n in store.tree_nodes(root.id)} == {root.id, a.id, b.id}
    other = node("Elsewhere")
    with store.transaction():
        store.insert([other])
        store.set_root([a.id], other.id)
        store.set_token_counts([(b.id, 99)])
    assert store.get(a.id).root_id == other.id  # type: ignore[union-attr]
    assert store.get(b.id).token_count == 99  # type: ignore[union-attr]


def test_numbers_in_metadata_and_stale_summaries(store: Store) -> None:
    root = node("Session")
    turns = [node(f"turn {i}", root, kind="message", metadata={"turn": i}) for i in (3, 11, 7)]
    summary = dataclasses.replace(node("summary of turns", root), is_summary=True)
    leaf = node("under the summary", summary)
    with store.transaction():
        store.insert([root, *turns, summary, leaf])
    assert store.max_number(root.id, "message", "turn") == 11
    assert store.max_number(root.id, "chunk", "turn") == 0
    with pytest.raises(InvalidInput):
        store.max_number(root.id, "message", "turn') OR 1=1 --")
    assert store.stale_summaries() == []
    with store.transaction():
        store.mark_summaries_stale(leaf.id)
    assert [n.id for n in store.stale_summaries()] == [summary.id]


def test_paths_are_found_by_path_and_prefix(store: Store) -> None:
    space = node("Paths", kind="space")
    entries = [
        node(p.rsplit("/", 1)[-1], space, kind="path", value=p)
        for p in ("Project", "Project/Goals", "Project/Goals%", "Projects", "Other")
    ]
    with store.transaction():
        store.insert([space, *entries])
    assert store.find_path(space.id, "Project/Goals") == entries[1]
    assert store.find_path(space.id, "Nope") is None
    under = [n.context_value for n in store.paths_under(space.id, "Project")]
    assert under == ["Project", "Project/Goals", "Project/Goals%"]
    assert len(store.paths_under(space.id, "")) == 5


def test_facts_levels_relations_and_artifacts(store: Store) -> None:
    space = node("Memories", kind="space")
    fact = node("region: eu", space, kind="fact", metadata={"key": "region", "value": "eu"})
    other = node("region: us", space, kind="fact", scope="s2", metadata={"key": "region"})
    level = node("short", fact, kind="level", name="compressed")
    noted = node(
        "fixed the login bug",
        space,
        kind="episode",
        metadata={"artifacts": [{"type": "file", "ref": "src/auth/Login.ts"}]},
    )
    with store.transaction():
        store.insert([space, fact, other, level, noted])
        store.put_relation(RelationRow(fact.id, noted.id, "related_to", 1.0, NOW))
        store.put_relation(RelationRow(noted.id, fact.id, "depends_on", 1.0, LATER))
    assert store.facts_with_key("region", NodeFilter(scopes=("s1",)), 10) == [fact]
    assert store.children_of([fact.id], "level") == [level]
    assert [r.type for r in store.relations_of_type("depends_on", 5, ("s1",))] == ["depends_on"]
    assert store.relations_of_type("depends_on", 5, ("s2",)) == []
    found = store.artifact_nodes(["src/auth/Login.ts"], ["login.ts"], ["src/"], 10, ("s1",))
    assert {(i, how) for i, _, _, how in found} >= {(noted.id, "ref")}
    assert store.artifact_nodes(["src/auth/Login.ts"], [], [], 10, ("s2",)) == []
    with store.transaction():
        store.delete_relation(fact.id, noted.id, "related_to")
    assert not store.relations_between(fact.id, noted.id, None)
    assert store.relations_between(noted.id, fact.id, "depends_on")


def test_usage_counts_by_batch_hour_and_pair(store: Store) -> None:
    _, (a, b) = tree(store)
    rows = [
        UsageRow("b1", a.id, "cited", NOW, 10, "", ""),
        UsageRow("b1", b.id, "cited", NOW, 10, "", ""),
        UsageRow("b2", a.id, "cited", LATER, 10, "", ""),
        UsageRow("b2", b.id, "cited", LATER, 10, "", ""),
        UsageRow("b3", a.id, "retrieved", LATER, 22, "", ""),
    ]
    with store.transaction():
        store.put_usage(rows)
        store.record_accesses([a.id], NOW)
    batches, cited = store.co_cited([a.id], "2026-01-01", 10)
    assert (batches, cited) == (2, {b.id: 2})
    days, at_ten = store.cited_at_hours([10], "2026-01-01", 10)
    assert days == 2 and at_ten == {a.id: 2, b.id: 2}
    assert store.co_cited_pairs("2026-01-01", 2, 10) == [tuple([*sorted((a.id, b.id)), 2])]
    stats = store.memory_stats("2026-01-01")
    assert (stats[a.id].accesses, stats[a.id].cited, stats[a.id].retrieved) == (1, 2, 1)


def test_decay_importance_and_settled_contradictions(store: Store) -> None:
    space = node("Memories", kind="space")
    a, b = (node(t, space, kind="fact") for t in ("one", "two"))
    with store.transaction():
        store.insert([space, a, b])
        store.set_importance([(a.id, 0.9)])
        store.set_decay([(a.id, 0.5)])
    live = dict((n.id, d) for n, d in store.live_memories(["fact"]))
    assert live == {a.id: 0.5, b.id: None}
    assert store.get(a.id).importance == 0.9  # type: ignore[union-attr]
    row = ContradictionRow("k1", a.id, b.id, "same_key", "r", "s1", NOW, "open", None, "", None)
    with store.transaction():
        store.put_contradiction(row)
        store.set_contradiction(row._replace(status="resolved", resolution="a_wins"))
    assert store.contradictions("open", None, 5) == []
    assert store.contradictions("resolved", None, 5, "a_wins")[0].id == "k1"
    with store.transaction():
        store.delete_contradiction("k1")
    assert store.get_contradiction("k1") is None


def test_only_texts_with_a_sentence_break_are_queued_for_sentence_rows(store: Store) -> None:
    root = node("Notes")
    texts = (
        "Water daily. Sun at noon.",
        "Is it ripe? Pick it.",
        "first line\nsecond line",
        "version 1.2 of the tomato plan",
        "no break at all here",
    )
    kids = [node(t, root) for t in texts]
    with store.transaction():
        store.insert([root, *kids])
        store.put_vectors("e1", [(n.id, "h", _vec(1, 0), n.text, n.context_name) for n in kids])
    with store.transaction():
        assert store.queue_single_vectors("e1", 8, 0, broken=True) == 3
    queued = {n.id for n in store.pending_vectors(10)} - {root.id}  # the root has no vector
    assert queued == {k.id for k in kids[:3]}


def test_vectors_are_dropped_requeued_and_their_log_pruned(store: Store) -> None:
    root, (a, b) = tree(store)
    with store.transaction():
        store.queue_missing_vectors("e1")
        store.put_vectors(
            "e1", [(n.id, "h", _vec(1, 0), n.text, n.context_name) for n in (root, a, b)]
        )
    assert store.count_pending_vectors() == 0
    with store.transaction():  # no text has a sentence break to split it by
        assert store.queue_single_vectors("e1", 8, 0, broken=True) == 0
    with store.transaction():  # one row of 8 bytes: texts this long need passages now
        assert store.queue_single_vectors("e1", 8, len(a.text)) == 2
    assert {n.id for n in store.pending_vectors(10)} == {a.id, b.id}
    with store.transaction():
        assert store.drop_vectors(keep_embedder="e2") == 3
        store.prune_tombstones(keep=1)
    _, deleted, complete = store.vector_tombstones("e1", 0)
    assert not complete and len(deleted) <= 1  # older deletions pruned: reload
    assert store.load_vectors("e1", 0, 10) == []


def test_backup_tables_are_the_same_on_every_backend(store: Store, tmp_path: Path) -> None:
    """A backup holds the same tables and columns whichever store wrote it, so
    it restores into the other."""
    tables = store.schema_tables()
    assert {"nodes", "node_versions", "settings"} <= set(tables)
    assert set(store.backup_tables(keys=False, vectors=False)) <= set(tables)
    reference = SQLiteStore(tmp_path / "reference.db")
    try:
        assert store.backup_format == reference.backup_format
        wanted = reference.backup_tables(keys=True, vectors=True)
        assert store.backup_tables(keys=True, vectors=True) == wanted
        theirs = {t.name: t.columns for t in reference.table_info(wanted)}
        assert {t.name: t.columns for t in store.table_info(wanted)} == theirs
    finally:
        reference.close()


def test_erasure_counts_and_compacts(store: Store) -> None:
    tree(store)
    assert store.node_count() == 3
    assert store.compact() in (True, False)  # False: a reader kept old pages for now
    assert store.node_count() == 3


def test_a_node_is_found_by_its_headings_and_neighbours_words_as_they_are_now(
    store: Store,
) -> None:
    """The text index holds a node's own words, its siblings' (its context) and
    its ancestors' (its breadcrumb), in its own scope only, kept current as
    siblings go and nodes move."""
    root, (tomatoes, basil) = tree(store)
    private = node("zucchini secrets", root, scope="s2")
    other = node("Kitchen")
    with store.transaction():
        store.insert([private, other])
    everywhere = NodeFilter()
    assert {i for i, _ in store.lexical(["garden"], everywhere, 10)} == {
        root.id, tomatoes.id, basil.id  # the heading, and the two under it
    }  # fmt: skip
    assert basil.id in {i for i, _ in store.lexical(["tomatoes"], everywhere, 10)}
    assert private.id not in {i for i, _ in store.lexical(["garden"], everywhere, 10)}
    assert tomatoes.id not in {i for i, _ in store.lexical(["zucchini"], everywhere, 10)}
    with store.transaction():
        store.add_versions([NodeVersion(tomatoes.id, 1, "delete", "c", LATER, tomatoes)])
        store.delete([tomatoes.id])
        store.replace(dataclasses.replace(basil, parent_id=other.id, version=2))
    assert store.lexical(["tomatoes"], everywhere, 10) == []  # gone with its sibling
    moved = {i for i, _ in store.lexical(["kitchen"], everywhere, 10)}
    assert basil.id in moved and basil.id not in {
        i for i, _ in store.lexical(["garden"], everywhere, 10)
    }


def test_a_sibling_appended_later_is_in_the_text_index_of_the_one_before_it(
    store: Store,
) -> None:
    """Appending after existing siblings gives the last of them a new next
    neighbour: its words reach that sibling's index, batch after batch, and
    not across a scope."""
    root, (_, basil) = tree(store)
    first = node("okra wants heat", root)
    with store.transaction():
        store.insert([first, node("fennel bolts early", root)])
    elsewhere = node("parsnip is private", root, scope="s2")
    last = node("radish grows fast", root)
    with store.transaction():
        store.insert([elsewhere, last])
    found = {w: {h for h, _ in store.lexical([w], NodeFilter(), 10)} for w in ("okra", "parsnip")}
    assert basil.id in found["okra"] and first.id in found["okra"]
    assert found["parsnip"] == {elsewhere.id}  # another scope: never a neighbour
    # Its neighbour before it is in another scope: nothing, not the one before that.
    assert {h for h, _ in store.lexical(["radish"], NodeFilter(), 10)} == {last.id}


def test_a_purge_leaves_no_word_of_an_erased_summary_in_the_index(store: Store) -> None:
    """A summary over a purged memory said what it said: its text is erased, and
    so are the copies of it in the breadcrumbs below it and its siblings'
    neighbour text (once kept, they let a search find the erased words)."""
    root = node("Notes")
    secret = node("Zebulon card 4111", root)
    kept = node("buy green tea", root)
    summary = dataclasses.replace(node("card 4111 details and tea", root), is_summary=True)
    beside = node("unrelated", root)
    with store.transaction():
        store.insert([root, summary, beside])
        store.insert([dataclasses.replace(secret, parent_id=summary.id)])
        store.insert([dataclasses.replace(kept, parent_id=summary.id)])
    assert store.lexical(["4111"], NodeFilter(), 10)
    store.purge(store.purge_closure([secret.id]), ("p1", NOW, "", "ids"))
    assert store.lexical(["4111"], NodeFilter(), 10) == []
    assert store.get(kept.id) is not None and store.get(beside.id) is not None


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_a_task_runs_in_one_process_at_a_time(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """Two stores on one database (as two server processes have): while one
    runs a task the other is told no at once; other tasks are free."""
    if kind == "sqlite":
        first, second = SQLiteStore(tmp_path / "a.db"), SQLiteStore(tmp_path / "a.db")
    else:
        from mnemotree.store.postgres import PostgresStore

        uri = request.getfixturevalue("postgres").new_database()
        first, second = PostgresStore(uri), PostgresStore(uri)  # type: ignore[assignment]
    try:
        with first.alone("consolidation") as mine:
            assert mine
            with second.alone("consolidation") as theirs:
                assert not theirs
            with second.alone("export") as other:
                assert other
        with second.alone("consolidation") as now:
            assert now
    finally:
        first.close()
        second.close()
