"""Chat sessions as subtrees: the rolling window, summaries, message lists,
capture and the memory log, on a real SQLite file; LLM paths against the
local OpenAI-compatible server. No mocks."""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mnemotree import InvalidInput, InvalidOperation, Memory, NotFound
from mnemotree.conversation.session import MAX_MESSAGE_BYTES, message_tokens
from mnemotree.llm import LLMSettings
from mnemotree.llm.openai_compat import OpenAILLM
from mnemotree.model import Node
from tests.openai_server import Reply, Script, openai_server

pytestmark = pytest.mark.both_stores  # every test using the memory fixtures runs on both

TALK = [
    "Hi! How was the weekend?",
    "Great, we hiked near Sintra on Saturday.",
    "We decided to use PostgreSQL for the billing service.",
    "I prefer managed hosting over running our own servers.",
    "My sister Ana lives in Lisbon now.",
    "The invoice export must be ready before 3 May.",
    "ok thanks",
    "Our goal is to launch the beta in June.",
]


@pytest.fixture
def chat(db_path: Path) -> Iterator[Memory]:
    """Summaries and capture inside add_message: deterministic for tests."""
    with Memory(db_path, embedder="hashing", llm="offline", chat_background=False) as m:
        yield m


def talk(memory: Memory, session: str, count: int, start: int = 0) -> list[Node]:
    return [
        memory.chat.add_message(
            session, ("user", "assistant")[i % 2], f"{TALK[i % len(TALK)]} #{i}"
        )
        for i in range(start, start + count)
    ]


def top(memory: Memory, session: str) -> list[Node]:
    return memory.children(session)


def test_a_session_is_a_root_with_messages_in_order(chat: Memory) -> None:
    session = chat.chat.start_session("user:42", "Planning")
    assert (session.context_type, session.scope, session.parent_id) == (
        "chat_session",
        "user:42",
        None,
    )
    assert session.metadata["status"] == "active" and session.text == "Planning"
    sent = talk(chat, session.id, 5)
    assert [n.id for n in top(chat, session.id)] == [n.id for n in sent]
    first = sent[0]
    assert (first.context_type, first.context_value, first.context_name) == (
        "message",
        "user",
        "user",
    )
    assert [n.metadata["turn"] for n in sent] == [1, 2, 3, 4, 5]
    named = chat.chat.add_message(session.id, "user", "It's Carol here.", name="Carol")
    assert named.context_name == "Carol" and named.scope == "user:42"
    assert [s.id for s in chat.chat.sessions(["user:42"])] == [session.id]
    assert chat.chat.sessions(["user:7"]) == []


def test_the_oldest_chunk_is_summarised_past_max_recent(chat: Memory) -> None:
    session = chat.chat.start_session(max_recent=20, chunk_size=10)
    talk(chat, session.id, 20)
    assert all(n.context_type == "message" for n in top(chat, session.id))
    talk(chat, session.id, 1, start=20)
    level = top(chat, session.id)
    assert level[0].is_summary and len(level) == 12  # one summary + 11 recent messages
    summary = level[0]
    assert summary.metadata["first_turn"] == 1 and summary.metadata["last_turn"] == 10
    assert summary.metadata["by"] == "extractive" and summary.metadata["topics"]
    under = chat.children(summary.id)
    assert [n.metadata["turn"] for n in under] == list(range(1, 11))  # originals kept
    # The summary speaks in the chunk's own words: each of its sentences was said.
    said = " ".join(n.text for n in under)
    parts = [p.strip() for p in re.split(r"(?:^| )(?:user|assistant): ", summary.text)]
    assert [p for p in parts if p] and all(p in said for p in parts if p)


