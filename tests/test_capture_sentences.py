"""Captured memories read as whole sentences: a trailing date belongs to its
statement, the speaker is named where they left out "I", one commitment is
one action item, hedges and hearsay are not facts, and a reply is not read
with a hedge. Real sentences, no model."""

from __future__ import annotations

from datetime import date

import pytest

from mnemotree.conversation.actions import only_when
from mnemotree.conversation.chat_text import plain
from mnemotree.conversation.extract import ASSISTANT_CAP, dated, extract
from mnemotree.conversation.extractive import Said
from mnemotree.conversation.picks import chose
from mnemotree.conversation.statements import mood
from mnemotree.conversation.voice import third_person

MONDAY = date(2026, 3, 2)


def said(*lines: tuple[str, str]) -> list[Said]:
    return [Said(speaker, text, "user", MONDAY) for speaker, text in lines]


@pytest.mark.parametrize(
    ("fragment", "expected"),
    [
        ("october 4.", True),
        ("thursday", True),
        ("friday at the latest", True),
        ("say the 27th too", True),
        ("2 june, 9:40", True),
        ("7pm 👍", True),
        ("in two weeks", True),
        ("alert by monday", False),  # says what, too
        ("route 66", False),
        ("what have I done", False),
    ],
)
def test_a_fragment_that_says_only_when(fragment: str, expected: bool) -> None:
    assert only_when(fragment) is expected


def test_a_date_said_after_a_statement_is_part_of_it() -> None:
    assert dated(["entered the city half marathon.", "october 4.", "send help"]) == [
        "entered the city half marathon, october 4.",
        "send help",
    ]
    # An offered day ("by thursday?") asks nothing of the statement before it.
    assert dated(["I can run the reference calls.", "by thursday?"]) == [
        "I can run the reference calls, by thursday"
    ]
    # A day that answers a question stays apart.
    assert dated(["when is the call?", "friday"]) == ["when is the call?", "friday"]
    (fact,) = extract(said(("Aiko", "entered the city half marathon. october 4. send help")))
    assert fact.text == "Aiko entered the city half marathon, october 4."


@pytest.mark.parametrize(
    ("sentence", "kept"),
    [
        ("finally booked the flights to Oslo", "Aiko finally booked the flights to Oslo"),
        ("need to renew the lease by May", "Aiko needs to renew the lease by May"),
        ("moved to Braga last spring", "Aiko moved to Braga last spring"),
        # Not a verb of hers: a noun phrase, a state, a short word ending in -ed.
        ("shared budgets is out", "Shared budgets is out"),
        ("tired of waiting for the landlord", "Tired of waiting for the landlord"),
        ("bed by 10 tonight", "Bed by 10 tonight"),
        ("Injuries: left knee aches after 8k", "Injuries: left knee aches after 8k"),
    ],
)
def test_a_speaker_who_leaves_out_i_is_named(sentence: str, kept: str) -> None:
    assert third_person(sentence, "Aiko") == kept


def test_we_will_is_the_team_s() -> None:
    assert (
        third_person("park it until the next budget, we'll look again in October", "Greta")
        == "Park it until the next budget, the team will look again in October"
    )


def test_doing_it_by_a_day_is_the_same_commitment_with_its_due_date() -> None:
    chat = said(
        (
            "Greta",
            "and I'll send the vendor the cancellation notice. the contract says 30 days "
            "before the 30 June end. I'll do it by the 22nd to be safe",
        )
    )
    actions = [(c.text, c.owner, c.due) for c in extract(chat) if c.type == "action"]
    # One item, due when she said she would do it (not the contract's 30 June).
    assert actions == [
        ("Greta will send the vendor the cancellation notice.", "Greta", "2026-03-22")
    ]


