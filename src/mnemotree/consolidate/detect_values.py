"""The typed values of a statement's tokens (`detect_tokens`): numbers with
their units, dates, times, periods, versions and names.

A value is compared with another of its kind only: "port 8080" with "port
9090", "Tuesday at 3pm" with "Thursday at 11am", "Kubernetes 1.27" with
"Kubernetes 1.29", "Berlin" with "Lisbon". Numbers carry the unit written
after them (or the word written before them, "port", "Python"), in one
spelling and scale, so "30 seconds" equals "half a minute" and "10 MB" equals
"10 megabytes".
"""

from __future__ import annotations

import re
from itertools import pairwise

from .detect_lexicon import (
    CHANGE_STEMS,
    MONTHS,
    MULTIPLIERS,
    NEGATORS,
    NUMBER_WORDS,
    OCCUPATION,
    ORDINALS,
    PERIODS,
    PRONOUNS,
    SLACK,
    STOP,
    UNITS,
    VERB_STEMS,
    WEEKDAYS,
    stem,
)
from .detect_tokens import Token, Value, is_name

# Words after which an acronym is a value: "runs on AWS", "migrated to GCP".
_VALUE_BEFORE = frozenset("on to from in at with is are was were via onto into".split())
_DAYPARTS = {"morning": 1, "afternoon": 2, "evening": 3, "night": 4, "overnight": 4}
_TITLES = frozenset("dr mr mrs ms miss prof sir dame".split())
_YEAR_BEFORE = frozenset("in since of from until by before after year , circa around".split())
# After a number, words that make it an amount of change ("one more month",
# "two extra nodes"), never the value of an attribute.
_COMPARATIVES = frozenset("more fewer less extra additional".split())
# Verbs that name no attribute of the number they take.
_LIGHT = frozenset("has have had having get gets got take takes took make makes made".split())
_GLUED = re.compile(r"(\d[\d,]*(?:\.\d+)*)(%|[a-zA-Z]+)?$")


def annotate(tokens: list[Token]) -> None:
    """Give each token its stem and each value token its typed value."""
    for token in tokens:
        if token.kind == "word":
            token.stem = stem(token.low)
    for i, token in enumerate(tokens):
        if token.kind == "word":
            before = tokens[i - 1].low if i else ""
            nxt = tokens[i + 1] if i + 1 < len(tokens) else None
            token.named = before in _VALUE_BEFORE and (
                nxt is None or nxt.kind != "word" or nxt.low in STOP or nxt.low in SLACK
            )
            if token.raw.isupper() and OCCUPATION.search(token.low):
                token.named = False  # "promoted to COO": a role, no name
        if token.taken or token.unit:
            continue
        value = _value_at(tokens, i)
        if value is not None:
            token.value = value
            token.kind = "num" if value.kind in ("number", "version") else value.kind
            if value.kind == "number" and not value.unit:
                _claim_unit(tokens, i)
    _names(tokens)
    _nouns(tokens)


def _names(tokens: list[Token]) -> None:
    """Runs of capitalised words are one name ("St Mary's", "Finch Labs")."""
    for token, nxt in pairwise(tokens):
        if token.low in _TITLES and nxt.raw[:1].isupper():
            token.taken = True  # "Dr Moreno" is Moreno: a title is said or not
    i = 0
    while i < len(tokens):
        if tokens[i].taken or tokens[i].unit or not (is_name(tokens[i]) or _acronym_of(tokens, i)):
            i += 1
            continue
        j = i + 1
        while j < len(tokens) and tokens[j].kind == "word" and tokens[j].raw[:1].isupper():
            if tokens[j].low in MONTHS or tokens[j].low in WEEKDAYS or tokens[j].low in PRONOUNS:
                break  # "At Finch Labs I ...": the name ends before "I"
            j += 1
        words = [t.low for t in tokens[i:j]]
        shown = " ".join(t.raw.removesuffix("'s") for t in tokens[i:j])
        for t in tokens[i:j]:
            t.stem = t.low  # a name is not stemmed: "Ines" is no "in"
        tokens[i].kind = "name"
        tokens[i].value = Value("name", " ".join(words), shown)
        for t in tokens[i + 1 : j]:
            t.kind, t.taken = "name", True
        i = j


