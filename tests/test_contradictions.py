"""Contradictions (issue 8, first part): found on write, listed, resolved.

Real temporary SQLite files, the hashing embedder, a hand-moved clock, and
the CLI in a real subprocess.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mnemotree import InvalidInput, InvalidOperation, Memory, NotFound
from tests.cli_runner import run_cli
from tests.helpers import Clock


def valid_now(memory: Memory, node_id: str) -> bool:
    found = memory.memories(valid_at=memory.clock().isoformat(), limit=1000)
    return node_id in {m.node.id for m in found}


def test_a_new_value_for_a_fact_key_is_a_contradiction(cmem: Memory, clock: Clock) -> None:
    old = cmem.fact("office_city", "Lisbon")
    clock.advance(days=1)
    new = cmem.fact("office_city", "Berlin")
    (row,) = cmem.contradictions()
    assert (row.a_id, row.b_id, row.kind, row.status) == (old.id, new.id, "same_key", "open")
    assert row.reason == "office_city: Lisbon then Berlin"


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ({"value": "Lisbon"}, {"value": "  lisbon "}),  # the same value, written differently
        ({"value": "7d", "applies_to": "web"}, {"value": "30d", "applies_to": "mobile"}),
    ],
)
def test_the_same_value_or_another_context_is_no_contradiction(
    cmem: Memory, first: dict[str, str], second: dict[str, str]
) -> None:
    cmem.fact("key", **first)
    cmem.fact("key", **second)
    assert cmem.contradictions() == []


def test_facts_in_other_scopes_or_no_longer_valid_are_not_contradicted(
    cmem: Memory, clock: Clock
) -> None:
    cmem.fact("deploy_day", "Friday", scope="team:a")
    cmem.fact("deploy_day", "Monday", scope="team:b")
    cmem.fact("deploy_day", "Sunday", valid_to="2025-12-01T00:00:00+00:00", scope="team:c")
    cmem.fact("deploy_day", "Tuesday", scope="team:c")
    assert cmem.contradictions() == []


def test_a_wins_ends_b_and_keeps_both(cmem: Memory, clock: Clock) -> None:
    old = cmem.fact("db", "MySQL")
    new = cmem.fact("db", "PostgreSQL")
    (row,) = cmem.contradictions()
    clock.advance(hours=1)
    done = cmem.resolve(row.id, "b_wins", "migration finished")
    assert (done.status, done.resolution, done.note) == ("resolved", "b_wins", "migration finished")
    assert cmem.contradictions() == [] and cmem.contradictions(status=None) == [done]
    clock.advance(hours=1)
    assert valid_now(cmem, new.id) and not valid_now(cmem, old.id)
    assert cmem.get(old.id).text == "db: MySQL"  # never deleted
    assert any(r.type == "supersedes" and r.source_id == new.id for r in cmem.relations(old.id))


def test_both_valid_changes_no_memory(cmem: Memory, clock: Clock) -> None:
    a = cmem.fact("lunch", "noon")
    b = cmem.fact("lunch", "1pm")
    (row,) = cmem.contradictions()
    cmem.resolve(row.id, "both_valid")
    clock.advance(hours=1)
    assert valid_now(cmem, a.id) and valid_now(cmem, b.id)


def test_merged_keeps_the_statement_and_ends_both(cmem: Memory, clock: Clock) -> None:
    a = cmem.fact("standup", "9:00")
    b = cmem.fact("standup", "9:30")
    (row,) = cmem.contradictions()
    with pytest.raises(InvalidInput, match="merged statement"):
        cmem.resolve(row.id, "merged")
    cmem.resolve(row.id, "merged", "9:15 on Mondays, 9:30 otherwise")
    clock.advance(hours=1)
    assert not valid_now(cmem, a.id) and not valid_now(cmem, b.id)
    kept = [m for m in cmem.memories(valid_at=clock().isoformat()) if m.node.id not in (a.id, b.id)]
    assert [m.node.text for m in kept] == ["standup: 9:15 on Mondays, 9:30 otherwise"]
    assert cmem.contradictions() == []  # the merged value contradicts nothing


def test_bad_resolutions_change_nothing(cmem: Memory) -> None:
    cmem.fact("tz", "UTC")
    cmem.fact("tz", "CET")
    (row,) = cmem.contradictions()
    with pytest.raises(InvalidInput, match=r"unknown resolution 'c_wins'.*a_wins"):
        cmem.resolve(row.id, "c_wins")
    with pytest.raises(NotFound, match="nope"):
        cmem.resolve("nope", "a_wins")
    cmem.resolve(row.id, "a_wins")
    with pytest.raises(InvalidOperation, match="already resolved"):
        cmem.resolve(row.id, "b_wins")
    assert cmem.contradictions(status=None)[0].resolution == "a_wins"
    with pytest.raises(InvalidInput, match="unknown status"):
        cmem.contradictions(status="closed")


def test_an_open_contradiction_is_critical_in_a_context(cmem: Memory) -> None:
    a = cmem.fact("cache", "Redis")
    b = cmem.fact("cache", "Memcached")
    ctx = cmem.context(budget=2000)
    (critical,) = [t for t in ctx.tiers if t.name == "critical"]
    pairs = [i for i in critical.items if i.reason == "unresolved contradiction"]
    assert [(i.node_id, i.covers) for i in pairs] == [(a.id, (b.id,))]
    cmem.resolve(cmem.contradictions()[0].id, "a_wins")
    ctx = cmem.context(budget=2000)
    assert not [i for t in ctx.tiers for i in t.items if i.reason == "unresolved contradiction"]


def test_cli_lists_and_resolves(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with Memory(db, embedder="hashing") as memory:
        memory.fact("region", "eu-west-1")
        memory.fact("region", "us-east-1")
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
        cmem.fact("region", "eu")
    finally:
        db.set_trace_callback(None)
    (lookup,) = [q for q in seen if "json_extract(n.metadata, '$.key')" in q]
    plan = " ".join(str(r) for r in db.execute(f"EXPLAIN QUERY PLAN {lookup}"))
    assert "facts_by_key" in plan