def test_summaries_beyond_max_chunks_merge_into_earlier_then(chat: Memory) -> None:
    session = chat.chat.start_session(max_recent=4, chunk_size=2, max_chunks=3)
    talk(chat, session.id, 14)
    level = top(chat, session.id)
    summaries = [n for n in level if n.is_summary]
    assert len(summaries) <= 3 and len([n for n in level if not n.is_summary]) <= 4
    merged = summaries[0]
    assert merged.text.startswith("Earlier: ") and "\n\nThen: " in merged.text
    assert merged.metadata["level"] >= 2 and merged.metadata["first_turn"] == 1
    assert all(c.is_summary for c in chat.children(merged.id))


@pytest.mark.slow
@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(st.sampled_from(["user", "assistant"]), st.sampled_from(TALK)),
        min_size=250,
        max_size=260,
    ),
    st.integers(2, 6),
    st.integers(1, 3),
    st.integers(2, 4),
)
def test_250_turns_lose_nothing_and_summaries_cover_contiguous_turns(
    turns: list[tuple[str, str]], max_recent: int, chunk: int, max_chunks: int
) -> None:
    chunk = min(chunk, max_recent)
    with (
        tempfile.TemporaryDirectory() as tmp,
        Memory(
            Path(tmp) / "chat.db", embedder="hashing", llm="offline", chat_background=False
        ) as memory,
    ):
        session = memory.chat.start_session(
            max_recent=max_recent, chunk_size=chunk, max_chunks=max_chunks
        )
        sent = [
            memory.chat.add_message(session.id, r, f"{t} ({i})") for i, (r, t) in enumerate(turns)
        ]
        kept = memory.chat.session_messages(session.id)
        assert [n.id for n in kept] == [n.id for n in sent]  # every message reachable, in order
        level = top(memory, session.id)
        assert sum(not n.is_summary for n in level) <= max_recent
        assert sum(n.is_summary for n in level) <= max_chunks
        for summary in (n for n in memory.serialize(session.id) if n.is_summary):
            below = [n for n in memory.serialize(summary.id) if n.context_type == "message"]
            numbers = [n.metadata["turn"] for n in below]
            assert numbers == list(range(numbers[0], numbers[-1] + 1))  # contiguous
            assert (summary.metadata["first_turn"], summary.metadata["last_turn"]) == (
                numbers[0],
                numbers[-1],
            )


def test_message_list_renders_summaries_as_tool_call_pairs(chat: Memory) -> None:
    session = chat.chat.start_session(max_recent=4, chunk_size=2)
    talk(chat, session.id, 6)
    messages = chat.chat.build_message_list(session.id)
    call, response = messages[0], messages[1]
    assert call["role"] == "assistant" and call["content"] is None
    tool_call = call["tool_calls"][0]
    assert tool_call["function"]["name"] == "recall_summary"
    assert json.loads(tool_call["function"]["arguments"])["turns"] == "turns 1-2"
    assert response == {
        "role": "tool",
        "tool_call_id": tool_call["id"],
        "content": top(chat, session.id)[0].text,
    }
    assert [m["role"] for m in messages[2:]] == ["user", "assistant", "user", "assistant"]
    assert messages[-1]["content"] == f"{TALK[5]} #5"


@given(budget=st.integers(0, 400))
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_a_budgeted_message_list_is_the_newest_part_that_fits(chat: Memory, budget: int) -> None:
    sessions = chat.chat.sessions()
    if sessions:
        session = sessions[0]
    else:
        session = chat.chat.start_session(max_recent=6, chunk_size=3)
        talk(chat, session.id, 17)
    whole = chat.chat.build_message_list(session.id)
    fitted = chat.chat.build_message_list(session.id, budget=budget)
    cost = sum(message_tokens(m, chat.tokenizer) for m in fitted)
    assert cost <= budget
    assert fitted == whole[len(whole) - len(fitted) :]  # a suffix: the newest turns
    if len(fitted) < len(whole):  # the next older item would not have fitted
        older = whole[: len(whole) - len(fitted)]
        item = older[-2:] if older[-1]["role"] == "tool" else older[-1:]
        assert cost + sum(message_tokens(m, chat.tokenizer) for m in item) > budget
    assert not fitted or fitted[0]["role"] != "tool"  # a summary pair is never split


