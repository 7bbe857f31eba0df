"""Offline contradiction detectors for two statements (the living-memory design).

Statements are compared by what they are about, not by the words they
share: each is parsed (`detect_parse`) into subjects, the frame of what is
said of each (where someone lives or works, who leads something, what they
like or use), typed values (names, numbers with units, dates, times,
versions, roles) and what it denies. Two statements conflict when their
subjects match and either one denies what the other asserts ("Ana likes long
meetings" / "Ana does not like long meetings") or a value of one frame or
unit differs ("port 8080" / "port 9090", "lives in Berlin" / "moved to
Lisbon", "nurse at St Mary's" / "software engineer at Finch Labs"). Another
subject ("Lena's sister", "Diego's manager" / "my manager"), another
attribute ("the report" / "the slides"), another qualifier of a number ("6
replicas in production" / "2 in staging"), another purpose ("for directions"
/ "for music"), a bound beside a measured amount ("keep it under 2 s" /
"loads in 1.4 s"), an addition ("also") or a value both share is no
conflict. An alternative set aside ("in Postgres rather than DynamoDB",
"chose Kafka over RabbitMQ") is denied as "not X" is, so two wordings of one
choice agree and the opposite choice conflicts.

`compare` gives a `Finding` with a confidence: 0.8 and more only when the
subjects and the attribute clearly match and the values clearly differ
(the write path acts on those); from 0.5 a candidate to review. `update`
says the later statement itself speaks of a change ("now", "moved to", "no
longer", "was migrated from A to B", "New target: ..."). `conflicting_values`
tells dedupe that two near-paraphrases differ in a value, a polarity or a
choice. No model is needed.

The pieces: `detect_tokens` (tokens), `detect_values` (typed values), `detect_clauses`
(clauses, subjects, polarity), `detect_slots` (what a predicate holds),
`detect_parse` (a statement as groups, one per subject), `detect_rules` (one
rule per kind of evidence), `detect_match` (finding words and names),
`detect_lexicon` (general English word lists). Measured by `mnemotree bench
contradictions`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from . import detect_rules as rules
from .detect_lexicon import CHANGE_STEMS, FRAME_OF, TIME_WORDS, UNITS, stem, stems
from .detect_match import (
    PERSONS,
    TIME_KINDS,
    Hit,
    equal,
    known,
    name_in,
    same_name,
    shown_times,
    time_parts,
    value_words,
)
from .detect_parse import SOMEONE, Group, Statement, parse
from .detect_tokens import Value

__all__ = ["ACT", "REVIEW", "Finding", "compare", "conflicting_values", "parse"]


ACT = 0.8  # from this confidence a finding is acted on


REVIEW = 0.5  # below this no finding is given


# Words that name an attribute of a subject ("User's preferred theme", "current city",
# "her review slot": when she reviews).
_ATTRIBUTE_WORDS = stems(
    "favourite favorite preferred default go-to choice preference city address home "
    "hometown employer job role position owner lead manager current deadline date time "
    "schedule price cost rate size limit version port budget salary rent fee amount "
    "capacity timeout slot shift window hours target threshold quota maximum minimum max min "
    "ceiling".split()
)


@dataclass(frozen=True, slots=True)
class Finding:
    kind: str  # "negation" or "changed_value"
    reason: str
    confidence: float = 1.0
    update: bool = False  # the later statement says it is a newer state

    @classmethod
    def announced(cls, reason: str, confidence: float) -> Finding:
        """A change of value the later statement says outright."""
        return cls("changed_value", reason, confidence, update=True)


def compare(earlier: str, later: str, parsed: dict[str, Statement] | None = None) -> Finding | None:
    """How `later` contradicts `earlier`, or None when they can both be true.
    A scan passes one `parsed` dict for all its pairs, so each text is parsed once."""
    if " ".join(earlier.casefold().split()) == " ".join(later.casefold().split()):
        return None
    a, b = _parsed(earlier, parsed), _parsed(later, parsed)
    if _other_occasions(a, b):
        return None
    best: Hit | None = None
    for ga in a.groups:
        for gb in b.groups:
            hit = _compare_groups(ga, gb, a, b)
            if hit is not None and (best is None or hit.confidence > best.confidence):
                best = hit
    if best is None or best.confidence < REVIEW:
        return None
    return Finding(best.kind, best.reason, round(best.confidence, 2), b.update)


def _parsed(text: str, cache: dict[str, Statement] | None) -> Statement:
    if cache is None:
        return parse(text)
    found = cache.get(text)
    if found is None:
        found = cache[text] = parse(text)
    return found


def _other_occasions(a: Statement, b: Statement) -> bool:
    """The two speak of different occurrences of one thing ("the April drill"
    / "the October drill", "In Q1 we" / "In Q2 we"), or of different times
    ("On 2024-02-14 the API ..." / "In March we ..."): what each says of it,
    and of the rest of its statement, may both be true."""
    when_a, when_b = _times(a), _times(b)
    if when_a and when_b and when_a.isdisjoint(when_b):
        return True
    for ga in a.groups:
        for gb in b.groups:
            if not (ga.occasion and gb.occasion) or not ga.occasion.isdisjoint(gb.occasion):
                continue
            rest_a = {w for w in ga.subject if w not in ga.occasion}
            rest_b = {w for w in gb.subject if w not in gb.occasion}
            if rest_a <= rest_b or rest_b <= rest_a:
                return True
    return False


def _times(statement: Statement) -> frozenset[str]:
    """The times a statement is told at: "#month:3" of "In March we ...",
    "last week" of "last week's incident"."""
    return frozenset(
        o
        for g in statement.groups
        for o in g.occasion
        if o.startswith("#") or o.split()[-1] in TIME_WORDS
    )


def _compare_groups(ga: Group, gb: Group, a: Statement, b: Statement) -> Hit | None:
    penalty = _subjects(ga, gb, a, b)
    if penalty is None:
        # two people, one role that one holds at a time: a new holder
        holder = rules.holder_hit(ga, gb, a, b)
        if holder is not None and b.update:
            return Hit(holder.kind, holder.reason, min(0.95, holder.confidence + 0.05))
        return holder
    hits = [
        rules.negation_hit(ga, gb, a),
        rules.negation_hit(gb, ga, b, reverse=True),
        rules.state_hit(ga, gb, a, b),
    ]
    untyped: list[Hit | None] = []  # values of no type of their own: names, words
    counted: Hit | None = None
    scoped = _scoped_apart(ga, gb, a, b)
    purposes = _scoped_apart(ga, gb, a, b, ("for",))  # "for directions" / "for music"
    if not (b.addition and not b.update):  # "also", "another": more, not instead
        if not scoped:  # "6 replicas in production" / "2 replicas in staging"
            counted = rules.number_hit(ga, gb)
            hits += [counted, rules.time_hit(ga, gb)]
        untyped = [
            rules.preference_hit(ga, gb, a, b),
            rules.name_hit(ga, gb, a, b),
            rules.role_hit(ga, gb),
            rules.phrase_hit(ga, gb, a, b),
            rules.object_hit(ga, gb, a, b),
            rules.residual_hit(ga, gb, a, b),
        ]
    elsewhere = _changed_elsewhere(ga, gb, a)
    best: Hit | None = None
    for hit in hits + untyped:
        if hit is None or (
            hit in untyped and any(x not in hit.slot or y not in hit.slot for x, y in purposes)
        ):
            continue  # "Google Maps for directions" / "Apple Music for music"
        confidence = hit.confidence - (0.0 if hit.holder else penalty)
        if hit.kind == "changed_value":
            confidence -= _attribute_gap(ga, gb, a, b, hit.slot)
            if b.update and confidence >= 0.65:
                confidence = min(0.95, confidence + 0.1)  # it says it changed, and a value did
            if elsewhere and hit in untyped:
                confidence = min(confidence, 0.6)
            if hit is counted and _bound_and_amount(ga, gb):
                confidence = min(confidence, 0.6)  # a limit and an amount: likely both hold
        if best is None or confidence > best.confidence:
            best = Hit(hit.kind, hit.reason, confidence, hit.slot)
    return best


def _bound_and_amount(ga: Group, gb: Group) -> bool:
    """One says a bound ("the rate limit is 100 a minute", "keep it under 2
    seconds"), the other an amount ("serves 40 million requests a day",
    "loads in 1.4 seconds"), and neither says the number was changed to it
    ("the pool was cut to 10"): two attributes, a limit and what is measured."""
    changed = "number" in ga.changed_to | gb.changed_to
    return ga.bounded != gb.bounded and not changed


def _scoped_apart(
    ga: Group, gb: Group, a: Statement, b: Statement, preps: tuple[str, ...] = ()
) -> list[tuple[str, str]]:
    """The words of where or for what each says its value holds, when they
    differ ("runs 6 replicas in production" / "runs 2 replicas in staging",
    "Google Maps for directions" / "Apple Music for music"): two values of two
    things. A change of the scope alone ("for work" / "for music") is the
    value itself, which its hit's slot then holds. A name's place may be
    told with a scope ("in a flat in Leeds" / "in a house in Bristol"), so
    names are told apart by purpose ("for") only."""
    return [
        (x, y)
        for prep, x in ga.scopes
        for other, y in gb.scopes
        if prep == other and (not preps or prep in preps)
        if x not in FRAME_OF and y not in FRAME_OF  # "from home" / "from the office": values
        if x != y and not known(x, b.vocab, False) and not known(y, a.vocab, False)
    ]


def _changed_elsewhere(ga: Group, gb: Group, a: Statement) -> bool:
    """The later says a change to a kind of thing the earlier does not speak
    of ("Marta leads the mobile team" / "Marta moved to a four-day week"),
    and names none of the earlier's values as the one left."""
    if all(known(t, a.vocab | ga.frames) for t in gb.targets):
        return False
    if any(prep == "for" for prep, _ in ga.scopes & gb.scopes):
        return False  # one purpose said of both: "a Mac for work" / "a Linux laptop for work"
    named = any(name_in(str(v.key), a) for v in gb.old)
    return not named and not any(all(known(w, a.vocab) for w in p) for p in gb.was)


