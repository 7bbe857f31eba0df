"""Meaning and words are fused per query, as the surprise of each score
against what the searched collection scores for that query: a long message that
shares only common words with a question does not outrank a short one that
means what was asked."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mnemotree import Memory
from mnemotree.retrieval.evidence import addressed_role
from mnemotree.retrieval.query import terms_of
from mnemotree.retrieval.rank import Surprise, Weights
from mnemotree.retrieval.search import Hit

cosines = st.floats(min_value=-1.0, max_value=1.0, allow_nan=False)


@given(cosines, cosines, st.floats(-0.2, 0.4), st.floats(0.01, 0.3))
def test_more_alike_is_never_less_surprising(
    a: float, b: float, mean: float, spread: float
) -> None:
    surprise = Surprise(mean, spread)
    low, high = sorted((a, b))
    assert 0.0 <= surprise.meaning(low) <= surprise.meaning(high) < float("inf")


def test_what_unrelated_text_scores_is_no_evidence() -> None:
    surprise = Surprise(0.1, 0.05)
    assert surprise.meaning(0.05) == 0.0 and surprise.meaning(0.1) == 0.0
    # evidence grows with the spreads above chance (heavy tails: not their square)
    assert surprise.meaning(0.3) == pytest.approx(2 * surprise.meaning(0.2))


@given(cosines, cosines, st.floats(0.0, 40.0), st.floats(0.0, 40.0))
def test_more_meaning_or_rarer_words_are_never_less_evidence(
    a: float, b: float, x: float, y: float
) -> None:
    surprise, weights = Surprise(0.1, 0.08), Weights()
    (low, high), (few, many) = sorted((a, b)), sorted((x, y))
    assert surprise.evidence(low, few, weights) <= surprise.evidence(high, many, weights)
    # words count as far as the text's meaning beats the crowd's, never less
    shared = weights.keyword * many * surprise.above(low)
    assert surprise.evidence(low, many, weights) >= shared * (1 - 1e-9)


@given(cosines, cosines)
def test_the_share_beaten_is_a_distribution_function(a: float, b: float) -> None:
    surprise = Surprise(0.1, 0.08)
    low, high = sorted((a, b))
    assert 0.0 <= surprise.above(low) <= surprise.above(high) <= 1.0
    assert surprise.above(0.1) == pytest.approx(0.5)  # the mean beats half
    assert Surprise(0.1, 0.0).above(low) == 1.0  # nothing to tell texts apart: words count whole


def test_a_long_answer_sharing_common_words_does_not_bury_the_request(tmp_path: Path) -> None:
    # Scaled by the best BM25, each of these messages scored a full keyword
    # part for sharing "take", "say", "wanted" and "shape" with the question,
    # and the request came nowhere.
    with Memory(tmp_path / "m.db", embedder="minilm") as mem:
        chat = mem.add("Chat")
        request = mem.append_child(
            chat.id, "From now on, please put your answers in bullet points."
        )
        for day in range(80):  # enough text to read what chance scores
            mem.append_child(
                chat.id,
                f"For the trip on day {day}, take the early train, then take a taxi to the "
                "harbour; say hello to the captain and take the ferry that you wanted, "
                "whatever shape the sea is in.",
            )
        mem.flush()
        question = "What shape did I say I wanted your responses to take?"
        hits = mem.search(question, limit=3, record=False)
        assert hits and hits[0].node.id == request.id


def test_a_first_person_question_finds_the_users_paraphrase(tmp_path: Path) -> None:
    # "I" names the chat's user: a question about the user is about what the
    # user said, even when no stored text is close enough in meaning to show
    # it alone (MiniLM reads this pair below the 0.35 floor's cosine).
    topics = [
        "sourdough",
        "tax returns",
        "a squeaky door",
        "marathon training",
        "learning Spanish",
        "a cracked phone screen",
        "houseplants",
        "jet lag",
    ]
    with Memory(tmp_path / "m.db", embedder="minilm", chat_background=False) as mem:
        session = mem.chat.start_session("me", "Session 1")
        said = mem.chat.add_message(
            session.id, "user", "Switched my phone contract to Vodafone last week."
        )
        for i in range(72):  # enough text to read what chance scores
            topic = topics[i % len(topics)]
            mem.chat.add_message(session.id, "user", f"Can you help me with {topic}? Attempt {i}.")
            mem.chat.add_message(
                session.id, "assistant", f"Here are some tips on {topic}, part {i}."
            )
        mem.flush()
        question = "Which mobile network am I on currently?"
        hits = mem.search(question, scopes=["me"], limit=10, record=False)

        def says_it(hit: Hit) -> bool:  # the message, or the fact captured from it
            return hit.node.id == said.id or said.id in hit.node.metadata.get("source_messages", [])

        found = [h for h in hits if says_it(h)]
        assert found and all(h.parts["semantic"] < 0.35 for h in found)


@pytest.mark.parametrize(
    ("question", "roles"),
    [
        ("What layout did I want when you weigh up choices for me?", {"user"}),
        ("How did you tell me to revive my bread culture?", {"assistant"}),
        ("Which mobile network am I on currently?", {"user"}),
        ("Is there anything I told you to leave out of your messages?", {"user"}),
        ("What was the calming exercise you showed me?", set()),  # both, no auxiliary
        ("Can you make me a weekly fitness routine?", set()),  # a request, not a recall
        ("What is my sister called?", {"user"}),
        ("What did Caroline paint?", set()),
    ],
)
def test_a_question_is_about_the_role_that_is_its_subject(question: str, roles: set[str]) -> None:
    assert addressed_role(terms_of(question)) == roles


def test_a_repeated_stock_message_takes_one_place_in_the_ranking(tmp_path: Path) -> None:
    # The user's instruction is a paraphrase of the question, said two months
    # ago; a stock follow-up the user sends in every later session half matches
    # the question ("times", "first") and is recent. Each copy used to take a
    # place, pushing the instruction out of the top.
    stock = "Okay, and what would you do first if you only had twenty minutes a day?"
    topics = [
        "sourdough",
        "tax returns",
        "a squeaky door",
        "marathon training",
        "learning Spanish",
        "a cracked phone screen",
        "houseplants",
        "jet lag",
    ]
    now = [datetime(2026, 1, 1, tzinfo=timezone.utc)]
    with Memory(
        tmp_path / "m.db", embedder="minilm", chat_background=False, clock=lambda: now[0]
    ) as mem:
        first = mem.chat.start_session("me", "Session 1")
        said = mem.chat.add_message(
            first.id, "user", "Use the 24-hour clock when you mention times, please. No am or pm."
        )
        for i in range(40):
            now[0] += timedelta(days=1.5)
            session = mem.chat.start_session("me", f"Session {i + 2}")
            topic = topics[i % len(topics)]
            mem.chat.add_message(session.id, "user", f"Can you help me with {topic}?")
            mem.chat.add_message(
                session.id, "assistant", f"Here are some tips on {topic}, part {i}."
            )
            mem.chat.add_message(session.id, "user", stock)
            mem.chat.add_message(session.id, "assistant", f"I'd start with the basics of {topic}.")
            mem.chat.add_message(session.id, "user", f"When does the {topic} class start, day {i}?")
        mem.flush()
        question = "What did I say about the way you give me times?"
        hits = mem.search(question, scopes=["me"], limit=10, record=False)
        texts = [h.node.text for h in hits]
        assert said.id in {h.node.id for h in hits}
        # A copy takes a place only once every distinct text found has one.
        deeper = {h.node.text for h in mem.search(question, scopes=["me"], limit=80, record=False)}
        assert len(set(texts)) == min(10, len(deeper)), texts
        firsts = [i for i, t in enumerate(texts) if t not in texts[:i]]
        assert firsts == list(range(len(firsts))), texts


def test_a_speaker_named_in_the_question_does_not_lift_their_short_remarks(
    tmp_path: Path,
) -> None:
    # Rows are read as "speaker: text", so a short remark is mostly its
    # speaker's name: with the name left in the query's meaning, "Melanie:
    # Take care of yourself." outscored the message that answers the question.
    topics = [
        "the new pottery studio downtown",
        "my garden tomatoes this summer",
        "the book club pick for next month",
        "the kids' swimming lessons",
        "a road trip along the coast",
        "the charity run in the park",
        "my sister's wedding plans",
        "the camping gear we bought",
    ]
    with Memory(tmp_path / "m.db", embedder="minilm", chat_background=False) as mem:
        chat = mem.add("Chat between Caroline and Melanie")
        for i in range(48):
            speaker = "Caroline" if i % 2 else "Melanie"
            topic = topics[i % len(topics)]
            said = f"Have I told you about {topic}? It was day {i}."
            mem.append_child(chat.id, said, context_type="message", context_name=speaker)
        remarks = [
            mem.append_child(chat.id, text, context_type="message", context_name="Melanie")
            for text in ("Take care of yourself.", "I'm here for you.", "Talk soon, okay?")
        ]
        answer = mem.append_child(
            chat.id,
            "I've been running farther to de-stress, which has been great for my headspace.",
            context_type="message",
            context_name="Melanie",
        )
        mem.flush()
        ranked = [h.node.id for h in mem.search("What does Melanie do to destress?", record=False)]
    assert answer.id in ranked
    assert all(ranked.index(answer.id) < ranked.index(r.id) for r in remarks if r.id in ranked)
