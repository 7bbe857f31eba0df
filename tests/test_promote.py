"""Promoting chosen private memories into a shared project scope: duplicates
merged with both authors, updates applied by time, disagreements opened as
contradictions naming both people, nothing unchosen copied, one reversible
run; and the CLI and HTTP surfaces."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from mnemotree import InvalidInput, Memory
from tests.cli_runner import run_cli
from tests.helpers import Clock
from tests.server_helpers import serving
from tests.test_mcp import params, payload

pytestmark = pytest.mark.both_stores


def _team(memory: Memory, clock: Clock) -> dict[str, str]:
    """Two people's private memories, written over five days."""
    said: dict[str, str] = {}
    said["tuesdays"] = memory.remember(
        "We deploy to production on Tuesdays", type="decision", scope="user:alice"
    ).id
    said["vault_a"] = memory.remember(
        "We keep API keys in Vault", type="fact", scope="user:alice"
    ).id
    said["tabs"] = memory.remember(
        "Alice prefers tabs over spaces", type="preference", scope="user:alice"
    ).id
    clock.advance(days=2)
    said["thursdays"] = memory.remember(
        "We deploy to production on Thursdays", type="decision", scope="user:bob"
    ).id
    said["vault_b"] = memory.remember(
        "API keys are kept in Vault", type="fact", scope="user:bob"
    ).id
    clock.advance(days=1)
    said["ci_a"] = memory.typed.fact("ci_minutes", 3000, scope="user:alice").id
    clock.advance(days=1)
    said["ci_b"] = memory.typed.fact("ci_minutes", 5000, scope="user:bob").id
    return said


@pytest.fixture
def team(db_path: Path, clock: Clock) -> tuple[Memory, Clock, dict[str, str]]:
    memory = Memory(db_path, embedder="minilm", clock=clock, llm="offline")
    return memory, clock, _team(memory, clock)


def _shared(memory: Memory) -> dict[str, dict[str, object]]:
    return {
        t.node.text: {**t.node.metadata, "valid_to": t.valid_to}
        for t in memory.typed.memories(scopes=["project"], include_expired=True)
    }


def test_promotion_merges_updates_and_names_both_people_in_a_conflict(
    team: tuple[Memory, Clock, dict[str, str]],
) -> None:
    memory, _, said = team
    with memory:
        run = memory.consolidation.promote(
            "project", sources=["user:alice", "user:bob"], types=["decision", "fact"], dry_run=False
        )
        assert run.summary == {"promote": 5, "merge": 1}
        shared = _shared(memory)
        assert "Alice prefers tabs over spaces" not in shared  # a preference was not chosen
        vault = shared["We keep API keys in Vault"]
        assert vault["authors"] == ["user:alice", "user:bob"]
        assert vault["promoted_from"] == [said["vault_a"], said["vault_b"]]
        assert "API keys are kept in Vault" not in shared
        assert shared["ci_minutes: 3000"]["valid_to"] is not None  # Bob's later value holds
        assert shared["ci_minutes: 5000"]["valid_to"] is None
        assert shared["ci_minutes: 5000"]["author"] == "user:bob"
        conflicts = memory.consolidation.contradictions(scopes=["project"])
        assert [c.reason.split(" (")[0] for c in conflicts] == [
            "user:alice said 'We deploy to production on Tuesdays'; "
            "user:bob said 'We deploy to production on Thursdays'"
        ]
        assert shared["We deploy to production on Tuesdays"]["valid_to"] is None  # both held open
        # The private memories are untouched.
        assert memory.get(said["tuesdays"]).scope == "user:alice"
        assert memory.get(said["vault_b"]).metadata.get("authors") is None
        [listed] = [r for r in memory.consolidation.runs() if r.id == run.run_id]
        assert listed.summary == run.summary


def test_a_promotion_is_undone_as_one_run(team: tuple[Memory, Clock, dict[str, str]]) -> None:
    memory, _, said = team
    with memory:
        memory.consolidation.promote("project", ids=[said["vault_a"]], dry_run=False)
        before = memory.get(memory.typed.memories(scopes=["project"])[0].node.id)
        run = memory.consolidation.promote(
            "project", sources=["user:bob"], types=["fact", "decision"], dry_run=False
        )
        assert run.summary == {"promote": 2, "merge": 1}
        memory.consolidation.undo(run.run_id)
        assert list(_shared(memory)) == ["We keep API keys in Vault"]
        assert memory.get(before.id).metadata == before.metadata  # its authors as they were
        assert memory.consolidation.contradictions(status=None, scopes=["project"]) == []