def _subjects(ga: Group, gb: Group, a: Statement, b: Statement) -> float | None:
    """None when the statements are about different subjects; else how much
    to take off for a subject that may be narrower ("the design team's standup")."""
    if ga.periods and gb.periods and ga.periods.isdisjoint(gb.periods):
        return None  # "monthly active users" / "daily active users"
    if SOMEONE in ga.subject or SOMEONE in gb.subject:
        return None  # "someone": not known to be anyone the other speaks of
    if any(not known(r, b.vocab) for r in ga.relations - gb.relations):
        return None
    if any(not known(r, a.vocab) for r in gb.relations - ga.relations):
        return None
    if _owned_apart(ga, gb, a) or _owned_apart(gb, ga, b):
        return None
    # subjects are told apart by their words: "office rent" is no "flat rent"
    extra_a = [w for w in ga.subject if w not in PERSONS and not known(w, b.vocab, False)]
    if not extra_a and len(b.groups) > 1 and _elsewhere(ga.subject, gb, b):
        # the later names the earlier's subject, but in another of its clauses:
        # "Yuki left Kestrel; Chloe joined as PM for Ledgerline" says nothing
        # of Ledgerline in the clause about Yuki
        extra_a = [w for w in ga.subject if w not in PERSONS]
    extra_b = [w for w in gb.subject if w not in PERSONS and not known(w, a.vocab, False)]
    # one person, named in full once: "Alice" / "Alice Smith"
    extra_a = [w for w in extra_a if not _named_more(w, ga, gb)]
    extra_b = [w for w in extra_b if not _named_more(w, gb, ga)]
    if extra_a and extra_b:
        return None
    # A later subject with more words may be another, narrower one ("the
    # launch party" after "the launch"); a later one with fewer is shorthand
    # mostly, but may be the general one after a narrower ("the design team's
    # standup" / "the standup").
    if extra_b:
        if any(w in _ATTRIBUTE_WORDS for w in gb.subject):
            return 0.1  # "User's preferred theme": an attribute of the subject, named
        return 0.35 if gb.head in extra_b else 0.25
    # the earlier's is someone's, the later's no one's in particular
    if any(w in ga.owners for w in extra_a):
        return 0.25
    # a thing, then only who does it ("event data goes to ClickHouse" / "we use Postgres")
    return 0.15 if extra_a and all(w in PERSONS for w in gb.subject) else 0.0