def test_status_and_milestones(chat: Memory) -> None:
    session = chat.chat.start_session()
    talk(chat, session.id, 3)
    chat.chat.add_milestone(session.id, "Chose the database")
    paused = chat.chat.set_session_status(session.id, "paused")
    assert paused.metadata["status"] == "paused"
    assert paused.metadata["milestones"][0]["text"] == "Chose the database"
    assert paused.metadata["milestones"][0]["turn"] == 3
    assert [s.id for s in chat.chat.sessions(status="paused")] == [session.id]
    chat.chat.add_message(session.id, "user", "Still here")  # a paused session takes messages
    chat.chat.set_session_status(session.id, "ended")
    with pytest.raises(InvalidOperation, match="has ended"):
        chat.chat.add_message(session.id, "user", "Hello?")
    with pytest.raises(InvalidInput, match="unknown status 'done'"):
        chat.chat.set_session_status(session.id, "done")


@pytest.mark.parametrize(
    ("role", "content", "complaint"),
    [
        ("robot", "hi", "unknown role 'robot'"),
        ("user", "", "empty"),
        ("user", "   ", "empty"),
        ("user", 42, "must be text"),
        ("user", "x" * (MAX_MESSAGE_BYTES + 1), "limit is 1,048,576"),
    ],
)
def test_bad_messages_are_refused_and_nothing_is_stored(
    chat: Memory, role: str, content: Any, complaint: str
) -> None:
    session = chat.chat.start_session()
    with pytest.raises(InvalidInput, match=complaint):
        chat.chat.add_message(session.id, role, content)
    assert chat.chat.session_messages(session.id) == []


def test_a_one_megabyte_message_is_stored_whole(chat: Memory) -> None:
    session = chat.chat.start_session()
    big = ("All work and no play. " * 50_000)[: MAX_MESSAGE_BYTES - 10]
    node = chat.chat.add_message(session.id, "user", big)
    assert chat.get(node.id).text == big.strip()


def test_unknown_sessions_and_bad_settings(chat: Memory) -> None:
    with pytest.raises(NotFound, match="no chat session"):
        chat.chat.add_message("nope", "user", "hi")
    note = chat.remember("not a session")
    with pytest.raises(NotFound):
        chat.chat.build_message_list(note.id)
    with pytest.raises(InvalidInput, match="chunk_size"):
        chat.chat.start_session(max_recent=5, chunk_size=6)
    with pytest.raises(InvalidInput, match="max_recent"):
        chat.chat.start_session(max_recent=0)
    with pytest.raises(InvalidInput, match="budget"):
        chat.chat.build_message_list(chat.chat.start_session().id, budget=-1)


# -- capture ------------------------------------------------------------------------


def test_capture_promotes_confident_memories_and_keeps_the_rest_pending(chat: Memory) -> None:
    session = chat.chat.start_session("user:42", max_recent=20, chunk_size=10)
    for i in range(19):
        chat.chat.add_message(session.id, "user", f"Small talk number {i}, nothing much.")
    assert chat.chat.captured(status=None) == []
    chat.chat.add_message(session.id, "user", "We decided to use PostgreSQL for billing.")
    chat.chat.add_message(session.id, "user", "Maybe we have to cache results in Redis.")  # hedged
    for i in range(19):
        chat.chat.add_message(session.id, "assistant", f"Noted, item {i}.")
    rows = {r.text: r for r in chat.chat.captured(status=None)}
    decision = rows["We decided to use PostgreSQL for billing."]
    assert decision.status == "promoted" and decision.confidence >= 0.7
    memory = chat.get(decision.memory_id or "")
    assert memory.context_type == "decision" and memory.scope == "user:42"
    assert decision.sources[0] in {n.id for n in chat.chat.session_messages(session.id)}
    hedged = rows["Maybe we have to cache results in Redis."]
    assert hedged.status == "pending" and hedged.confidence < 0.7
    assert [r.id for r in chat.chat.captured(["user:42"])] == [hedged.id]
    # Pending facts are not memories yet; promoted ones are found by search.
    assert chat.search("PostgreSQL billing", scopes=["user:42"])[0].node.id == memory.id
    assert not [
        h
        for h in chat.search("Redis caching", scopes=["user:42"])
        if h.node.context_type == "constraint"
    ]
    promoted = chat.chat.promote(hedged.id)
    assert promoted.context_type == "constraint" and promoted.metadata["captured_id"] == hedged.id
    with pytest.raises(InvalidInput, match="already promoted"):
        chat.chat.promote(hedged.id)
    with pytest.raises(NotFound):
        chat.chat.dismiss("missing")