def test_a_dry_run_reports_exactly_and_changes_nothing(
    team: tuple[Memory, Clock, dict[str, str]],
) -> None:
    memory, _, _ = team
    with memory:
        dry = memory.consolidation.promote("project", sources=["user:alice", "user:bob"])
        assert dry.dry_run and dry.run_id == "" and dry.summary == {"promote": 6, "merge": 1}
        assert _shared(memory) == {} and memory.consolidation.runs() == []
        assert memory.consolidation.contradictions(status=None) == []
        found = [f for a in dry.actions for f in a.data.get("found", [])]
        assert sorted(f["status"] for f in found) == ["open", "update"]


def test_nothing_is_promoted_without_a_choice(memory: Memory) -> None:
    note = memory.remember("Deploys stop at 3pm", scope="user:alice")
    space = memory.add("A heading", scope="user:alice")
    with pytest.raises(InvalidInput, match="choose what to promote"):
        memory.consolidation.promote("project")
    with pytest.raises(InvalidInput, match="is the scope promoted into"):
        memory.consolidation.promote("project", sources=["project"])
    with pytest.raises(InvalidInput, match="not a memory"):
        memory.consolidation.promote("project", ids=[space.id])
    with pytest.raises(InvalidInput, match="ids and sources are lists"):
        memory.consolidation.promote("project", sources="user:alice")
    done = memory.consolidation.promote("project", ids=[note.id], dry_run=False)
    assert done.summary == {"promote": 1}
    with pytest.raises(InvalidInput, match="already in 'project'"):
        memory.consolidation.promote("project", ids=[done.actions[0].nodes[0]])


@pytest.mark.sqlite_only
def test_cli_promotes_with_a_dry_run_first(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    clock = Clock()
    with Memory(db, embedder="hashing", clock=clock, llm="offline") as memory:
        _team(memory, clock)
    dry = run_cli(db, "merge", "project", "--from", "user:alice", "--type", "decision")
    assert dry.returncode == 0, dry.stderr
    assert "would promote 1" in dry.stderr and "--apply" in dry.stderr
    done = json.loads(
        run_cli(db, "--json", "merge", "project", "--from", "user:bob", "--apply").stdout
    )
    assert done["run_id"] and done["summary"]["promote"] >= 2
    undone = run_cli(db, "undo", done["run_id"])
    assert undone.returncode == 0, undone.stderr
    bad = run_cli(db, "merge", "project")
    assert bad.returncode != 0 and "choose what to promote" in bad.stderr


@pytest.mark.sqlite_only
def test_http_promotes_only_what_the_key_can_read(tmp_path: Path) -> None:
    keys = {"alice": "user:alice", "lead": ["user:alice", "user:bob", "project"]}
    clock = Clock()
    with Memory(tmp_path / "h.db", embedder="hashing", clock=clock, llm="offline") as memory:
        _team(memory, clock)
    with serving(tmp_path / "h.db", keys) as served:
        with served.as_("alice") as http:
            denied = http.post("/promote", json={"into": "project", "sources": ["user:alice"]})
            assert denied.status_code == 403, denied.text
        with served.as_("lead") as http:
            body = {"into": "project", "sources": ["user:alice", "user:bob"], "types": ["fact"]}
            dry = http.post("/promote", json=body).json()
            assert dry["dry_run"] and sum(dry["summary"].values()) == 4  # four facts chosen
            done = http.post("/promote", json={**body, "dry_run": False}).json()
            assert done["run_id"] and done["summary"] == dry["summary"]


@pytest.mark.sqlite_only
def test_an_agent_promotes_over_mcp_dry_first(tmp_path: Path) -> None:
    db = tmp_path / "mcp.db"
    clock = Clock()
    with Memory(db, embedder="hashing", clock=clock, llm="offline") as memory:
        _team(memory, clock)

    async def main() -> tuple[dict[str, Any], dict[str, Any]]:
        async with Client(params(db)) as client:
            args = {"into": "project", "sources": ["user:bob"], "types": ["fact"]}
            dry = payload(await client.call_tool("promote", args))
            done = payload(await client.call_tool("promote", {**args, "dry_run": False}))
            return dry, done

    dry, done = asyncio.run(main())
    assert dry["run_id"] == "" and dry["summary"] == {"promote": 2}
    assert done["run_id"] and done["summary"] == {"promote": 2}
    with Memory(db, embedder="hashing") as memory:
        shared = memory.typed.memories(scopes=["project"])
        assert {t.node.metadata["author"] for t in shared} == {"user:bob"}
