"""The offline path of chat: extractive summaries, key topics and offline
extraction (the tree and tiered-memory designs), with no model anywhere."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mnemotree.conversation.cues import novel
from mnemotree.conversation.extract import extract
from mnemotree.conversation.extractive import (
    MAX_SENTENCE_CHARS,
    MAX_SENTENCES,
    Said,
    key_topics,
    sentences,
    summarize,
)
from mnemotree.conversation.summarize import ExtractiveSummarizer
from mnemotree.retrieval.query import STOPWORDS

CHUNK = [
    Said("Ana", "Hi! How was the weekend?"),
    Said("Bruno", "Great. We hiked near Sintra with the kids on Saturday."),
    Said("Ana", "Nice. Sintra is lovely in spring."),
    Said("Bruno", "We decided to move the billing service to PostgreSQL."),
    Said("Ana", "PostgreSQL is a good choice for billing, I agree."),
    Said("Bruno", "The migration must finish before the audit on 3 May."),
    Said("Ana", "ok thanks"),
]


def test_a_summary_is_the_chunks_own_sentences_in_reading_order() -> None:
    text = summarize(CHUNK)
    quoted = [f"{p.speaker}: {p.text}" for p in sentences(CHUNK)]
    chosen = [q for q in quoted if q in text]
    assert 1 <= len(chosen) <= 3
    assert text == " ".join(chosen)  # whole sentences, in the order they were said
    assert "ok thanks" not in text and "How was the weekend" not in text
    assert "PostgreSQL" in text  # the chunk's heaviest topic is covered


def test_redundant_sentences_are_not_both_chosen() -> None:
    chunk = [
        Said("A", "The release moves to Friday because QA found a blocker."),
        Said("B", "Right, the release moves to Friday because QA found a blocker."),
        Said("A", "Also the office in Porto closes for renovation in June."),
    ]
    text = summarize(chunk, max_sentences=2)
    assert text.count("release moves to Friday") == 1
    assert "Porto" in text


def test_fillers_alone_keep_their_first_words() -> None:
    summary = ExtractiveSummarizer().summarize([Said("user", "ok"), Said("assistant", "thanks")])
    assert summary.text == "user: ok assistant: thanks" and summary.by == "extractive"


def test_key_topics_put_names_first_and_ignore_sentence_starters() -> None:
    chunk = [
        Said("A", "Sounds good. We talked to Farid about the pottery class."),
        Said("B", "Glad to hear. Farid said the pottery class starts soon."),
        Said("A", "Anything else? The class meets near the river."),
    ]
    topics = key_topics(chunk)
    assert topics[0] == "Farid"
    assert "pottery" in topics
    assert not {"Sounds", "Glad", "Anything"} & set(topics)
    assert "A" not in topics and "B" not in topics  # speakers are not topics


@pytest.mark.parametrize(
    ("sentence", "kind", "kept"),
    [
        ("We decided to use PostgreSQL for billing.", "decision", "We decided to use"),
        ("I chose the blue design for the landing page.", "decision", "Bruno chose the blue"),
        ("I prefer dark roast coffee in the morning.", "preference", "Bruno prefers dark roast"),
        ("The invoice export must be ready before 3 May.", "constraint", "The invoice export must"),
        ("Our goal is to launch the beta in June.", "goal", "Our goal is to launch"),
        ("My sister Ana lives in Lisbon now.", "fact", "Bruno's sister Ana lives in"),
        ("I moved to Berlin last year for work.", "fact", "Bruno moved to Berlin"),
    ],
)
def test_each_kind_is_kept_as_a_sentence_that_stands_alone(
    sentence: str, kind: str, kept: str
) -> None:
    (found,) = extract([Said("Bruno", sentence, "user")])
    assert (found.type, found.speaker) == (kind, "Bruno")
    assert found.text.startswith(kept) and found.confidence >= 0.7


def test_hedges_lower_confidence_and_questions_give_nothing() -> None:
    sure = extract([Said("u", "We must cache the search results in Redis.")])[0]
    hedged = extract([Said("u", "Maybe we must cache the search results in Redis.")])[0]
    assert hedged.confidence < sure.confidence and hedged.confidence < 0.7
    assert extract([Said("u", "Should we cache the search results in Redis?")]) == []
    assert extract([Said("u", "does anyone know if the API supports webhooks")]) == []


@pytest.mark.parametrize(
    "idiom",
    [
        "I can't wait to hear all about your trip!",
        "That was a day I will never forget, honestly.",
        "You ended up exactly where you need to be.",
        "Wow, I can't believe how fast the kids grow.",
    ],
)
def test_idioms_are_not_constraints(idiom: str) -> None:
    assert [c.type for c in extract([Said("u", idiom)]) if c.type == "constraint"] == []


def test_small_talk_gives_nothing() -> None:
    talk = ["hi", "hello there friend", "ok thanks", "haha nice one", "Sounds great to me!"]
    assert extract([Said("u", t) for t in talk]) == []


def test_news_about_a_known_topic_is_new_when_a_name_or_number_changes() -> None:
    known = ["Bruno: My brother moved to Porto last month."]
    moved = extract([Said("Bruno", "My brother moved to Braga last month.")])
    same = extract([Said("Ana", "My brother moved to Porto last month.")])
    assert novel(moved, known) == moved  # Braga is news
    assert novel(same, known) == []  # the same fact, whoever says it


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(min_size=0, max_size=200), min_size=1, max_size=12))
def test_offline_paths_accept_any_text(texts: list[str]) -> None:
    said = [Said(f"s{i}", t) for i, t in enumerate(texts)]
    summary = summarize(said)
    for candidate in extract(said):
        assert 0.0 <= candidate.confidence <= 1.0
        assert 0 <= candidate.message < len(said)
    assert isinstance(summary, str) and len(key_topics(said)) <= 5


SPEAKERS = ("", "user", "assistant", "Ana")
# At most MAX_SENTENCES lines, each "speaker: " and a sentence cut at
# MAX_SENTENCE_CHARS, joined by single spaces.
SUMMARY_BOUND = MAX_SENTENCES * (max(map(len, SPEAKERS)) + 2 + MAX_SENTENCE_CHARS + 1) - 1
RUN = st.builds(  # one token repeated: "ha ha ha …", "aaaa…", "ok! ok! …"
    lambda token, sep, n: (token + sep) * n,
    st.sampled_from(["ha", "a", "ok", "the", "zeppelin", "é", "🙂", "."]),
    st.sampled_from(["", " ", "\n", "! "]),
    st.one_of(st.integers(1, 50), st.sampled_from([1_000, 100_000])),
)
STOPWORD_TEXT = st.lists(st.sampled_from(sorted(STOPWORDS)), max_size=50).map(" ".join)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(SPEAKERS), st.one_of(st.text(max_size=300), RUN, STOPWORD_TEXT)),
        max_size=30,
    )
)
def test_an_extractive_summary_is_bounded_whatever_the_chunk(chunk: list[tuple[str, str]]) -> None:
    summary = ExtractiveSummarizer().summarize([Said(speaker, text) for speaker, text in chunk])
    assert len(summary.text) <= SUMMARY_BOUND and summary.by == "extractive"


def test_a_chunk_of_one_short_token_repeated_keeps_a_cut_of_its_first_words() -> None:
    summary = ExtractiveSummarizer().summarize([Said("user", "ok"), Said("", "ha " * 200_000)])
    assert summary.text == "user: ok " + ("ha " * 133)[: MAX_SENTENCE_CHARS - 1].rstrip() + "…"


def test_a_summary_keeps_what_a_reply_settled() -> None:
    # The decision is said whole by no sentence: a proposal, then "deal".
    chunk = [
        Said("Seun", "Beaconly keeps traces for 15 days, Tracewell for 30.", "user"),
        Said("Seun", "how about Tracewell, 1 year at 38k?", "user"),
        Said("Hamid", "their SSO add-on is another 3k btw", "user"),
        Said("Greta", "deal", "user"),
        Said("Hamid", "the dashboards in Beaconly looked nicer though", "user"),
        Said("Seun", "the trial survey had nine answers, seven liked the Beaconly UI", "user"),
    ]
    summary = ExtractiveSummarizer().summarize(chunk)
    assert "Greta: Agreed: Tracewell, 1 year at 38k." in summary.text
