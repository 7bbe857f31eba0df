"""Scheduled consolidation: a daemon thread applies runs until stopped."""

from __future__ import annotations

from pathlib import Path

import pytest

from mnemotree import Memory
from mnemotree.consolidate.schedule import Schedule
from mnemotree.errors import InvalidInput


def test_a_schedule_applies_runs_until_stopped(db_path: Path) -> None:
    with Memory(db_path, embedder="hashing") as mem:
        mem.remember("Alice lives in Berlin")
        schedule = mem.consolidation.schedule(0.05)
        try:
            assert schedule.wait_for_runs(2, timeout=60)
        finally:
            schedule.stop()
        assert not schedule.errors
        first = schedule.runs[0]
        assert first.summary == {"decay": 1}  # the first run stores the decay factor
        assert schedule.runs[1].id == ""  # nothing changed since: no second run recorded
        assert [r.id for r in mem.consolidation.runs()] == [first.id]
        count = len(schedule.runs)
        assert not schedule.wait_for_runs(count + 1, timeout=0.3)  # stopped for good


def test_a_schedule_needs_a_positive_period(db_path: Path) -> None:
    with Memory(db_path, embedder="hashing") as mem:
        for bad in (0, -1, True, "soon"):
            with pytest.raises(InvalidInput):
                mem.consolidation.schedule(bad)  # type: ignore[arg-type]


def test_a_failing_consolidation_is_reported_and_retried() -> None:
    calls: list[int] = []

    def failing() -> object:
        calls.append(1)
        raise InvalidInput("broken policy", None)

    schedule = Schedule(failing, 0.02)  # type: ignore[arg-type]
    schedule.start()
    try:
        assert schedule.wait_for_runs(2, timeout=60)
    finally:
        schedule.stop()
    assert len(schedule.errors) >= 2 and schedule.errors[0] == "broken policy"
