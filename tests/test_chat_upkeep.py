"""Chat upkeep under pressure: a slow model racing the caller, blank model
replies, long transcripts, endings, and what capture may promote. Each test
is a bug a review found (repro first, then the fix). Real SQLite, the real
local OpenAI-compatible server; no mocks."""

from __future__ import annotations

import json
from pathlib import Path

from mnemotree import Memory
from mnemotree.conversation.capture import MAX_PROMPT_CHARS
from mnemotree.conversation.session import message_tokens
from mnemotree.llm import LLMSettings
from mnemotree.llm.openai_compat import OpenAILLM
from tests.cli_runner import run_cli
from tests.openai_server import Reply, Script, openai_server

FACT = json.dumps(
    {
        "memories": [
            {"text": "Ana lives in Lisbon.", "type": "fact", "confidence": 0.9, "message": 0}
        ]
    }
)
NOTHING = json.dumps({"memories": []})
SUMMARY = json.dumps({"summary": "They talked about Ana.", "topics": ["Ana"]})


def llm_at(url: str) -> OpenAILLM:
    return OpenAILLM(LLMSettings("local-chat", base_url=url, retries=0, repairs=0))


def test_a_slow_capture_keeps_a_status_and_milestone_set_meanwhile(db_path: Path) -> None:
    script = Script(chat=[Reply(FACT, delay=0.6), SUMMARY])
    with openai_server(script) as url, Memory(db_path, embedder="hashing", llm=llm_at(url)) as m:
        session = m.chat.start_session(max_recent=2, chunk_size=1)
        m.chat.add_message(session.id, "user", "My sister Ana lives in Lisbon.")
        m.chat.add_message(session.id, "user", "We decided to use PostgreSQL.")  # capture starts
        m.chat.add_milestone(session.id, "Chose the database")
        m.chat.set_session_status(session.id, "ended")
        assert m.chat.wait_for_chat(timeout=30)
        meta = m.chat.session(session.id).metadata
        assert meta["status"] == "ended"
        assert [x["text"] for x in meta["milestones"]] == ["Chose the database"]
        assert meta["captured_turn"] == 2


def test_a_capture_asked_for_during_the_background_one_stores_nothing_twice(
    db_path: Path,
) -> None:
    # The local server's replies arrived one after the other, so this also
    # passed before the fix; the race itself was shown by the review's script
    # with a slow in-process model. It still guards the outcome.
    script = Script(chat=[Reply(FACT, delay=0.5), Reply(FACT, delay=0.5)])
    with openai_server(script) as url, Memory(db_path, embedder="hashing", llm=llm_at(url)) as m:
        session = m.chat.start_session(max_recent=2, chunk_size=2)
        m.chat.add_message(session.id, "user", "My sister Ana lives in Lisbon.")
        m.chat.add_message(session.id, "user", "She moved there last year.")  # capture starts
        m.chat.capture(session.id)
        assert m.chat.wait_for_chat(timeout=30)
        assert [r.text for r in m.chat.captured(status=None)] == ["Ana lives in Lisbon."]
        assert [x.node.text for x in m.typed.memories(scopes=["default"])] == [
            "Ana lives in Lisbon."
        ]


def test_a_blank_model_summary_falls_back_and_capture_goes_on(db_path: Path) -> None:
    blank = json.dumps({"summary": "   ", "topics": []})
    script = Script(chat=[NOTHING, blank, blank, NOTHING, blank])
    with (
        openai_server(script) as url,
        Memory(db_path, embedder="hashing", llm=llm_at(url), chat_background=False) as m,
    ):
        session = m.chat.start_session(max_recent=2, chunk_size=1)
        for text in ["hello there", "how are things", "all good here", "same as ever", "bye now"]:
            m.chat.add_message(session.id, "user", text)
        top = m.children(session.id)
        assert sum(n.is_summary for n in top) >= 2
        assert {n.metadata["by"] for n in top if n.is_summary} == {"extractive"}
        assert m.chat.session(session.id).metadata["captured_turn"] == 4
        assert m.chat_errors == []


