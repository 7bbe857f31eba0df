"""Issue 21's "Bad input" clause through the facade: a 1 MB message, a message
of one repeated token, an empty session, and questions of only stopwords,
only a date, only punctuation, one character, emoji or 100 kB. None of them
may crash, and what comes back must make sense. Real `Memory` objects on
real SQLite files; nothing is mocked."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from mnemotree import InvalidInput, Memory
from tests.helpers import Clock

LIMIT = 1 << 20  # add_message's limit in bytes (the refusal past it: test_chat_sessions.py)
WORDS = (
    "river stone cloud window garden lantern harbor meadow copper violet engine ladder "
    "forest candle mirror pocket signal thunder basket whistle orchard pebble saddle "
    "compass blanket kettle marble ribbon tunnel walnut"
).split()
MIDDLE = "The zeppelin quartermaster hid the saffron ledger beneath the observatory."
END = "Finally the xylophone archivist returned the tangerine manuscript to Reykjavik."


def ids(hits: Sequence[Any]) -> list[str]:
    return [h.node.id for h in hits]


def megabyte_message() -> str:
    """Exactly LIMIT bytes of varied paragraphs, MIDDLE about halfway in and
    END a few paragraphs before the end: both far past the 256 tokens an
    embedder reads."""
    rng = random.Random(21)
    paragraphs: list[str] = []
    size = 0
    while size < LIMIT - 2_000:
        words = [rng.choice(WORDS) for _ in range(rng.randint(40, 90))]
        paragraphs.append(" ".join(words).capitalize() + ".")
        size += len(paragraphs[-1]) + 2
    paragraphs.insert(len(paragraphs) // 2, MIDDLE)
    paragraphs.insert(len(paragraphs) - 3, END)
    while len("\n\n".join(paragraphs).encode()) > LIMIT:
        paragraphs.pop(-1)
    text = "\n\n".join(paragraphs)
    # Pad inside the text (stored text is stripped) to land on the limit exactly.
    head, tail = text.rsplit("\n\n", 1)
    text = head + "\n" * (LIMIT - len(text.encode()) + 2) + tail
    assert len(text.encode()) == LIMIT and text == text.strip()
    return text


@pytest.fixture(scope="module")
def big_text() -> str:
    return megabyte_message()


@pytest.fixture
def minilm(tmp_path: Path) -> Iterator[Memory]:
    with Memory(tmp_path / "minilm.db", embedder="minilm") as m:
        yield m


# -- a 1 MB message -------------------------------------------------------------------


def check_megabyte_message(memory: Memory, big_text: str) -> None:
    assert big_text.index(MIDDLE) > LIMIT // 3 and big_text.index(END) > LIMIT - 5_000
    session = memory.chat.start_session("user:1", "Pasted log")
    before = memory.chat.add_message(session.id, "user", "Can you look at the deploy checklist?")
    big = memory.chat.add_message(session.id, "user", big_text)
    after = memory.chat.add_message(
        session.id, "assistant", "Sure: the deploy checklist says to freeze merges on Thursday."
    )
    assert memory.get(big.id).text == big_text  # stored whole, at the limit
    assert memory.flush() == 4  # the session and its three messages
    assert memory.pending_vectors() == 0

    # Its words count wherever they are, not only in the part the model reads.
    for question in (
        "zeppelin quartermaster saffron ledger observatory",  # the middle
        "xylophone archivist tangerine manuscript Reykjavik",  # near the end
        "quartermaster",
        "saffron ledger",
    ):
        hits = memory.search(question, scopes=["user:1"], record=False)
        assert ids(hits)[0] == big.id, question
        assert hits[0].parts["keyword"] > 0
    # The normal messages beside it are still found first for their own words.
    hits = memory.search("deploy checklist", scopes=["user:1"], record=False)
    assert ids(hits)[:2] == [before.id, after.id]
    assert memory.search("penguin hovercraft", scopes=["user:1"], record=False) == []

    context = memory.context("saffron ledger quartermaster", scopes=["user:1"], budget=2_000)
    assert 0 < context.token_count <= 2_000
    assert big.id in context.node_ids()  # shown cut to what fits, not left out
    memory.chat.wait_for_chat()
    assert memory.chat_errors == []


def test_a_megabyte_message_is_found_by_words_past_the_model_window(
    memory: Memory, big_text: str
) -> None:
    check_megabyte_message(memory, big_text)


def test_a_megabyte_message_with_minilm(minilm: Memory, big_text: str) -> None:
    check_megabyte_message(minilm, big_text)


def test_chat_upkeep_over_huge_and_repeated_messages_keeps_working(
    chat: Memory, big_text: str
) -> None:
    """Summaries and capture run inside add_message (`chat`): huge messages
    in the chunks must not stop them, nor hide what the small ones said."""
    session = chat.chat.start_session("user:1", "Paste", max_recent=4, chunk_size=2)
    said = [
        "We decided to use PostgreSQL for billing.",
        big_text,
        "ok",
        "ha " * 200_000,
        "a" * 500_000,
        "My name is Dana and I live in Lisbon.",
        "thanks",
        "bye",
    ]
    for turn, text in enumerate(said):
        chat.chat.add_message(session.id, ("user", "assistant")[turn % 2], text)
    chat.chat.set_session_status(session.id, "ended")  # captures the rest
    assert chat.chat_errors == []
    kinds = [n.context_type for n in chat.children(session.id)]
    assert kinds.count("summary") == 2 and kinds.count("message") == 4
    captured = {r.text for r in chat.chat.captured(["user:1"], status=None)}
    assert "We decided to use PostgreSQL for billing." in captured
    # The newest messages that fit are sent; nothing huge is forced in.
    messages = chat.chat.build_message_list(session.id, budget=3_000)
    assert [m["content"] for m in messages] == said[-3:]
    window = chat.working_memory(session.id, total=20_000, query="quartermaster")
    assert [m["content"] for m in window.messages[-3:]] == said[-3:]
    # Before them, both chunk summaries: each is short, whatever its messages.
    summaries = [n.text for n in chat.children(session.id) if n.context_type == "summary"]
    assert [m["content"] for m in window.messages[:-3] if m["role"] == "tool"] == summaries
    assert len(window.messages) == 3 + 2 * len(summaries)
    chat.flush()
    # The decision beside the huge paste is kept in the chunk's summary; words
    # only the pasted message holds still find the message itself.
    assert "We decided to use PostgreSQL for billing." in summaries[0]
    hits = chat.search("saffron ledger quartermaster", scopes=["user:1"], record=False)
    assert hits[0].node.text == big_text
    hits = chat.search("xylophone archivist tangerine", scopes=["user:1"], record=False)
    assert hits[0].node.text == big_text


def test_a_summary_of_a_repeated_token_is_bounded(chat: Memory) -> None:
    session = chat.chat.start_session("user:1", "Laughs", max_recent=4, chunk_size=2)
    for text in ("ok", "ha " * 200_000, "sure", "fine", "thanks", "bye"):
        chat.chat.add_message(session.id, "user", text)
    summaries = [n for n in chat.children(session.id) if n.context_type == "summary"]
    assert chat.chat_errors == [] and len(summaries) == 1
    assert summaries[0].token_count < 1_000
    assert len(summaries[0].text) <= 2_000


# -- a message of one repeated token ----------------------------------------------------


def test_a_message_of_one_repeated_token_is_stored_and_searched(memory: Memory) -> None:
    session = memory.chat.start_session("user:1", "Laughs")
    laugh = memory.chat.add_message(session.id, "user", "ha " * 200_000)
    run = memory.chat.add_message(session.id, "user", "a" * 600_000)  # one 600k-letter word
    budget = memory.chat.add_message(
        session.id, "assistant", "The quarterly budget review moved to Tuesday."
    )
    assert memory.flush() == 4
    assert ids(memory.search("ha", scopes=["user:1"], record=False))[0] == laugh.id
    assert ids(memory.search("ha ha ha", scopes=["user:1"], record=False))[0] == laugh.id
    assert ids(memory.search("a" * 600_000, scopes=["user:1"], record=False))[0] == run.id
    found = memory.search("quarterly budget review", scopes=["user:1"], record=False)
    assert ids(found)[0] == budget.id
    # "aaaa" is another word than the run, "a" is a stopword: nothing is about them.
    for question in ("aaaa", "a", "penguin"):
        assert memory.search(question, scopes=["user:1"], record=False) == [], question
    context = memory.context("ha", scopes=["user:1"], budget=500)
    assert context.token_count <= 500
    memory.chat.wait_for_chat()
    assert memory.chat_errors == []


# -- an empty session ---------------------------------------------------------------------


def test_an_empty_session_is_searched_and_recalled_as_empty(chat: Memory) -> None:
    elsewhere = chat.chat.start_session("user:1", "Busy")
    spoken = chat.chat.add_message(elsewhere.id, "user", "The kettle whistles at seven sharp.")
    empty = chat.chat.start_session("user:2", "Silent")
    chat.chat.set_session_status(empty.id, "ended")  # capture of nothing
    assert chat.chat_errors == []
    assert chat.chat.session_messages(empty.id) == [] and chat.chat.session_turns(empty.id) == 0
    assert chat.chat.build_message_list(empty.id) == []
    assert chat.chat.capture(empty.id).promoted == []
    chat.flush()
    assert chat.search("kettle whistles seven", scopes=["user:2"], record=False) == []
    assert ids(chat.search("kettle whistles seven", record=False))[0] == spoken.id
    context = chat.context("kettle whistles seven", scopes=["user:2"], budget=500)
    assert context.text == "" and context.node_ids() == [] and context.token_count == 0
    assert context.warnings  # says nothing matched, rather than failing
    turn = chat.working_memory(empty.id, total=20_000, query="kettle")
    assert turn.messages == []


# -- odd questions ------------------------------------------------------------------------


@pytest.fixture
def corpus(memory: Memory) -> Memory:
    session = memory.chat.start_session("user:1", "Garden")
    memory.chat.add_message(session.id, "user", "We planted tomatoes in the community garden.")
    memory.chat.add_message(
        session.id, "assistant", "Remember to water the tomatoes every evening."
    )
    memory.chat.add_message(session.id, "user", "The bicycle needs a new chain before the race.")
    for floor in range(8):
        note = f"Note {floor}: the printer on floor {floor} is out of toner."
        memory.remember(note, scope="user:1")
    memory.flush()
    return memory


@pytest.mark.parametrize(
    "question",
    [
        "the of and to",
        "what is it",
        "?!...",
        "...",
        "x",
        "🙂",
        "🙂🎉",
        "\u200b",  # a zero-width space is not whitespace to str.strip
        "\x00",
        "x" * 100_000,
        " ".join(f"w{i}" for i in range(20_000)),  # 129 kB of unknown words
    ],
    ids=lambda q: repr(q[:12]),
)
def test_questions_about_nothing_find_nothing(corpus: Memory, question: str) -> None:
    assert corpus.search(question, scopes=["user:1"], record=False) == []
    assert corpus.search(question, record=False) == []
    context = corpus.context(question, scopes=["user:1"], budget=300)
    assert context.token_count <= 300


def test_a_100_kb_question_still_finds_its_words(corpus: Memory) -> None:
    question = "water the tomatoes " * 5_300
    assert len(question.encode()) > 100_000
    hits = corpus.search(question, scopes=["user:1"], record=False)
    assert "tomatoes" in hits[0].node.text
    noise = random.Random(5)
    babble = "".join(noise.choice("abcdefghij ,.;?!") for _ in range(100_000))
    assert isinstance(corpus.search(babble, scopes=["user:1"], record=False), list)


@pytest.mark.parametrize(
    "question", ["the of and to", "what is it", "?!...", "x", "🙂🎉", "2023-05-07", "x" * 100_000]
)
def test_odd_questions_with_minilm_do_not_fail(minilm: Memory, question: str) -> None:
    session = minilm.chat.start_session("user:1", "Garden")
    minilm.chat.add_message(session.id, "user", "We planted tomatoes in the community garden.")
    minilm.chat.add_message(session.id, "user", "The bicycle needs a new chain before the race.")
    hits = minilm.search(question, scopes=["user:1"], record=False)
    assert isinstance(hits, list) and len(hits) <= 10


@pytest.mark.parametrize("question", ["", "   ", "\n\t", "\u3000"])
def test_an_empty_question_is_refused_by_name(corpus: Memory, question: str) -> None:
    with pytest.raises(InvalidInput, match="query is empty; give some words to search for"):
        corpus.search(question)


def test_a_question_that_is_not_text_is_refused_by_name(corpus: Memory) -> None:
    with pytest.raises(InvalidInput, match="query must be a string, got NoneType"):
        corpus.search(None)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="query is not valid UTF-8"):
        corpus.search(b"\xff\xfe tomatoes")  # type: ignore[arg-type]


# -- a question of only a date ---------------------------------------------------------


@pytest.fixture
def dated(cmem: Memory, clock: Clock) -> tuple[Memory, str, set[str], set[str]]:
    """Talk on 7 May 2023 and on 20 August 2023, notes on 15 June 2023; the
    clock then stands at 1 September 2023. Returns the May session's id and
    the May and August ids (sessions and messages)."""
    clock.now = datetime(2023, 5, 7, 10, tzinfo=timezone.utc)
    spring = cmem.chat.start_session("user:1", "Spring")
    may = {spring.id}
    may.add(cmem.chat.add_message(spring.id, "user", "We planted tomatoes in the garden.").id)
    may.add(cmem.chat.add_message(spring.id, "assistant", "Water them every evening.").id)
    clock.now = datetime(2023, 6, 15, 9, tzinfo=timezone.utc)
    for floor in range(5):
        note = f"Note {floor}: the printer on floor {floor} is out of toner."
        cmem.remember(note, scope="user:1")
    clock.now = datetime(2023, 8, 20, 10, tzinfo=timezone.utc)
    summer = cmem.chat.start_session("user:1", "Summer")
    august = {summer.id}
    august.add(cmem.chat.add_message(summer.id, "user", "The bicycle needs a new chain.").id)
    august.add(
        cmem.chat.add_message(summer.id, "assistant", "Bike shops close early on Sundays.").id
    )
    clock.now = datetime(2023, 9, 1, tzinfo=timezone.utc)
    cmem.flush()
    return cmem, spring.id, may, august


def test_an_iso_date_finds_that_days_session_first(
    dated: tuple[Memory, str, set[str], set[str]],
) -> None:
    memory, spring, may, _ = dated
    # A session is named by the day it began: the date's words match it. Its
    # messages may come with it (through their parent), never August's.
    hits = memory.search("2023-05-07", scopes=["user:1"], record=False)
    assert ids(hits)[0] == spring
    assert set(ids(hits)) <= may


@pytest.mark.parametrize("question", ["May 2023", "7 May 2023", "May 7, 2023", "7 May", "in May"])
def test_a_date_question_never_ranks_another_time_first(
    dated: tuple[Memory, str, set[str], set[str]], question: str
) -> None:
    memory, spring, may, august = dated
    hits = memory.search(question, scopes=["user:1"], record=False)
    # Today "May 2023", "7 May 2023" and "May 7, 2023" return the May session
    # first (its `time` part) and the August one after it (its name shares
    # "2023"), but not the May messages (no word or meaning of theirs
    # matches); "7 May" and "in May" (no year) return nothing.
    assert not hits or ids(hits)[0] == spring
    if hits:
        assert hits[0].parts["time"] == 1.0
    assert all(h.node.id in may | august for h in hits)
    context = memory.context(question, scopes=["user:1"], budget=500)
    assert context.token_count <= 500
