"""Recorded events and the workflows found in them: mining repeated ordered
steps among noise, keeping them as workflow memories, predicting them from
the situation, and the CLI, HTTP and MCP surfaces."""

from __future__ import annotations

import asyncio
import json
import random
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp import Client

from mnemotree import InvalidInput, Memory
from mnemotree.activity.mining import Event, mine, sessions, step_of
from mnemotree.bench import workflow_log
from tests.cli_runner import run_cli
from tests.server_helpers import serving
from tests.test_mcp import params, payload

pytestmark = pytest.mark.both_stores

T0 = datetime(2026, 3, 2, 9, tzinfo=timezone.utc)
NOISE = [
    *("git status", "ls -la", "git diff", "docker ps", "vim notes.md", "htop", "git log"),
    *("cat setup.cfg", "grep -rn todo", "make lint", "git fetch", "curl localhost", "top"),
    *("git stash", "python -V", "pip list", "df -h", "man git", "tail -f app.log", "which node"),
]


@pytest.mark.parametrize(
    ("kind", "detail", "step"),
    [
        ("command", "git commit -m 'fix login'", "command: git commit"),
        ("command", "kubectl logs api-7f3c9 -n prod", "command: kubectl logs"),
        ("command", "aws s3 sync s3://x data", "command: aws s3 sync"),
        ("command", "python scripts/load.py data/raw", "command: python load.py"),
        ("command", "./deploy.sh production", "command: deploy.sh"),
        ("Test", "pytest tests/db -q", "test: pytest"),
        ("deploy", "", "deploy"),
    ],
)
def test_a_step_is_what_ran_without_its_arguments(kind: str, detail: str, step: str) -> None:
    assert step_of(kind, detail) == step


def _log(routine: list[str], times: int, seed: int, noise_between: bool = True) -> list[Event]:
    """Sessions of random noise, `times` of them holding `routine` with noise
    between its steps."""
    rng = random.Random(seed)
    events: list[Event] = []
    at = T0
    for n in range(40):
        steps = [rng.choice(NOISE) for _ in range(rng.randint(3, 12))]
        if n < times:
            where = rng.randint(0, len(steps))
            inner: list[str] = []
            for step in routine:
                if noise_between and rng.random() < 0.4:
                    inner.append(rng.choice(NOISE))
                inner.append(step)
            steps[where:where] = inner
        for detail in steps:
            at += timedelta(minutes=rng.randint(1, 5))
            events.append(Event(f"e{len(events)}", at, step_of("command", detail)))
        at += timedelta(hours=2)
    return events


def test_a_routine_among_noise_is_found_with_its_steps_in_order() -> None:
    routine = ["make test", "make build", "git tag", "git push --tags"]
    found = mine(_log(routine, times=8, seed=1))
    assert [f.steps for f in found] == [
        ["command: make test", "command: make build", "command: git tag", "command: git push"]
    ]
    assert found[0].support == 8 and found[0].sessions == 8


def test_a_routine_seen_twice_is_not_yet_a_workflow() -> None:
    assert mine(_log(["make test", "make build", "git tag v1"], times=2, seed=2)) == []


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=0, max_value=10_000))
def test_noise_alone_gives_no_workflow(seed: int) -> None:
    assert mine(_log([], times=0, seed=seed)) == []


def test_an_optional_step_and_a_retried_test_keep_one_workflow() -> None:
    events: list[Event] = []
    at = T0
    rng = random.Random(3)
    for n in range(40):
        if n >= 12:
            steps = [rng.choice(NOISE) for _ in range(rng.randint(3, 12))]
            for detail in steps:
                at += timedelta(minutes=2)
                events.append(Event(f"e{len(events)}", at, step_of("command", detail)))
            at += timedelta(hours=3)
            continue
        steps = [rng.choice(NOISE) for _ in range(4)] + ["gh pr checkout 12"]
        if n % 2:
            steps.append("npm ci")
        fix = f"vim src/part{n}.ts"  # a failed run, a fix, the run again
        steps += ["npm test"] + ([fix, "npm test"] if n % 3 == 0 else [])
        steps += ["gh pr review 12", *[rng.choice(NOISE) for _ in range(3)]]
        for detail in steps:
            at += timedelta(minutes=2)
            events.append(Event(f"e{len(events)}", at, step_of("command", detail)))
        at += timedelta(hours=3)
    found = mine(events)
    assert len(found) == 1
    assert found[0].steps == [
        "command: gh pr checkout",
        "command: npm test",
        "command: gh pr review",
    ]
    assert found[0].optional == ["command: npm ci"]


def test_a_long_pause_starts_a_new_session_and_a_repeat_counts_once() -> None:
    events = [
        Event("a", T0, "test: pytest", "fail"),
        Event("b", T0 + timedelta(minutes=1), "test: pytest", "ok"),
        Event("c", T0 + timedelta(hours=1), "command: git push"),
    ]
    cut = sessions(events)
    assert [[e.id for e in s] for s in cut] == [["b"], ["c"]]