def _elsewhere(subject: tuple[str, ...], group: Group, later: Statement) -> bool:
    """The later statement names none of a subject's words (people aside) in
    the sentence of this group's own named subject, only in another one
    (split at ";" or a full stop; after a colon a sentence goes on about
    what came before it: "Acme has a new contact: Jo replaced Kim")."""
    words = [w for w in subject if w not in PERSONS]
    own = [w for w in group.subject if w not in PERSONS]
    if not words or not own:
        return False  # "she" may be the subject itself
    for sentence in _SENTENCES.split(later.text):
        held = frozenset(stem(w) for w in _WORDS.findall(sentence.casefold()))
        held |= frozenset(_WORDS.findall(sentence.casefold()))
        if any(known(w, held, False) for w in own) and any(known(w, held, False) for w in words):
            return False
    return True


_SENTENCES = re.compile(r"[;.!?](?:\s+|$)")
_WORDS = re.compile(r"[\w'’-]+")


def _owned_apart(ga: Group, gb: Group, a: Statement) -> bool:
    """The later's subject is someone's the earlier does not name, the earlier's
    the speaker's own ("My manager is Karen" / "Diego's manager is Priya")."""
    mine = any(w in PERSONS for w in ga.subject) and not ga.owners
    return mine and any(not known(w, a.vocab, False) for w in gb.owners)


