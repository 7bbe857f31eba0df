"""Times named in a query, read as intervals of creation time."""

from __future__ import annotations

from datetime import datetime, timezone

from hypothesis import given
from hypothesis import strategies as st

from mnemotree.retrieval.dates import Interval, intervals

NOW = datetime(2026, 3, 18, 15, 0, tzinfo=timezone.utc)  # a Wednesday


def at(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=timezone.utc)


def test_day_month_and_year_forms() -> None:
    (day,) = intervals("What did Gina find on 1 February, 2023?", NOW)
    assert day == Interval(at(2023, 2, 1), at(2023, 2, 2))
    (day,) = intervals("who came on May 3rd, 2023", NOW)
    assert day == Interval(at(2023, 5, 3), at(2023, 5, 4))
    (month,) = intervals("What did John do in March 2023?", NOW)
    assert month == Interval(at(2023, 3, 1), at(2023, 4, 1))
    (december,) = intervals("plans for dec 2023", NOW)
    assert december.end == at(2024, 1, 1)


def test_a_month_alone_means_that_month_of_any_year() -> None:
    (june,) = intervals("When did Melanie go camping in June?", NOW)
    assert june.month == 6 and june.holds(at(2021, 6, 30)) and not june.holds(at(2021, 7, 1))


def test_may_the_verb_and_bare_numbers_are_not_dates() -> None:
    assert intervals("What may happen next?", NOW) == []
    assert intervals("She ran 5 miles in 2023 minutes", NOW) == []
    assert intervals("31 February 2023", NOW) == []  # not a date: no constraint
    assert intervals("on 31 December 9999", NOW) == []  # its next day is past datetime's range
    assert intervals("in December 9999", NOW) == []
    assert len(intervals("a trip in may", NOW)) == 1


def test_relative_times_follow_the_clock() -> None:
    (yesterday,) = intervals("what did I eat yesterday", NOW)
    assert yesterday == Interval(at(2026, 3, 17), at(2026, 3, 18))
    (week,) = intervals("notes from last week", NOW)
    assert week == Interval(at(2026, 3, 9), at(2026, 3, 16))
    (month,) = intervals("bills from last month", NOW)
    assert month == Interval(at(2026, 2, 1), at(2026, 3, 1))
    (this_year,) = intervals("goals for this year", NOW)
    assert this_year.holds(at(2026, 12, 31)) and not this_year.holds(at(2027, 1, 1))


@given(st.text(max_size=200))
def test_any_text_parses_without_error(text: str) -> None:
    for interval in intervals(text, NOW):
        assert interval.month is not None or (
            interval.start is not None
            and interval.end is not None
            and interval.start < interval.end
        )
