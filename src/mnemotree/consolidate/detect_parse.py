"""A statement as what it is about: subjects, each with the attribute words,
frames and values asserted of it, and what it denies.

Clauses (`detect_clauses`) without a subject of their own continue the one
before, so a statement becomes a few `Group`s, one per subject. A clause
with a negation ("not", "no longer", "quit", "left") denies its words
instead of asserting them. A "key: value" text is read as "key is value".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import pairwise

from . import detect_clauses as cl
from . import detect_slots as sl
from .detect_lexicon import (
    ADDITION,
    CHANGE_STEMS,
    FRAME_OF,
    LABELS,
    NEGATORS,
    ORDINALS,
    PRONOUNS,
    RELATIONS,
    SLACK,
    STATE_OF,
    STOP,
    TIME_WORDS,
    UPDATE_MARKERS,
    VERB_STEMS,
    stem,
)
from .detect_tokens import TIMES, Token, Value, prepare, tokenize, word_of
from .detect_values import annotate

_KEYED = re.compile(r"^\s*([A-Za-z][\w .'/-]{0,60}?)\s*[:=](?!\d)\s*(\S.*)$", re.S)
_OPENERS = re.compile(
    r"^\s*(?:fyi|btw|by the way|apparently|i think|i believe(?! in\b)|i heard|i guess|it seems|"
    r"seems like|just so you know|heads up|ok|okay|so|well|also|note|for the record|"
    r"(?:just )?noting(?: that)?|note that|remember that|reminder)\b[,:]?\s*",
    re.I,
)  # what a note opens with, no part of what it says
_ENDINGS = {"": "e", "ed": "ed", "ing": "ing"}
_PHRASES = (
    (re.compile(r"\b(St|Dr|Mr|Mrs|Ms|Prof|Inc|Ltd|Co|vs|approx|e\.g|i\.e)\.", re.I), r"\1"),
    (re.compile(r"\b(?:can ?not|could not|do not|does not) stand\b", re.I), "dislike"),
    (
        re.compile(r"\b(take|takes|took|taking|hand|hands|handed|handing) over\b", re.I),
        lambda m: "took-over" if m.group(1).lower().startswith("t") else "handed-over",
    ),
    # Idioms of change, said as the words the detector knows.
    (re.compile(r"\b(?:left|leave|leaves|leaving) for\b", re.I), "moved to"),
    (
        re.compile(r"\b(?:go|goes|went|gone|going|switch|switched|move|moved) back to\b", re.I),
        "switched to",
    ),
    (
        re.compile(r"\b(?:go|goes|went|gone) (?:up|down) to\b|\b(?:grew|grown) to\b", re.I),
        "changed to",
    ),
    (
        re.compile(r"\b(?:lost|lose|loses|losing) (?:all |any )?interest in\b", re.I),
        "no longer likes",
    ),
    (re.compile(r"\bfell out of love with\b", re.I), "no longer likes"),
    (re.compile(r"\b(?:got|get|gets|getting) rid of\b", re.I), "dropped"),
    (re.compile(r"\b(?:came|come|comes|coming) off\b", re.I), "stopped"),
    (re.compile(r"\b(?:passed|passes|pass|passing) away\b", re.I), "died"),
    (re.compile(r"\bturn(?:ed|s|ing)? ((?:\w+ ){1,3})off\b", re.I), r"stopped using \1"),
    (re.compile(r"\b(?:gone|went|go|goes|going) off\b", re.I), "no longer likes"),
    (re.compile(r"\b(?:is|am|are|was|were) (?:done|finished) with\b", re.I), "quit"),
    (
        re.compile(
            r"\b(?:(?:has|have|had) )?(?:grown|got|gotten|grew|is|am|are|was|were|getting) "
            r"(?:tired|sick|bored|fed up) (?:of|with)\b",
            re.I,
        ),
        "no longer likes",
    ),
    (
        re.compile(r"\b(is |am |are |was |were |be |get |got )?used to (?=\w)", re.I),
        lambda m: m.group(0) if m.group(1) else "no longer ",
    ),  # "used to like": no longer
    (
        re.compile(
            r"\b(?:turned|switched|turns|switches) off (?=the|my|a|an|his|her|their|our)", re.I
        ),
        "stopped using ",
    ),
    (
        re.compile(r"\b(?:turn|switch)(ed|s|es|ing)? off\b", re.I),  # "don't turn off 2FA"
        lambda m: "disabl" + _ENDINGS.get((m.group(1) or "").lower(), "es"),
    ),
    (re.compile(r"\b([A-Z][\w]+)-based\b"), r"based in \1"),
    (re.compile(r"\bup to date\b", re.I), "up-to-date"),
    # payment terms: "net 30" is payment within 30 days
    (re.compile(r"\bnet[ -]?(\d{1,3})\b(?!\s*(?:days?|d)\b)", re.I), r"net \1 days"),
    (re.compile(r"\b(is|are|was|were) broken\b", re.I), r"\1 not working"),
    (re.compile(r"\b(?:was|were) raised in\b", re.I), "grew up in"),
    (re.compile(r"\b(?:in|out of) stock\b", re.I), lambda m: m.group(0).replace(" ", "-")),
    (re.compile(r"\bworks(?=\s*(?:[.;,!]|again\b|now\b|$))", re.I), "is working"),
    (re.compile(r"\bout of date\b", re.I), "out-of-date"),
    (re.compile(r"\b(?:between jobs|out of work|jobless)\b", re.I), "unemployed"),
    (
        re.compile(
            r"\b(?:was|were|got|been|being) (?:laid off|let go|fired|made redundant)\b", re.I
        ),
        "quit",
    ),
    (re.compile(r"\bswears? by\b", re.I), "prefers"),
    (re.compile(r"\b(do|does|did|would) not care (?:for|much for)\b", re.I), r"\1 not like"),
    (re.compile(r"\bgoing forward\b", re.I), "from now on"),
    (re.compile(r"\b(is|are|was|were|am)( now)? down to\b", re.I), r"\1\2 reduced to"),
    (re.compile(r"\b(am|is|are|was|were)( not)? into\b", re.I), r"\1\2 fond of"),
    (re.compile(r"\b(is|are|was|were|turned|switched) off\b", re.I), r"\1 disabled"),
    (re.compile(r"\b(?:turned|switched) on\b", re.I), "enabled"),
    (
        re.compile(r"\b(is|are|was|were) on\b(?=\s*(?:for\b|in\b|by\b|[.,;]|$))", re.I),
        r"\1 enabled",
    ),
)


@dataclass(frozen=True, slots=True)
class Group:
    """What one statement says about one subject."""

    subject: tuple[str, ...]  # stems of the subject's words, in order
    head: str  # the subject's last word before a preposition
    relations: frozenset[str]  # "sister" of "my sister"
    periods: frozenset[object]  # "monthly" of "monthly active users"
    occasion: frozenset[str]  # which one: "April" of "the April drill", "Q1" of "in Q1 we"
    owners: frozenset[str]  # "design", "team" of "the design team's standup"
    subject_names: tuple[Value, ...]
    words: frozenset[str]  # asserted attribute words (stems), frames left out
    frames: frozenset[str]  # "@place", "@work", ..., "@v:report" (the verb)
    acts: frozenset[str]  # the content verbs of its clauses ("sleep", "work")
    values: tuple[Value, ...]  # asserted
    old: tuple[Value, ...]  # said to be left or replaced ("from X", "no longer at X")
    denied: tuple[frozenset[str], ...]  # the words of each denial
    aside: frozenset[frozenset[str]]  # of those, alternatives set aside: "rather than X"
    narrowed: frozenset[str]  # a denial's circumstances: "hand" of "nobody applies it by hand"
    states: frozenset[tuple[str, bool]]  # ("married", False) for "divorced"
    roles: tuple[tuple[str, ...], ...]  # "software engineer"
    sole_roles: frozenset[tuple[str, ...]]  # "release manager" of "is the release manager"
    complements: tuple[tuple[str, ...], ...]  # "master" of "the branch is master"
    new: tuple[tuple[str, ...], ...]  # "main" of "renamed to main"
    pairs: frozenset[tuple[str, str]]  # (modifier, head): ("dark", "mode")
    objects: frozenset[tuple[str, tuple[str, ...]]]  # ("listen:to", ("jazz",))
    adjuncts: frozenset[str]  # words of a phrase after the value: "for tracking her runs"
    scopes: frozenset[tuple[str, str]]  # ("in", "staging") of "runs 2 replicas in staging"
    bounded: bool  # its numbers are bounds: "a limit of 100", "under 300 ms", "at most 5"
    was: tuple[tuple[str, ...], ...]  # "espresso" of "switched from espresso to matcha"
    targets: frozenset[str]  # "cluster" of "moved to the eu-west-1 cluster"
    changed_to: frozenset[str]  # kinds of the values a change goes to: "number" of "grew to 60"
    preference: tuple[str, str] | None  # (preferred, over)
    shown: dict[str, str]


@dataclass(frozen=True, slots=True)
class Statement:
    text: str
    groups: tuple[Group, ...]
    vocab: frozenset[str]  # every stem and frame of the text
    update: bool  # the text says it describes a newer state
    addition: bool  # "also", "another": more, not instead
    keyed: bool  # a "key: value" text
    negations: int  # negators, denying verbs and denying states: the polarity
    set_aside: int  # of those, alternatives set aside: "rather than X", ", not X"
    negated: frozenset[str]  # forms of the words said in a denying clause
    values: tuple[Value, ...]  # every value, for dedupe
    names: frozenset[str]


def parse(text: str) -> Statement:
    prepared = _OPENERS.sub("", prepare(text))
    for pattern, replacement in _PHRASES:
        prepared = pattern.sub(replacement, prepared)
    # a label that says the text corrects or updates ("Correction: ...") is dropped
    label = prepared.partition(":")[0].strip().lower()
    prepared, keyed = _unkey(prepared)
    tokens = tokenize(prepared)
    annotate(tokens)
    _auxiliaries(tokens)
    _nominal_changes(tokens)
    parts = cl.split(tokens)
    clauses = [cl.Clause(part, keyed and i == 0, i == 0) for i, part in enumerate(parts)]
    cl.requirements(clauses)
    groups = _group([c for c in clauses if c.tokens])
    vocab = {t.stem for t in tokens if t.kind in ("word", "name")}
    vocab |= {form for t in tokens if t.kind in ("word", "name") for form in (t.low, stem(t.low))}
    vocab |= {stem(w.replace("-", "")) for w in vocab if "-" in w}  # "kick-off", "kickoff"
    vocab |= {FRAME_OF[w] for w in vocab if w in FRAME_OF}
    vocab |= {word_of(t.value) for t in tokens if t.value is not None}
    lows = {t.low for t in tokens if not t.stem.endswith("~")}
    update = bool(lows & UPDATE_MARKERS) or any(c.update for c in clauses)
    update = update or label in ("correction", "update") or label.split(" ")[0] in _RENEWED
    update = update or "these days" in prepared.lower()
    update = update or any(t.kind == "word" and t.stem in CHANGE_STEMS for t in tokens)
    values = tuple(t.value for t in tokens if t.value is not None)
    return Statement(
        text=text,
        groups=tuple(groups),
        vocab=frozenset(vocab),
        update=update,
        addition=bool(lows & ADDITION),
        keyed=keyed,
        negations=sum(c.negations for c in clauses) + sum(_flips(*p) for p in _next(tokens)),
        set_aside=sum(c.set_aside for c in clauses),
        negated=frozenset(
            form for c in clauses if c.negative for t in c.tokens for form in (t.low, t.stem)
        ),
        values=values,
        names=frozenset(str(v.key) for v in values if v.kind == "name"),
    )


def _next(tokens: list[Token]) -> list[tuple[Token, Token | None]]:
    return [(t, tokens[i + 1] if i + 1 < len(tokens) else None) for i, t in enumerate(tokens)]


def _auxiliaries(tokens: list[Token]) -> None:
    """ "have" before "been" or a participle is no possession."""
    for token, nxt in pairwise(tokens):
        participle = nxt.low.endswith(("ed", "en")) or nxt.low in cl.PAST
        if token.stem == "hav" and (nxt.low in ("been", "to", "got") or participle):
            token.taken = True


_DETERMINERS = cl.ARTICLES | cl.POSSESSIVES | frozenset("my our your this that each every".split())


def _nominal_changes(tokens: list[Token]) -> None:
    """A word of change used as a noun or an adjective says no change: "after
    a bad config push", "a passing CI run", "the March upgrade", "goes climbing"."""
    for i, token in enumerate(tokens):
        if token.kind != "word" or token.stem not in CHANGE_STEMS or token.low.endswith("ed"):
            continue
        if token.low in cl.PAST:
            continue  # "my brother became": a past verb, no noun
        if i and token.low.endswith("ing") and tokens[i - 1].stem in ("go", "went", "gon"):
            token.stem = f"{token.stem}~"  # "goes climbing": an activity, no change
            continue
        for before in reversed(tokens[max(0, i - 3) : i]):
            if before.low in _DETERMINERS:
                token.stem = f"{token.stem}~"  # a noun now: no change, no frame
                break
            plain = before.kind in ("word", "name") and before.low not in STOP
            if not (plain or before.value is not None) or before.stem in VERB_STEMS:
                break