def _named_more(word: str, group: Group, other: Group) -> bool:
    """The word is part of a name the other subject names shorter."""
    return any(
        word in str(v.key).split()
        and any(same_name(str(v.key), str(o.key)) for o in other.subject_names)
        for v in group.subject_names
    )


def _attribute_gap(ga: Group, gb: Group, a: Statement, b: Statement, slot: frozenset[str]) -> float:
    """Words of the attribute on both sides that the other lacks ("upload
    size" / "request body"): the values are likely of different things."""
    values = value_words(ga) | value_words(gb) | slot
    # the later's own subject words are weighed by the subject check already
    subject_b = frozenset(w for w in gb.subject if known(w, a.vocab, False))
    # circumstances told on one side only are no other attribute ("switched to
    # Garmin | for tracking her runs"); told on both, they are ("for music" / "for audiobooks")
    one_sided = not (ga.adjuncts and gb.adjuncts)
    words_a = (ga.words | frozenset(ga.subject)) - PERSONS - values
    words_b = (gb.words | subject_b) - PERSONS - values
    if one_sided:
        words_a, words_b = words_a - ga.adjuncts, words_b - gb.adjuncts
    # what each does is an attribute ("I sleep 7 hours" / "I work 8 hours"),
    # unless one only says what something is ("is 1920x1080" / "runs at 2560x1440")
    if _acts(ga) and _acts(gb):
        words_a, words_b = words_a | (_acts(ga) - values), words_b | (_acts(gb) - values)
    else:
        words_a, words_b = words_a - ga.acts, words_b - gb.acts
    words_a, words_b = _one_meaning(words_a), _one_meaning(words_b)
    vocab_a, vocab_b = a.vocab | _one_meaning(a.vocab), b.vocab | _one_meaning(b.vocab)
    only_a = [w for w in words_a - TIME_WORDS if not known(w, vocab_b) and w not in UNITS]
    only_b = [w for w in words_b - TIME_WORDS if not known(w, vocab_a) and w not in UNITS]
    if not (only_a and only_b):
        return 0.0
    gap = 0.3 if min(len(only_a), len(only_b)) == 1 else 0.45
    # The later saying it is a change makes another wording of the attribute likelier.
    return gap / 2 if b.update else gap