def _acronym_of(tokens: list[Token], i: int) -> bool:
    """An acronym that opens a name: "VS Code", "AWS Lambda"."""
    token = tokens[i]
    nxt = tokens[i + 1] if i + 1 < len(tokens) else None
    acronym = token.kind == "word" and token.raw.isupper() and len(token.raw) > 1
    return acronym and nxt is not None and is_name(nxt) and not nxt.first


def _nouns(tokens: list[Token]) -> None:
    """The plain noun after a name says what kind of thing it is ("the
    eu-west-1 cluster", "the Notion workspace"); a verb or a function word
    after it says nothing of the kind ("Kotlin is", "Berlin in May")."""
    for i, token in enumerate(tokens):
        if token.value is None or token.value.kind != "name":
            continue
        j = i + 1
        while j < len(tokens) and tokens[j].kind == "name" and tokens[j].taken:
            j += 1
        after = tokens[j] if j < len(tokens) else None
        if after is None or after.kind != "word" or after.taken or not after.raw[:1].islower():
            continue
        low = after.low
        if low in STOP or low in SLACK or low in NEGATORS or low in PRONOUNS or low == "rather":
            continue
        if stem(low) in VERB_STEMS or low.endswith(("ed", "ing", "ly")):
            continue
        value = token.value
        token.value = Value("name", value.key, value.shown, anchor=value.anchor, noun=stem(low))


def _number(low: str) -> tuple[float, str] | None:
    """A written number and the letters glued to it ("10mb", "9th", "50k")."""
    match = _GLUED.match(low)
    if match is None:
        return None
    digits, suffix = match.group(1).replace(",", ""), (match.group(2) or "").lower()
    try:
        number = float(digits) if digits.count(".") <= 1 else float("nan")
    except ValueError:
        return None
    return number, suffix


def _value_at(tokens: list[Token], i: int) -> Value | None:
    token = tokens[i]
    if token.kind == "iso":
        year, month, day = (int(x) for x in token.raw.split("-"))
        return Value("date", (month, day, year), token.raw)
    if token.kind == "slashed":  # 3/4/2026: read one way for every statement
        first, second, year = (int(x) for x in token.raw.split("/"))
        return Value("date", (first, second, year if year > 99 else 2000 + year), token.raw)
    if token.kind == "time":
        return Value("time", _minutes(token.low), token.raw)
    if token.kind == "res":  # a screen resolution
        return Value("resolution", re.sub(r"\s|×", "x", token.low).replace("xx", "x"), token.raw)
    if token.kind == "money":
        return _money(tokens, i)
    if token.kind == "num":
        return _numeral(tokens, i)
    if token.kind != "word":
        return None
    if re.fullmatch(r"v\d+(?:\.\d+)*", token.low):  # "v2", "v3.1"
        return Value("version", token.low[1:], token.raw, anchor=_anchor(tokens, i))
    if re.fullmatch(r"q[1-4]", token.low):  # a quarter: "Q3"
        return Value("quarter", int(token.low[1]), token.raw)
    if any(c.isdigit() for c in token.low) and len(token.low) > 2:
        return Value("name", token.low, token.raw)  # an identifier: "eu-west-1"
    if re.fullmatch(r"[a-z0-9-]+(?:\.[a-z0-9-]+)+|\S+@\S+\.\w+", token.low) and "." in token.low:
        return Value("name", token.low, token.raw)  # a host or address: "stage.acme.io"
    return _word_value(tokens, i)


def _minutes(low: str) -> int:
    match = re.match(r"(\d{1,2})(?::(\d{2}))?\s?([ap])?", low)
    assert match is not None  # the token pattern matched these digits
    hours, minutes = int(match.group(1)), int(match.group(2) or 0)
    if match.group(3) == "p" and hours < 12:
        hours += 12
    elif match.group(3) == "a" and hours == 12:
        hours = 0
    return hours * 60 + minutes


