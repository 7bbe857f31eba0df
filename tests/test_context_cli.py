"""`mnemotree context`, `predict`, `usage` and `working` run as real
subprocesses against a real SQLite file written through the library."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from mnemotree import Memory
from tests.cli_runner import run_cli

LOGIN = "src/auth/login.ts"


def ok(db: Path, *args: str, input: str | None = None) -> str:
    proc = run_cli(db, *args, input=input, embedder="hashing")
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def as_json(db: Path, *args: str, input: str | None = None) -> Any:
    return json.loads(ok(db, "--json", *args, input=input))


def refused(db: Path, *args: str) -> str:
    proc = run_cli(db, *args, embedder="hashing")
    assert proc.returncode != 0, proc.stdout
    assert "Traceback" not in proc.stderr
    return proc.stderr


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A database with a decision for the login file, a contradiction, a
    convention, an episode and a chat session; read-only for the tests."""
    db = tmp_path_factory.mktemp("context-cli") / "memory.db"
    with Memory(db, embedder="hashing", llm="offline", chat_background=False) as memory:
        jwt = memory.remember(
            "Use JWT with refresh tokens for sign-in",
            type="decision",
            tags=["auth"],
            artifacts=[{"type": "file", "ref": LOGIN}],
        )
        # A contradiction a person related by hand (the write path would take
        # the later statement for an update of the earlier).
        memory.consolidation.scan_on_write = False
        redis = memory.remember("The cache is Redis", type="fact")
        memcached = memory.remember("The cache is Memcached", type="fact")
        memory.typed.relate(redis.id, memcached.id, "contradicts")
        memory.consolidation.scan_on_write = True
        lint = memory.remember("Always run lint before commit", type="constraint", tags=["lint"])
        crash = memory.typed.episode(
            "Login crash",
            summary="A null token crashed login; the handler checks it now",
            episode_type="problem_solved",
        )
        session = memory.chat.start_session("default", "Billing")
        for i in range(6):
            memory.chat.add_message(
                session.id, ("user", "assistant")[i % 2], f"Billing message {i}"
            )
        memory.flush()
    return {
        "db": db,
        "jwt": jwt.id,
        "redis": redis.id,
        "memcached": memcached.id,
        "lint": lint.id,
        "crash": crash.id,
        "session": session.id,
    }


def test_context_json_fits_the_budget_and_names_node_ids(world: dict[str, Any]) -> None:
    db = world["db"]
    data = as_json(db, "context", "login", "--budget", "600", "--signal", f"file={LOGIN}")
    assert data["budget"] == 600 and 0 < data["token_count"] <= 600
    assert data["activity"] == "default"
    tiers = data["tiers"]
    assert [t["name"] for t in tiers] == ["critical", "relevant", "background", "index"]
    for t in tiers:
        assert {"name", "budget", "tokens", "items"} <= set(t)
        assert 0 <= t["tokens"] <= t["budget"]
        for item in t["items"]:
            assert {"node_id", "ref", "level", "text", "tokens", "priority", "reason"} <= set(item)
            # A short reference in the text, its node id in the refs.
            if item["ref"]:
                assert data["refs"][item["ref"]] == item["node_id"]
                assert f"{item['ref']} {item['text']}" in data["text"]
            assert not item["node_id"] or item["node_id"] not in data["text"]
    critical = {i["node_id"] for i in tiers[0]["items"]}
    assert world["jwt"] in critical and world["redis"] in critical
    assert world["lint"] in {i["node_id"] for i in tiers[2]["items"]}
    assert any(i["text"].startswith("Ask me about: ") for i in tiers[3]["items"])


def test_context_as_text_prints_the_context_and_its_spending(world: dict[str, Any]) -> None:
    db = world["db"]
    proc = run_cli(db, "context", "--budget", "8000", "--activity", "debugging", embedder="hashing")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("## Critical")
    assert re.search(r"^«The cache is Redis» \[m\d+\] \(.*: which holds\?$", proc.stdout, re.M)
    assert world["redis"] not in proc.stdout
    assert "of 8000 tokens" in proc.stderr and "critical" in proc.stderr
    assert "/3000" in proc.stderr  # debugging gives the critical tier 3,000 of 8,000


def test_context_respects_scopes_and_tiny_budgets(world: dict[str, Any]) -> None:
    db = world["db"]
    nothing = as_json(db, "context", "login", "--budget", "500", "--scope", "elsewhere")
    assert nothing["token_count"] == 0 and nothing["warnings"]
    assert all(t["items"] == [] for t in nothing["tiers"])
    tiny = as_json(db, "context", "--budget", "1", "--signal", f"file={LOGIN}")
    assert tiny["token_count"] <= 1