def _flips(token: Token, nxt: Token | None) -> bool:
    """A word that asserts a denial ("divorced": not married)."""
    return _state_word(token, nxt) and not STATE_OF[token.stem][1]


def _state_word(token: Token, nxt: Token | None) -> bool:
    """ "married", "disabled", "optional" said of the subject; not the verbs
    "closes", "requires", nor "a private developer"."""
    if token.kind != "word" or token.stem not in STATE_OF:
        return False
    if token.low.endswith(("ing", "s")) and not token.low.endswith("ss"):
        return False  # "opens at 8am": what it does, no state
    return nxt is None or nxt.kind != "word" or nxt.low in STOP or nxt.low in SLACK


def _unkey(text: str) -> tuple[str, bool]:
    """ "office_city: Lisbon" -> "office city is Lisbon"; a label before a
    sentence ("Correction: ...") is dropped."""
    match = _KEYED.match(text)
    if match is None:
        return text, False
    key, value = match.group(1).strip(), match.group(2).strip()
    if key.lower() in LABELS or key.lower().split()[0] in LABELS:
        return value, False
    if len(key.split()) > 4:
        return text, False
    first, _, rest = key.partition(" ")
    if first.lower() in _RENEWED and rest:
        # "New target: p95 latency under 200 ms": the value names what it is of;
        # "New deadline: March 3": the key does ("deadline is March 3")
        if _sentence(value) or _phrase(value):
            return value, False
        key = rest
    if _sentence(value):
        if _dated(key):  # "Incident 2024-03-12: the API was down ...": which incident
            return f"In {key.lower()} {value}", False
        return value, False  # a label before a sentence: "Decision: we use Postgres"
    words = re.sub(r"[_./-]+|(?<=[a-z])(?=[A-Z])", " ", key)
    return f"{words} is {value}", True