# Verbs that only say something takes place ("is held on", "happens on"), and
# verbs of one meaning ("departs" / "leaves", "lands" / "arrives", "charges" / "costs").
_OCCURS = stems("happen occur hold held schedule plan".split())
_SAME_ACT = {
    stem("leave"): stem("depart"),
    stem("land"): stem("arrive"),
    stem("occur"): stem("happen"),
    stem("charge"): stem("cost"),
}


def _acts(group: Group) -> frozenset[str]:
    """What a group says is done: no change, no mere taking place."""
    return frozenset(w for w in group.acts - CHANGE_STEMS - _OCCURS)


def _one_meaning(words: frozenset[str]) -> frozenset[str]:
    return frozenset(_SAME_ACT.get(w, w) for w in words)


def conflicting_values(a_text: str, b_text: str) -> str | None:
    """Why two near-paraphrases are different facts (a number, date, version,
    name or polarity differs), or None when they may say the same."""
    if " ".join(a_text.casefold().split()) == " ".join(b_text.casefold().split()):
        return None
    a, b = parse(a_text), parse(b_text)
    kinds = ("number", "version", "resolution", "delta")
    only_a = [v for v in a.values if v.kind in kinds and not _has_value(b, v)]
    only_b = [v for v in b.values if v.kind in kinds and not _has_value(a, v)]
    if only_a and only_b:
        return f"{only_a[0].shown} vs {only_b[0].shown}"
    parts_a, parts_b = time_parts(a.values), time_parts(b.values)
    for kind in TIME_KINDS:
        if parts_a[kind] and parts_b[kind] and parts_a[kind].isdisjoint(parts_b[kind]):
            return f"{shown_times(a.values, kind)} vs {shown_times(b.values, kind)}"
    names_a = [n for n in a.names if not name_in(n, b)]
    names_b = [n for n in b.names if not name_in(n, a)]
    if names_a and names_b:
        return f"{names_a[0]} vs {names_b[0]}"
    if _polarity(a) != _polarity(b) and _overlap(a, b) >= 0.5:
        return "one denies what the other says"
    chosen = _set_aside(a, b) or _set_aside(b, a)
    if chosen:
        return f"{chosen} is said in one, left or set aside in the other"
    for ga in a.groups:
        for gb in b.groups:
            hit = (
                rules.phrase_hit(ga, gb, a, b)
                or rules.role_hit(ga, gb)
                or rules.state_hit(ga, gb, a, b)
            )
            if hit is not None:
                return hit.reason
    return None


def _has_value(statement: Statement, value: Value) -> bool:
    return any(v.kind == value.kind and equal(v, value) for v in statement.values) or any(
        equal(v, value) for v in statement.values
    )


def _polarity(statement: Statement) -> int:
    """Whether the statement denies its claim; an alternative it sets aside
    ("in Postgres rather than DynamoDB", "in Postgres, not DynamoDB") is a
    choice it asserts."""
    return (statement.negations - statement.set_aside) % 2


def _set_aside(a: Statement, b: Statement) -> str:
    """A name one statement asserts and the other names as the one left or
    set aside ("DynamoDB rather than Postgres" / "Postgres, not DynamoDB")."""
    kept = {str(v.key): v.shown for g in a.groups for v in g.values if v.kind == "name"}
    left = {str(v.key) for g in b.groups for v in g.old if v.kind == "name"}
    return next((shown for key, shown in kept.items() if key in left), "")


def _overlap(a: Statement, b: Statement) -> float:
    words_a = frozenset(w for w in a.vocab if w[:1].isalpha())
    words_b = frozenset(w for w in b.vocab if w[:1].isalpha())
    return len(words_a & words_b) / max(1, min(len(words_a), len(words_b)))