def _generated(memory: Memory, days: int = 20, seed: int = 11) -> list[dict[str, Any]]:
    events, _ = workflow_log.generate(seed, days=days)
    for event in events:
        memory.record_event(
            event["kind"],
            event["detail"],
            event["signals"],
            outcome=event["outcome"] or None,
            at=event["at"],
            scope="dev",
        )
    return events


def test_workflows_are_kept_once_with_trigger_and_success(memory: Memory) -> None:
    _generated(memory)
    dry = memory.activity.detect_workflows(scope="dev", dry_run=True)
    assert dry.workflows and not dry.created
    assert memory.typed.memories(scopes=["dev"], types=["workflow"]) == []
    report = memory.activity.detect_workflows(scope="dev")
    names = {w["name"] for w in report.workflows}
    assert "git add → git commit → git push" in names
    kept = {m.node.text: m for m in memory.typed.memories(scopes=["dev"], types=["workflow"])}
    assert set(kept) == names and len(report.created) == len(names)
    release = kept["git pull → make test → make build → git tag → git push → deploy: production"]
    meta = release.node.metadata
    assert meta["trigger"] == "deploying" and meta["trigger_branch"] == "main"
    assert meta["support"] >= 3 and 0 <= meta["success"] <= 1 and meta["source"] == "events"
    assert release.levels["steps"].startswith("1. git pull\n2. make test")
    assert all(memory.get(i).context_type == "event" for o in meta["examples"] for i in o)
    again = memory.activity.detect_workflows(scope="dev")
    assert not again.created and sorted(again.updated) == sorted(report.created)
    assert all(len(memory.history(i)) == 1 for i in report.created)  # nothing changed: no version
    assert memory.activity.detect_workflows(scope="other").workflows == []