# First words of a label that say its value replaces an older one: "New limit: ...".
_RENEWED = frozenset("new revised updated changed".split())


def _phrase(value: str) -> bool:
    """A thing named with its value ("p95 latency of the API under 200 ms",
    "monthly cloud spend of $6,000"): words, then a number; not a value
    alone ("March 3", "Kubernetes 1.29")."""
    tokens = tokenize(prepare(value))
    annotate(tokens)
    valued = [i for i, t in enumerate(tokens) if t.value is not None and t.kind != "name"]
    if not valued:
        return False
    before = [t for t in tokens[: valued[0]] if t.kind in ("word", "name")]
    return sum(t.low not in STOP for t in before) >= 2


def _sentence(value: str) -> bool:
    """A clause of its own, not a value: it has a verb ("we use Postgres",
    "Ana likes short updates") or starts with one ("reduce p95 latency to
    200 ms"); "Kubernetes 1.29" and "Lisbon" are values."""
    tokens = tokenize(prepare(value))
    annotate(tokens)
    words = [t for t in tokens if t.kind != "sep"]
    if len(words) < 3:
        return False
    if words[0].kind == "word" and words[0].stem in VERB_STEMS:
        return True
    if len(words) > 6 and any(t.kind == "word" and t.low.endswith("ed") for t in words[1:]):
        return True  # a verb the lists lack: "on 2024-02-14 the API returned errors"
    return any(cl.is_verb(tokens, i) for i, t in enumerate(tokens) if t.kind == "word")