def test_a_long_transcript_is_read_whole_in_several_requests(db_path: Path) -> None:
    script = Script(chat=[NOTHING, NOTHING, NOTHING, NOTHING])
    pasted = "log line " * (MAX_PROMPT_CHARS // 9 // 2)  # half the limit each
    with (
        openai_server(script) as url,
        Memory(db_path, embedder="hashing", llm=llm_at(url), chat_background=False) as m,
    ):
        session = m.chat.start_session(max_recent=100, chunk_size=10)
        for _ in range(4):
            m.chat.add_message(session.id, "user", pasted)
        m.chat.add_message(session.id, "user", "We decided to ship on Friday.")
        m.chat.capture(session.id)
        prompts = [r["messages"][-1]["content"] for r in script.chat_requests()]
        assert len(prompts) >= 2 and all(len(p) <= 2 * MAX_PROMPT_CHARS for p in prompts)
        assert "We decided to ship on Friday." in prompts[-1]


def test_an_assistants_words_wait_for_promote(db_path: Path) -> None:
    with Memory(db_path, embedder="hashing", llm="offline", chat_background=False) as m:
        session = m.chat.start_session(max_recent=50, chunk_size=10)
        m.chat.add_message(session.id, "assistant", "We decided to book you a table at eight.")
        m.chat.add_message(session.id, "user", "I prefer dark roast coffee in the morning.")
        m.chat.capture(session.id)
        rows = {r.text: r for r in m.chat.captured(status=None)}
        assert rows["We decided to book you a table at eight."].status == "pending"
        assert rows["The user prefers dark roast coffee in the morning."].status == "promoted"


def test_a_dismissed_fact_is_not_captured_again(db_path: Path) -> None:
    with Memory(db_path, embedder="hashing", llm="offline", chat_background=False) as m:
        session = m.chat.start_session(max_recent=50, chunk_size=10)
        m.chat.add_message(session.id, "user", "Maybe we should move the standup to ten.")
        m.chat.capture(session.id)
        (row,) = m.chat.captured()
        m.chat.dismiss(row.id)
        m.chat.add_message(session.id, "user", "Maybe we should move the standup to ten.")
        m.chat.capture(session.id)
        assert [(r.status, r.id) for r in m.chat.captured(status=None)] == [("dismissed", row.id)]


def test_ending_a_session_captures_what_is_left(db_path: Path) -> None:
    with Memory(db_path, embedder="hashing", llm="offline", chat_background=False) as m:
        session = m.chat.start_session()  # capture every 20 turns: not due after two
        m.chat.add_message(session.id, "user", "We decided to use PostgreSQL for billing.")
        m.chat.add_message(session.id, "user", "Thanks, that is all.")
        assert m.chat.captured(status=None) == []
        m.chat.set_session_status(session.id, "ended")
        assert [r.type for r in m.chat.captured(status=None)] == ["decision"]
        assert m.chat.session(session.id).metadata["captured_turn"] == 2


def test_a_speaker_name_counts_in_the_budget(db_path: Path) -> None:
    with Memory(db_path, embedder="hashing", llm="offline", chat_background=False) as m:
        session = m.chat.start_session()
        m.chat.add_message(session.id, "user", "Hello", name="Bartholomew Fitzgerald-Montgomery")
        (message,) = m.chat.build_message_list(session.id)
        assert message["name"] == "Bartholomew_Fitzgerald-Montgomery"  # as the API takes it
        plain = {k: v for k, v in message.items() if k != "name"}
        assert message_tokens(message, m.tokenizer) > message_tokens(plain, m.tokenizer)
        cost = message_tokens(message, m.tokenizer)
        assert m.chat.build_message_list(session.id, budget=cost) == [message]
        assert m.chat.build_message_list(session.id, budget=cost - 1) == []


def test_leaving_the_repl_captures_and_scope_with_session_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "chat.db"
    said = "We decided to use PostgreSQL for billing.\n/quit\n"
    done = run_cli(
        db, "--llm", "offline", "chat", "--scope", "user:1", input=said, embedder="hashing"
    )
    assert done.returncode == 0, done.stderr
    assert "captured 1 memories" in done.stderr
    listed = run_cli(db, "--json", "captured", "--status", "all", embedder="hashing")
    assert [r["type"] for r in json.loads(listed.stdout)] == ["decision"]
    session = json.loads(run_cli(db, "--json", "session", "list", embedder="hashing").stdout)[0]
    refused = run_cli(
        db, "chat", "--session", session["id"], "--scope", "user:2", input="", embedder="hashing"
    )
    assert refused.returncode == 1 and "--scope and --title name a new session" in refused.stderr


def test_a_message_after_a_deleted_newest_one_is_still_captured(db_path: Path) -> None:
    with Memory(db_path, embedder="hashing", llm="offline", chat_background=False) as m:
        session = m.chat.start_session(max_recent=2, chunk_size=2)
        m.chat.add_message(session.id, "user", "Hello there, how are you?")
        newest = m.chat.add_message(session.id, "user", "Fine, thanks for asking.")  # captured
        assert m.chat.session(session.id).metadata["captured_turn"] == 2
        m.delete(newest.id)
        again = m.chat.add_message(session.id, "user", "We decided to use PostgreSQL for billing.")
        assert again.metadata["turn"] == 3  # not 2: capture has read turn 2
        m.chat.set_session_status(session.id, "ended")
        assert [r.type for r in m.chat.captured(status=None)] == ["decision"]


def test_chat_errors_is_there_before_any_chat() -> None:
    with Memory(":memory:", embedder="hashing") as m:
        assert m.chat_errors == []
