"""Offline capture reads chat as people type it: pasted material set aside,
each sentence's mood and kind, the first person named, action items with
their owner and due date. Real sentences, no model."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mnemotree.conversation.actions import due, owner
from mnemotree.conversation.chat_text import prose
from mnemotree.conversation.extract import ASSISTANT_CAP, extract
from mnemotree.conversation.extractive import Said
from mnemotree.conversation.statements import mood, read
from mnemotree.conversation.voice import third_person

MONDAY = date(2026, 3, 2)


def team_chat(*lines: tuple[str, str]) -> list[Said]:
    """People (no assistant) talking on MONDAY."""
    return [Said(speaker, text, "user", MONDAY) for speaker, text in lines]


def test_pasted_code_logs_tables_and_quotes_are_not_the_speakers_words() -> None:
    message = (
        "ok this is what I get:\n```\nTraceback (most recent call last):\n"
        '  File "app.py", line 3\nValueError: bad input\n```\n'
        "2026-03-02 10:14:03 ERROR pool timeout after 30000ms\n"
        "| plan | price |\n|---|---|\n| Pro | 12 |\n"
        "> we should drop Safari support\n"
        "We upgraded to version 4.2 last week. It broke right after"
    )
    read = prose(message)
    assert read.pasted
    assert read.sentences == (
        "ok this is what I get:",
        "We upgraded to version 4.2 last week.",
        "It broke right after",
    )


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("Maybe we should try Redis for the cache.", "hedge"),
        ("If we had more budget we'd hire two people.", "hypothetical"),
        ("Marco heard that legal wants to block the launch.", "reported"),
        ("does anyone know if the API supports webhooks", "question"),
        ("sure, let's just rewrite it all in COBOL lol", "joke"),
        ("thanks, sounds good!", "small_talk"),
        ("can you send me the deck by Friday?", "request"),
        ("We chose PostgreSQL for the billing service.", "stated"),
        ("ok I'm calling it, dark mode goes to Q4.", "stated"),  # "ok" opens, asks nothing
        ("ok?", "small_talk"),
    ],
)
def test_a_sentence_s_mood(sentence: str, expected: str) -> None:
    assert mood(sentence) == expected


@pytest.mark.parametrize(
    ("sentence", "kind"),
    [
        ("I want that LDL number under 3 by then.", "goal"),
        ("the real thing is I need a B+ in this class", "goal"),
        ("we need to ship by Friday", "constraint"),
        ("ok I need to go make dinner", None),  # leaving the chat, not a rule
        ("I need a break", None),
    ],
)
def test_a_sentence_s_kind(sentence: str, kind: str | None) -> None:
    assert read(sentence).kind == kind


@pytest.mark.parametrize(
    ("sentence", "kept"),
    [
        ("I prefer tea", "Dana prefers tea"),
        ("ok so I also prefer tea 😊", "Dana also prefers tea"),
        ("I'm allergic to peanuts", "Dana is allergic to peanuts"),
        ("I went to Lisbon in May", "Dana went to Lisbon in May"),
        ("my sister lives in Porto btw", "Dana's sister lives in Porto"),
        ("I don't like cilantro", "Dana doesn't like cilantro"),
        ("I need to meet her first", "Dana needs to meet her first"),  # no past in "-eed"
        ("I agreed to the plan", "Dana agreed to the plan"),
        ("we can't ship without a rollback plan", "The team can't ship without a rollback plan"),
    ],
)
def test_the_first_person_is_named(sentence: str, kept: str) -> None:
    assert third_person(sentence, "Dana") == kept


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        ("by Wednesday", "2026-03-04"),
        ("on fri", "2026-03-06"),
        ("tomorrow", "2026-03-03"),
        ("EOD", "2026-03-02"),
        ("end of month", "2026-03-31"),
        ("in two weeks", "2026-03-16"),
        ("by March 14", "2026-03-14"),
        ("on the 14th", "2026-03-14"),
        ("3rd of April", "2026-04-03"),
        ("before 2026-05-01", "2026-05-01"),
        ("some time", ""),
        ("remind me friday to renew it, it runs out june 3", "2026-03-06"),  # the first said
        ("today, and the launch is on the 14th", "2026-03-02"),
    ],
)
def test_a_due_date_is_read_from_the_day_it_was_said(said: str, expected: str) -> None:
    assert due(said, MONDAY) == expected


def test_a_relative_due_date_needs_the_day_it_was_said() -> None:
    # Not the machine's today: a message read later would move its deadline.
    assert due("by Wednesday", None) == ""
    assert due("before 2026-05-01", None) == "2026-05-01"
    (action,) = [c for c in extract([Said("Dana", "I'll send the deck by Friday")]) if c.owner]
    assert (action.owner, action.due) == ("Dana", "")


def test_a_deadline_said_after_the_commitment_is_its_due_date() -> None:
    alone = (
        "I'll clean up the seats, want to save a couple of templates first. friday at the latest"
    )
    (action,) = [c for c in extract([Said("Renata", alone, "user", MONDAY)]) if c.owner]
    assert (action.owner, action.due) == ("Renata", "2026-03-06")
    # Saying yes with "I'll do it" is the request taken on: one action item.
    chat = [
        Said("Marcus", "can you remove the seats?", "user", MONDAY),
        Said(
            "Renata",
            "I'll do it, want to save templates first. friday at the latest",
            "user",
            MONDAY,
        ),
    ]
    actions = [(c.text, c.owner, c.due) for c in extract(chat) if c.owner]
    assert actions == [("Renata will remove the seats.", "Renata", "2026-03-06")]


def test_the_owner_is_who_commits_who_is_named_or_who_accepts() -> None:
    assert owner("I'll write the checklist", "Dana") == "Dana"
    assert owner("Priya will draft the plan", "Dana") == "Priya"
    assert owner("@sam pls send the deck by fri", "Dana").lower() == "sam"
    assert owner("can you own the migration?", "Dana", ("Priya", "sure, on it")) == "Priya"
    assert owner("can you own the migration?", "Dana", ("Priya", "hmm not this week")) == ""
    assert owner("remind me to call the plumber Thursday", "Dana") == "Dana"


def test_a_chat_gives_clean_memories_and_leaves_out_what_is_not_stated() -> None:
    chat = team_chat(
        ("Dana", "ok so where are we with billing"),
        ("Priya", "we went with postgres in the end, mongo was a pain"),
        ("Marco", "maybe we should try Redis for the cache?"),
        ("Dana", "Priya can you own the migration?"),
        ("Priya", "sure, I can have it done by Friday"),
        ("Marco", "I'll write the rollout checklist by Wednesday"),
        ("Marco", "heard that legal wants to block the launch lol"),
    )
    found = {(c.type, c.text, c.owner, c.due) for c in extract(chat)}
    went = "The team went with postgres in the end, mongo was a pain."
    assert ("decision", went, "", "") in found
    assert ("action", "Priya will own the migration.", "Priya", "2026-03-06") in found
    assert (
        "action",
        "Marco will write the rollout checklist by Wednesday.",
        "Marco",
        "2026-03-04",
    ) in found
    texts = " ".join(c.text for c in extract(chat))
    assert "Redis" not in texts and "legal" not in texts


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        (
            "ok. also from now on can you always give prices in EUR and PLN both?",
            "Tomasz wants the assistant to give prices in EUR and PLN both.",
        ),
        (
            "oh and pls don't send me essays every time 😅",
            "Tomasz does not want the assistant to send Tomasz essays every time.",
        ),
        ("and pls not factorial again.", "Tomasz does not want factorial again."),
        (
            "whenever you give me a recipe can you put the allergen check at the top",
            "Tomasz wants the assistant to put the allergen check at the top "
            "whenever it gives Tomasz a recipe.",
        ),
        ("also keep replies short if u can", "Tomasz wants the assistant to keep replies short."),
        (
            "When you write code for me, use TypeScript, not JavaScript.",
            "Tomasz wants the assistant to use TypeScript, not JavaScript "
            "when it writes code for Tomasz.",
        ),
        (
            "Small request: could you always format replies as bullet points?",
            "Tomasz wants the assistant to format replies as bullet points.",
        ),
        (
            "I'd like you to always tell me the source when you quote a statistic.",
            "Tomasz wants the assistant to tell Tomasz the source when you quote a statistic.",
        ),
    ],
)
def test_a_standing_instruction_to_the_assistant_is_a_preference(said: str, kept: str) -> None:
    chat = [
        Said("Tomasz", said, "user", MONDAY),
        Said("Assistant", "Sure, will do.", "assistant", MONDAY),
    ]
    assert [(c.type, c.text) for c in extract(chat)] == [("preference", kept)]


def test_a_request_for_a_task_is_no_standing_instruction() -> None:
    chat = [
        Said("Tomasz", "can you send the invoice to Priya?", "user", MONDAY),
        Said("Assistant", "Sure, sending it now.", "assistant", MONDAY),
    ]
    assert all(c.type != "preference" for c in extract(chat))


def test_a_short_pick_is_a_decision_with_the_option_it_names() -> None:
    chat = [
        Said("Keiko", "what are my options for the gym?", "user", MONDAY),
        Said(
            "Assistant",
            "PureGym Off-Peak is £18.99 a month, daytime only. Core stays £27.99. "
            "Or you could cancel and run outside?",
            "assistant",
            MONDAY,
        ),
        Said("Keiko", "off peak is fine, daytime works for me", "user", MONDAY),
    ]
    (picked,) = [c for c in extract(chat) if c.speaker == "Keiko"]
    assert picked.type == "decision"
    assert "Off-Peak is £18.99 a month" in picked.text and picked.message == 2


def test_a_fragment_whose_referent_is_not_clear_is_not_kept_alone() -> None:
    chat = [
        Said("Renata", "the printer on floor two jammed again", "user", MONDAY),
        Said("Tomasz", "friday at the latest.", "user", MONDAY),
    ]
    assert [c for c in extract(chat) if c.message == 1] == []
    # With an offer to answer, the same words are kept with it.
    chat[0] = Said("Renata", "when can you send the invoices?", "user", MONDAY)
    (answered,) = [c.text for c in extract(chat) if c.message == 1]
    assert answered == "Friday at the latest (when can you send the invoices)"


def test_an_acceptance_decides_a_proposal_made_a_message_earlier_once() -> None:
    chat = team_chat(
        ("Seun", "how about Tracewell, 1 year at 38k?"),
        ("Hamid", "their SSO add-on is another 3k btw"),
        ("Greta", "deal"),
        ("Hamid", "agreed"),
    )
    agreed = [c for c in extract(chat) if c.text.startswith("Agreed")]
    assert [(c.text, c.type, c.message) for c in agreed] == [
        ("Agreed: Tracewell, 1 year at 38k.", "decision", 2)
    ]


def test_what_the_assistant_says_waits_and_what_it_is_asked_is_no_action() -> None:
    chat = [
        Said("Noor", "can you find me a hotel in Porto for May?", "user", MONDAY),
        Said("Assistant", "Sure! Hotel Lux has rooms from 12 to 15 May at 90 EUR.", "assistant"),
    ]
    found = extract(chat)
    assert all(c.type != "action" for c in found)
    assert all(c.confidence <= ASSISTANT_CAP for c in found if c.speaker == "Assistant")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(min_size=0, max_size=300), min_size=1, max_size=10))
def test_any_text_gives_bounded_candidates(texts: list[str]) -> None:
    said = [Said(f"s{i}", t, ("user", "assistant")[i % 2], MONDAY) for i, t in enumerate(texts)]
    for candidate in extract(said):
        assert 0.0 <= candidate.confidence <= 1.0
        assert 0 <= candidate.message < len(said)
        assert candidate.text.strip()


def test_pasted_quoted_and_odd_messages_give_no_false_captures() -> None:
    log = "\n".join(
        f"2026-03-02 10:{i % 60:02d}:00 ERROR worker-{i} we decided to retry job {i} because "
        "the deadline must be met"
        for i in range(600)
    )
    assert len(log) > 50_000
    chat = [
        Said("Dana", f"here's the log:\n{log}", "user", MONDAY),
        Said("Dana", "```python\n# we decided to use tabs\nx = 1\n```", "user", MONDAY),
        Said(
            "Dana",
            "| owner | task |\n|---|---|\n| Priya | we must ship by Friday |",
            "user",
            MONDAY,
        ),
        Said("Dana", "🎉🎉🎉", "user", MONDAY),
        Said("Dana", "> Marco: we decided to drop Safari support", "user", MONDAY),
        Said("Dana", 'Marco said "we decided to drop Safari support" but nobody agreed', "user"),
        Said("Dana", "Vamos decidir amanhã. On verra demain.", "user", MONDAY),
        Said("Dana", "", "user", MONDAY),
    ]
    assert extract(chat) == []


# Ways people give an assistant a standing instruction, written for this test
# (not taken from any benchmark): each is kept as an instruction.
STANDING = [
    "Always give me the short version first.",
    "Going forward, answer in Spanish please.",
    "Keep it under 100 words.",
    "No emojis please.",
    "Make sure you include sources for any numbers.",
    "Stop using so much jargon.",
    "I prefer answers with code examples in Python.",
    "Don't ever recommend Amazon to me.",
    "For recipes, always list the ingredients in grams.",
    "Please address me as Dr. Okafor.",
    "I'd rather you didn't use bullet points.",
    "Use British spelling from now on.",
    "When giving directions, assume I'm on foot.",
    "Could you stop apologising all the time?",
    "Any time you suggest a restaurant, check it has vegan options.",
    "Formal tone please, this is for work.",
]
# Tasks for now, even with words about answers: none is an instruction.
TASKS = [
    "Write me a poem about cats.",
    "Plan a 3-day trip to Rome.",
    "Can you summarise this article?",
    "Please book a table for two at 7.",
    "Explain how compound interest works in simple words.",
    "Can you make the answer shorter?",
    "List all the castles in Wales.",
]


@pytest.mark.parametrize("said", STANDING)
def test_a_standing_instruction_is_kept_as_one(said: str) -> None:
    chat = [Said("user", said, "user", MONDAY), Said("Assistant", "Got it.", "assistant", MONDAY)]
    assert [c.type for c in extract(chat) if c.instruction] == ["preference"]


@pytest.mark.parametrize("said", TASKS)
def test_a_task_for_now_is_no_standing_instruction(said: str) -> None:
    chat = [Said("user", said, "user", MONDAY), Said("Assistant", "Sure.", "assistant", MONDAY)]
    assert not any(c.instruction for c in extract(chat))
