"""What two near-paraphrases say, read for dedupe (consolidate/dedupe.py).

The embedder says how near two statements are; these readings say whether
they state one fact. Each names a general way two sentences sharing their
words state different facts (`differs` asks them all):

- `exchanged`: the same words in exchanged places of one frame ("Anna reports
  to Tomasz" / "Tomasz reports to Anna", "from Redshift to Snowflake" /
  "from Snowflake to Redshift"): who does what to whom is the fact.
- `moved_roles`: the same, said in another order ("The billing service
  calls the tax service for every invoice" / "For every invoice, the tax
  service calls the billing service"), unless turned into the passive.
- `opposite_relation`: one thing after opposite prepositions ("uploads
  invoices to the SFTP server" / "downloads invoices from the SFTP server",
  "before standup" / "after standup"): the direction is the fact.
- `opposite_action`: one action in one, its opposite in the other ("the
  train arrives in Porto" / "the train departs Porto").
- `slot_changed`: one preposition before another thing in each, neither
  said by the other statement ("for admins" / "for all users", "on the
  staging cluster" / "on the production cluster"): another value.
- `narrowed`: one statement puts a word before a noun both say ("Passwords
  must be rotated" / "Admin passwords must be rotated"): another, narrower
  subject.
- `unshared_values`: a value (a name, number, time, date, version) one
  names and the other does not: a merge would lose it, or narrow the
  statement ("Refunds need approval" / "Refunds over 500 euros need
  approval").
- `shortened`: the newer statement drops content of the older and adds none
  ("lives in Notion and is updated after every incident" / "lives in
  Notion"): merged into it, the older one's rest would be lost.
- `occurrence`: one statement reports another occurrence ("was repaired
  again", "had another outage") of what the other reports: two events.

`agreement` measures the rest: the share of each statement's content words
the other says in no form. A paraphrase the embedder finds less near (it
turned the syntax around) still says nearly every word of the other.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from .detect import parse
from .detect_lexicon import (
    FRAME_OF,
    NEGATORS,
    NUMBER_WORDS,
    STOP,
    UNITS,
    VERB_STEMS,
    root,
    stem,
)
from .detect_match import equal, name_in
from .detect_parse import Statement
from .detect_tokens import Token, Value, prepare, tokenize
from .detect_values import annotate


def form(word: str) -> str:
    """A word's base form: inflection and derivation taken off
    ("managed", "management" -> "manag")."""
    return root(stem(word))


# Function words: they frame a statement and are no part of what it says.
# Negators are left to the polarity checks, numbers to the values; words of
# extent ("the full suite", "the complete suite") narrow nothing.
CLOSED = STOP | frozenset(
    """our my your we i you us me them they he she him her it its their his
    no not never none nothing else except besides and or nor but both either
    now currently today also still already just always whoever whatever whichever
    rather instead
    full complete whole entire total""".split()
)
# What opens a noun phrase: a word after one of these and before a noun is
# that noun's modifier ("the public API", "our staging cluster").
_DETERMINERS = frozenset("the a an our my your their his her its this that these those".split())
PREPOSITIONS = frozenset(
    """in on at for to from with without by of into onto about per via over under
    before after since until above below inside outside up down out against behind
    ahead beyond across through toward towards within around near between among beside
    past along upon""".split()
)
# Prepositions of direction, each with its opposite: the same thing after
# the two is on the other end of the relation.
_OPPOSITES = (
    ("to", "from"),
    ("into", "from"),
    ("onto", "from"),
    ("into", "out"),
    ("before", "after"),
    ("above", "below"),
    ("over", "under"),
    ("with", "without"),
    ("inside", "outside"),
    ("since", "until"),
    ("up", "down"),
    ("in", "out"),
    ("for", "against"),
)
OPPOSITE = frozenset(frozenset(pair) for pair in _OPPOSITES)
# Actions that mirror or undo each other: said of one thing, one for the
# other, they state opposite facts ("the train arrives in Porto" / "the
# train departs Porto").
_OPPOSITE_ACTIONS = """arrive:depart arrive:leave land:depart come:go enter:exit enter:leave
    start:stop start:finish start:end begin:end open:close buy:sell send:receive give:take
    lend:borrow push:pull import:export upload:download win:lose gain:lose increase:decrease
    raise:lower rise:fall grow:shrink expand:shrink add:remove enable:disable accept:reject
    approve:reject approve:deny include:exclude hire:fire join:leave lock:unlock
    connect:disconnect install:uninstall encrypt:decrypt compress:decompress read:write
    pick:drop load:unload mount:unmount subscribe:unsubscribe book:cancel allow:block
    allow:forbid pass:fail attach:detach show:hide charge:refund credit:debit save:spend
    inbound:outbound incoming:outgoing upstream:downstream"""
OPPOSITE_ACTIONS = frozenset(
    frozenset(form(w) for w in pair.split(":")) for pair in _OPPOSITE_ACTIONS.split()
)
# Words that say an event happened before too: this report is of another one.
_AGAIN = frozenset("again another anew".split())
# Words that join two things said in either order with one meaning, and
# the copulas across which a whole statement may be turned around.
_JOINING = frozenset(form(w) for w in "and or nor".split())
_SYMMETRIC = _JOINING | frozenset(form(w) for w in "is are was were be been am".split())
_WORD_KINDS = frozenset({"word", "name", "path"})
# The detector's frames and verbs by the base forms used here.
_FRAME_OF_FORM = {root(w): frame for w, frame in FRAME_OF.items()}
_VERB_FORMS = frozenset(root(w) for w in VERB_STEMS)
_CLOCK_KINDS = frozenset({"time"})
# Prepositions that place one thing against another ("lags behind", "ranks
# above"): the two sides are the relation's two ends.
_POSITIONAL = frozenset("behind ahead above below over under before after beyond".split())
_COPULAS = frozenset("is are was were be been being am get gets got gotten getting".split())
# Units that name no value by themselves: time, counts, a bare "k".
_NOT_VALUES = frozenset({"s", "month", "year", "", "request", "bedroom", "cpu"})
_VALUE_UNITS = frozenset(dim for dim, _ in UNITS.values()) - _NOT_VALUES


@dataclass(frozen=True, slots=True)
class Reading:
    """One statement as dedupe compares it."""

    text: str
    statement: Statement  # the detector's parse (values, names, vocabulary)
    tokens: tuple[str, ...]  # every word in its base form ("'s" kept), in order
    function: tuple[bool, ...]  # for each token: a function word
    words: tuple[str, ...]  # content words in their base form, in order
    relations: tuple[tuple[str, str], ...]  # (preposition, the content word after it)
    modifiers: tuple[tuple[str, str], ...]  # (word, the content word it opens a phrase for)
    numerals: tuple[str, ...]  # digits as written, a clock time as "14:00"
    retired: frozenset[str]  # numerals of values it says are left ("now 10:00, not 09:30")
    units: frozenset[str]  # units named without a number ("in euros"), and of its numbers
    numbers: frozenset[float]  # numbers said in words ("three times")
    initials: frozenset[str]  # of runs of two to four content words ("dm": "direct messages")
    verb_frames: frozenset[str]  # the detector's frames of its verbs ("@like" of "prefers")
    again: bool  # says it happened before too
    clauses: tuple[Clause, ...] = ()


@dataclass(frozen=True, slots=True)
class Clause:
    """A stretch of a statement between punctuation: its content words and
    positional prepositions, and whether it has a copula or an auxiliary of the passive
    ("is", "gets")."""

    words: tuple[str, ...]
    copular: bool


@lru_cache(maxsize=4096)
def read(text: str) -> Reading:
    tokens = tokenize(prepare(text))
    annotate(tokens)
    words, relations, modifiers = _scan(tokens)
    again = any(t.low in _AGAIN for t in tokens) or "once more" in text.lower()
    statement = parse(text)
    clauses = tuple(_clauses(tokens))
    old = [v for group in statement.groups for v in group.old]
    return Reading(
        text=text,
        statement=statement,
        tokens=tuple(_token_form(t) for t in tokens if t.kind != "sep"),
        function=tuple(t.low in CLOSED for t in tokens if t.kind != "sep"),
        words=tuple(words),
        relations=tuple(relations),
        modifiers=tuple(modifiers),
        numerals=_numerals(tokens),
        units=frozenset(unit for t in tokens if (unit := _bare_unit(t)) is not None)
        | frozenset(v.unit for v in statement.values if v.unit in _VALUE_UNITS),
        retired=frozenset(
            n
            for t in tokens
            if t.value and any(equal(t.value, v) for v in old)
            for n in _numerals([t])
        ),
        numbers=frozenset(float(NUMBER_WORDS[t.low]) for t in tokens if t.low in NUMBER_WORDS),
        initials=_initials(words),
        verb_frames=frozenset(
            FRAME_OF[w] for t in tokens if (w := stem(t.low)) in VERB_STEMS and w in FRAME_OF
        ),
        again=again,
        clauses=clauses,
    )


def _clauses(tokens: list[Token]) -> Iterator[Clause]:
    words: list[str] = []
    copular = False
    for token in [*tokens, Token(".", ".", ".", "sep")]:
        if token.kind == "sep":
            if words:
                yield Clause(tuple(words), copular)
            words, copular = [], False
        elif token.low in _COPULAS:
            copular = True
        elif token.low in _POSITIONAL:
            words.append(token.low)
        elif _content(token):
            words.append(form(token.low))


def _scan(
    tokens: list[Token],
) -> tuple[list[str], list[tuple[str, str]], list[tuple[str, str]]]:
    """Content words, (preposition, word) relations and (modifier, noun)
    pairs of a statement, in order."""
    words: list[str] = []
    relations: list[tuple[str, str]] = []
    modifiers: list[tuple[str, str]] = []
    pending, opener, previous = "", "", ""
    opens = True  # at the start of a sentence, or after a determiner
    for token in tokens:
        if token.kind == "sep":
            pending, opener, opens = "", "", token.low in ".;:!?"
        elif token.low in PREPOSITIONS:
            # "out of": "of" after another preposition only joins it.
            if token.low != "of" or previous not in PREPOSITIONS:
                pending = token.low
            opener, opens = "", False
        elif _content(token):
            word = form(token.low)
            words.append(word)
            if pending:
                relations.append((pending, word))
            if opener:
                modifiers.append((opener, word))
            opener = word if opens and _modifier(token) else ""
            pending, opens = "", False
        else:
            opener, opens = "", token.low in _DETERMINERS
        previous = token.low
    return words, relations, modifiers


def _token_form(token: Token) -> str:
    """A word's base form, with its possessive ("Marco's manager" is no
    "Marco" who manages)."""
    return form(token.low) + ("'s" if token.possessive else "")


def _content(token: Token) -> bool:
    low = token.low
    return (
        token.kind in _WORD_KINDS
        and low not in CLOSED
        and low not in NEGATORS
        and low not in _AGAIN
        and low not in NUMBER_WORDS
        and low[:1].isalpha()
    )


def _runs_of(words: list[str] | tuple[str, ...]) -> Iterator[tuple[str, ...]]:
    """Runs of two to four consecutive words."""
    for n in (2, 3, 4):
        for i in range(len(words) - n + 1):
            yield tuple(words[i : i + n])


def _initials(words: list[str]) -> frozenset[str]:
    return frozenset("".join(w[0] for w in run) for run in _runs_of(words))


def _spelled_out(reading: Reading, other: Reading) -> frozenset[str]:
    """The reading's words whose initials are a word of the other ("direct
    messages" when the other says "DMs")."""
    short = {w.removesuffix("s") for w in other.words if 2 <= len(w) <= 5}
    return frozenset(
        w for run in _runs_of(reading.words) if "".join(x[0] for x in run) in short for w in run
    )


