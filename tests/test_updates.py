"""Validity as a read filter, and updates told apart from contradictions.

A newer value supersedes the older one as it is written; what is superseded
or expired is never served unless asked for; an update is listed, explained
and reversible. Real SQLite files, the hashing embedder, a hand-moved clock.
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from mnemotree import InvalidInput, InvalidOperation, Memory, NotFound
from tests.cli_runner import run_cli
from tests.helpers import Clock

pytestmark = pytest.mark.both_stores  # every test using the memory fixtures runs on both


def found(memory: Memory, query: str, **options: object) -> list[str]:
    return [h.node.id for h in memory.search(query, record=False, **options)]  # type: ignore[arg-type]


def test_a_newer_fact_value_supersedes_the_older_at_once(cmem: Memory, clock: Clock) -> None:
    old = cmem.typed.fact("office_city", "Lisbon")
    clock.advance(days=30)
    new = cmem.typed.fact("office_city", "Berlin")
    assert cmem.consolidation.contradictions() == []  # an update waits for nobody
    (update,) = cmem.consolidation.updates()
    assert (update.a_id, update.b_id, update.status, update.resolution) == (
        old.id,
        new.id,
        "resolved",
        "update",
    )
    assert update.reason == "office_city: Lisbon then Berlin"
    assert cmem.get(old.id).metadata["valid_to"] == new.created_at
    assert found(cmem, "office_city") == [new.id]
    assert set(found(cmem, "office_city", include_expired=True)) == {old.id, new.id}
    then = (clock.now - timedelta(days=10)).isoformat()
    assert found(cmem, "office_city", valid_at=then) == [old.id]
    assert [m.id for m in cmem.typed.memories()] == [new.id]
    assert {m.id for m in cmem.typed.memories(include_expired=True)} == {old.id, new.id}


def test_a_memory_is_valid_from_when_it_was_written(cmem: Memory, clock: Clock) -> None:
    before = clock.now.isoformat()
    clock.advance(days=1)
    node = cmem.remember("The deploy window is Tuesday morning")
    assert found(cmem, "deploy window") == [node.id]
    assert found(cmem, "deploy window", valid_at=before) == []
    assert (
        cmem.typed.memory(cmem.typed.fact("k", "v").id).valid_from
        == cmem.get(cmem.typed.fact("k", "v").id).created_at
    )


def test_reverting_an_update_makes_the_older_valid_again(cmem: Memory, clock: Clock) -> None:
    old = cmem.typed.fact("db_owner", "Priya")
    clock.advance(days=3)
    new = cmem.typed.fact("db_owner", "Tomas")
    (update,) = cmem.consolidation.updates()
    reverted = cmem.consolidation.revert_update(update.id)
    assert (reverted.resolution, reverted.note) == ("both_valid", "update reverted")
    assert "valid_to" not in cmem.get(old.id).metadata
    assert set(found(cmem, "db_owner")) == {old.id, new.id}
    assert cmem.consolidation.updates() == []
    with pytest.raises(InvalidOperation, match="not an automatic update"):
        cmem.consolidation.revert_update(update.id)


def test_a_less_certain_newer_value_is_a_contradiction(cmem: Memory, clock: Clock) -> None:
    old = cmem.typed.fact("ci_runner", "GitHub Actions")
    clock.advance(days=2)
    new = cmem.typed.fact("ci_runner", "Buildkite", confidence=0.4)
    (row,) = cmem.consolidation.contradictions()
    assert (row.a_id, row.b_id, row.status) == (old.id, new.id, "open")
    assert cmem.consolidation.updates() == []
    assert set(found(cmem, "ci_runner")) == {old.id, new.id}  # neither is settled


def test_resolving_or_superseding_settles_and_hides_the_loser(cmem: Memory, clock: Clock) -> None:
    old = cmem.typed.fact("ci_runner", "GitHub Actions")
    clock.advance(days=2)
    new = cmem.typed.fact("ci_runner", "Buildkite", confidence=0.4)
    (row,) = cmem.consolidation.contradictions()
    cmem.consolidation.resolve(row.id, "b_wins")
    assert found(cmem, "ci_runner") == [new.id]
    clock.advance(days=1)
    third = cmem.typed.fact("ci_runner", "Jenkins", confidence=0.3)
    (row,) = cmem.consolidation.contradictions()
    cmem.typed.relate(third.id, new.id, "supersedes")  # settles the open contradiction too
    assert cmem.consolidation.contradictions() == []
    assert cmem.consolidation.contradiction(row.id).resolution == "b_wins"  # the later one won
    assert found(cmem, "ci_runner") == [third.id]
    assert old.id not in found(cmem, "ci_runner")


def test_superseding_refuses_itself_cycles_and_other_scopes(cmem: Memory, clock: Clock) -> None:
    a = cmem.remember("Release train every two weeks")
    clock.advance(days=1)
    b = cmem.remember("Release train every week")
    cmem.typed.relate(b.id, a.id, "supersedes")
    before = (cmem.get(a.id), cmem.get(b.id), cmem.typed.relations(a.id))
    with pytest.raises(InvalidInput, match="itself"):
        cmem.typed.relate(a.id, a.id, "supersedes")
    with pytest.raises(InvalidOperation, match="already supersedes"):
        cmem.typed.relate(a.id, b.id, "supersedes")
    other = cmem.remember("Release train every month", scope="team-b")
    with pytest.raises(InvalidInput, match="its own scope"):
        cmem.typed.relate(other.id, b.id, "supersedes")
    assert (cmem.get(a.id), cmem.get(b.id), cmem.typed.relations(a.id)) == before


@pytest.mark.parametrize("bad", ["yesterday", "2026-13-45", "99999-01-01", ""])
def test_time_travel_to_a_bad_date_is_refused(cmem: Memory, bad: str) -> None:
    cmem.remember("Staging runs on Postgres 16")
    with pytest.raises(InvalidInput, match="valid_at"):
        cmem.search("staging", valid_at=bad)
    with pytest.raises(InvalidInput, match="valid_at"):
        cmem.typed.memories(valid_at=bad)


def test_valid_at_and_include_expired_together_are_refused(cmem: Memory) -> None:
    with pytest.raises(InvalidInput, match="not both"):
        cmem.search("x", valid_at="2026-01-01", include_expired=True)


def test_a_path_entrys_new_status_is_an_update_not_a_contradiction(cmem: Memory) -> None:
    paths = cmem.paths()
    paths.save("tasks/login", {"status": "open", "owner": "ana"}, context_tokens=0)
    paths.save("tasks/login", {"status": "done", "owner": "ana"}, context_tokens=0)
    assert cmem.consolidation.contradictions() == []
    (update,) = cmem.consolidation.updates()
    assert update.reason == "tasks/login: status: open then done"
    ctx = cmem.context(budget=2000)
    (critical,) = [t for t in ctx.tiers if t.name == "critical"]
    assert critical.items == []
    cmem.consolidation.revert_update(update.id)  # the earlier content comes back as a new version
    assert paths.get("tasks/login").content == {"status": "open", "owner": "ana"}


def test_unknown_ids_and_statuses_are_clear_errors(cmem: Memory) -> None:
    with pytest.raises(NotFound):
        cmem.consolidation.revert_update("nope")
    with pytest.raises(InvalidInput, match="review"):
        cmem.consolidation.contradictions(status="closed")
    with pytest.raises(InvalidInput, match="limit"):
        cmem.consolidation.updates(limit=0)


def test_the_cli_says_what_a_new_memory_updated(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    run_cli(db, "remember", "Sam owns the deploy pipeline.", embedder="hashing")
    said = run_cli(db, "remember", "Kim owns the deploy pipeline now.", embedder="hashing")
    assert said.returncode == 0, said.stderr
    assert "updates «Sam owns the deploy pipeline.»" in said.stderr
    assert "deploy pipeline: Sam then Kim" in said.stderr
    listed = run_cli(db, "updates", embedder="hashing")
    assert "«Sam owns the deploy pipeline.» → «Kim owns the deploy pipeline now.»" in listed.stdout
    (row,) = json.loads(run_cli(db, "--json", "updates", embedder="hashing").stdout)
    reverted = run_cli(db, "revert-update", row["id"], embedder="hashing")
    assert reverted.returncode == 0 and "valid again" in reverted.stdout
    assert run_cli(db, "--json", "updates", embedder="hashing").stdout.strip() == "[]"