def _dated(label: str) -> bool:
    tokens = tokenize(label)
    annotate(tokens)
    return any(t.value is not None and t.value.kind in _WHEN for t in tokens)


def _group(clauses: list[cl.Clause]) -> list[Group]:
    """Clauses of one subject together; a clause naming another subject starts
    a group of its own."""
    groups: list[tuple[list[Token], list[cl.Clause]]] = []
    for clause in clauses:
        own = [t for t in clause.subject_tokens if _subject_word(t) or _kept_in_subject(t)]
        own = [t for t in own if not cl.anaphoric(t)]
        first = clause.subject_tokens[0] if clause.subject_tokens else None
        if first is not None and first.low in cl.POSSESSIVES and groups and groups[-1][0]:
            names = [t for t in groups[-1][0] if t.kind == "name" or t.low in PRONOUNS]
            own = names + own  # "her favourite season": Lena's
        if not any(_subject_word(t) for t in own):
            own = []
        if not groups or (own and groups[-1][0] and _stems(own) != _stems(groups[-1][0])):
            groups.append((own, [clause]))
            continue
        if own and not groups[-1][0]:
            groups[-1] = (own, groups[-1][1])
        groups[-1][1].append(clause)
    return [_build(subject, members) for subject, members in groups]


def _kept_in_subject(token: Token) -> bool:
    """Prepositions (for the head) and periods ("monthly users") stay with a subject."""
    return token.low in cl.PREPOSITIONS or (
        token.value is not None and token.value.kind == "period"
    )