def test_a_pending_action_item_keeps_its_owner_and_due_date_when_promoted(chat: Memory) -> None:
    session = chat.chat.start_session("support", max_recent=4, chunk_size=2)
    chat.chat.add_message(session.id, "user", "The export is still broken.", name="Renata")
    said = chat.chat.add_message(
        session.id,
        "assistant",
        "I'll rerun the export today and email you the file before end of day.",
        name="Marcus",
    )
    chat.chat.set_session_status(session.id, "ended")
    (row,) = chat.chat.captured(["support"])  # an assistant's promise waits for review
    today = said.created_at[:10]
    assert dict(row.fields) == {"owner": "Marcus", "status": "open", "due": today}
    memory = chat.chat.promote(row.id)
    assert memory.context_type == "action"
    assert (memory.metadata["owner"], memory.metadata["due"]) == ("Marcus", today)
    assert memory.metadata["status"] == "open"


def test_a_reply_after_a_capture_is_read_with_what_it_answers(chat: Memory) -> None:
    session = chat.chat.start_session("team", max_recent=4, chunk_size=2)
    chat.chat.add_message(session.id, "user", "morning all", name="Femi")
    chat.chat.add_message(session.id, "user", "morning", name="Wen")
    chat.chat.add_message(session.id, "user", "coffee first", name="Arturo")
    fixes = "my list:\n1. CI check on pool sizes\n2. pool saturation alert"
    chat.chat.add_message(session.id, "user", fixes, name="Femi")  # captured here (4 turns)
    assert chat.get(session.id).metadata["captured_turn"] == 4
    assert chat.chat.captured(["team"], status=None) == []
    chat.chat.add_message(session.id, "user", "2 is mine, by friday", name="Solveig")
    chat.chat.set_session_status(session.id, "ended")
    (row,) = chat.chat.captured(["team"], status=None)
    assert row.text == "Solveig will take on pool saturation alert."
    assert dict(row.fields)["owner"] == "Solveig" and row.status == "promoted"


def test_a_request_taken_on_after_a_capture_is_an_action_item(chat: Memory) -> None:
    session = chat.chat.start_session("team", max_recent=4, chunk_size=2)
    for name, text in (("Ana", "morning"), ("Bo", "morning"), ("Ana", "coffee first")):
        chat.chat.add_message(session.id, "user", text, name=name)
    chat.chat.add_message(session.id, "user", "Ana can you book the room?", name="Bo")
    assert chat.get(session.id).metadata["captured_turn"] == 4
    chat.chat.add_message(session.id, "user", "sure, I'll do it by friday", name="Ana")
    chat.chat.set_session_status(session.id, "ended")
    (row,) = chat.chat.captured(["team"], status=None)
    assert row.text == "Ana will book the room." and dict(row.fields)["owner"] == "Ana"
    assert dict(row.fields)["due"]  # by friday