def _modifier(token: Token) -> bool:
    """Could the word modify a noun after it (not a verb or its -ing form)?"""
    return stem(token.low) not in VERB_STEMS and not token.low.endswith("ing")


def _bare_unit(token: Token) -> str | None:
    """The unit a word names when no number claims it ("generated in
    euros"): a currency or a measure, a value of its own. Units of time are
    left out: "every day" names no value."""
    if token.kind != "word" or token.unit:
        return None
    found = UNITS.get(token.low) or UNITS.get(stem(token.low))
    if found is None or found[0] in _NOT_VALUES:
        return None
    return found[0]


def _numerals(tokens: list[Token]) -> tuple[str, ...]:
    """The numbers a statement writes in digits, a clock time as minutes of
    the day ("14:00" and "2 pm" are one)."""
    out = []
    for token in tokens:
        if not any(c.isdigit() for c in token.raw):
            continue
        if token.value is not None and token.value.kind in _CLOCK_KINDS:
            minutes = int(token.value.key)  # type: ignore[call-overload]
            out.append(f"{minutes // 60:02d}:{minutes % 60:02d}")
        else:
            out.extend(_digits(token.raw))
    return tuple(sorted(out))


def _digits(raw: str) -> list[str]:
    """Runs of digits as written ("1.29", "2,000" as "2000")."""
    runs, current = [], ""
    for c in raw + " ":
        if c.isdigit() or (current and c in ".:,"):
            current += c
        elif current:
            runs.append(current.rstrip(".:,").replace(",", ""))
            current = ""
    return runs