# "Someone left an umbrella" / "Someone left a helmet": whoever it was, two
# such statements are not known to speak of one subject.
INDEFINITE = frozenset("someone somebody something anyone anybody".split())
SOMEONE = "@someone"


def _stems(tokens: list[Token]) -> tuple[str, ...]:
    return tuple(_subject_stem(t) for t in tokens if _subject_word(t))


def _subject_word(token: Token) -> bool:
    if token.low in PRONOUNS or token.low in RELATIONS or token.low in INDEFINITE:
        return True
    if token.value is not None and token.value.kind == "period":
        return False  # "monthly budget" is the budget
    if token.value is not None or token.kind == "name":
        return True
    low = token.low
    if token.kind != "word" or low in STOP or low in SLACK or low in NEGATORS or token.taken:
        return False
    return low not in TIME_WORDS and low not in cl.POSSESSIVES


def _subject_stem(token: Token) -> str:
    if token.low in PRONOUNS:
        return PRONOUNS[token.low]
    if token.low in INDEFINITE:
        return SOMEONE
    if token.value is not None and token.kind != "name":
        return word_of(token.value)
    if token.kind == "name" and token.first:
        return stem(token.low)  # "Teams are capped": maybe a name, maybe a plural
    return token.stem


def _owners(subject: list[Token]) -> frozenset[str]:
    """The words of a possessor in the subject: "design", "team" of "the
    design team's standup"; not the subject's own pronouns."""
    found: list[str] = []
    for i, token in enumerate(subject):
        if token.possessive and token.low not in PRONOUNS:
            run = [t for t in subject[: i + 1] if _subject_word(t) and t.low not in PRONOUNS]
            found += [_subject_stem(t) for t in run]
    return frozenset(found)


