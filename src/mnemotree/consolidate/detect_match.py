"""What the contradiction rules share: how a word is found in a statement
(a form, a derivation, a word of its frame), how names are told apart, and
the dates and times a statement says."""

from __future__ import annotations

from dataclasses import dataclass
from difflib import SequenceMatcher

from .detect_lexicon import FIXED, FRAME_OF, PERIODS, STOP, UNITS, root, stem
from .detect_parse import Group, Statement
from .detect_tokens import Value

PERSONS = frozenset({"user", "we", "you"})


@dataclass(frozen=True, slots=True)
class Hit:
    kind: str
    reason: str
    confidence: float
    slot: frozenset[str] = frozenset()  # the words the values are; no attribute words
    holder: bool = False  # the later's subject is the new value: no other subject


def known(word: str, vocab: frozenset[str], framed: bool = True) -> bool:
    """The word, a form of it or a word it starts ("consult", "consultant"),
    or one of its derivation ("manager", "management"); `framed`: or another
    word of its frame ("lives", "based")."""
    if word in vocab or (framed and FRAME_OF.get(word, "") in vocab):
        return True
    if "-" in word and stem(word.replace("-", "")) in vocab:
        return True
    if "-" in word:  # "per-seat": "seat"
        parts = [p for p in word.split("-") if p != word and len(p) >= 3]
        return any(known(p, vocab, framed) for p in parts)
    if len(word) < 5:
        # a short stem is known by a word derived from it: "smok" by "smoker"
        return len(word) >= 4 and any(len(v) >= 5 and root(v) == word for v in vocab)
    base = root(word)
    return any(
        len(v) >= 5 and (v.startswith(word) or word.startswith(v) or root(v) == base) for v in vocab
    )


def verbs(group: Group) -> frozenset[str]:
    return frozenset(f[3:].partition(":")[0] for f in group.frames if f.startswith("@v:"))


def value_words(group: Group) -> frozenset[str]:
    """Words that are values (names, roles, "master"): not the attribute."""
    names = {w for v in group.values if v.kind == "name" for w in str(v.key).split()}
    phrases = {w for p in (*group.roles, *group.complements, *group.new) for w in p}
    return frozenset(names | phrases)


def frames_of(words: tuple[str, ...]) -> frozenset[str]:
    return frozenset(FRAME_OF[w] for w in words if w in FRAME_OF)


# Frames near enough for a denial: to stop using something denies liking it.
_NEAR_FRAMES = {"@use": "@like"}


def fold(words: frozenset[str]) -> frozenset[str]:
    folded = (FRAME_OF.get(w, w) for w in words)
    return frozenset(_NEAR_FRAMES.get(w, w) for w in folded)


def said(group: Group) -> frozenset[str]:
    return group.words | frozenset(group.subject)


def equal(x: Value, y: Value) -> bool:
    """One value: "50k a year" is "4,166.67 a month"; "v2" is no "2.0"."""
    if isinstance(x.key, float) and isinstance(y.key, float):
        left, right = x.key, y.key
        if x.rate != y.rate and per_second(x.rate) and per_second(y.rate):
            left, right = left / per_second(x.rate), right / per_second(y.rate)
        return abs(left - right) <= 1e-6 * max(1.0, abs(left))
    return str(x.key) == str(y.key)


def per_second(rate: str) -> float:
    """How long a rate's period is ("month"), in seconds; 0 if it is no time."""
    if rate in ("month", "year"):
        return PERIODS["monthly" if rate == "month" else "yearly"]
    unit = UNITS.get(rate)
    return float(unit[1]) if unit is not None and unit[0] == "s" else 0.0


TIME_KINDS = ("day", "month", "weekday", "time", "year", "period", "quarter", "daypart")


def time_parts(values: tuple[Value, ...]) -> dict[str, set[object]]:
    """Days, months, weekdays, times, years and periods said, each apart: "May
    3rd, 2024" and "2024-05-03" say one day."""
    parts: dict[str, set[object]] = {k: set() for k in TIME_KINDS}
    for v in values:
        if v.kind == "date" and isinstance(v.key, tuple):
            month, day, year = v.key
            parts["day"].add(day)
            if month:
                parts["month"].add(month)
            if year:
                parts["year"].add(year)
        elif v.kind in parts:
            parts[v.kind].add(v.key)
    return parts


def shown_times(values: tuple[Value, ...], kind: str) -> str:
    kinds = {"day": ("date",), "month": ("date", "month"), "year": ("date", "year")}
    shown = [v.shown for v in values if v.kind in kinds.get(kind, (kind,))]
    return ", ".join(shown) or kind


def is_subject(value: Value, group: Group) -> bool:
    return any(same_name(str(value.key), str(v.key)) for v in group.subject_names)


def similar(x: Value, y: Value) -> bool:
    """Two spellings of one name, perhaps ("Bangalore", "Bengaluru"); not two
    identifiers ("eu-west-1", "stage.acme.io"), which differ by design."""
    x_key, y_key = str(x.key), str(y.key)
    if any(not c.isalpha() and c not in " '" for c in x_key + y_key):
        return False
    if x_key[:1] != y_key[:1] or abs(len(x_key) - len(y_key)) > 2:
        return False
    return SequenceMatcher(None, x_key, y_key).ratio() >= 0.6


def in_group(name: str, group: Group) -> bool:
    if any(v.kind == "name" and same_name(name, str(v.key)) for v in group.values):
        return True
    return words_of(name, group.words)


def frames_meet(ga: Group, gb: Group) -> bool:
    """Do the two speak of one attribute: one frame, or a change of any."""
    mine, theirs = ga.frames - {"@change"}, gb.frames - {"@change"}
    if mine & theirs:
        return True
    if "@change" in gb.frames:
        # to move is to change where someone or something is, or runs: it says
        # nothing of an employer, a lead or a liking ("Lena works at Finch
        # Labs" / "Lena moved to Porto")
        framed = typed(mine)
        if gb.acts and gb.acts <= _MOVES and framed and framed.isdisjoint(_MOVED):
            return False
        return bool(mine - FIXED) or not mine
    # "User's editor is Vim" / "User uses Helix as their editor now"
    return "@is-name" in mine and bool(ga.head) and ga.head in gb.words


_MOVES = frozenset({stem("move"), stem("relocate"), stem("emigrate")})
_MOVED = frozenset({"@place", "@use"})


def name_in(name: str, statement: Statement) -> bool:
    if any(same_name(name, other) for other in statement.names):
        return True
    return words_of(name, statement.vocab)


def words_of(name: str, vocab: frozenset[str]) -> bool:
    """The name said in plain words ("billing" for "Billing"): all of its words."""
    # every word but a function word ("Bank of Spain"): "VS Code" is not "code"
    words = [w for w in name.split() if w not in STOP]
    return bool(words) and all(w in vocab or stem(w) in vocab for w in words)


def same_name(x: str, y: str) -> bool:
    """One name, perhaps said shorter: "Postgres" / "PostgreSQL", "Nike
    Pegasus" / "Pegasus"; not "Oak School" / "Elm School"."""
    if x == y or (min(len(x), len(y)) >= 4 and (x.startswith(y) or y.startswith(x))):
        return True
    words_x, words_y = x.split(), y.split()
    shorter, longer = sorted((words_x, words_y), key=len)
    return len(longer) > len(shorter) and all(w in longer for w in shorter)


def show(group: Group, words: tuple[str, ...]) -> str:
    return " ".join(group.shown.get(w, w) for w in words)


def typed(frames: frozenset[str]) -> frozenset[str]:
    return frozenset(f for f in frames if not f.startswith("@v:")) - {"@change", "@is-name"}