def _money(tokens: list[Token], i: int) -> Value:
    raw = tokens[i].raw.replace(" ", "")
    unit = UNITS[raw[0]][0]
    parsed = _number(raw[1:].lower())
    amount, suffix = parsed if parsed else (0.0, "")
    amount *= {"k": 1e3, "m": 1e6, "bn": 1e9}.get(suffix, 1)
    return Value("number", amount, tokens[i].raw, unit, rate=_rate(tokens, i + 1))


def _numeral(tokens: list[Token], i: int) -> Value | None:
    token = tokens[i]
    parsed = _number(token.low)
    if parsed is None:
        return None
    number, suffix = parsed
    digits = token.low[: len(token.low) - len(suffix)] if suffix else token.low
    if suffix in ("st", "nd", "rd", "th"):
        return _ordinal(tokens, i, number)
    if number != number or _versioned(tokens, i):  # a.b.c, or "Python 3.12"
        return Value("version", digits, token.raw, anchor=_anchor(tokens, i))
    month = _month_near(tokens, i)
    if month and 1 <= number <= 31 and not suffix:
        return Value("date", (month, int(number), None), _date_shown(tokens, i))
    if not suffix and 1900 <= number <= 2100 and "," not in digits and "." not in digits:
        before = tokens[i - 1].low if i else ""
        if before in _YEAR_BEFORE or before in MONTHS:
            return Value("year", int(number), token.raw)
    if suffix == "k":
        number, suffix = number * 1000, ""
    if not suffix and _hour(tokens, i, number):
        return Value("time", int(number) * 60, token.raw)  # "starts at 10"
    if not suffix and i + 1 < len(tokens) and tokens[i + 1].low in ("times", "time"):
        how_often = _times_per(tokens, i, number)  # "3 times a week": how often
        if how_often is not None:
            return how_often
    unit, scale = UNITS.get(suffix, UNITS.get(stem(suffix), (suffix, 1)))
    value = Value("number", number * scale, token.raw, unit, anchor=_anchor(tokens, i))
    if suffix and "/" not in token.low:
        value = _with_rate(value, _rate(tokens, i + 1))
    return value


def _date_shown(tokens: list[Token], i: int) -> str:
    near = [t.raw for t in tokens[max(0, i - 1) : i + 3] if t.low in MONTHS]
    return f"{near[0]} {tokens[i].raw}" if near else tokens[i].raw


def _hour(tokens: list[Token], i: int, number: float) -> bool:
    """A bare number after "at" with no unit after it is an hour: "at 10"."""
    if not (i and tokens[i - 1].low == "at" and number.is_integer() and 1 <= number <= 24):
        return False
    following = tokens[i + 1] if i + 1 < len(tokens) else None
    return following is None or following.kind == "sep" or following.low in STOP | SLACK


def _ordinal(tokens: list[Token], i: int, number: float) -> Value:
    month = _month_near(tokens, i)
    following = _next_word(tokens, i)
    if month or following is None or following.low in STOP or following.low in SLACK:
        return Value("date", (month, int(number), None), _date_shown(tokens, i))
    return Value("number", number, tokens[i].raw, following.stem)  # "3rd floor"


def _versioned(tokens: list[Token], i: int) -> bool:
    """A number right after a product name or "version" is a version."""
    if "." not in tokens[i].low:
        return False
    before = tokens[i - 1] if i else None
    return before is not None and (
        is_name(before) or before.kind == "name" or before.low in ("version", "v", "release")
    )


def _anchor(tokens: list[Token], i: int) -> str:
    """The content word a number is written after ("port 8080", "Python 3.9",
    "max_connections is set to 200")."""
    for token in reversed(tokens[max(0, i - 6) : i]):
        if token.kind == "sep" or token.value is not None:
            return ""
        if token.low in _LIGHT:
            return ""  # "has 4.6 stars" / "has 120,000 users": what it counts says which
        if token.kind not in ("word", "name") or token.low in STOP or token.low in SLACK:
            continue
        if token.low in PRONOUNS:
            return ""  # "we onboarded 4": no word names it
        if token.stem not in CHANGE_STEMS and not token.low.endswith("ed"):
            return stem(token.low)
    return ""