def differs(a: Reading, b: Reading) -> str | None:
    """Why a (the older) and b (the newer) are not one fact by their words,
    or None. Repetition (`occurrence`) is asked apart: it depends on what
    the two memories are."""
    checks = (
        exchanged,
        moved_roles,
        opposite_relation,
        opposite_action,
        slot_changed,
        narrowed,
        unshared_values,
        unshared_units,
        shortened,
    )
    for check in checks:
        found = check(a, b)
        if found is not None:
            return found
    return None


def exchanged(a: Reading, b: Reading) -> str | None:
    """The words two statements exchange in one frame, if they do: word for
    word the same sentence (function words aside: "he" / "she") but for two
    runs of words, each in the other's place ("Anna reports to Tomasz" /
    "Tomasz reports to Anna", "Eva is Marco's manager" / "Marco is Eva's
    manager"). Two things joined by "and" or "or" are said in either order;
    a whole statement turned around a copula is one ("Helen is my manager"
    / "My manager is Helen")."""
    if len(a.tokens) != len(b.tokens):
        return None
    left = [t.removesuffix("'s") for t in a.tokens]
    right = [t.removesuffix("'s") for t in b.tokens]
    differ = [
        i
        for i, (x, y) in enumerate(zip(left, right, strict=True))
        if x != y and not (a.function[i] and b.function[i])
    ]
    runs = _runs(differ)
    if len(runs) != 2:
        return None
    (i1, i2), (j1, j2) = runs
    if right[i1:i2] != left[j1:j2] or right[j1:j2] != left[i1:i2]:
        return None
    between = left[i2:j1]
    if all(t in _JOINING for t in between):
        return None
    whole = i1 == 0 and j2 == len(left) and a.tokens == tuple(left) and b.tokens == tuple(right)
    if whole and all(t in _SYMMETRIC for t in between):
        return None
    return f"{' '.join(left[i1:i2])} and {' '.join(left[j1:j2])} exchanged"


