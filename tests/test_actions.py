"""Action items: what someone will do and by when, open until done, shown
in contexts while open (critical when due within a day), and captured from
chat with their owner and due date."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from mnemotree import InvalidInput, Memory, action_state
from mnemotree.conversation.capture import LLMExtractor
from mnemotree.conversation.extractive import Said
from mnemotree.llm import LLMSettings
from mnemotree.llm.openai_compat import OpenAILLM
from tests.cli_runner import run_cli
from tests.helpers import Clock
from tests.openai_server import Script, openai_server


@pytest.fixture
def mem(tmp_path: Path) -> Memory:
    clock = Clock()
    clock.now = datetime(2026, 3, 2, 9, tzinfo=timezone.utc)  # a Monday
    return Memory(tmp_path / "m.db", embedder="hashing", clock=clock, llm="offline")


def test_open_actions_are_in_the_context_until_done(mem: Memory) -> None:
    with mem:
        soon = mem.typed.action(
            "Priya will write the rollout checklist", owner="Priya", due="2026-03-03", scope="team"
        )
        later = mem.typed.action("Marco will book the venue", owner="Marco", scope="team")
        assert [n.id for n in mem.typed.actions(scopes=["team"])] == [soon.id, later.id]
        text = mem.context("plan the rollout", scopes=["team"], budget=400).text
        critical = text.split("## Relevant")[0]
        assert "Priya will write the rollout checklist (open, due 2026-03-03)" in critical
        assert "Marco will book the venue (open)" in text
        done = mem.typed.done(soon.id)
        assert (
            done.metadata["status"] == "done" and action_state(done.metadata) == "done 2026-03-02"
        )
        assert [n.id for n in mem.typed.actions(scopes=["team"])] == [later.id]
        assert [n.id for n in mem.typed.actions(scopes=["team"], status="done")] == [soon.id]
        text = mem.context("plan the rollout", scopes=["team"], budget=400).text
        assert "(open, due 2026-03-03)" not in text  # never served as still to do
        assert mem.history(soon.id)[0].node.metadata["status"] == "open"  # the open state is kept
        with pytest.raises(InvalidInput, match="already done"):
            mem.typed.done(soon.id)


def test_bad_action_fields_are_refused_naming_them(mem: Memory) -> None:
    with mem:
        with pytest.raises(InvalidInput, match="needs an owner"):
            mem.typed.action("Someone will do it", owner=" ")
        with pytest.raises(InvalidInput, match="2026-03-04, got 'friday'"):
            mem.typed.action("Priya will do it", owner="Priya", due="friday")
        with pytest.raises(InvalidInput, match="unknown action status 'late'"):
            mem.typed.actions(status="late")
        fact = mem.remember("Deploys stop at 3pm", type="fact")
        with pytest.raises(InvalidInput, match="not an action"):
            mem.typed.done(fact.id)


def test_a_chat_commitment_becomes_an_open_action_with_owner_and_due(mem: Memory) -> None:
    with mem:
        mem.chat._chat_background = False
        session = mem.chat.start_session("team", max_recent=4, chunk_size=2)
        for name, text in [
            ("Dana", "ok where are we with the rollout"),
            ("Priya", "I'll write the rollout checklist by Wednesday"),
            ("Dana", "Marco, can you book the venue?"),
            ("Marco", "sure, will do by Friday"),
        ]:
            mem.chat.add_message(session.id, "user", text, name=name)
        found = {n.text: n.metadata for n in mem.typed.actions(scopes=["team"])}
    assert found["Priya will write the rollout checklist by Wednesday."]["due"] == "2026-03-04"
    assert found["Marco will book the venue."] == {
        **found["Marco will book the venue."],
        "owner": "Marco",
        "due": "2026-03-06",
        "status": "open",
    }


def test_the_cli_adds_lists_and_closes_actions(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    made = run_cli(
        db,
        "--json",
        "action",
        "Send the deck",
        "--owner",
        "Sam",
        "--due",
        "2026-03-06",
        embedder="hashing",
    )
    assert made.returncode == 0, made.stderr
    listed = run_cli(db, "actions", embedder="hashing")
    assert "Sam" in listed.stdout and "Send the deck  (open, due 2026-03-06)" in listed.stdout
    node_id = listed.stdout.split()[0]
    assert run_cli(db, "done", node_id, embedder="hashing").returncode == 0
    assert run_cli(db, "actions", embedder="hashing").stderr.strip() == "no open action items"
    bad = run_cli(db, "action", "x y z", "--owner", "Sam", "--due", "soon", embedder="hashing")
    assert bad.returncode == 1 and "due must be a date" in bad.stderr


def test_a_model_fills_the_same_schema_and_a_malformed_item_falls_back_offline(
    mem: Memory,
) -> None:
    items = [
        {
            "text": "Priya will write the rollout checklist.",
            "type": "action",
            "confidence": 0.9,
            "message": 1,
            "owner": "Priya",
            "due": "2026-03-04",
        },
        # No owner: this message is read offline instead.
        {"text": "Someone books the venue.", "type": "action", "confidence": 0.9, "message": 3},
        {
            "text": "The team chose PostgreSQL for billing.",
            "type": "decision",
            "confidence": 0.9,
            "message": 0,
            "due": "not a date",
        },
    ]
    script = Script(chat=[json.dumps({"memories": items})])
    with openai_server(script) as url:
        llm = OpenAILLM(LLMSettings("local-chat", base_url=url, retries=0, repairs=0))
        clock = mem.clock
        mem.close()
        with Memory(mem.path, embedder="hashing", llm=llm, clock=clock, chat_background=False) as m:
            session = m.chat.start_session("team", max_recent=50, chunk_size=10)
            for name, text in [
                ("Dana", "We chose PostgreSQL for billing."),
                ("Priya", "I'll do the rollout checklist"),
                ("Dana", "Marco, can you book the venue?"),
                ("Marco", "sure, will do by Friday"),
            ]:
                m.chat.add_message(session.id, "user", text, name=name)
            m.chat.capture(session.id)
            prompt = script.chat_requests()[0]["messages"][-1]["content"]
            actions = {n.text: n.metadata for n in m.typed.actions(scopes=["team"])}
            captured = {r.text for r in m.chat.captured(["team"], status=None)}
    assert "[1] 2026-03-02 Priya: I'll do the rollout checklist" in prompt  # days are given
    assert actions["Priya will write the rollout checklist."]["due"] == "2026-03-04"
    # The malformed items' messages were read offline instead: the request
    # Marco accepted, and the decision (its item's date was no date).
    assert actions["Marco will book the venue."]["owner"] == "Marco"
    assert "The team chose PostgreSQL for billing." in captured
    assert "Someone books the venue." not in captured


def test_a_window_the_model_has_read_is_not_sent_again() -> None:
    # A capture retried (a failed write, another process's race) reads the
    # same window: the model's items are reused; a new window is asked for.
    item = {"text": "Dana chose PostgreSQL.", "type": "decision", "confidence": 0.9, "message": 0}
    script = Script(chat=[json.dumps({"memories": [item]}), json.dumps({"memories": []})])
    window = [Said("Dana", "We chose PostgreSQL for billing.", "user")]
    with openai_server(script) as url:
        llm = OpenAILLM(LLMSettings("local-chat", base_url=url, retries=0, repairs=0))
        extractor = LLMExtractor(llm)
        first = extractor.extract(window)
        again = extractor.extract(window)
        other = extractor.extract([Said("Dana", "Lunch is at noon.", "user")])
        # A second extractor (another process) asks for itself.
        script.chat.append(json.dumps({"memories": [item]}))
        fresh = LLMExtractor(llm).extract(window)
    assert [c.text for c in first] == [c.text for c in again] == ["Dana chose PostgreSQL."]
    assert other == [] and [c.text for c in fresh] == ["Dana chose PostgreSQL."]
    assert len(script.chat_requests()) == 3