@pytest.mark.parametrize(
    ("said_", "kept", "due"),
    [
        (
            "remind me friday to renew my passport",
            "Aiko will renew Aiko's passport friday.",
            "2026-03-06",
        ),
        (
            "pls remind me to call the plumber tomorrow",
            "Aiko will call the plumber tomorrow.",
            "2026-03-03",
        ),
    ],
)
def test_a_reminder_asked_for_is_the_speaker_s_action(said_: str, kept: str, due: str) -> None:
    (action,) = extract(said(("Aiko", said_)))
    assert (action.type, action.text, action.owner, action.due) == ("action", kept, "Aiko", due)


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("my guess is it broke after 4.2 but I haven't checked", "hedge"),
        ("the rollout went fine I think", "hedge"),
        ("it was the cache, don't quote me on that", "hedge"),
        ("someone on the payments team said we're being merged with web", "reported"),
        ("my friend who runs the bakery next door says they did the same to her", "reported"),
        ("my sister says oat milk is sugar water and I should switch to soy", "reported"),
        ("here's my attempt at the flatten exercise", "small_talk"),
        ("doing the retro in here since half of you are out", "small_talk"),
        ("the vet checked her teeth and she is 2 at most", "stated"),
    ],
)
def test_hedges_hearsay_and_showing_are_not_stated(sentence: str, expected: str) -> None:
    assert mood(sentence) == expected


def test_a_reply_is_not_read_with_a_hedge_before_it() -> None:
    chat = said(
        ("Seun", "we could maybe self-host a monitoring tool in the meantime"),
        ("Greta", "ok I'll write this up for the board"),
    )
    (action,) = [c for c in extract(chat) if c.type == "action"]
    assert action.text == "Greta will write this up for the board."
    # A pick may still choose what was offered as "we could".
    chat = said(
        ("Seun", "we could go with Tracewell or Beaconly"),
        ("Greta", "Tracewell then"),
    )
    (decision,) = [c for c in extract(chat) if c.message == 1]
    assert decision.type == "decision" and "Tracewell or Beaconly" in decision.text


def test_an_answered_sentence_is_kept_without_its_markup() -> None:
    assert plain("**Open-jaw**: fly into Lisbon 🛫") == "Open-jaw: fly into Lisbon"
    assert plain("## Next: the *cheaper* plan") == "Next: the cheaper plan"
    assert plain("2 * 3 = 6") == "2 * 3 = 6"
    chat = [
        Said("Assistant", "**Off-peak**: £19 a month, weekdays before 4pm", "assistant", MONDAY),
        Said("Keiko", "off peak is fine", "user", MONDAY),
    ]
    (picked,) = [c for c in extract(chat) if c.speaker == "Keiko"]
    assert "**" not in picked.text and "Off-peak: £19 a month" in picked.text


def test_two_commitments_in_one_sentence_are_two_action_items() -> None:
    chat = said(
        ("Nadia", "I'll call the landlord today, and I'll send the deposit friday if it's clean")
    )
    actions = [(c.text, c.due) for c in extract(chat) if c.type == "action"]
    assert actions == [
        ("Nadia will call the landlord today.", "2026-03-02"),
        ("Nadia will send the deposit friday if it's clean.", "2026-03-06"),
    ]
    # One commitment with two verbs stays one item.
    (one,) = extract(said(("Nadia", "I'll book the room and send the invite tomorrow")))
    assert one.text == "Nadia will book the room and send the invite tomorrow."


def test_an_agent_s_dated_promise_is_kept_for_review_under_its_name() -> None:
    chat = [
        Said("Renata", "the export is still broken", "user", MONDAY),
        Said(
            "Marcus",
            "I'll rerun the export today and email you the file before end of day.",
            "assistant",
            MONDAY,
        ),
        Said("Assistant", "I'll keep that in mind for next time.", "assistant", MONDAY),
    ]
    (promise,) = [c for c in extract(chat) if c.message > 0]
    assert promise.text.startswith("Marcus will rerun the export today")
    assert (promise.type, promise.owner, promise.due) == ("action", "Marcus", "2026-03-02")
    assert promise.confidence <= ASSISTANT_CAP  # waits for review, as all an assistant says


def test_on_it_inside_a_sentence_is_no_commitment() -> None:
    chat = said(("Tutor", "let's build the sheet on Thursday, and the rule goes on it first"))
    assert [c for c in extract(chat) if c.type == "action"] == []


def test_arranging_the_chat_itself_is_not_a_decision_when_agreed() -> None:
    chat = said(
        ("Femi", "let's do the retro for the outage in here, doc is pinned"),
        ("Wen", "👍"),
    )
    assert extract(chat) == []


