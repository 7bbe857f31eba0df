"""Tokens of a statement and the typed values they may carry: the word
pieces every detector module shares."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .detect_lexicon import (
    FRAME_OF,
    MONTHS,
    NEGATORS,
    PRONOUNS,
    SLACK,
    STOP,
    UNITS,
    VERB_STEMS,
    WEEKDAYS,
    stem,
)

_TOKEN = re.compile(
    r"(?P<iso>\b\d{4}-\d{2}-\d{2}\b)"
    r"|(?P<slashed>\b\d{1,2}/\d{1,2}/\d{2,4}\b)"
    r"|(?P<time>\b\d{1,2}:\d{2}(?:\s?[ap]\.?m\b\.?)?|\b\d{1,2}\s?[ap]\.?m\b\.?)"
    r"|(?P<res>\b\d{2,5}\s?[x×]\s?\d{2,5}\b)"
    # a comma belongs to a number only before three digits ("1,100"): "June 12, not ..."
    r"|(?P<money>[$€£]\s?\d+(?:,\d{3})*(?:\.\d+)?(?:k|bn|m)?\b)"
    r"|(?P<num>\d+(?:,\d{3})*(?:\.\d+)*(?:%|[a-zA-Z]+\b)?)"
    r"|(?P<word>[A-Za-z][\w']*(?:[-_./][\w']+)*)"
    r"|(?P<path>/[\w./-]+)"
    r"|(?P<sep>[;:,.!?()\[\]—–]|\s-\s|\s-|-\s)",
    re.UNICODE,
)
_CONTRACTIONS = (
    (re.compile(r"\b(can)'?t\b", re.I), r"\1 not"),
    (re.compile(r"\bwon't\b", re.I), "will not"),
    (re.compile(r"n't\b", re.I), " not"),
    (re.compile(r"\b(i)'m\b", re.I), r"\1 am"),
    (re.compile(r"'re\b", re.I), " are"),
    (re.compile(r"'ve\b", re.I), " have"),
    (re.compile(r"'ll\b", re.I), " will"),
    (re.compile(r"'d\b", re.I), " would"),
    (re.compile(r"\b(he|she|it|that|there|what|who)'s\b", re.I), r"\1 is"),
    (re.compile(r"\bm²|\bsq\.? ?m\b|\bsquare met(?:re|er)s?\b", re.I), "m2"),
    (re.compile(r"\bper ?cent\b", re.I), "percent"),
    (re.compile(r"\bany (?:more|longer)\b", re.I), "anymore"),
    (re.compile(r"\s?°\s?C\b|\s?º\s?C\b"), " degrees"),
    (re.compile(r"\s?°\s?F\b"), " fahrenheit"),
    (re.compile(r"\b(\d{1,2})\.(\d{2})\s?([ap])\.?m\b", re.I), r"\1:\2\3m"),  # "8.30pm"
)
_QUOTES = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"', "‑": "-"})


@dataclass(slots=True)
class Token:
    raw: str
    low: str
    stem: str
    kind: str  # word, name, num, date, time, period, sep, path
    first: bool = False  # the first word of a sentence
    named: bool = False  # an acronym where a value stands ("runs on AWS")
    possessive: bool = False  # "Sofia's"
    next_low: str = ""  # the word after, as written
    value: Value | None = None
    taken: bool = False  # part of another token's value (a name's second word, a rate)
    unit: bool = False  # the unit of a number before it ("bedrooms" of "three bedrooms")
    contrast: bool = False  # opens an alternative set aside: "rather" of "rather than X"


@dataclass(frozen=True, slots=True)
class Value:
    """A typed value. `key` is what is compared: a number in its unit's scale,
    (month, day), a weekday, minutes of a day, seconds of a period, a name."""

    kind: str  # number, version, month, day, weekday, year, time, period, name
    key: object
    shown: str
    unit: str = ""  # a number's unit ("s", "b", "usd", "node") or ""
    mods: frozenset[str] = field(default_factory=frozenset)  # "worker" of "worker nodes"
    rate: str = ""  # "per month"
    anchor: str = ""  # the word before a number ("port", "python")
    noun: str = ""  # what a name names, said after it: "cluster" of "the eu-west-1 cluster"


TIMES = frozenset("date month year quarter weekday".split())


def word_of(value: Value) -> str:
    """A value as a word of the text: a time with its kind ("quarter 1" is no
    "weekday 1"), anything else as its key."""
    return f"#{value.kind}:{value.key}" if value.kind in TIMES else str(value.key)


def prepare(text: str) -> str:
    text = text.translate(_QUOTES)
    for pattern, replacement in _CONTRACTIONS:
        text = pattern.sub(replacement, text)
    return text


def tokenize(text: str) -> list[Token]:
    tokens: list[Token] = []
    first = True
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup or "sep"
        raw = match.group().strip()
        if kind == "sep":
            if tokens:
                tokens[-1].next_low = raw
            tokens.append(Token(raw, raw, raw, "sep"))
            first = first or raw in ".!?:;—–-"
            continue
        low = raw.lower()
        if raw.isupper() and len(raw) > 1 and (low in PRONOUNS or low in STOP):
            low = raw  # "the US cluster", "the IT desk": an acronym, no pronoun
        possessive = low.endswith(("'s", "s'")) and kind == "word"
        if possessive:
            low = low[:-2] if low.endswith("'s") else low[:-1]  # "Sofia's", "the kids'"
        if tokens:
            tokens[-1].next_low = low
        tokens.append(Token(raw, low, low, kind, first=first, possessive=possessive))
        first = False
    return tokens


def is_name(token: Token) -> bool:
    """A capitalised word that is neither an acronym ("API", "PDFs") nor a
    common word capitalised only because it starts a sentence."""
    raw = token.raw.removesuffix("'s")
    if token.kind != "word":
        return False
    if not raw[:1].isupper():
        return any(c.isupper() for c in raw[1:])  # "iPhone", "eBay"
    letters = raw.rstrip("s")
    if letters.isupper() and len(letters) <= 5 and not token.named:
        return False  # an acronym: a topic word ("API", "CI"), not a value
    if token.low in PRONOUNS or token.low in MONTHS or token.low in WEEKDAYS:
        return False
    if token.first:
        word = stem(token.low)
        known = token.low in STOP or token.low in NEGATORS or token.low in SLACK
        if _modifies(token) and not token.possessive:
            return False  # "Max team size", "Grocery budget": a word before a noun
        if word in VERB_STEMS and not known and _before_verb(token):
            return True  # "Mark reports to Helen": a name, though "mark" is a verb
        return not (known or word in VERB_STEMS or word in FRAME_OF or word in UNITS)
    return True


def _modifies(token: Token) -> bool:
    """A first word before a plain lowercase word that is no verb."""
    after = token.next_low
    if not after[:1].isalpha() or after in STOP or after in NEGATORS or after in SLACK:
        return False
    return stem(after) not in VERB_STEMS and not after.endswith(("ed", "s"))


def _before_verb(token: Token) -> bool:
    return token.next_low.endswith("s") and stem(token.next_low) in VERB_STEMS