def test_events_are_listed_by_kind_time_and_scope(memory: Memory) -> None:
    memory.record_event("command", "pytest -q", {"branch": "main"}, outcome="ok", at="2026-03-02")
    memory.record_event("deploy", "staging", at="2026-03-03T10:00:00Z", scope="ops")
    memory.record_event("command", "make build", at="2026-03-04")
    listed = memory.activity.events()
    assert [n.text for n in listed] == [
        "command: pytest -q",
        "deploy: staging",
        "command: make build",
    ]
    assert listed[0].metadata["signals"] == {"branch": "main"} and listed[0].scope == "default"
    assert [n.text for n in memory.activity.events(scopes=["ops"])] == ["deploy: staging"]
    assert [n.text for n in memory.activity.events(kinds=["deploy"])] == ["deploy: staging"]
    after = memory.activity.events(since="2026-03-03T12:00:00Z")
    assert [n.text for n in after] == ["command: make build"]
    assert [n.text for n in memory.activity.events(limit=1)] == ["command: make build"]
    assert memory.search("when did we deploy staging", limit=3)[0].node.text == "deploy: staging"


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda m: m.record_event("", "x"), "short word such as 'command'"),
        (lambda m: m.record_event("command", "x", {"host": "a"}), "unknown event signal 'host'"),
        (lambda m: m.record_event("command", "x", outcome="maybe"), "got 'maybe'"),
        (lambda m: m.record_event("command", "x", at="yesterday"), "at must be an ISO-8601"),
        (lambda m: m.record_event("command", "x" * 2001), "at most 2000 characters"),
        (lambda m: m.activity.detect_workflows(min_support=1), "min_support must be 2"),
    ],
)
def test_bad_events_are_refused_naming_the_value(memory: Memory, call: Any, message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        call(memory)


def test_a_workflow_is_predicted_from_a_branch_like_its_trigger(memory: Memory) -> None:
    hotfix = memory.typed.workflow(
        "hotfix",
        ["git checkout main", "pytest", "gh pr create"],
        fields={"trigger_branch": "hotfix/*"},
    )
    memory.typed.workflow("release", ["make build", "deploy"], trigger="deploying")
    got = memory.predict({"branch": "hotfix/login-crash"})
    assert [p.node.id for p in got] == [hotfix.id]
    assert got[0].reasons == ["workflow on branches like hotfix/*"]
    by_activity = memory.predict({"activity": "deploying"})
    assert [p.node.text for p in by_activity] == ["release"]


@pytest.mark.sqlite_only
def test_cli_records_lists_and_detects(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    with Memory(db, embedder="hashing") as memory:
        _generated(memory, days=12, seed=4)
        memory.activity.detect_workflows(scope="dev", dry_run=True)
    out = run_cli(
        db, "record", "command", "make test", "--signal", "branch=main", "--outcome", "ok"
    )
    assert out.returncode == 0 and "recorded" in out.stdout
    bad = run_cli(db, "record", "command", "x", "--signal", "host")
    assert bad.returncode != 0 and "name=value" in bad.stderr
    listed = json.loads(run_cli(db, "--json", "events", "--limit", "1").stdout)
    assert [n["text"] for n in listed] == ["command: make test"]
    detected = json.loads(run_cli(db, "--json", "workflows", "--detect", "--scope", "dev").stdout)
    assert "git add → git commit → git push" in {w["name"] for w in detected["workflows"]}
    shown = run_cli(db, "workflows", "--scope", "dev")
    assert "git add → git commit → git push  (seen" in shown.stdout


@pytest.mark.sqlite_only
def test_http_records_and_detects_within_the_keys_scope(tmp_path: Path) -> None:
    with serving(tmp_path / "h.db", {"dev": "dev", "ops": "ops"}) as served:
        events, _ = workflow_log.generate(5, days=12)
        with served.as_("dev") as http:
            for event in events:
                body = {k: event[k] for k in ("kind", "detail", "signals", "at")}
                answer = http.post("/events", json={**body, "outcome": event["outcome"] or None})
                assert answer.status_code == 201, answer.text
            assert http.post("/events", json={"kind": "x", "scope": "ops"}).status_code == 403
            dry = http.post("/workflows/detect", json={"dry_run": True}).json()
            assert dry["workflows"] and dry["created"] == []
            made = http.post("/workflows/detect", json={}).json()
            assert len(made["created"]) == len(dry["workflows"])
            listed = http.get("/workflows").json()
            assert {w["id"] for w in listed} == set(made["created"])
            assert len(http.get("/events", params={"limit": 5}).json()) == 5
        with served.as_("ops") as http:
            assert http.get("/events").json() == [] and http.get("/workflows").json() == []


@pytest.mark.sqlite_only
def test_an_agent_records_events_and_reads_workflows_over_mcp(tmp_path: Path) -> None:
    db = tmp_path / "mcp.db"
    steps = ["make test", "make build", "deploy staging"]

    rng = random.Random(7)

    async def main() -> list[dict[str, Any]]:
        async with Client(params(db)) as client:
            for day in range(10):
                routine = steps if day % 2 == 0 else []
                done = [*rng.sample(NOISE, 4), *routine, *rng.sample(NOISE, 3)]
                for n, detail in enumerate(done):
                    at = (T0 + timedelta(days=day, minutes=n)).isoformat()
                    event = {"kind": "command", "detail": detail, "outcome": "ok", "at": at}
                    recorded = payload(await client.call_tool("record_event", event))
                    assert recorded["text"] == f"command: {detail}"
            return list(payload(await client.call_tool("workflows", {"detect": True})))

    found = asyncio.run(main())
    assert [(w["name"], w["seen"], w["success"]) for w in found] == [
        ("make test → make build → deploy staging", 5, 1.0)
    ]


def test_commands_said_in_chat_are_steps() -> None:
    from mnemotree.activity.chat_steps import commands

    text = (
        "Run these:\n```bash\n# build first\nmake build\nmake test\n```\n"
        "then\n$ git push\nand in a block:\n```\n$ deploy staging\nnot a command\n```\n"
        "```python\nprint('no')\n```\n"
    )
    assert commands(text) == ["make build", "make test", "deploy staging", "git push"]
    assert commands("no commands, $5 is a price") == []


def test_a_routine_walked_through_in_chats_is_a_workflow(chat: Memory, clock: Any) -> None:
    rng = random.Random(4)
    for day in range(24):
        session = chat.chat.start_session("dev", title=f"day {day}")
        chat.chat.add_message(session.id, "user", f"what's up with {rng.choice(NOISE)}?")
        if day % 4 == 0:
            chat.chat.add_message(
                session.id,
                "assistant",
                "To release, run:\n```bash\nmake test\nmake build\ngit tag v1.2\n```\n"
                "then `deploy`:\n$ ./deploy.sh production",
            )
        for detail in rng.sample(NOISE, 6):
            chat.chat.add_message(session.id, "user", f"$ {detail}")
        clock.advance(days=1)
    report = chat.activity.detect_workflows(scope="dev")
    assert [(w["name"], w["support"]) for w in report.workflows] == [
        ("make test → make build → git tag → deploy.sh", 6)
    ]
    [workflow] = chat.typed.memories(scopes=["dev"], types=["workflow"])
    assert chat.get(workflow.node.metadata["examples"][0][0]).context_type == "message"


def test_empty_and_repeating_logs_give_no_workflow(memory: Memory) -> None:
    assert memory.activity.detect_workflows().workflows == []  # nothing recorded
    at = T0
    for _ in range(300):  # one command over and over: a repeat, not a routine
        at += timedelta(minutes=1)
        memory.record_event("command", "git status", at=at.isoformat())
    report = memory.activity.detect_workflows()
    assert report.workflows == [] and report.sessions == 1
    long = "x" * 2000  # the longest detail taken, with no words to make a step of
    memory.record_event("command", long, at=(at + timedelta(hours=2)).isoformat())
    assert memory.activity.detect_workflows().events == 301
