"""A state said to be over outdates what described its subject by that
state, and nothing else."""

from __future__ import annotations

import pytest

from mnemotree import Memory
from mnemotree.consolidate.contradictions import read
from mnemotree.consolidate.ended import ended, states_ended
from tests.helpers import Clock


@pytest.mark.parametrize(
    ("text", "states"),
    [
        ("Acme bought the Pro plan; the trial is over.", {"trial"}),
        ("Nordlys signed in June and the pilot ended.", {"pilot"}),
        ("Their beta has now ended.", {"beta"}),
        ("The residency was cancelled.", {"residency"}),
        ("Acme is on a free trial.", set()),
        ("The trial covers three sites.", set()),
    ],
)
def test_the_states_a_statement_ends(text: str, states: set[str]) -> None:
    assert states_ended(text) == states


@pytest.mark.parametrize(
    "earlier",
    [
        "Acme is on a free trial of the Pro plan.",
        "Acme Corp is a trial customer in Norway.",
        "Acme is in the trial programme since March.",
    ],
)
def test_a_state_that_is_over_outdates_what_described_its_subject_by_it(earlier: str) -> None:
    found = read(earlier, "Acme bought the Pro plan; the trial is over.")
    assert found is not None and found.update and found.confidence >= 0.8


@pytest.mark.parametrize(
    "earlier",
    [
        "The Acme trial covers three sites.",  # history of the state, not a description
        "Bolt is on a free trial of the Pro plan.",  # another subject
        "Acme is a customer in Norway.",  # not described by the state
        "Acme's trial is over; they chose to wait.",  # speaks of the end itself
    ],
)
def test_what_the_end_leaves_true(earlier: str) -> None:
    assert ended(earlier, "Acme bought the Pro plan; the trial is over.") is None


def test_on_write_the_end_of_a_state_supersedes(cmem: Memory, clock: Clock) -> None:
    old = cmem.remember("Acme is on a free trial of the Pro plan.")
    sites = cmem.remember("The Acme trial covers three sites.")
    clock.advance(days=60)
    new = cmem.remember("Acme bought the Pro plan; the trial is over.")
    (update,) = cmem.consolidation.updates()
    assert (update.a_id, update.b_id) == (old.id, new.id)
    assert "valid_to" not in cmem.get(sites.id).metadata