def _runs(positions: list[int]) -> list[tuple[int, int]]:
    """Consecutive positions as [start, end) runs."""
    runs: list[tuple[int, int]] = []
    for i in positions:
        if runs and runs[-1][1] == i:
            runs[-1] = (runs[-1][0], i + 1)
        else:
            runs.append((i, i + 1))
    return runs


def moved_roles(a: Reading, b: Reading) -> str | None:
    """Two things both statements name, on either side of a verb (of the
    detector's lexicon) or a preposition both say once, each on the other
    side in the other: "The billing service calls the tax service for every
    invoice" / "For every invoice, the tax service calls the billing
    service", "Read replicas lag behind the primary" / "The primary lags
    behind the read replicas". Only in
    a clause with no copula or passive: "Postgres is billing's database" /
    "Billing's database is Postgres" and "Carlos mentors them" / "They are
    mentored by Carlos" are one fact turned around."""
    for x_clause in a.clauses:
        for y_clause in b.clauses:
            if x_clause.copular or y_clause.copular:
                continue
            found = _moved(x_clause.words, y_clause.words)
            if found is not None:
                return found
    return None


def _moved(left: tuple[str, ...], right: tuple[str, ...]) -> str | None:
    shared = set(left) & set(right)
    things = shared - _POSITIONAL
    for pivot in shared & (_VERB_FORMS | _POSITIONAL):
        if left.count(pivot) != 1 or right.count(pivot) != 1:
            continue
        i, j = left.index(pivot), right.index(pivot)
        before_a, after_a = set(left[:i]), set(left[i + 1 :])
        before_b, after_b = set(right[:j]), set(right[j + 1 :])
        there = (things & before_a & after_b) - after_a - before_b
        back = (things & after_a & before_b) - before_a - after_b
        if there and back:
            return f"{sorted(there)[0]} and {sorted(back)[0]} exchanged around {pivot}"
    return None


