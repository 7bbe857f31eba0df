"""How the offline detector (consolidate/detect*.py) cuts and reads a statement.

Sentences written for these tests, none from the benchmark sets: a comma
after a number ends the clause ("June 12, not June 10"); a leading phrase
("After the reorg") is no condition; "an hour", "3 times a week", "half an
hour" are values; a reason after a denial is not denied; irregular
participles ("given up") are their verbs; a trade is no sale; a role is a
role even with a place word in it ("office manager").
"""

from __future__ import annotations

import pytest

from mnemotree.consolidate.detect import ACT, REVIEW, compare, parse


def confidence(earlier: str, later: str) -> float:
    found = compare(earlier, later)
    return found.confidence if found is not None else 0.0


def values(text: str) -> list[tuple[str, object]]:
    return [(v.kind, v.key) for v in parse(text).values]


def test_a_comma_after_a_number_ends_the_clause() -> None:
    assert ("number", 1100.0) in values("The deposit is 1,100 euros.")
    found = compare("The recital is on May 9.", "No, the recital is on May 11, not May 9.")
    assert found is not None and found.confidence >= ACT
    found = compare("Her name day is on 3 July.", "Her name day is not on 3 July, it is on 5 July.")
    assert found is not None and found.confidence >= ACT


def test_a_leading_phrase_is_no_condition() -> None:
    # "After the reorg" tells when; the clause still says the team's size
    found = compare("The QA team has 7 testers.", "After the reorg the QA team is down to 4.")
    assert found is not None and found.confidence >= ACT and found.update


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The ferry ride takes about an hour.", ("number", 3600.0)),
        ("The ferry ride takes half an hour.", ("number", 1800.0)),
        ("Maya swims 4 times a week.", ("period", 604800.0 / 4)),
    ],
)
def test_amounts_of_time_said_in_words_are_values(text: str, expected: tuple[str, object]) -> None:
    assert expected in values(text)


def test_a_rate_after_a_thing_counted_is_no_value_of_its_own() -> None:
    assert ("number", 86400.0) not in values("Lars eats half a melon a day.")


def test_the_same_time_said_in_words_and_digits_agrees() -> None:
    assert compare("The ferry ride takes 30 minutes.", "The ferry ride takes half an hour.") is None
    found = compare("Maya swims 4 times a week.", "These days Maya only swims once a week.")
    assert found is not None and found.confidence >= ACT


def test_a_reason_after_a_denial_is_not_what_is_denied() -> None:
    found = compare("I love skiing.", "I haven't enjoyed skiing since my back surgery.")
    assert found is not None and found.kind == "negation" and found.confidence >= ACT


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        ("Noor's favourite dessert is cheesecake.", "Noor has given up cheesecake."),
        ("The twins prefer rice.", "The twins won't eat rice anymore."),
        ("I like thrillers.", "I don't care for thrillers anymore."),
        ("The shop sells film cameras.", "The shop stopped selling film cameras."),
        ("Bea speaks Italian.", "Bea has forgotten her Italian."),
    ],
)
def test_denials_said_in_other_words(earlier: str, later: str) -> None:
    assert confidence(earlier, later) >= REVIEW, compare(earlier, later)


def test_a_trade_is_no_sale_of_what_one_has() -> None:
    # "sells" of a shop is its trade; "sold" of a person: no longer has it
    assert parse("The kiosk sells newspapers.").negations == 0
    assert parse("Tobias sold his boat.").negations == 1


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        ("Ama is our office manager.", "Ama is now our head of finance."),
        ("Rick is a sales rep for Puma.", "Rick is now a sales rep for Asics."),
        (
            "User wants terse commit messages.",
            "User asked for detailed commit messages from now on.",
        ),
    ],
)
def test_roles_and_wishes_changed(earlier: str, later: str) -> None:
    assert confidence(earlier, later) >= ACT, compare(earlier, later)


def test_a_place_said_with_a_participle_is_a_place() -> None:
    found = compare("The audit logs are stored in Zurich.", "Audit logs now go to the Oslo region.")
    assert found is not None and found.confidence >= ACT


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        # a title is said or not: "Dr Osei" is Osei
        ("Dr. Osei is my physio.", "My physio is Dr. Larsen now."),
        # "on leave" is a noun, no leaving
        ("Ines is on leave until 2025.", "Ines is on leave until 2027."),
        # a verbless piece after a dash tells the subject before it
        ("Retro — 16:00 every Friday.", "Retro — 15:00 every Friday now."),
        # "departs" and "leaves" say one thing
        ("The night train departs at 21:10.", "The night train leaves at 22:40."),
    ],
)
def test_values_said_around_titles_dashes_and_synonyms(earlier: str, later: str) -> None:
    assert confidence(earlier, later) >= ACT, compare(earlier, later)


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        # "I believe in X" is said, not a hedge ("I believe the bus is late")
        ("I believe in horoscopes.", "I don't believe in horoscopes anymore."),
        # a value before a noun is the object's modifier: "stopped Saturday tours"
        ("The castle offers tours on Saturdays.", "The castle has stopped Saturday tours."),
        # a denying prefix: "incompatible", "shut"
        (
            "The driver is compatible with Windows 11.",
            "The driver is incompatible with Windows 11.",
        ),
        ("The pool is open on Tuesdays.", "The pool is shut on Tuesdays."),
        # "charges" / "costs": one attribute
        (
            "The parking garage costs 12 dollars a day.",
            "The parking garage now charges 15 dollars a day.",
        ),
    ],
)
def test_more_denials_and_values_said_in_other_words(earlier: str, later: str) -> None:
    assert confidence(earlier, later) >= ACT, compare(earlier, later)


def test_a_short_word_with_a_prefix_is_no_denial() -> None:
    # "install" is no denial of "stall"
    assert compare("The engine tends to stall.", "We install the engine tomorrow.") is None