@pytest.mark.parametrize(
    ("reply", "kept"),
    [
        ("off peak is fine, daytime works for me", "Keiko chose off peak, daytime works for Keiko"),
        ("the Lisbon flat then, june 8", "Keiko chose the Lisbon flat, june 8"),
        ("ok so go with the blue one", "Keiko chose the blue one"),
        ("the 16th, yes", "Keiko chose the 16th"),
        ("netflix stays", "Keiko will keep netflix"),
        ("skip coimbra", "Keiko will skip coimbra"),
    ],
)
def test_a_pick_says_who_chose_what(reply: str, kept: str) -> None:
    assert chose(reply, "Keiko", None) == kept


def test_a_pick_is_kept_with_the_options_it_was_chosen_from() -> None:
    chat = [
        Said("Assistant", "Casa Azul is €118 a night, Rua Nova €109.", "assistant", MONDAY),
        Said("Tomasz", "we can do stairs 💪 casa azul it is. booking now", "user", MONDAY),
    ]
    (picked,) = [c for c in extract(chat) if c.speaker == "Tomasz"]
    assert picked.type == "decision"
    assert picked.text == "Tomasz chose casa azul (Casa Azul is €118 a night, Rua Nova €109)"


def test_a_short_sentence_with_its_own_subject_needs_nothing_before_it() -> None:
    chat = [
        Said("Assistant", "Where will the party be, and what is the budget?", "assistant", MONDAY),
        Said("Inés", "we're all in Zaragoza.", "user", MONDAY),
        Said("Inés", "wait Javi is off on the 24th", "user", MONDAY),
    ]
    kept = [(c.type, c.text) for c in extract(chat) if c.speaker == "Inés"]
    assert kept == [("fact", "We're all in Zaragoza."), ("fact", "Javi is off on the 24th.")]


FIXES = (
    "ok fixes, my list:\n1. CI check on pool sizes\n2. pool saturation alert\n"
    "3. readiness probe checks the pool\n4. client retry backoff"
)


def test_items_of_a_list_claimed_by_number_are_action_items() -> None:
    chat = said(
        ("Femi", FIXES),
        ("Arturo", "1 is mine obviously. I can have it in by next friday"),
        ("Solveig", "2 and 3 are me. alert by monday. the probe change needs care, say the 20th"),
        ("Wen", "4 isn't ours, the mobile team owns retries"),
    )
    actions = [(c.text, c.owner, c.due) for c in extract(chat) if c.type == "action"]
    assert actions == [
        ("Arturo will take on CI check on pool sizes.", "Arturo", "2026-03-13"),
        ("Solveig will take on pool saturation alert.", "Solveig", "2026-03-09"),
        ("Solveig will take on readiness probe checks the pool.", "Solveig", "2026-03-20"),
    ]


def test_an_option_picked_by_number_is_a_decision() -> None:
    chat = [
        Said(
            "Assistant",
            "Two swaps:\n1. Chickpea curry, cheap and freezes well\n2. Tempeh stir-fry",
            "assistant",
            MONDAY,
        ),
        Said("Amara", "1. obviously", "user", MONDAY),
    ]
    (picked,) = [c for c in extract(chat) if c.speaker == "Amara"]
    assert (picked.type, picked.text) == (
        "decision",
        "Amara chose Chickpea curry, cheap and freezes well.",
    )
    # A number with no list before it names nothing.
    assert extract([Said("Amara", "1. obviously", "user", MONDAY)]) == []


@pytest.mark.parametrize(
    "sentence",
    [
        "tía Rocío is celiac.",
        "refs: policy is two references before any offer goes out.",
        "never on saturdays, I work at the shop all day",
        "the L4 band tops out at €92k base.",
        "I carry an epipen",
    ],
)
def test_rules_limits_and_diets_are_constraints(sentence: str) -> None:
    (kept,) = extract(said(("Ana", sentence)))
    assert kept.type == "constraint"


@pytest.mark.parametrize(
    "reply",
    [
        "I'll take 2 tickets for the gig",
        "maybe I'll take 2, not sure lol",
        "1 is mine?",
    ],
)
def test_a_number_that_names_no_item_claims_nothing(reply: str) -> None:
    chat = said(("Femi", FIXES), ("Ana", reply))
    assert [c for c in extract(chat) if c.type == "action" and "take on" in c.text] == []