def opposite_action(a: Reading, b: Reading) -> str | None:
    """A word of one statement and its opposite action in the other, each
    missing from the other statement ("arrives" / "departs")."""
    only_a = [w for w in a.words if not says(b, w)]
    only_b = [w for w in b.words if not says(a, w)]
    for x in only_a:
        for y in only_b:
            if frozenset((x, y)) in OPPOSITE_ACTIONS:
                return f"{x} vs {y}"
    return None


def opposite_relation(a: Reading, b: Reading) -> str | None:
    """A thing both statements relate to after opposite prepositions."""
    for prep, word in a.relations:
        for other, same in b.relations:
            if same == word and frozenset((prep, other)) in OPPOSITE:
                return f"{prep} vs {other} {word}"
    return None


def slot_changed(a: Reading, b: Reading) -> str | None:
    """One preposition before a word in each statement, neither word said
    by the other: the same relation to another thing."""
    for prep, word in a.relations:
        if says(b, word):
            continue
        for other, there in b.relations:
            if other == prep and not says(a, there):
                return f"{prep} {word} vs {prep} {there}"
    return None


def narrowed(a: Reading, b: Reading) -> str | None:
    """A word one statement puts before a noun both say, the other not
    saying it anywhere: "admin" of "Admin passwords" against "Passwords"."""
    for x, y in ((a, b), (b, a)):
        for modifier, head in x.modifiers:
            if says(y, head) and not says(y, modifier):
                return f"{modifier} {head} vs {head}"
    return None


def unshared_values(a: Reading, b: Reading) -> str | None:
    """A value one statement names that the other does not. A value it says
    is left ("10:00 now, not 09:30") is what no longer holds, not part of
    what it states."""
    for x, y in ((a, b), (b, a)):
        old = [v for group in x.statement.groups for v in group.old]
        for value in x.statement.values:
            if _opening(x, value) or any(equal(value, v) for v in old):
                continue
            if not _has(y, value):
                return f"{value.shown} only in one"
    return None


def unshared_units(a: Reading, b: Reading) -> str | None:
    """A currency or measure one statement names and the other does not
    ("generated in euros" / "generated in the customer's currency")."""
    only = a.units ^ b.units
    return f"{sorted(only)[0]} only in one" if only else None


def stated(x: Reading, y: Reading) -> tuple[str, ...]:
    """The numerals x states, less those it says are left, unless y states
    them (then the two disagree on what holds)."""
    return tuple(n for n in x.numerals if n not in x.retired or n in y.numerals)