def test_capture_skips_what_memory_already_holds(chat: Memory) -> None:
    chat.remember("We decided to use PostgreSQL for billing.", type="decision", scope="s")
    session = chat.chat.start_session("s", max_recent=4, chunk_size=2)
    chat.chat.add_message(session.id, "user", "We decided to use PostgreSQL for billing.")
    chat.chat.add_message(session.id, "user", "I prefer dark roast coffee in the morning.")
    chat.chat.add_message(session.id, "user", "I prefer dark roast coffee in the morning.")
    chat.chat.add_message(session.id, "user", "Nothing else today, bye for now.")
    report = chat.chat.capture(session.id)  # already done by the fourth message: nothing new
    assert (report.found, report.new) == (0, 0)
    texts = [r.text for r in chat.chat.captured(status=None)]
    assert texts == ["The user prefers dark roast coffee in the morning."]  # once, no decision


def test_small_talk_captures_nothing_and_writes_no_log(chat: Memory) -> None:
    session = chat.chat.start_session("s", max_recent=4, chunk_size=2)
    for text in ["hi", "hello there friend", "ok thanks", "haha nice one", "bye"]:
        chat.chat.add_message(session.id, "user", text)
    assert chat.chat.captured(status=None) == []
    assert chat.chat.memory_log("s") == "# Memory log (s)\n"


def test_the_memory_log_keeps_its_last_sections(chat: Memory) -> None:
    chat.chat.log_sections = 2
    session = chat.chat.start_session("admin", max_recent=2, chunk_size=1)
    for city in ["Porto", "Braga", "Faro", "Evora"]:
        chat.chat.add_message(session.id, "user", f"My brother moved to {city} last month.")
        chat.chat.add_message(session.id, "user", "That is all for today, thank you.")
    log = chat.chat.memory_log("admin")
    assert log.count("\n## ") == 2
    assert "Evora" in log and "Faro" in log and "Porto" not in log
    # Sections are records, not search results; the captured facts are.
    hits = chat.search("brother moved Evora", scopes=["admin"])
    assert hits and all(h.node.context_type != "log_section" for h in hits)


# -- background upkeep and the LLM --------------------------------------------------


def test_background_upkeep_summarises_after_add_message_returns(db_path: Path) -> None:
    with Memory(db_path, embedder="hashing", llm="offline") as memory:
        session = memory.chat.start_session(max_recent=4, chunk_size=2)
        talk(memory, session.id, 12)
        assert memory.chat.wait_for_chat(timeout=30)
        level = top(memory, session.id)
        assert level[0].is_summary and sum(not n.is_summary for n in level) <= 4
        assert memory.chat_errors == []


def test_an_llm_writes_summaries_and_its_failures_fall_back_offline(db_path: Path) -> None:
    good = json.dumps({"summary": "They chose PostgreSQL.", "topics": ["PostgreSQL"]})
    nothing = json.dumps({"memories": []})
    # In order: the capture at turn 2, the summaries at turns 3 and 4, the
    # capture at turn 4, the summary at turn 5.
    script = Script(chat=[nothing, good, Reply(status=500), "not json", "still not json"])
    with openai_server(script) as url:
        llm = OpenAILLM(LLMSettings("local-chat", base_url=url, retries=0, repairs=0))
        with Memory(db_path, embedder="hashing", llm=llm, chat_background=False) as memory:
            session = memory.chat.start_session(max_recent=2, chunk_size=1)
            talk(memory, session.id, 5)
            summaries = [n for n in top(memory, session.id) if n.is_summary]
            assert summaries[0].text == "They chose PostgreSQL."
            assert summaries[0].metadata["by"] == llm.identity
            assert {s.metadata["by"] for s in summaries[1:]} == {"extractive"}
            assert len(memory.chat.session_messages(session.id)) == 5  # every message stored
            # The failed capture (turns 3-4) fell back to the offline reading,
            # which found the decision there (the preference is the assistant's
            # own, not the user's: not kept).
            assert [r.type for r in memory.chat.captured(status=None)] == ["decision"]
