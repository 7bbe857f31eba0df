"""Action items read from chat: who will do it, and by when.

The owner is the speaker of a first-person commitment ("I'll send it"),
the person a sentence names as doing it ("Priya will draft it", "@Sam pls
send the deck"), or the person asked who accepts ("can you own the
migration?" / "sure"). The due date is read relative to the day it was
said: weekdays, today/tonight/tomorrow, end of day/week/month, "in two
weeks", "the 14th", "March 3" and ISO dates.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_DAY = re.compile(
    r"\b(next\s+|this\s+|on\s+|by\s+|before\s+|until\s+|till\s+)?"
    r"(mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day|nesday|sday|rsday|urday)?\b",
    re.I,
)
_MONTHS = {
    m: i + 1
    for i, names in enumerate(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
    )
    for m in (names,)
}
_MONTH = r"(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
_DAY_MONTH = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}", re.I)
_MONTH_DAY = re.compile(rf"\b{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?\b", re.I)
_NTH = re.compile(r"\b(?:the\s+)(\d{1,2})(?:st|nd|rd|th)\b", re.I)
_ISO = re.compile(r"\b(20\d\d)-(\d\d)-(\d\d)\b")
_IN = re.compile(r"\bin\s+(a|one|two|three|four|five|six|\d+)\s+(day|week)s?\b", re.I)
_COUNTS = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_RELATIVE = (
    (
        re.compile(
            r"\b(?:today|tonight|eod|end of (?:the )?day|this (?:morning|afternoon|evening)|"
            r"later today|within the hour|in an hour)\b",
            re.I,
        ),
        0,
    ),
    (re.compile(r"\btomorrow\b", re.I), 1),
)
_END_OF_WEEK = re.compile(r"\b(?:eow|end of (?:the )?week)\b", re.I)
_END_OF_MONTH = re.compile(r"\b(?:eom|end of (?:the )?month)\b", re.I)

COMMIT = re.compile(
    # "on it" and "will do" are a reply's own words, not "goes on it first".
    r"^\W*(?:on it|will do)\b|"
    r"\b(?:I(?:'ll| will| shall|'m going to| am going to| can)|let me|"
    r"i'?ll take|leave it with me|i've got (?:it|this))\b",
    re.I,
)
_NAMED = re.compile(
    r"(?:^|[\s,(])@?([A-Z][a-z]+)(?:'ll| will| is going to|'s going to| to (?=\w+\b))", re.M
)
_MENTION = re.compile(r"@([A-Za-z][\w-]*)")
_VOCATIVE = re.compile(r"^([A-Z][a-z]+)[,:]\s")
_REMIND_ME = re.compile(r"\bremind me\b", re.I)
# A reply that says yes: to a request (then its speaker owns it) or to a
# proposal (then what was proposed is decided).
ACCEPT = re.compile(
    r"^\W*(?:sure|yes|yep|yeah|yup|ok(?:ay)?|on it|will do|done|deal|agreed|agree|fine|fair|"
    r"absolutely|of course|can do|no problem|np|sounds good|perfect|works for me|go for it|"
    r"let'?s do (?:it|that)|settled|great|love it|makes sense|do it|ship it|happy to|"
    r"count me in|i'?ll (?:do|take|handle|own) (?:it|that|this)|i can (?:do|take) (?:it|that))"
    r"\b|^\W*(?:👍|✅|🤝|💯)",
    re.I,
)


# What may stand around a date in a fragment that says only when: "by", "the
# latest", "say ... too", a time of day.
_WHEN_WORDS = re.compile(
    r"\b(?:by|on|at|around|about|from|before|until|till|the|latest|say|too|"
    r"then|ish|or so|next|this|morning|afternoon|evening|night)\b",
    re.I,
)
_TIME = re.compile(r"\b\d{1,2}(?::\d\d)?\s*(?:am|pm)\b|\b\d{1,2}:\d\d\b", re.I)
_DATES = (_DAY, _DAY_MONTH, _MONTH_DAY, _NTH, _ISO, _IN, _END_OF_WEEK, _END_OF_MONTH, _TIME)


def only_when(text: str) -> bool:
    """Whether a fragment says nothing but when ("may 17.", "friday at the
    latest", "say the 27th too", "thursday 👍"): it belongs to the sentence
    before it."""
    rest = text
    for pattern in (*_DATES, *(pattern for pattern, _ in _RELATIVE)):
        rest = pattern.sub(" ", rest)
    if rest == text:
        return False  # no date at all
    return not re.search(r"[^\W_]", _WHEN_WORDS.sub(" ", rest))  # a bare number is a count


def due(text: str, said_on: date | None) -> str:
    """The ISO date `text` sets, read from `said_on`; "" when it names none
    (or names it relative to a day that is not known). Of several, the first
    said: "remind me friday to renew my passport, it runs out june 3" is due
    on Friday."""
    found = _ISO.search(text)
    dates = [(found.start(), found.group(0))] if found else []
    if said_on is not None:
        named = _relative(text, said_on) + _calendar(text, said_on)
        dates += [(at, day) for at, day in named if day]
    return min(dates)[1] if dates else ""


def _relative(text: str, said_on: date) -> list[tuple[int, str]]:
    out = []
    for pattern, days in _RELATIVE:
        found = pattern.search(text)
        if found:
            out.append((found.start(), (said_on + timedelta(days=days)).isoformat()))
    found = _END_OF_WEEK.search(text)
    if found:
        friday = said_on + timedelta(days=(4 - said_on.weekday()) % 7)
        out.append((found.start(), friday.isoformat()))
    found = _END_OF_MONTH.search(text)
    if found:
        following = (said_on.replace(day=28) + timedelta(days=4)).replace(day=1)
        out.append((found.start(), (following - timedelta(days=1)).isoformat()))
    found = _IN.search(text)
    if found:
        count = _COUNTS.get(found.group(1).lower()) or int(found.group(1))
        days = count * (7 if found.group(2).lower() == "week" else 1)
        out.append((found.start(), (said_on + timedelta(days=days)).isoformat()))
    return out


def _calendar(text: str, said_on: date) -> list[tuple[int, str]]:
    out = []
    found = _DAY_MONTH.search(text)
    if found:
        month = _MONTHS[found.group(2)[:3].lower()]
        out.append((found.start(), _next_date(said_on, month, int(found.group(1)))))
    found = _MONTH_DAY.search(text)
    if found:
        month = _MONTHS[found.group(1)[:3].lower()]
        out.append((found.start(), _next_date(said_on, month, int(found.group(2)))))
    found = _DAY.search(text)
    if found:
        wanted = next(i for i, d in enumerate(_DAYS) if d.startswith(found.group(2).lower()[:3]))
        ahead = (wanted - said_on.weekday()) % 7 or 7
        if (found.group(1) or "").strip().lower() == "next" and ahead < 7 - said_on.weekday():
            ahead += 7  # "next Friday" said on a Monday: the week after
        out.append((found.start(), (said_on + timedelta(days=ahead)).isoformat()))
    found = _NTH.search(text)
    if found:
        day = int(found.group(1))
        month = said_on.month if day >= said_on.day else said_on.month % 12 + 1
        out.append((found.start(), _next_date(said_on, month, day)))
    return out


def _next_date(said_on: date, month: int, day: int) -> str:
    """That day of that month, this year or (already past) the next."""
    try:
        chosen = date(said_on.year, month, day)
        if chosen < said_on - timedelta(days=31):
            chosen = date(said_on.year + 1, month, day)
    except ValueError:
        return ""
    return chosen.isoformat()


def owner(text: str, speaker: str, reply: tuple[str, str] | None = None) -> str:
    """Who will do what `text` (said by `speaker`) sets out, or "" if it is
    not clear. `reply` is the next message (speaker, text): an accepted
    request makes its speaker the owner."""
    if _REMIND_ME.search(text):
        return speaker
    named = _NAMED.search(text) or _MENTION.search(text)
    if named and named.group(1).lower() not in ("i", "we", "you", "let", "it"):
        return named.group(1)
    if COMMIT.search(text):
        return speaker
    if reply is not None and reply[0] != speaker and ACCEPT.match(reply[1]):
        return reply[0]
    addressed = _VOCATIVE.match(text)
    return addressed.group(1) if addressed else ""