def _relations(subject: list[Token]) -> frozenset[str]:
    """Someone else, when the subject is them: "Lena's sister", "my parents";
    not "the kids' school"."""
    head = _head(subject)
    words = [t for t in subject if t.low in RELATIONS and _subject_stem(t) == head]
    return frozenset(t.stem for t in words)


def _head(subject: list[Token]) -> str:
    head = ""
    for token in subject:
        if token.low in cl.PREPOSITIONS:
            break
        if _subject_word(token) and token.low not in PRONOUNS:
            head = _subject_stem(token)
    return head


# A leading phrase with one of these tells when ("In Q1 we shipped ..."); one
# with "since" or "from" tells since when a state holds, which is no occasion.
_AT_OCCASION = frozenset("in on at during for".split())
_RELATIVE = frozenset("last next this previous following coming".split())
_WHEN = TIMES


def _occasion(clauses: list[cl.Clause]) -> frozenset[str]:
    """What tells one occurrence of a subject from another: a date, an
    ordinal or a number naming it in the subject ("the April drill", "sprint
    14", "the first audit", "last week's incident"), or the time of a leading
    phrase ("In Q1 we shipped ...")."""
    found: set[str] = set()
    for clause in clauses:
        opens = bool(clause.leading) and clause.leading[0].low in _AT_OCCASION
        # a dated phrase is told apart by its date ("in incident 2024-03-12")
        dated = any(t.value is not None and t.value.kind in _WHEN for t in clause.leading)
        for tokens, subject in (
            (clause.subject_tokens, True),
            (clause.leading if opens else [], False),
        ):
            for i, token in enumerate(tokens):
                value = token.value
                if value is not None and (value.kind in _WHEN or (subject and _names_one(token))):
                    found.add(word_of(value))
                elif token.low.removesuffix("s") in TIME_WORDS or token.low in TIME_WORDS:
                    before = tokens[i - 1].low if i else ""
                    found.add(f"{before} {token.stem}" if before in _RELATIVE else token.stem)
                elif not (subject or dated) and (token.kind == "name" or _subject_word(token)):
                    # "At Finch Labs I ...", "In staging the timeout ...", "For billing we ..."
                    found.add(word_of(value) if value is not None else token.stem)
    return frozenset(found)


def _names_one(token: Token) -> bool:
    """A number that names one of many: "sprint 14", "the 3rd audit", "v2.3"."""
    value = token.value
    if value is None or value.kind not in ("number", "version"):
        return False
    if value.kind == "version" or token.low in ORDINALS or token.low[-2:] in _SUFFIXES:
        return True
    return not value.unit and bool(value.anchor)


_SUFFIXES = frozenset("st nd rd th".split())


# Verbs of when or how, not what: "started drinking coffee" is about coffee.
_ASPECTS = frozenset("start begin keep continu try stop".split())


def _acts(verbs: set[str]) -> frozenset[str]:
    """Content verbs; "started" before "drinking" is none, "starts at 10" is."""
    found = set()
    for verb in verbs:
        word, _, preposition = verb.partition(":")
        if word and (word not in _ASPECTS or preposition not in ("+ing", "to")):
            found.add(word)
    return frozenset(found)


@dataclass(slots=True)
class _Said:
    """What the clauses of one subject assert and deny, gathered."""

    asserted: list[Token] = field(default_factory=list)
    denied: list[frozenset[str]] = field(default_factory=list)
    aside: list[frozenset[str]] = field(default_factory=list)
    old: list[Value] = field(default_factory=list)
    states: set[tuple[str, bool]] = field(default_factory=set)
    verbs: set[str] = field(default_factory=set)
    objects: set[tuple[str, tuple[str, ...]]] = field(default_factory=set)
    narrowed: set[str] = field(default_factory=set)