def _month_near(tokens: list[Token], i: int) -> int | None:
    """The month written next to a day: "May 3", "3 May", "3rd of May"."""
    before = tokens[i - 1] if i else None
    if before is not None and before.low in MONTHS and _month_word(before):
        return MONTHS[before.low]
    for offset in (1, 2):
        after = tokens[i + offset] if i + offset < len(tokens) else None
        if after is None or (offset == 2 and tokens[i + 1].low != "of"):
            break
        if after.low in MONTHS and _month_word(after):
            return MONTHS[after.low]
    return None


def _month_word(token: Token) -> bool:
    # "may" and "march" are months only when capitalised
    return token.low not in ("may", "march") or token.raw[:1].isupper()


def _next_word(tokens: list[Token], i: int) -> Token | None:
    for token in tokens[i + 1 : i + 2]:
        if token.kind == "word":
            return token
    return None


def _rate(tokens: list[Token], i: int) -> str:
    """ "per month", "a day", "/month" after a quantity."""
    if i < len(tokens) and tokens[i].kind == "path":
        return _unit_name(tokens[i].low.strip("/"))
    if i + 1 < len(tokens) and tokens[i].low in ("per", "a", "an", "each", "every"):
        name = _unit_name(tokens[i + 1].low)
        if name:
            tokens[i].taken = tokens[i + 1].taken = True
            return name
    return ""


def _unit_name(low: str) -> str:
    word = stem(low)
    if word in UNITS or low in UNITS:
        return word if word in UNITS else low
    return ""


def _with_rate(value: Value, rate: str) -> Value:
    return Value(value.kind, value.key, value.shown, value.unit, value.mods, rate, value.anchor)


def _claim_unit(tokens: list[Token], i: int) -> None:
    """The words after a bare number are its unit: "three bedrooms", "12
    worker nodes", "20 connections", "34 years old", "100 req/min"."""
    value = tokens[i].value
    assert value is not None
    start, kind = i + 1, "number"
    nxt = tokens[start] if start < len(tokens) else None
    if (
        nxt is not None
        and nxt.low in MULTIPLIERS
        and not nxt.taken
        and isinstance(value.key, float)
    ):
        shown = f"{value.shown} {nxt.raw}"  # "40 million requests"
        value = Value("number", value.key * MULTIPLIERS[nxt.low], shown, anchor=value.anchor)
        nxt.taken, start = True, start + 1
        nxt = tokens[start] if start < len(tokens) else None
    if nxt is not None and nxt.low in _COMPARATIVES:
        nxt.taken, start, kind = True, start + 1, "delta"  # "one more month": by how much
    words: list[Token] = []
    for k, token in enumerate(tokens[start : start + 4], start=start):
        if token.low in PERIODS and not words:
            continue  # "120,000 monthly active users": users, counted monthly
        if (
            token.low in SLACK
            and not words
            and not _unit_name(token.low)
            and _noun_at(tokens, k + 1)
        ):
            continue  # "4 new engineers": engineers
        if token.kind != "word" or token.taken or token.unit or _not_unit(token):
            break
        words.append(token)
        if _unit_name(token.low.split("/")[0]) or len(words) == 2:
            break
    if not words:  # "950 a month": no unit, a rate
        rate = _rate(tokens, start)
        tokens[i].value = _part_of(value, kind, rate) or Value(
            kind, value.key, value.shown, "", value.mods, rate, value.anchor
        )
        return
    head = words[-1]
    per = ""
    if "/" in head.low:
        name, _, per = head.low.partition("/")
        per = _unit_name(per) or per
    else:
        name = head.low
    unit, scale = _unit_of(name)
    mods = frozenset(w.stem for w in words[:-1])
    end = start + len(words)
    after = tokens[end] if end < len(tokens) else None
    if unit == "year" and after is not None and after.low == "old":
        unit, after.taken = "age", True
    for w in words:
        w.unit = True
    key = value.key * scale if isinstance(value.key, float) else value.key
    rate = per or _rate(tokens, end)
    tokens[i].value = Value(kind, key, value.shown, unit, mods, rate, value.anchor)