def shortened(older: Reading, newer: Reading) -> str | None:
    """The newer statement says less: it drops two or more content words of
    the older and adds none (one dropped word is as often a reworded one)."""
    found = agreement(older, newer)
    if len(found.only_a) >= 2 and not found.only_b:
        return f"the newer drops {' '.join(found.only_a)}"
    return None


def occurrence(a: Reading, b: Reading) -> str | None:
    if a.again != b.again:
        return "one reports another occurrence"
    return None


def _opening(reading: Reading, value: Value) -> bool:
    """A one-word name that is only the statement's capitalised first word
    ("Reach 95% coverage", "Whoever merges last"): as likely a common word."""
    key = form(str(value.key))
    return (
        value.kind == "name"
        and " " not in str(value.key)
        and reading.tokens[:1] == (key,)
        and reading.tokens.count(key) == 1
    )


def _has(reading: Reading, value: Value) -> bool:
    """The value among the reading's values, or said in its words ("each
    quarter" for "every quarter", "billing" for the name "Billing")."""
    statement = reading.statement
    if any(equal(v, value) or _same_amount(v, value) for v in statement.values):
        return True
    if value.kind == "name" and name_in(str(value.key), statement):
        return True
    if value.kind == "number" and value.key in reading.numbers:
        return True
    words = [form(w) for w in value.shown.lower().split() if w[:1].isalpha() and w not in CLOSED]
    return bool(words) and all(says(reading, w) for w in words)


def _same_amount(x: Value, y: Value) -> bool:
    """One amount in two types ("monthly" as 2629800 and 2629800.0)."""
    if isinstance(x.key, (int, float)) and isinstance(y.key, (int, float)):
        return x.kind == y.kind and float(x.key) == float(y.key)
    return False


def says(reading: Reading, word: str) -> bool:
    """The word is among the reading's words or the detector's vocabulary of
    it, in some form: a derivation, an abbreviation ("prod"), its hyphened
    parts ("on-call" / "on call"), the initials of words it says ("DMs" /
    "direct messages"), or a verb of the same attitude or relation in the
    detector's lexicon ("prefers" / "wants")."""
    if word in reading.words or word in reading.statement.vocab:
        return True
    if "-" in word:
        return all(says(reading, part) or part in CLOSED for part in word.split("-") if part)
    if word in reading.initials or word.removesuffix("s") in reading.initials:
        return True
    frame = _FRAME_OF_FORM.get(word)
    if frame is not None and word in _VERB_FORMS and frame in reading.verb_frames:
        return True
    if len(word) < 4:
        return False
    return any(len(w) >= 4 and (w.startswith(word) or word.startswith(w)) for w in reading.words)


@dataclass(frozen=True, slots=True)
class Agreement:
    """The content words of each statement the other says in no form."""

    only_a: tuple[str, ...]
    only_b: tuple[str, ...]
    words_a: int
    words_b: int

    @property
    def unsaid(self) -> float:
        """The larger share of a statement's content words the other lacks."""
        return max(len(self.only_a) / max(1, self.words_a), len(self.only_b) / max(1, self.words_b))

    @property
    def reworded(self) -> bool:
        """Every word said by both, or both say something the other does not
        and not one word for one word (that is a slot filled with another
        value: "lands in Lisbon" / "leaves Lisbon"): the shape of a sentence
        said again in other words, not of a phrase added or dropped."""
        if not self.only_a and not self.only_b:
            return True
        return bool(self.only_a) and bool(self.only_b) and len(self.only_a) + len(self.only_b) > 2


def agreement(a: Reading, b: Reading) -> Agreement:
    spelled = _spelled_out(a, b) | _spelled_out(b, a)
    only_a = tuple(w for w in dict.fromkeys(a.words) if w not in spelled and not says(b, w))
    only_b = tuple(w for w in dict.fromkeys(b.words) if w not in spelled and not says(a, w))
    return Agreement(only_a, only_b, len(set(a.words)), len(set(b.words)))
