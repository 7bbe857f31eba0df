"""The readings dedupe asks before it merges two near statements
(consolidate/dedupe_meaning.py, through `dedupe.values_differ`): two
sentences sharing their words but stating different facts (roles exchanged,
a direction reversed, an opposite action, a narrower subject, a value only
one names, a repeated event, the newer saying less) are never one; a
sentence said again in other words is.

Pure functions on sentences written for these tests (none from the bench
data); properties over generated sentences where an invariant holds.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mnemotree.consolidate.dedupe import swapped, values_differ
from mnemotree.consolidate.dedupe_meaning import agreement, occurrence, read


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        # roles exchanged, in place or in another order
        ("Kofi reports to Hana.", "Hana reports to Kofi."),
        ("Ilse is Bram's mentor.", "Bram is Ilse's mentor."),
        ("Nina covers for Piet when he is away.", "Piet covers for Nina when she is away."),
        (
            "We moved the archive from Glacier to Backblaze.",
            "We moved the archive from Backblaze to Glacier.",
        ),
        (
            "The frontend calls the pricing service on every page load.",
            "On every page load, the pricing service calls the frontend.",
        ),
        ("Team A ranks above team B in the league.", "Team B ranks above team A in the league."),
        # a direction reversed, an opposite action
        ("Vacuum runs before the nightly backup.", "Vacuum runs after the nightly backup."),
        (
            "The exporter sends reports to the finance bucket.",
            "The exporter takes reports from the finance bucket.",
        ),
        (
            "Ines's train arrives in Porto on Sunday night.",
            "Ines's train departs Porto on Sunday night.",
        ),
        (
            "The courier picks up parcels at the loading dock on weekdays.",
            "On weekdays the courier drops off parcels at the loading dock.",
        ),
        # a narrower subject, a value or a unit only one names
        ("Tokens expire after one hour.", "Refresh tokens expire after one hour."),
        (
            "Refunds need a manager's approval.",
            "Refunds over 300 dollars need a manager's approval.",
        ),
        (
            "Salaries are paid in the employee's local currency.",
            "Salaries are always paid in pounds, whatever the employee's local currency.",
        ),
        # the newer says less: merged, the older's rest would be lost
        (
            "The wiki lives in Confluence and gets pruned by the docs guild.",
            "The wiki lives in Confluence.",
        ),
        # another time of day, said as a clock time
        ("The all-hands is at 2 pm on Thursdays.", "The all-hands is on Thursdays at 15:00."),
    ],
)
def test_statements_that_state_different_facts_differ(older: str, newer: str) -> None:
    assert values_differ(older, newer) is not None


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("Hana is the team lead.", "The team lead is Hana."),
        (
            "The mobile app is built with Rust and Elixir.",
            "The mobile app is built with Elixir and Rust.",
        ),
        ("Carla approves every vendor contract.", "Every vendor contract is approved by Carla."),
        ("The all-hands is at 2 pm on Thursdays.", "The all-hands is on Thursdays at 14:00."),
        # what a statement says is left is no part of what it states
        ("The gym opens at 06:00 now, not 07:00.", "The gym opens at 06:00."),
        (
            "Kai prefers window seats on long train rides.",
            "Kai likes window seats on long train rides.",
        ),
        (
            "Gift cards cannot be refunded once they have been activated.",
            "Once activated, a gift card can no longer be refunded.",
        ),
    ],
)
def test_a_sentence_said_again_in_other_words_does_not_differ(older: str, newer: str) -> None:
    assert values_differ(older, newer) is None


def test_the_value_a_statement_says_is_left_still_differs_from_one_that_holds_it() -> None:
    assert values_differ("The gym opens at 07:00.", "The gym opens at 06:00 now, not 07:00.")


def test_a_repeated_event_is_another_occurrence() -> None:
    once = read("The elevator on the east side broke down.")
    again = read("The elevator on the east side broke down again.")
    assert occurrence(once, again) is not None
    assert occurrence(again, read("The east side elevator broke down again.")) is None


def test_two_verbs_of_one_attitude_are_no_swap_but_another_verb_is() -> None:
    assert swapped("Mia likes aisle seats on buses.", "Mia prefers aisle seats on buses.") is None
    assert swapped("Mia books aisle seats on buses.", "Mia likes aisle seats on buses.")


def test_an_acronym_says_the_words_it_stands_for() -> None:
    found = agreement(
        read("Invoices go to accounts payable as PDFs."),
        read("Invoices go to AP as PDFs."),
    )
    assert found.only_a == () and found.only_b == ()


def test_rewording_is_told_from_a_slot_filled_with_another_word() -> None:
    reworded = agreement(
        read(
            "Never paste customer emails into public tickets; redact the address except the domain."
        ),
        read(
            "Customer email addresses must never appear unredacted in public tickets; only "
            "the domain may be shown."
        ),
    )
    assert reworded.reworded and reworded.unsaid <= 1 / 3
    one_for_one = agreement(
        read("Bruno is the head of design at Orbit."), read("Bruno heads marketing at Orbit.")
    )
    assert not one_for_one.reworded
    added = agreement(read("Tokens expire hourly."), read("Session tokens expire hourly."))
    assert not added.reworded


NAMES = ("Amara", "Bjorn", "Chen", "Dalia", "Emeka", "Freya", "Goran", "Hiro")
ROLE_FRAMES = (
    "{} reports to {}.",
    "{} reviews every pull request {} opens.",
    "{} took over the billing rotation from {}.",
    "{} is {}'s manager.",
    "On Fridays {} covers the support queue for {}.",
)


@given(frame=st.sampled_from(ROLE_FRAMES), names=st.permutations(NAMES))
def test_two_names_exchanged_never_state_one_fact(frame: str, names: list[str]) -> None:
    first, second = names[:2]
    assert values_differ(frame.format(first, second), frame.format(second, first)) is not None


DIRECTED = (
    ("The nightly job copies invoices {} the {} bucket.", ("to", "from")),
    ("Backups are taken {} every {} deploy.", ("before", "after")),
    ("Alerts are routed {} the {} channel.", ("into", "out of")),
)
PLACES = ("archive", "billing", "staging", "reporting", "audit")


@given(frame=st.sampled_from(DIRECTED), place=st.sampled_from(PLACES))
def test_a_direction_reversed_never_states_one_fact(
    frame: tuple[str, tuple[str, str]], place: str
) -> None:
    text, (one, other) = frame
    assert values_differ(text.format(one, place), text.format(other, place)) is not None


MODIFIED = (
    ("Passwords are rotated every 90 days.", ("Admin", "Service", "Guest")),
    ("Invoices are archived after seven years.", ("Paper", "Supplier", "Draft")),
    ("Deploys need two approvals.", ("Hotfix", "Database", "Weekend")),
)


@given(case=st.sampled_from(MODIFIED), pick=st.integers(min_value=0, max_value=2))
def test_a_narrower_subject_never_states_one_fact(
    case: tuple[str, tuple[str, ...]], pick: int
) -> None:
    text, modifiers = case
    narrower = f"{modifiers[pick]} {text[0].lower()}{text[1:]}"
    assert values_differ(text, narrower) is not None
    assert values_differ(narrower, text) is not None
