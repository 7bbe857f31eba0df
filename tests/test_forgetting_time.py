"""Forgetting and time (issue 20): a note of a past one-off event that nobody
used for a long time needs less evidence of being chatter than one unused
for the disuse age alone; and readings of a note's wording that decide
whether it tells of a passing moment: a plan for one near day, a chore
waiting, a fault to fix, leaving a thing somewhere, the perfect tense, a
way a thing was done, repetition.

Sentences here are not from the benchmark data. Real SQLite through the
Memory facade on a hand-moved clock, with the MiniLM embedder where its
lean is the point.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mnemotree import Memory
from mnemotree.consolidate.plan import Plan, Policy
from mnemotree.consolidate.salience import estimate
from tests.helpers import Clock

# Past one-off events whose meaning leans to everyday life, but by less than
# the margin a past tense needs at the disuse age.
FAINT_CHATTER = ("Tanya won the office chess tournament.", "The office got a new fish tank.")
# Work and life knowledge told in the past tense, and worth keeping.
KNOWLEDGE = (
    "We fixed the flaky upload by retrying on timeouts.",
    "The wiki was restored from last week's export.",
    "Deployed the new invoice service.",
    "The plumber called again about the leak under the sink.",
    "Passwords for the build agents must be rotated every quarter.",
)


def forgotten(plan: Plan) -> dict[str, str]:
    return {a.nodes[0]: a.reason for a in plan.actions if a.step == "forget"}


def test_faint_chatter_goes_only_after_long_disuse(db_path: Path, clock: Clock) -> None:
    with Memory(db_path, embedder="minilm", clock=clock) as mem:
        mem.consolidation.scan_on_write = False
        chatter = {mem.remember(text).id for text in FAINT_CHATTER}
        kept = {mem.remember(text).id for text in KNOWLEDGE}
        clock.advance(days=120)  # past the disuse age, not a year
        plan = mem.consolidation.run(steps=["decay", "forget"])
        assert isinstance(plan, Plan)
        assert forgotten(plan) == {}
        clock.advance(days=300)
        plan = mem.consolidation.run(steps=["decay", "forget"])
        assert isinstance(plan, Plan)
        reasons = forgotten(plan)
        assert set(reasons) == chatter, reasons
        assert all("a past event" in r and "unused for 420 days" in r for r in reasons.values())
        assert not kept & set(reasons)
        # The age of long disuse is a setting.
        later = mem.consolidation.run(steps=["decay", "forget"], policy={"long_disuse_days": 500})
        assert isinstance(later, Plan)
        assert forgotten(later) == {}


def test_long_disuse_eases_only_the_past_tense() -> None:
    said_of_a_day = "The heating engineer came today and said the old boiler works."
    assert not estimate(said_of_a_day, lean=-0.03, long_unused=True).trivia
    assert not estimate("Won the raffle at the summer fair.", lean=0.07).trivia
    assert estimate("Won the raffle at the summer fair.", lean=0.07, long_unused=True).trivia
    # Without a model there is no lean to weigh, however long the disuse.
    assert not estimate("Won the raffle at the summer fair.", long_unused=True).trivia
    assert Policy.from_dict({"long_disuse_days": 200}).long_disuse_days == 200


@pytest.mark.parametrize(
    ("text", "cue"),
    [
        ("The street party will be on Saturday.", "one particular day"),
        ("Her brother's birthday dinner is planned for next Sunday.", "one particular day"),
        ("Grandpa is visiting tomorrow.", "one particular day"),
        ("The car needs washing.", "a chore to do"),
        ("The microwave in the kitchen is broken.", "a fault to fix"),
        ("Somebody left the windows open in the lab.", "someone unnamed"),
    ],
)
def test_passing_readings(text: str, cue: str) -> None:
    found = estimate(text, lean=0.1)
    assert found.lasting == (), found
    assert cue in found.passing
    assert found.trivia
    assert not estimate(text, lean=-0.1).trivia  # the meaning still decides


@pytest.mark.parametrize(
    ("text", "cue"),
    [
        ("Marta left the company in May.", "a change of state"),
        ("The release needs to be signed by two people.", "a rule"),
        ("From next Tuesday, the gym opens at 6.", ""),
        ("The kids have swimming on Tuesday afternoons.", "a recurrence"),
        ("We fixed the flaky upload by retrying on timeouts.", "a how-to"),
        ("The wiki was restored from last week's export.", "a system's setup"),
        ("Nora's blood type is A positive.", "an attribute"),
    ],
)
def test_lasting_readings(text: str, cue: str) -> None:
    found = estimate(text, lean=0.3)
    assert not found.trivia, found
    assert cue in found.lasting if cue else found.passing == ()


def test_a_plan_for_a_day_is_an_occasion_only_where_a_meaning_can_tell() -> None:
    # Without a model the plan keeps it: the day the payments moved to a new
    # provider and the day of a barbecue read alike.
    cut_over = "We will move the payments to the new provider on Sunday night."
    assert "a plan" in estimate(cut_over).lasting
    assert not estimate(cut_over, lean=-0.1).trivia
    assert estimate("The street party will be on Saturday.", lean=0.1).trivia
    starting = "Starting on Monday, the canteen will be closed."
    assert "a plan" in estimate(starting, lean=0.2).lasting


def test_the_perfect_and_repetition_read_as_events() -> None:
    # "has cleaned" tells an event, not a state that holds now.
    unpacked = estimate("Nobody has cleaned the oven yet, and the new toaster arrived.", lean=0.2)
    assert unpacked.passing == ("a past event",) and not unpacked.present
    assert estimate("The lab has a spare projector.").present
    assert estimate("The API has been flaky since the upgrade.").present
    # "again" and "finally" say how an event stands to others, not when.
    again = estimate("The plumber called again about the leak under the sink.", lean=0.08)
    assert again.passing == ("a past event",) and not again.trivia
    assert estimate("Finally sorted the recycling.", lean=0.02).passing == ("a past event",)