def test_a_claim_is_read_however_it_is_said_and_the_next_commitment_stays_its_own() -> None:
    chat = said(("Femi", FIXES), ("Ana", "3's mine. I will also email the client on thursday"))
    actions = [(c.text, c.due) for c in extract(chat) if c.type == "action"]
    assert actions == [
        ("Ana will take on readiness probe checks the pool.", ""),
        ("Ana will also email the client on thursday.", "2026-03-05"),
    ]


def test_a_bare_number_answers_the_list_just_before_it_only() -> None:
    chat = [
        Said("Assistant", "1. Chickpea curry\n2. Tempeh stir-fry", "assistant", MONDAY),
        Said("Amara", "and how many people should I cook for?", "user", MONDAY),
        Said("Assistant", "How many people are coming?", "assistant", MONDAY),
        Said("Amara", "2", "user", MONDAY),
    ]
    (kept,) = [c for c in extract(chat) if c.message == 3]
    # No pick from the list two messages up: the answer to the question asked.
    assert kept.type == "fact" and "Tempeh" not in kept.text
    assert kept.text == 'Amara answered Assistant\'s question "How many people are coming?": 2.'


def test_a_reminder_that_is_not_an_action_is_not_made_one() -> None:
    for said_ in ("remind me not to buy more coffee", "remind me how to reset the router"):
        kept = [c.text for c in extract(said(("Ana", said_)))]
        assert not any(t.startswith("Ana will") for t in kept), kept


def test_dates_and_counts_are_told_apart() -> None:
    assert not only_when("2 by friday, 3 by the 20th")
    assert not only_when("friday 2")
    chat = said(("Femi", FIXES), ("Ana", "2 and 3 are me. 2 by friday, 3 by the 20th"))
    dues = [c.due for c in extract(chat) if c.type == "action"]
    assert "2026-03-06" in dues or dues == ["", ""]  # never both on friday by a joined count
    assert dues != ["2026-03-06", "2026-03-06"]


@pytest.mark.parametrize(
    ("sentence", "kept"),
    [
        ("fixed costs went up 5%", "Fixed costs went up 5%"),
        ("left knee aches after 8k", "Left knee aches after 8k"),
        ("hundred people signed up", "Hundred people signed up"),
    ],
)
def test_a_word_ending_in_ed_is_not_always_her_verb(sentence: str, kept: str) -> None:
    assert third_person(sentence, "Aiko") == kept


@pytest.mark.parametrize(
    ("reply", "kept"),
    [
        ("keep me posted", "Keep Keiko posted"),
        ("we'll go with thursday then", "Keiko chose thursday"),
        ("that works", "That works"),
        ("cancel my 3pm too", "Keiko will cancel Keiko's 3pm too"),
    ],
)
def test_a_pick_of_a_pronoun_is_said_as_it_was(reply: str, kept: str) -> None:
    assert chose(reply, "Keiko", None) == kept


def test_what_is_shown_with_its_content_and_what_i_said_with_others_are_stated() -> None:
    assert mood("here's the plan: we launch on may 3") == "stated"
    assert mood("my colleague and I said no to the offer") == "stated"
    assert mood("we moved the servers in here last year") == "stated"


def test_an_assistant_s_plan_is_no_promise() -> None:
    chat = [
        Said("Ana", "can you plan my week?", "user", MONDAY),
        Said("Assistant", "I'll start with Monday: gym at 7 today.", "assistant", MONDAY),
        Said("Marcus", "I can draft a schedule for today and tomorrow.", "assistant", MONDAY),
    ]
    assert [c for c in extract(chat) if c.type == "action"] == []


def test_lowercase_commitments_are_split_too() -> None:
    chat = said(("Ana", "i'll check the logs and then i'll call the vendor tomorrow"))
    actions = [c.text for c in extract(chat) if c.type == "action"]
    assert actions == ["Ana will check the logs.", "Ana will call the vendor tomorrow."]


def test_names_keep_their_underscores() -> None:
    assert plain("see __init__.py and *this*") == "see __init__.py and this"


def test_a_long_blank_message_before_a_reply_reads_only_its_first_lines() -> None:
    blank = said(("Femi", "logs:" + "\n" * 20_000 + "1. far item\n2. another"))
    chat = [*blank, *said(("Ana", "1 is mine"))]
    assert extract(chat) == []  # the list lies past the lines read; nothing is claimed