def test_predict_json_puts_the_linked_decision_first(world: dict[str, Any]) -> None:
    db = world["db"]
    found = as_json(db, "predict", "--signal", f"file={LOGIN}")
    assert found and found[0]["id"] == world["jwt"]
    assert found[0]["type"] == "decision" and 0.9 <= found[0]["confidence"] < 1
    assert any(LOGIN in reason for reason in found[0]["reasons"])
    text = ok(db, "predict", "--signal", f"file={LOGIN}", "--limit", "1")
    assert world["jwt"] in text and "Use JWT" in text
    empty = run_cli(db, "predict", "--signal", "file=nothing/here.txt", embedder="hashing")
    assert empty.returncode == 0 and "nothing predicted" in empty.stderr


def test_usage_records_citations_and_feeds_predictions(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    with Memory(db, embedder="hashing") as memory:
        used = memory.remember("Retry the flaky integration suite twice", type="procedure")
        other = memory.remember("Coffee is in the second drawer", type="fact")
    report = as_json(
        db,
        "usage",
        "--retrieved",
        used.id,
        "--retrieved",
        other.id,
        "--cited",
        used.id,
        "--signal",
        f"file={LOGIN}",
    )
    assert report["retrieved"] == [used.id, other.id]
    assert (report["cited"], report["ignored"]) == ([used.id], [other.id])
    # The answer's text names the id (read from standard input with -).
    text = ok(
        db,
        "usage",
        "--retrieved",
        used.id,
        "--retrieved",
        other.id,
        "--answer",
        "-",
        "--signal",
        f"file={LOGIN}",
        input=f"As noted in [{used.id}], retry twice.",
    )
    assert text.startswith("recorded: 1 cited, 1 ignored")
    found = as_json(db, "predict", "--signal", f"file={LOGIN}")
    assert [p["id"] for p in found] == [used.id]
    assert "cited in 2 of 2 contexts with this file" in found[0]["reasons"]
    stderr = refused(db, "usage", "--retrieved", "01ARZ3NDEKTSV4RRFFQ69G5FAV")
    assert "error:" in stderr and "01ARZ3NDEKTSV4RRFFQ69G5FAV" in stderr


def test_working_reports_its_sections(world: dict[str, Any]) -> None:
    db = world["db"]
    built = as_json(db, "working", world["session"], "--total", "12000", "--system", "Be brief.")
    assert built["total"] == 12000 and built["available"] == 2000
    assert [s["name"] for s in built["sections"]] == ["system", "recent", "retrieved", "summaries"]
    assert all(0 <= s["tokens"] <= s["budget"] for s in built["sections"])
    assert built["tokens"] <= 12000
    assert built["messages"][0] == {"role": "system", "content": "Be brief."}
    assert built["messages"][-1]["content"] == "Billing message 5"
    text = ok(db, "working", world["session"], "--total", "12000")
    assert text.splitlines()[1].startswith("recent")
    stderr = refused(db, "working", world["session"], "--total", "5000")
    assert "error:" in stderr and "reserve" in stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["context", "--signal", "colour=red"], "unknown signal 'colour'"),
        (["context", "--signal", "src/auth/login.ts"], "name=value"),
        (["context", "--budget", "0"], "budget must be a whole number of tokens"),
        (["context", "--budget", "-5"], "budget must be a whole number of tokens"),
        (["context", "--signal", "time=someday"], "ISO-8601"),
        (["predict"], "at least one signal"),
        (["predict", "--signal", "mood=ok"], "unknown signal 'mood'"),
        (["predict", "--signal", f"file={LOGIN}", "--limit", "0"], "limit"),
    ],
)
def test_bad_input_exits_non_zero_with_a_clear_message(
    world: dict[str, Any], args: list[str], message: str
) -> None:
    stderr = refused(world["db"], *args)
    assert "error:" in stderr and message in stderr
    if "signal" in message:
        assert "file" in stderr and "collaborator" in stderr  # the known names


def test_an_unknown_activity_or_a_budget_that_is_not_a_number_is_refused(
    world: dict[str, Any],
) -> None:
    db = world["db"]
    for args in (["context", "--activity", "dancing"], ["context", "--budget", "lots"]):
        proc = run_cli(db, *args, embedder="hashing")
        assert proc.returncode == 2 and "Invalid value" in proc.stderr
    assert "debugging" in run_cli(db, "context", "--activity", "dancing").stderr