def _part_of(value: Value, kind: str, rate: str) -> Value | None:
    """ "half an hour": a part of one unit, no rate."""
    one = UNITS.get(rate)
    if one is None or not isinstance(value.key, float) or not 0 < value.key < 1:
        return None
    return Value(kind, value.key * float(one[1]), value.shown, str(one[0]), anchor=value.anchor)


def _noun_at(tokens: list[Token], k: int) -> bool:
    token = tokens[k] if k < len(tokens) else None
    return token is not None and token.kind == "word" and not _not_unit(token)


def _unit_of(word: str) -> tuple[str, float]:
    """A unit in one spelling and its scale: "megabytes" -> ("b", 1e6)."""
    for form in (word, word.removesuffix("s"), stem(word)):
        if form in UNITS:
            return UNITS[form]
    return stem(word), 1


def _not_unit(token: Token) -> bool:
    low = token.low
    if low in SLACK and _unit_name(low):
        return False  # "five weeks", though "last week" is no attribute
    if low in STOP or low in NEGATORS or low in SLACK or is_name(token) or low.endswith("ly"):
        return True
    if low in MONTHS or low in WEEKDAYS:
        return True
    # after a number a plural is a noun ("5 runs"); another verb form is a verb
    verb = stem(low) in VERB_STEMS and not low.endswith("s")
    return verb and not _unit_name(low)


def _word_value(tokens: list[Token], i: int) -> Value | None:
    token = tokens[i]
    low = token.low
    if low in MONTHS and _month_word(token) and not (low == "may" and token.first):
        return Value("month", MONTHS[low], token.raw)
    part = low.rpartition("-")[2]
    if low.startswith(("mid-", "early-", "late-", "end-")) and part in MONTHS:
        return Value("month", MONTHS[part], token.raw)  # "mid-October"
    long_enough = len(low) > 4 or (token.raw[:1].isupper() and not token.first)  # "Fri"
    day = WEEKDAYS.get(low.removesuffix("s")) if long_enough else None
    if day is not None:
        return Value("weekday", day, token.raw)
    if low in PERIODS:
        return Value("period", PERIODS[low], token.raw)
    if low == "every":
        return _every(tokens, i)
    if low in ("noon", "midday", "midnight"):
        return Value("time", 720 if low != "midnight" else 0, token.raw)
    if low.removesuffix("s") in _DAYPARTS:  # "mornings" / "in the afternoon"
        return Value("daypart", _DAYPARTS[low.removesuffix("s")], token.raw)
    if low in ORDINALS and i and tokens[i - 1].low == "the":
        return _ordinal(tokens, i, ORDINALS[low])
    if low in NUMBER_WORDS or low in MULTIPLIERS:
        return _number_words(tokens, i)
    if low in ("a", "an"):
        return _one_unit(tokens, i)
    return None


def _one_unit(tokens: list[Token], i: int) -> Value | None:
    """ "takes an hour", "lasts a week": one of a unit of time; not a rate
    ("$15 a month", "twice a week"), whose number comes first and claims it."""
    nxt = tokens[i + 1] if i + 1 < len(tokens) else None
    if nxt is None or nxt.kind != "word" or nxt.taken or nxt.unit:
        return None
    before = tokens[i - 1] if i else None
    if before is not None and (before.value is not None or before.low in NUMBER_WORDS):
        return None  # "half an hour", "4 a day"
    if before is not None and before.low in ("per", "each", "every", "once", "twice"):
        return None
    if before is not None and not (
        before.low in STOP or before.low in SLACK or before.stem in VERB_STEMS
    ):
        return None  # "half a pizza a day": the rate of a thing counted
    unit = UNITS.get(nxt.low) or UNITS.get(stem(nxt.low))
    if unit is None or unit[0] not in ("s", "month", "year") or nxt.low.endswith("s"):
        return None
    nxt.unit = True
    return Value("number", float(unit[1]), f"{tokens[i].raw} {nxt.raw}", unit[0])