def _gather(subject: list[Token], clauses: list[cl.Clause]) -> _Said:
    said = _Said()
    for clause in clauses:
        if clause.conditional:
            continue  # "before they expire", "if it fails": neither said nor denied
        body = [t for t in clause.predicate if not t.taken]
        rest = [t for t in clause.subject_tokens if t not in subject and t.low not in cl.ARTICLES]
        body = rest + body
        if clause.negative:
            # the subject is part of what is denied: "SSO was removed from the app";
            # a reason told after it is not ("haven't enjoyed hiking | since my knee injury")
            words = sl.content(sl.before_reason(body)) + sl.content(clause.subject_tokens)
            said.denied.append(frozenset(words))
            if clause.set_aside:
                said.aside.append(frozenset(words))
            said.narrowed |= sl.circumstances(body)
            said.old.extend(t.value for t in body if t.value is not None)
        else:
            said.asserted.extend(body)
            said.old.extend(t.value for t in body if sl.is_old(body, t) and t.value is not None)
            said.verbs.add(clause.verb)
            said.objects |= sl.objects_in(body)
        for token, nxt in _next(clause.tokens):
            if _state_word(token, nxt):
                state, asserts = STATE_OF[token.stem]
                said.states.add((state, asserts != clause.negative))
    return said


def _frames(subject: list[Token], kept: list[Token], verbs: set[str]) -> set[str]:
    """The frames a subject's clauses speak in, a content verb as "@v:verb:prep"."""
    frames = sl.frames_in(sl.content(kept)) | sl.frames_in(sl.content(subject))
    frames |= sl.copula_frames(kept)
    for verb in verbs:
        word = verb.partition(":")[0]
        if word and word not in FRAME_OF and word not in CHANGE_STEMS:
            frames.add(f"@v:{verb}")
        if verb in sl.USE_VERBS:
            frames.add("@use")  # "runs on Buildkite", "is built with Sphinx"
        if verb in sl.LEAD_VERBS:
            frames.add("@lead")
    return frames


def _build(subject: list[Token], clauses: list[cl.Clause]) -> Group:
    said = _gather(subject, clauses)
    kept = [t for t in said.asserted if not sl.is_old(said.asserted, t)]
    words = sl.content(kept)
    frames = _frames(subject, kept, said.verbs)
    roles = sl.roles_in(kept, "@work" in frames)
    if roles:
        frames |= {"@work"}
    named = any(t.kind == "name" for t in kept)
    if "@work" in frames and (roles or named) and not any(s == "employ" for s, _ in said.states):
        said.states.add(("employ", True))  # working somewhere: employed
    lows = " ".join(t.low for c in clauses for t in c.tokens)
    return Group(
        subject=_stems(subject),
        head=_head(subject),
        relations=_relations(subject),
        periods=frozenset(t.value.key for t in subject if t.value and t.value.kind == "period"),
        occasion=_occasion(clauses),
        owners=_owners(subject),
        subject_names=tuple(t.value for t in subject if t.value and t.value.kind == "name"),
        words=frozenset(w for w in words if w not in FRAME_OF and w not in CHANGE_STEMS),
        frames=frozenset(frames),
        acts=_acts(said.verbs),
        values=tuple(t.value for t in kept if t.value is not None),
        old=tuple(said.old),
        denied=tuple(said.denied),
        aside=frozenset(said.aside),
        narrowed=frozenset(said.narrowed),
        states=frozenset(said.states),
        roles=roles,
        sole_roles=sl.sole_roles_in(kept),
        complements=sl.complements_in(kept),
        new=sl.new_phrases(kept),
        pairs=sl.pairs_in(kept),
        objects=frozenset(said.objects),
        adjuncts=sl.adjuncts_in(kept),
        scopes=sl.scopes_in(kept),
        bounded=sl.bounded(lows),
        was=sl.was_in(said.asserted),
        targets=frozenset(t for c in clauses if not c.negative for t in sl.targets_in(c.predicate)),
        changed_to=frozenset(k for c in clauses for k in sl.changed_to(c.predicate)),
        preference=sl.preference_in(lows),
        shown={t.stem: t.raw for c in clauses for t in c.tokens if t.kind == "word"},
    )
