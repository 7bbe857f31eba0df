"""Offline contradiction detectors for two similar statements (seed 004).

Two statements about the same subject contradict when one negates the other
("uses Postgres" / "does not use Postgres", "likes" / "dislikes") or when
they differ only in a value: a place, an employer or role, a date, a number
or a preference ("lives in Berlin" / "moved to Lisbon", "port 8080" / "port
9090", "prefers dark mode" / "prefers light mode"). Words that differ but
are neither values nor part of such a frame mean another attribute ("the
report is due May 3" / "the slides are due May 10"); a different leading
name means another subject; "also", "too" or "another" mean an addition.
Statements are compared as bags of normalised words; no model is needed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..retrieval.query import STOPWORDS

NUMBER_WORDS = {
    "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
    "seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12",
    "fifteen": "15", "twenty": "20", "thirty": "30", "forty": "40", "fifty": "50",
    "hundred": "100", "dozen": "12", "once": "1", "twice": "2", "single": "1", "couple": "2",
}  # fmt: skip
MONTHS = frozenset(
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec".split()
)
WEEKDAYS = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday weekend weekday".split()
)
NEGATORS = frozenset("not no never none nobody nothing without neither nor".split())
# Verbs that deny, mapped to what they deny ("" when only the polarity flips).
_NEGATIVE_VERBS = {
    "dislike": "like", "hate": "love", "stop": "", "quit": "", "avoid": "", "refuse": "",
    "cancel": "", "drop": "", "abandon": "", "lack": "have",
}  # fmt: skip
ADDITION = frozenset("also too another additionally second addition besides".split())
# Words naming someone else than the subject ("Lena's sister moved to ...").
OTHERS = frozenset(
    """sister brother mother mom mum father dad parent parents wife husband partner son
    daughter kid kids child children roommate friend colleague boss cousin aunt uncle
    grandma grandpa grandmother grandfather neighbour neighbor girlfriend boyfriend""".split()
)
# States that deny each other ("married" / "divorced").
_ANTONYMS = (
    "married divorced", "married single", "employed unemployed", "open closed",
    "enabled disabled", "public private", "required optional", "alive dead",
    "allowed forbidden", "online offline", "active inactive", "available unavailable",
    "locked unlocked", "on off", "win lose", "pass fail", "accepted rejected",
)  # fmt: skip
_PREFER = re.compile(
    r"\b(?:prefers?|preferred|likes?|liked|loves?|loved)\s+(\w+)\s+(?:to|over|more than)\s+"
    r"(\w+)|\brather\s+(?:\w+\s+)?(\w+)\s+than\s+(?:\w+\s+)?(\w+)",
    re.I,
)
# Words that frame a value: with one of them in either statement, differing
# ordinary words are the value (a place, job or taste) rather than another attribute.
FRAMES = {
    "place": "live home house based reside settle move relocate city town country apartment "
             "flat stay located neighborhood neighbourhood host hosted migrate region",
    "work": "work job role position title career employ employer hire join company team "
            "office engineer manager promote",
    "taste": "like love prefer favorite favourite enjoy fan into choice pick want "
             "diet eat drink use using",
    "time": "date day time deadline due schedule meeting birthday anniversary start end "
            "appointment week month year",
    "amount": "number count price cost budget age size version port limit salary rent "
              "weigh weight height total",
}  # fmt: skip
# Words that say a value changed, or when: never an attribute of their own.
_SLACK = """now currently recently just lately last ago since again anymore any more moved move
    switch change update reschedule push postpone become actually instead new old
    still today week month year back finally officially went go started start begin
    decide decided correct corrected turn turned out was were been being got get
    left leave lower raise increase decrease cut reduce extend extended bump refix hand
    handed over take took replace replaced next every each per daily weekly monthly
    yearly annually usually"""
_WORD = re.compile(r"[A-Za-z][A-Za-z'’]*|\d[\d,.:/]*(?:st|nd|rd|th|am|pm|k|m|%)?", re.UNICODE)
_CONTRACTIONS = (
    (re.compile(r"\b(can)['’]?t\b", re.I), r"\1 not"),
    (re.compile(r"\bwon['’]t\b", re.I), "will not"),
    (re.compile(r"n['’]t\b", re.I), " not"),
    (re.compile(r"\bno longer\b", re.I), "not"),
    (re.compile(r"\bgave up\b", re.I), "quit"),
)


def _stems(words: str) -> frozenset[str]:
    return frozenset(_stem(w) for w in words.split())


@dataclass(frozen=True, slots=True)
class Finding:
    kind: str  # "negation" or "changed_value"
    reason: str


@dataclass(frozen=True, slots=True)
class _Statement:
    words: frozenset[str]  # normalised content words, negators left out
    values: frozenset[str]  # of them: numbers, dates and names
    negative: bool
    subject: str  # the leading name, if the statement starts with one
    addition: bool
    shown: dict[str, str]  # stem -> the word as written
    times: frozenset[str]  # of the values: months and weekdays


def _stem(word: str) -> str:
    """A crude stem that maps a verb's forms together: live, lives, lived,
    living -> liv; stopped -> stop (a final e is always dropped)."""
    for suffix in ("ies", "ing", "ied", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 2 and not word.endswith("ss"):
            if suffix == "es" and not word.endswith(("ses", "xes", "zes", "ches", "shes")):
                suffix = "s"
            base = word[: -len(suffix)] + ("y" if suffix in ("ies", "ied") else "")
            if suffix in ("ing", "ed") and len(base) > 3 and base[-1] == base[-2] != "l":
                base = base[:-1]  # "stopped" -> "stop"
            return base.removesuffix("e")
    return word.removesuffix("e") if len(word) > 3 else word


FRAME_OF = {w: name for name, words in FRAMES.items() for w in _stems(words)}
ANTONYMS = {frozenset((_stem(x), _stem(y))) for pair in _ANTONYMS for x, y in [pair.split()]}
SLACK = _stems(_SLACK)
NEGATIVE_VERBS = {_stem(k): _stem(v) if v else "" for k, v in _NEGATIVE_VERBS.items()}


def _number(token: str) -> str | None:
    cleaned = token.lower().rstrip("stndrh").replace(",", "")
    if cleaned and cleaned[0].isdigit():
        return cleaned.rstrip(".")
    return NUMBER_WORDS.get(token.lower())


def parse(text: str) -> _Statement:
    for pattern, replacement in _CONTRACTIONS:
        text = pattern.sub(replacement, text)
    tokens = _WORD.findall(text)
    words: set[str] = set()
    values: set[str] = set()
    negations = 0
    subject = ""
    addition = False
    shown: dict[str, str] = {}
    times: set[str] = set()
    for position, token in enumerate(tokens):
        lower = token.lower().replace("’", "'").removesuffix("'s")
        number = _number(token)
        if number is not None:
            words.add(number)
            values.add(number)
            continue
        if lower in NEGATORS:
            negations += 1
            continue
        if lower in ADDITION:
            addition = True
            continue
        stem = _stem(lower)
        if stem in NEGATIVE_VERBS:
            negations += 1
            stem = NEGATIVE_VERBS[stem]
            if not stem:
                continue
        if lower in STOPWORDS:
            continue
        timely = lower in MONTHS or stem in WEEKDAYS or lower in WEEKDAYS
        # A capitalised first word is a name unless it is a word of our own
        # lists ("Monthly budget ...", "Currently ...", "May 3 ...").
        named = token[0].isupper() and (
            position > 0 or not (lower in _STARTERS or stem in SLACK or stem in FRAME_OF or timely)
        )
        if position == 0 and named:
            subject = lower
        words.add(stem)
        shown.setdefault(stem, token)
        if named or timely:
            values.add(stem)
        if timely:
            times.add(stem)
    return _Statement(
        frozenset(words),
        frozenset(values),
        negations % 2 == 1,
        subject,
        addition,
        shown,
        frozenset(times),
    )


# Capitalised only because they start the sentence.
_STARTERS = frozenset("user the my our their his her its this that we i you they it".split())


def _preference(text: str) -> tuple[str, str] | None:
    """(preferred, over) from "prefers X to Y" or "would rather X than Y"."""
    match = _PREFER.search(text)
    if match is None:
        return None
    x, y = (match.group(1), match.group(2)) if match.group(1) else (match.group(3), match.group(4))
    return _stem(x.lower()), _stem(y.lower())


def compare(
    earlier: str, later: str, parsed: dict[str, _Statement] | None = None
) -> Finding | None:
    """How `later` contradicts `earlier`, or None when they can both be true.
    A scan passes one `parsed` dict for all its pairs, so each text is parsed once."""
    if parsed is None:
        a, b = parse(earlier), parse(later)
    else:
        a = parsed.get(earlier) or parsed.setdefault(earlier, parse(earlier))
        b = parsed.get(later) or parsed.setdefault(later, parse(later))
    if a.subject and b.subject and a.subject != b.subject:
        return None  # another subject
    shared = a.words & b.words
    only_a, only_b = a.words - b.words, b.words - a.words
    if (only_a | only_b) & OTHERS:
        return None  # about someone else: a sister, a colleague
    first, second = _preference(earlier), _preference(later)
    if first and second and first == second[::-1]:
        return Finding("changed_value", f"preferred {first[0]} to {first[1]}, then the reverse")
    differ_a, differ_b = only_a - SLACK, only_b - SLACK
    for x in differ_a:
        for y in differ_b:
            if frozenset((x, y)) in ANTONYMS and shared - SLACK:
                return Finding("negation", f"{a.shown.get(x, x)} then {b.shown.get(y, y)}")
    if a.negative != b.negative:
        # Denying the same thing: one statement's words are within the other's.
        if shared - SLACK - {a.subject} and not (differ_a and differ_b):
            said = " ".join(a.shown.get(w, w) for w in sorted(shared))[:60]
            return Finding("negation", f"one says {said!r}, the other denies it")
        return None
    if a.addition or b.addition or a.negative:
        return None  # an addition; two denials of different things can both hold
    frames = {FRAME_OF[w] for w in a.words | b.words if w in FRAME_OF}
    open_slot = bool(frames & {"place", "work", "taste"})

    def changed(words: frozenset[str]) -> tuple[set[str], set[str]]:
        """(values that differ, ordinary words that differ)."""
        values, ordinary = set(), set()
        for word in words - SLACK:
            if word in FRAME_OF and FRAME_OF[word] in frames:
                continue  # the frame's own words ("live" / "moved") are not values
            if word in a.values | b.values or open_slot:
                values.add(word)
            else:
                ordinary.add(word)
        return values, ordinary

    (was, extra_a), (now, extra_b) = changed(only_a), changed(only_b)
    # Differing plain words on both sides mean another attribute ("the report"
    # / "the slides"); on one side only, more detail. Many new words: a new topic.
    if not was or not now or (extra_a and extra_b) or len(was | extra_a) > 3:
        return None
    if len(now | extra_b) > 4:
        return None
    plain = (was | now) - a.values - b.values
    if len(plain) > 3:
        return None  # a slot holds a word or two ("dark" / "light"), not a phrase
    # Names; a month or weekday is a time, like a number ("Tuesday at 3pm").
    names_a = {w for w in was if w in a.values - a.times and not _is_number(w)}
    names_b = {w for w in now if w in b.values - b.times and not _is_number(w)}
    numbers_a, numbers_b = was - names_a, now - names_b
    if names_a and names_b and numbers_a and numbers_b:
        return None  # a name and a value both differ: another entity ("Berlin office")
    linked = len(shared - SLACK - {a.subject}) >= 1 or (
        {FRAME_OF[w] for w in a.words if w in FRAME_OF}
        & {FRAME_OF[w] for w in b.words if w in FRAME_OF}
    )
    if not linked:
        return None
    before = " ".join(a.shown.get(w, w) for w in sorted(was))
    after = " ".join(b.shown.get(w, w) for w in sorted(now))
    return Finding("changed_value", f"{before} then {after}")


def _is_number(word: str) -> bool:
    return word[:1].isdigit()
