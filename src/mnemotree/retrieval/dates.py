"""Explicit time in a query ("on 3 May 2023", "in March 2023", "in June",
"last week") as intervals a node's creation time can fall in.

A question that names a time asks about memories made then; the `time`
score part rewards them. Only unambiguous forms are read: "may" counts as a
month only after "in" or "of", a bare number is never a day.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

_MONTHS = {
    name[:3]: number
    for number, name in enumerate(
        "january february march april may june july august september october november "
        "december".split(),
        start=1,
    )
}
_MONTH = (
    r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(\d{4})"
_DAY_MONTH_YEAR = re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH}\.?,?\s+{_YEAR}\b")
_MONTH_DAY_YEAR = re.compile(rf"\b{_MONTH}\.?\s+{_DAY},?\s+{_YEAR}\b")
_MONTH_YEAR = re.compile(rf"\b{_MONTH}\.?,?\s+(?:of\s+)?{_YEAR}\b")
_MONTH_ALONE = re.compile(rf"\b{_MONTH}\b")
_VERB_MAY = re.compile(r"\b(?:in|of)\s+may\b")
_RELATIVE = re.compile(r"\b(today|yesterday|(?:last|this)\s+(?:week|month|year))\b")


@dataclass(frozen=True, slots=True)
class Interval:
    """[start, end) in UTC; with `month` set instead, that month of any year."""

    start: datetime | None = None
    end: datetime | None = None
    month: int | None = None

    def holds(self, when: datetime) -> bool:
        if self.month is not None:
            return when.month == self.month
        assert self.start is not None and self.end is not None
        return self.start <= when < self.end


def _day(year: int, month: int, day: int) -> Interval | None:
    try:
        start = datetime(year, month, day, tzinfo=timezone.utc)
        return Interval(start, start + timedelta(days=1))
    except (ValueError, OverflowError):  # "31 February", "31 December 9999": no constraint
        return None


def _month(year: int, month: int) -> Interval | None:
    if not 1 <= year <= 9998:
        return None
    start = datetime(year, month, 1, tzinfo=timezone.utc)
    end = datetime(year + (month == 12), month % 12 + 1, 1, tzinfo=timezone.utc)
    return Interval(start, end)


def _relative(phrase: str, now: datetime) -> Interval:
    today = now.astimezone(timezone.utc).replace(hour=0, minute=0, second=0, microsecond=0)
    if phrase == "today":
        return Interval(today, today + timedelta(days=1))
    if phrase == "yesterday":
        return Interval(today - timedelta(days=1), today)
    which, unit = phrase.split()
    if unit == "week":
        start = today - timedelta(days=today.weekday())
        span = timedelta(days=7)
        return Interval(start - span, start) if which == "last" else Interval(start, start + span)
    if unit == "month":
        this = datetime(today.year, today.month, 1, tzinfo=timezone.utc)
        if which == "this":
            interval = _month(today.year, today.month)
        else:
            previous = this - timedelta(days=1)
            interval = _month(previous.year, previous.month)
        assert interval is not None
        return interval
    year = today.year - (which == "last")
    return Interval(
        datetime(year, 1, 1, tzinfo=timezone.utc), datetime(year + 1, 1, 1, tzinfo=timezone.utc)
    )


def intervals(query: str, now: datetime) -> list[Interval]:
    """The times a query names, most specific forms first; [] when it names none."""
    text = query.lower()
    found: list[Interval] = []
    taken: list[tuple[int, int]] = []

    def free(span: tuple[int, int]) -> bool:
        return all(span[1] <= a or span[0] >= b for a, b in taken)

    def keep(interval: Interval | None, span: tuple[int, int]) -> None:
        taken.append(span)  # a bad date still uses up its words
        if interval is not None:
            found.append(interval)

    for match in _DAY_MONTH_YEAR.finditer(text):
        day, month, year = match.groups()
        keep(_day(int(year), _MONTHS[month[:3]], int(day)), match.span())
    for match in _MONTH_DAY_YEAR.finditer(text):
        if free(match.span()):
            month, day, year = match.groups()
            keep(_day(int(year), _MONTHS[month[:3]], int(day)), match.span())
    for match in _MONTH_YEAR.finditer(text):
        if free(match.span()):
            month, year = match.groups()
            keep(_month(int(year), _MONTHS[month[:3]]), match.span())
    for match in _MONTH_ALONE.finditer(text):
        word = match.group(1)
        if not free(match.span()) or (word == "may" and not _VERB_MAY.search(text)):
            continue
        keep(Interval(month=_MONTHS[word[:3]]), match.span())
    for match in _RELATIVE.finditer(text):
        keep(_relative(" ".join(match.group(1).split()), now), match.span())
    return found
