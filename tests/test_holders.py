"""A new holder of something one person held outdates the earlier holder's
statement; sharing, other objects and other complements do not."""

from __future__ import annotations

import pytest

from mnemotree import Memory
from mnemotree.consolidate.contradictions import read
from mnemotree.consolidate.holders import handed_over, moved_on
from tests.helpers import Clock


@pytest.mark.parametrize(
    ("earlier", "later", "reason"),
    [
        (
            "Sam owns the deploy pipeline.",
            "Kim owns the deploy pipeline now.",
            "deploy pipeline: Sam then Kim",
        ),
        (
            "Sam is the release manager.",
            "Kim is the release manager now.",
            "release manager: Sam then Kim",
        ),
        (
            "Priya Raman is the team's DBA.",
            "Priya leads the data team; Omar took over as DBA.",
            "dba: Priya then Omar",
        ),
        (
            "Yuki Tanaka is the product manager for Atlas.",
            "Chloe joined as the new product manager",
            "product manager: Yuki then Chloe",
        ),
    ],
)
def test_a_new_holder_is_a_handover(earlier: str, later: str, reason: str) -> None:
    found = handed_over(earlier, later)
    assert found is not None and found.update and found.reason == reason


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        ("Sam owns the deploy pipeline.", "Kim also owns the deploy pipeline."),  # sharing
        ("Sam leads the standup.", "Kim leads the retro."),  # another object
        ("Sam leads QA for the web app.", "Kim leads QA for the mobile app."),  # another scope
        ("Sam owns the deploy pipeline.", "Sam owns the deploy pipeline, as before."),  # same one
        ("The team owns the deploy pipeline.", "Kim owns the deploy pipeline."),  # no one named
    ],
)
def test_what_is_no_handover(earlier: str, later: str) -> None:
    assert handed_over(earlier, later) is None


def test_on_write_the_new_holder_supersedes(cmem: Memory, clock: Clock) -> None:
    old = cmem.remember("Tomás owns billing-service and reviews its pull requests.")
    clock.advance(days=60)
    new = cmem.remember("Omar now owns billing-service; Tomás moved to payouts.")
    (update,) = cmem.consolidation.updates()
    assert (update.a_id, update.b_id, update.reason) == (
        old.id,
        new.id,
        "billing-service: Tomás then Omar",
    )


@pytest.mark.parametrize(
    ("earlier", "later", "reason"),
    [
        (
            "Jonas Weber is a data engineer on the ingestion squad.",
            "Jonas moved to the new forecasting project.",
            "Jonas: now new forecasting project",
        ),
        (
            "Mei works at Northwind as a support lead.",
            "Mei left Northwind in May.",
            "Mei: left northwind",
        ),
        ("Rafa is the team's QA lead.", "Rafa now leads the mobile team.", "Rafa: now mobile team"),
        (
            "Ines owns the billing dashboards.",
            "Ines transferred to the platform group last week.",
            "Ines: now platform group",
        ),
    ],
)
def test_a_person_who_moved_on_outdates_their_old_job(
    earlier: str, later: str, reason: str
) -> None:
    found = read(earlier, later)
    assert found is not None and found.update and found.confidence >= 0.8
    moved = moved_on(earlier, later)
    assert moved is not None and moved.reason == reason


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        ("Jonas likes pairing on tricky bugs.", "Jonas moved to the forecasting team."),  # a taste
        ("Jonas lives in Leeds.", "Jonas moved to the forecasting team."),  # a home
        ("Jonas is a data engineer on the ingestion squad.", "Jonas moved to Leeds."),  # no job
        ("Jonas is a member of the chess club.", "Jonas moved to the forecasting team."),
        ("Jonas is on the forecasting team.", "Jonas moved to the forecasting team."),  # knows
        ("Northwind is our biggest customer.", "Mei left Northwind in May."),  # not Mei
        ("Ana is the engineering manager.", "Jonas moved to the forecasting team."),  # not Jonas
    ],
)
def test_what_a_move_leaves_true(earlier: str, later: str) -> None:
    assert moved_on(earlier, later) is None


def test_on_write_a_move_supersedes_the_old_job(cmem: Memory, clock: Clock) -> None:
    old = cmem.remember("Jonas Weber is a data engineer on the ingestion squad.")
    taste = cmem.remember("Jonas likes pairing on tricky bugs.")
    clock.advance(days=40)
    new = cmem.remember("Jonas moved to the new forecasting project in March.")
    (update,) = cmem.consolidation.updates()
    assert (update.a_id, update.b_id) == (old.id, new.id)
    assert "valid_to" not in cmem.get(taste.id).metadata