def _every(tokens: list[Token], i: int) -> Value | None:
    """ "every two weeks", "every other week", "every night"."""
    count, j = 1.0, i + 1
    if j < len(tokens) and tokens[j].low == "other":
        count, j = 2.0, j + 1
    elif j < len(tokens) and tokens[j].low in NUMBER_WORDS:
        count, j = float(NUMBER_WORDS[tokens[j].low]), j + 1
    elif j < len(tokens) and tokens[j].kind == "num":
        parsed = _number(tokens[j].low)
        count, j = (parsed[0] if parsed else 1.0), j + 1
    if j >= len(tokens):
        return None
    if WEEKDAYS.get(tokens[j].low.removesuffix("s")):  # "every Friday" is weekly
        for t in tokens[i + 1 : j]:  # "every other Thursday": the weekday stays a value
            t.taken = True
        return Value("period", count * 604800, " ".join(t.raw for t in tokens[i : j + 1]))
    seconds = _seconds(tokens[j].low)
    if seconds is None:
        return None
    for t in tokens[i + 1 : j + 1]:
        t.taken = True
    return Value("period", count * seconds, " ".join(t.raw for t in tokens[i : j + 1]))


def _seconds(word: str) -> float | None:
    """How long a day, week or month is, for periods ("every month")."""
    word = {"night": "day", "morning": "day", "evening": "day", "weekday": "day"}.get(word, word)
    word = stem(word)
    if word in ("month", "year", "quarter"):
        return PERIODS[{"month": "monthly", "year": "yearly"}.get(word, "quarterly")]
    unit = UNITS.get(word)
    return unit[1] if unit is not None and unit[0] == "s" else None


def _pronoun_one(tokens: list[Token], i: int) -> bool:
    before = tokens[i - 1].low if i else ""
    after = tokens[i + 1].low if i + 1 < len(tokens) else ""
    return before in _ONE_BEFORE or after in ("of", "that", "which", "who")


_ONE_BEFORE = frozenset("a an the new old this that each every any which another no".split())


def _times_per(tokens: list[Token], i: int, count: float) -> Value | None:
    """ "twice a week", "3 times per month": a period."""
    j = i + 1
    if j < len(tokens) and tokens[j].low in ("times", "time"):
        j += 1
    if j + 1 >= len(tokens) or tokens[j].low not in ("a", "an", "per", "each", "every"):
        return None
    seconds = _seconds(tokens[j + 1].low)
    if seconds is None or count <= 0:
        return None
    for t in tokens[i + 1 : j + 2]:
        t.taken = True
    return Value("period", seconds / count, " ".join(t.raw for t in tokens[i : j + 2]))


def _number_words(tokens: list[Token], i: int) -> Value | None:
    """ "four hundred", "a dozen", "half a minute"; not the pronoun "one"
    ("a new one", "the one we use", "one of them")."""
    if tokens[i].low == "one" and _pronoun_one(tokens, i):
        return None
    total, current, j = 0.0, 0.0, i
    while j < len(tokens) and tokens[j].kind == "word":
        low = tokens[j].low
        if low in NUMBER_WORDS:
            current += NUMBER_WORDS[low]
        elif low in MULTIPLIERS:
            current = max(current, 1) * MULTIPLIERS[low]
            if MULTIPLIERS[low] >= 1000:
                total, current = total + current, 0.0
        elif low not in ("and", "a", "an") or j == i:
            break
        j += 1
    if j == i:
        return None
    for t in tokens[i + 1 : j]:
        t.taken = True
    if tokens[j - 1].low in ("a", "an", "and"):
        j -= 1
        tokens[j].taken = False
    if tokens[i].low in ("once", "twice") or (j < len(tokens) and tokens[j].low == "times"):
        return _times_per(
            tokens, j - 1 if tokens[i].low not in ("once", "twice") else i, total + current
        )
    return Value(
        "number", total + current, " ".join(t.raw for t in tokens[i:j]), anchor=_anchor(tokens, i)
    )
