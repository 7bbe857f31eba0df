"""Contradictions (issue 8, first part): found on write, listed, resolved.

Real temporary SQLite files, the hashing embedder, a hand-moved clock, and
the CLI in a real subprocess.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mnemotree import InvalidInput, InvalidOperation, Memory, NotFound
from tests.cli_runner import run_cli
from tests.helpers import Clock


def valid_now(memory: Memory, node_id: str) -> bool:
    found = memory.typed.memories(valid_at=memory.clock().isoformat(), limit=1000)
    return node_id in {m.node.id for m in found}


def test_a_new_value_for_a_fact_key_is_an_update(cmem: Memory, clock: Clock) -> None:
    old = cmem.typed.fact("office_city", "Lisbon")
    clock.advance(days=1)
    new = cmem.typed.fact("office_city", "Berlin")
    assert cmem.consolidation.contradictions() == []
    (row,) = cmem.consolidation.updates()
    assert (row.a_id, row.b_id, row.kind, row.resolution) == (old.id, new.id, "same_key", "update")
    assert row.reason == "office_city: Lisbon then Berlin"


def test_two_values_written_at_once_are_a_contradiction(cmem: Memory) -> None:
    old = cmem.typed.fact("office_city", "Lisbon")
    new = cmem.typed.fact("office_city", "Berlin")  # the same moment: neither is newer
    (row,) = cmem.consolidation.contradictions()
    assert (row.a_id, row.b_id, row.kind, row.status) == (old.id, new.id, "same_key", "open")


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ({"value": "Lisbon"}, {"value": "  lisbon "}),  # the same value, written differently
        ({"value": "7d", "applies_to": "web"}, {"value": "30d", "applies_to": "mobile"}),
    ],
)
def test_the_same_value_or_another_context_is_no_contradiction(
    cmem: Memory, first: dict[str, Any], second: dict[str, Any]
) -> None:
    cmem.typed.fact("key", **first)
    cmem.typed.fact("key", **second)
    assert cmem.consolidation.contradictions() == []


def test_facts_in_other_scopes_or_no_longer_valid_are_not_contradicted(
    cmem: Memory, clock: Clock
) -> None:
    cmem.typed.fact("deploy_day", "Friday", scope="team:a")
    cmem.typed.fact("deploy_day", "Monday", scope="team:b")
    cmem.typed.fact("deploy_day", "Sunday", valid_to="2025-12-01T00:00:00+00:00", scope="team:c")
    cmem.typed.fact("deploy_day", "Tuesday", scope="team:c")
    assert cmem.consolidation.contradictions() == []


def test_a_wins_ends_b_and_keeps_both(cmem: Memory, clock: Clock) -> None:
    old = cmem.typed.fact("db", "MySQL")
    new = cmem.typed.fact("db", "PostgreSQL")
    (row,) = cmem.consolidation.contradictions()
    clock.advance(hours=1)
    done = cmem.consolidation.resolve(row.id, "b_wins", "migration finished")
    assert (done.status, done.resolution, done.note) == ("resolved", "b_wins", "migration finished")
    assert cmem.consolidation.contradictions() == [] and cmem.consolidation.contradictions(
        status=None
    ) == [done]
    clock.advance(hours=1)
    assert valid_now(cmem, new.id) and not valid_now(cmem, old.id)
    assert cmem.get(old.id).text == "db: MySQL"  # never deleted
    assert any(
        r.type == "supersedes" and r.source_id == new.id for r in cmem.typed.relations(old.id)
    )


def test_both_valid_changes_no_memory(cmem: Memory, clock: Clock) -> None:
    a = cmem.typed.fact("lunch", "noon")
    b = cmem.typed.fact("lunch", "1pm")
    (row,) = cmem.consolidation.contradictions()
    cmem.consolidation.resolve(row.id, "both_valid")
    clock.advance(hours=1)
    assert valid_now(cmem, a.id) and valid_now(cmem, b.id)


def test_merged_keeps_the_statement_and_ends_both(cmem: Memory, clock: Clock) -> None:
    a = cmem.typed.fact("standup", "9:00")
    b = cmem.typed.fact("standup", "9:30")
    (row,) = cmem.consolidation.contradictions()
    with pytest.raises(InvalidInput, match="merged statement"):
        cmem.consolidation.resolve(row.id, "merged")
    cmem.consolidation.resolve(row.id, "merged", "9:15 on Mondays, 9:30 otherwise")
    clock.advance(hours=1)
    assert not valid_now(cmem, a.id) and not valid_now(cmem, b.id)
    kept = [
        m
        for m in cmem.typed.memories(valid_at=clock().isoformat())
        if m.node.id not in (a.id, b.id)
    ]
    assert [m.node.text for m in kept] == ["standup: 9:15 on Mondays, 9:30 otherwise"]
    assert cmem.consolidation.contradictions() == []  # the merged value contradicts nothing


def test_bad_resolutions_change_nothing(cmem: Memory) -> None:
    cmem.typed.fact("tz", "UTC")
    cmem.typed.fact("tz", "CET")
    (row,) = cmem.consolidation.contradictions()
    with pytest.raises(InvalidInput, match=r"unknown resolution 'c_wins'.*a_wins"):
        cmem.consolidation.resolve(row.id, "c_wins")
    with pytest.raises(NotFound, match="nope"):
        cmem.consolidation.resolve("nope", "a_wins")
    cmem.consolidation.resolve(row.id, "a_wins")
    with pytest.raises(InvalidOperation, match="already resolved"):
        cmem.consolidation.resolve(row.id, "b_wins")
    assert cmem.consolidation.contradictions(status=None)[0].resolution == "a_wins"
    with pytest.raises(InvalidInput, match="unknown status"):
        cmem.consolidation.contradictions(status="closed")


def test_an_open_contradiction_is_critical_in_a_context(cmem: Memory) -> None:
    a = cmem.typed.fact("cache", "Redis")
    b = cmem.typed.fact("cache", "Memcached")
    ctx = cmem.context(budget=2000)
    (critical,) = [t for t in ctx.tiers if t.name == "critical"]
    pairs = [i for i in critical.items if i.reason == "unresolved contradiction"]
    assert [(i.node_id, i.covers) for i in pairs] == [(a.id, (b.id,))]
    cmem.consolidation.resolve(cmem.consolidation.contradictions()[0].id, "a_wins")
    ctx = cmem.context(budget=2000)
    assert not [i for t in ctx.tiers for i in t.items if i.reason == "unresolved contradiction"]


def test_cli_lists_and_resolves(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with Memory(db, embedder="hashing") as memory:
        memory.typed.fact("region", "eu-west-1")
        memory.typed.fact("region", "us-east-1", confidence=0.5)  # less sure: not an update
    listed = run_cli(db, "contradictions", "--json", embedder="hashing")
    assert listed.returncode == 0, listed.stderr
    (row,) = json.loads(listed.stdout)
    assert row["status"] == "open" and row["reason"] == "region: eu-west-1 then us-east-1"
    done = run_cli(db, "resolve", row["id"], "--resolution", "b_wins", "--json", embedder="hashing")
    assert done.returncode == 0 and json.loads(done.stdout)["resolution"] == "b_wins"
    again = run_cli(db, "resolve", row["id"], "--resolution", "a_wins", embedder="hashing")
    assert again.returncode != 0 and "already resolved" in again.stderr
    assert json.loads(run_cli(db, "contradictions", "--json", embedder="hashing").stdout) == []
    everything = run_cli(db, "contradictions", "--all", "--json", embedder="hashing")
    assert [r["resolution"] for r in json.loads(everything.stdout)] == ["b_wins"]


def test_a_facts_key_is_looked_up_by_its_index(cmem: Memory) -> None:
    # Walking every fact along another index made each new fact cost O(facts).
    db = cmem.store._db  # type: ignore[attr-defined]  # the statement the store really runs
    seen: list[str] = []
    db.set_trace_callback(seen.append)
    try:
        cmem.typed.fact("region", "eu")
    finally:
        db.set_trace_callback(None)
    # Twice: once before the write takes the lock (the model's part), once in it.
    lookups = {q for q in seen if "json_extract(n.metadata, '$.key')" in q}
    assert len(lookups) == 1
    plan = " ".join(str(r) for r in db.execute(f"EXPLAIN QUERY PLAN {lookups.pop()}"))
    assert "facts_by_key" in plan


# -- statements compared on write -------------------------------------------------


def test_a_new_statement_that_changes_a_place_is_found_on_write(cmem: Memory) -> None:
    old = cmem.remember("Alice lives in Berlin.", type="fact")
    cmem.remember("Bob lives in Paris.")  # another subject: no contradiction
    new = cmem.remember("Alice moved to Munich in March.", type="fact")
    (row,) = cmem.consolidation.contradictions()
    assert (row.a_id, row.b_id, row.kind) == (old.id, new.id, "changed_value")
    assert "Berlin" in row.reason and "Munich" in row.reason


def test_a_plain_memory_that_denies_another_is_found_on_write(cmem: Memory) -> None:
    old = cmem.remember("Sam eats meat.")
    new = cmem.remember("Sam does not eat meat anymore.")
    (row,) = cmem.consolidation.contradictions()
    assert (row.a_id, row.b_id, row.kind) == (old.id, new.id, "negation")


def test_statements_in_other_scopes_or_paraphrases_are_not_flagged(cmem: Memory) -> None:
    cmem.remember("Alice lives in Berlin.", scope="team")
    cmem.remember("Alice lives in Munich.", scope="home")  # another scope
    cmem.remember("The standup is on Monday.", scope="team")
    cmem.remember("The standup is on Monday mornings.", scope="team")  # more detail
    assert cmem.consolidation.contradictions() == []


def test_unrelated_statements_sharing_words_are_not_flagged_even_for_review(
    cmem: Memory, clock: Clock
) -> None:
    # Seen on a realistic store: both were open contradictions.
    cmem.typed.fact("office_city", "Berlin")
    clock.advance(days=1)
    cmem.remember("The office plants need watering.")
    cmem.remember("Priya is the DBA for the billing database.")
    clock.advance(days=1)
    cmem.remember("Priya wants every migration to be reversible.")
    assert cmem.consolidation.contradictions(status=None) == []


def test_a_job_change_said_with_now_is_recorded_as_an_update(cmem: Memory, clock: Clock) -> None:
    old = cmem.remember("Marco works as a nurse at St Mary's hospital.")
    clock.advance(days=30)
    new = cmem.remember("Marco now works as a software engineer at Finch Labs.")
    (row,) = cmem.consolidation.updates()
    assert (row.a_id, row.b_id, row.kind) == (old.id, new.id, "changed_value")
    assert cmem.consolidation.contradictions() == []


def test_a_changed_version_and_a_denied_preference_are_found_on_write(
    cmem: Memory, clock: Clock
) -> None:
    k8s = cmem.remember("We deploy the API to Kubernetes 1.27.")
    clock.advance(days=1)
    newer = cmem.remember("We now deploy the API to Kubernetes 1.29.")
    likes = cmem.remember("Ana likes long meetings.")
    clock.advance(days=1)
    dislikes = cmem.remember("Ana does not like long meetings.")
    rows = {(r.a_id, r.b_id): r for r in cmem.consolidation.contradictions(status=None)}
    assert rows[(k8s.id, newer.id)].kind == "changed_value"
    assert "1.27" in rows[(k8s.id, newer.id)].reason
    assert rows[(likes.id, dislikes.id)].kind == "negation"
    assert len(rows) == 2


def test_the_scan_on_write_can_be_turned_off(cmem: Memory) -> None:
    cmem.consolidation.scan_on_write = False
    cmem.remember("Alice lives in Berlin.")
    cmem.remember("Alice moved to Munich.")
    assert cmem.consolidation.contradictions() == []
    cmem.typed.fact("tz", "UTC")
    cmem.typed.fact("tz", "CET")  # facts of one key are still compared by their values
    assert [r.kind for r in cmem.consolidation.contradictions()] == ["same_key"]


# -- path updates ----------------------------------------------------------------


def test_a_path_update_that_changes_a_value_is_an_update(cmem: Memory) -> None:
    paths = cmem.paths()
    paths.save("user/editor", {"name": "vim", "plugins": ["fzf"]}, context_tokens=0)
    paths.save(  # additions only: a new key, an appended item
        "user/editor",
        {"name": "vim", "plugins": ["fzf", "ale"], "theme": "dark"},
        context_tokens=0,
    )
    assert cmem.consolidation.updates() == []
    paths.save("user/editor", {"name": "emacs", "plugins": ["ale"]}, context_tokens=0)
    assert cmem.consolidation.contradictions() == []
    (row,) = cmem.consolidation.updates()
    node_id = paths.get("user/editor").node_id
    assert (row.kind, row.a_id, row.b_id, row.a_version, row.b_version) == (
        "path_update",
        node_id,
        node_id,
        2,
        3,
    )
    assert row.reason == (
        "user/editor: name: vim then emacs; plugins: fzf removed; theme: dark removed"
    )
    cmem.consolidation.revert_update(row.id)  # the overwrite was wrong: version 2 comes back
    assert paths.get("user/editor").content == {
        "name": "vim",
        "plugins": ["fzf", "ale"],
        "theme": "dark",
    }
    with pytest.raises(InvalidOperation, match="already resolved"):
        cmem.consolidation.resolve(row.id, "a_wins")


def test_extending_a_text_entry_is_no_update_conflict(cmem: Memory) -> None:
    paths = cmem.paths()
    paths.save("status", "Working on the parser", context_tokens=0)
    paths.save("status", "Working on the parser and its tests", context_tokens=0)
    assert cmem.consolidation.contradictions() == []


def test_a_statement_committed_between_the_scan_and_the_write_is_still_found(
    cmem: Memory,
) -> None:
    """The model's part of the scan runs before the write takes the lock; the
    scan in the write still reads the index, so what another writer committed
    in between is found (and each pair is read by the rules once)."""
    from mnemotree.structured import typed

    scan = cmem.consolidation.scan
    new = typed.typed_node("Alice moved to Munich in March.", "fact")
    answers = scan.prepare(new)  # nothing to compare with yet
    assert answers._read == {}
    old = cmem.remember("Alice lives in Berlin.", type="fact")  # another writer, meanwhile
    with cmem.store.transaction():
        node = cmem.typed._typed(new, [], None)
        scan.contradicted(node, answers)
    (row,) = cmem.consolidation.contradictions()
    assert (row.a_id, row.b_id, row.kind) == (old.id, node.id, "changed_value")
    assert list(answers._read) == [("Alice lives in Berlin.", "Alice moved to Munich in March.")]
