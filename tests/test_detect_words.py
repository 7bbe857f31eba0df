"""Words the offline detector (consolidate/detect*.py) reads as English does.

Each case is a general reading, checked with sentences written for these
tests (none from the benchmark sets): an all-capital "US" is a country, no
"us"; someone's thing is not the speaker's; a job-title acronym is a role;
"became" is a verb after "my brother"; "retired from X" denies X; two places
in one slot are two values; a season is a value; a short verb is known by
the noun made from it; a light verb says little of what is denied; a
product name may open with an acronym; a purpose tells two choices apart; a
hobby is no job; a list of numbers is no count.
"""

from __future__ import annotations

import pytest

from mnemotree.consolidate.detect import ACT, REVIEW, compare, parse


def confidence(earlier: str, later: str) -> float:
    found = compare(earlier, later)
    return found.confidence if found is not None else 0.0


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # "US" is no "us" (we): another cluster
        ("The APAC cluster runs 9 brokers.", "The US cluster runs 5 brokers."),
        # my thing and someone else's
        ("My dentist is Dr Okafor.", "Lukas's dentist is Dr Brandt."),
        # a purpose on both sides tells two choices apart
        ("Omar prefers Notion for meeting notes.", "Omar prefers Trello for task tracking."),
        # a hobby beside a job
        ("Ingrid is a tax accountant.", "Ingrid is an avid climber."),
        # ages of the children, not how many
        ("Paolo has three daughters.", "Paolo's daughters are 6 and 9."),
    ],
)
def test_other_things_are_no_conflict(a: str, b: str) -> None:
    assert confidence(a, b) < REVIEW and confidence(b, a) < REVIEW, (compare(a, b), compare(b, a))


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        # an acronym before "now" is a value: "at EY now"
        ("Priti works at PwC as a consultant.", "Priti is a consultant at EY now."),
        # a job-title acronym is a role, even after "to"
        ("Hamid is the head of engineering.", "Hamid was promoted to CTO."),
        # "became" after "my cousin" is the verb
        ("My cousin is a plumber.", "My cousin became an electrician in the spring."),
        # "from home" / "from the office": two places in one slot
        ("Greta likes working from home.", "Greta now likes working from the office."),
        # a season is a value
        ("Tomas's favourite season is winter.", "Tomas's favourite season is spring."),
        # a product name opening with an acronym ("VS Code") is not the verb "code"
        (
            "Yusra prefers to write code in Sublime.",
            "Yusra has switched to VS Code for writing code.",
        ),
        # one purpose said of both: one attribute
        ("User prefers DuckDuckGo for web search.", "User uses Google for web search now."),
    ],
)
def test_changed_values_are_acted_on(earlier: str, later: str) -> None:
    assert confidence(earlier, later) >= ACT, compare(earlier, later)


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        # "retired from X" denies X, not only working
        ("Ruth coaches swimming at the local club.", "Ruth retired from coaching last year."),
        # a short verb is known by its noun: "a smoker" / "doesn't smoke"
        ("Kasper is a heavy drinker.", "Kasper doesn't drink."),
        # "putting" says little: the sugar is what is denied
        ("Hal takes his porridge with honey.", "Hal stopped putting honey in his porridge."),
        # "free" is "not paid"
        ("The museum is paid on weekdays.", "The museum is free on weekdays now."),
    ],
)
def test_denials_are_found(earlier: str, later: str) -> None:
    assert confidence(earlier, later) >= REVIEW, compare(earlier, later)


def test_a_denial_of_another_things_circumstance_is_not_acted_on() -> None:
    # "with honey" of the porridge, "without honey" of the tea
    a, b = "Hal takes his porridge with honey.", "Hal takes his tea without honey."
    assert confidence(a, b) < ACT


def test_an_alternative_set_aside_only_denies_the_choice() -> None:
    # the train is set aside as a way to travel, not as where a seat is
    a, b = "Vera prefers the ferry to the plane.", "Vera prefers a window seat on the plane."
    assert confidence(a, b) < ACT


def test_words_are_read_as_written() -> None:
    assert "us" not in parse("The US office hires in May.").vocab
    assert any(v.key == "vs code" for v in parse("I moved to VS Code.").values)
    spring = parse("Her favourite season is spring.").groups[0]
    assert ("spring",) in spring.complements
    assert parse("My brother became a pilot.").update


def test_liking_two_things_is_no_conflict_unless_one_is_chosen() -> None:
    assert compare("Rina loves sailing.", "Rina loves baking.") is None
    # a choice of one ("prefers") may be a changed value, a candidate at most
    assert confidence("Rina prefers sailing.", "Rina prefers baking.") < ACT


def test_one_purpose_makes_the_kind_of_the_new_value_moot() -> None:
    found = compare("I use a ThinkPad for gaming.", "I switched to a Razer laptop for gaming.")
    assert found is not None and found.confidence >= ACT and found.update