def test_it_is_named_by_the_thing_the_same_verb_was_asked_of() -> None:
    chat = said(
        ("Sami", "send me the new address when you get a sec?"),
        ("Lena", "aww ok I'll send it tonight"),
    )
    (action,) = [c for c in extract(chat) if c.type == "action"]
    assert (action.text, action.owner) == ("Lena will send the new address tonight.", "Lena")
    # Another verb names nothing: the question is kept beside it, as before.
    chat = said(
        ("Sami", "send me the new address when you get a sec?"),
        ("Lena", "ok I'll print it tonight"),
    )
    (action,) = [c for c in extract(chat) if c.type == "action"]
    assert action.text.startswith("Lena will print it tonight (")


def test_a_value_given_in_answer_to_a_question_is_a_fact_with_its_question() -> None:
    found = extract(
        said(
            ("Marcus", "Sorry about that. Can you send me the account ID or the email?"),
            ("Renata", "BL-20417. renata@brightloaf.co"),
            ("Bartek", "first q — is Q3 eng still 5 heads or did the contractor come through"),
            ("Ines", "5, same as Q2"),
            ("Joaquín", "start date? if her notice is long that's a problem"),
            ("Nadia", "mid-May at the earliest"),
        )
    )
    texts = {c.message: c.text for c in found if c.type == "fact"}
    assert texts[1] == (
        'Renata answered Marcus\'s question "Can you send me the account ID or the email?": '
        "BL-20417; renata@brightloaf.co."
    )
    assert texts[3].startswith("Ines answered Bartek's question") and "5, same as Q2" in texts[3]
    assert texts[5].startswith('Nadia answered Joaquín\'s question "start date?"')


@pytest.mark.parametrize(
    "lines",
    [
        # No value in the reply.
        [("Ana", "can you check the invoice?"), ("Ben", "sure, on it")],
        # Not a question.
        [("Ana", "the invoice came in today."), ("Ben", "4,200 EUR")],
        # The speaker's own question.
        [("Ana", "what was the total?"), ("Ana", "4,200 EUR")],
        # A guess or a joke is no answer to keep.
        [("Ana", "how many people are coming?"), ("Ben", "maybe 12 I think")],
        [("Ana", "how many people are coming?"), ("Ben", "lol 3 million 😂")],
        # Long enough to say what it means in sentences of its own.
        [
            ("Ana", "how many people are coming?"),
            ("Ben", "honestly no idea, we sent 40 invites but half of them never answer emails"),
        ],
    ],
)
def test_no_answer_fact_without_a_question_and_a_value(lines: list[tuple[str, str]]) -> None:
    assert not [c for c in extract(said(*lines)) if "answered" in c.text]


def test_a_promise_in_reply_to_a_request_is_no_answer_fact() -> None:
    asked = ("Bo", "Ana can you book the room?")
    found = extract(said(asked, ("Ana", "sure, I'll do it by friday")))
    assert [c.text for c in found] == ["Ana will book the room."]


@pytest.mark.parametrize(
    ("line", "kept"),
    [
        ("I work as a nurse at the hospital", "Ana works as a nurse at the hospital."),
        ("I run a small bakery", "Ana runs a small bakery."),
        ("I teach piano on weekends", "Ana teaches piano on weekends."),
        ("my partner is a teacher", "Ana's partner is a teacher."),
        ("I'm a nurse", "Ana is a nurse."),
        ("I do freelance illustration on the side", "Ana does freelance illustration on the side."),
    ],
)
def test_what_someone_s_life_is_is_kept_for_review_without_a_number_or_name(
    line: str, kept: str
) -> None:
    (found,) = extract(said(("Ana", line)))
    assert (found.type, found.text) == ("fact", kept)
    assert found.confidence < ASSISTANT_CAP + 0.01  # pending: it may be a passing remark


@pytest.mark.parametrize(
    "line",
    [
        "I'm a mess today",
        "I'm a bit lost here",
        "I'm a huge fan of this",
        "I have a question",
        "I'm an hour late, sorry",
        "I'm a few days behind on it",
    ],
)
def test_a_passing_remark_about_oneself_is_no_fact(line: str) -> None:
    assert extract(said(("Ana", line))) == []
