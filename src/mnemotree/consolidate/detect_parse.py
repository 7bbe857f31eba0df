"""A statement as what it is about: subjects, each with the attribute words,
frames and values asserted of it, and what it denies.

Clauses (`detect_clauses`) without a subject of their own continue the one
before, so a statement becomes a few `Group`s, one per subject. A clause
with a negation ("not", "no longer", "quit", "left") denies its words
instead of asserting them. A "key: value" text is read as "key is value".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise

from . import detect_clauses as cl
from .detect_lexicon import (
    ADDITION,
    CHANGE_STEMS,
    FRAME_OF,
    LABELS,
    NEGATIVE_STEMS,
    NEGATORS,
    PRONOUNS,
    RELATIONS,
    SLACK,
    SLACK_STEMS,
    STATE_OF,
    STOP,
    SYNONYMS,
    TIME_WORDS,
    UPDATE_MARKERS,
    VERB_STEMS,
    stem,
)
from .detect_values import Token, Value, annotate, prepare, tokenize

_KEYED = re.compile(r"^\s*([A-Za-z][\w .'/-]{0,60}?)\s*[:=](?!\d)\s*(\S.*)$", re.S)
_PREFER = re.compile(
    r"\b(?:prefers?|preferred|likes?|liked|loves?|loved|favou?rs?)\s+(?:\w+\s+)??(\w+)\s+"
    r"(?:to|over|more than|instead of)\s+(?:\w+\s+)??(\w+)"
    r"|\brather\s+(?:\w+\s+)?(\w+)\s+than\s+(?:\w+\s+)?(\w+)",
    re.I,
)
_PHRASES = (
    (re.compile(r"\b(St|Dr|Mr|Mrs|Ms|Prof|Inc|Ltd|Co|vs|approx|e\.g|i\.e)\.", re.I), r"\1"),
    (re.compile(r"\b(?:can ?not|could not|do not|does not) stand\b", re.I), "dislike"),
    (re.compile(r"\b(take|takes|took|taking|hand|hands|handed|handing) over\b", re.I),
     lambda m: "took-over" if m.group(1).lower().startswith("t") else "handed-over"),
    # Idioms of change, said as the words the detector knows.
    (re.compile(r"\b(?:left|leave|leaves|leaving) for\b", re.I), "moved to"),
    (re.compile(r"\b(?:go|goes|went|gone|going|switch|switched|move|moved) back to\b", re.I),
     "switched to"),
    (re.compile(r"\b(?:go|goes|went|gone) (?:up|down) to\b|\b(?:grew|grown) to\b", re.I),
     "changed to"),
    (re.compile(r"\b(?:lost|lose|loses|losing) (?:all |any )?interest in\b", re.I),
     "no longer likes"),
    (re.compile(r"\bfell out of love with\b", re.I), "no longer likes"),
    (re.compile(r"\b(?:got|get|gets|getting) rid of\b", re.I), "dropped"),
    (re.compile(r"\b(?:came|come|comes|coming) off\b", re.I), "stopped"),
    (re.compile(r"\b(?:gone|went|go|goes|going) off\b", re.I), "no longer likes"),
    (re.compile(r"\b(?:(?:has|have|had) )?(?:grown|got|gotten|grew|is|am|are|was|were|getting) "
                r"(?:tired|sick|bored|fed up) (?:of|with)\b", re.I), "no longer likes"),
    (re.compile(r"\b(is |am |are |was |were |be |get |got )?used to (?=\w)", re.I),
     lambda m: m.group(0) if m.group(1) else "no longer "),  # "used to like": no longer
    (re.compile(r"\b(?:turned|switched|turns|switches) off (?=the|my|a|an|his|her|their|our)",
                re.I), "stopped using "),
    (re.compile(r"\b([A-Z][\w]+)-based\b"), r"based in \1"),
    (re.compile(r"\bup to date\b", re.I), "up-to-date"),
    (re.compile(r"\b(?:in|out of) stock\b", re.I), lambda m: m.group(0).replace(" ", "-")),
    (re.compile(r"\bworks(?=\s*(?:[.;,!]|again\b|now\b|$))", re.I), "is working"),
    (re.compile(r"\bout of date\b", re.I), "out-of-date"),
    (re.compile(r"\b(?:between jobs|out of work|jobless)\b", re.I), "unemployed"),
    (re.compile(r"\b(?:was|were|got|been|being) (?:laid off|let go|fired|made redundant)\b",
                re.I), "quit"),
    (re.compile(r"\bswears? by\b", re.I), "prefers"),
    (re.compile(r"\b(am|is|are|was|were)( not)? into\b", re.I), r"\1\2 fond of"),
    (re.compile(r"\b(is|are|was|were|turned|switched) off\b", re.I), r"\1 disabled"),
    (re.compile(r"\b(?:turned|switched) on\b", re.I), "enabled"),
    (re.compile(r"\b(is|are|was|were) on\b(?=\s*(?:for\b|in\b|by\b|[.,;]|$))", re.I),
     r"\1 enabled"),
)  # fmt: skip
_USE_VERBS = frozenset("run:on build:with build:on host:on power:by".split())
_LEAD_VERBS = frozenset("report:to answer:to".split())  # "reports to Mark": Mark leads
_DETERMINERS = cl.ARTICLES | cl.POSSESSIVES | {"my", "our", "your"}
_ADJUNCT = frozenset("for after because since during so while when thanks following".split())
_ROLE_HEADS = frozenset("head lead chief director manager owner".split())
_OCCUPATION = re.compile(
    r"(?:er|or|ist|ista|ant|ian|yst|ee|ent|ect|ive|ic|eon|nurse|lead|chef|cook|clerk|head|"
    r"intern|dba|cto|ceo|cfo|coo|vp|student|pm|pilot|guard|judge|coach|nanny|medic|"
    r"paralegal|sre|dev|devops)$"
)


@dataclass(frozen=True, slots=True)
class Group:
    """What one statement says about one subject."""

    subject: tuple[str, ...]  # stems of the subject's words, in order
    head: str  # the subject's last word before a preposition
    relations: frozenset[str]  # "sister" of "my sister"
    periods: frozenset[object]  # "monthly" of "monthly active users"
    subject_names: tuple[Value, ...]
    words: frozenset[str]  # asserted attribute words (stems), frames left out
    frames: frozenset[str]  # "@place", "@work", ..., "@v:report" (the verb)
    values: tuple[Value, ...]  # asserted
    old: tuple[Value, ...]  # said to be left or replaced ("from X", "no longer at X")
    denied: tuple[frozenset[str], ...]  # the words of each denial
    states: frozenset[tuple[str, bool]]  # ("married", False) for "divorced"
    roles: tuple[tuple[str, ...], ...]  # "software engineer"
    complements: tuple[tuple[str, ...], ...]  # "master" of "the branch is master"
    new: tuple[tuple[str, ...], ...]  # "main" of "renamed to main"
    pairs: frozenset[tuple[str, str]]  # (modifier, head): ("dark", "mode")
    objects: frozenset[tuple[str, tuple[str, ...]]]  # ("listen:to", ("jazz",))
    adjuncts: frozenset[str]  # words of a phrase after the value: "for tracking her runs"
    was: tuple[tuple[str, ...], ...]  # "espresso" of "switched from espresso to matcha"
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
    values: tuple[Value, ...]  # every value, for dedupe
    names: frozenset[str]


def parse(text: str) -> Statement:
    prepared = prepare(text)
    for pattern, replacement in _PHRASES:
        prepared = pattern.sub(replacement, prepared)
    prepared, keyed = _unkey(prepared)
    tokens = tokenize(prepared)
    annotate(tokens)
    _auxiliaries(tokens)
    parts = cl.split(tokens)
    clauses = [cl.Clause(part, keyed and i == 0, i == 0) for i, part in enumerate(parts)]
    groups = _group([c for c in clauses if c.tokens])
    vocab = {t.stem for t in tokens if t.kind in ("word", "name")}
    vocab |= {form for t in tokens if t.kind in ("word", "name") for form in (t.low, stem(t.low))}
    vocab |= {FRAME_OF[w] for w in vocab if w in FRAME_OF}
    vocab |= {str(t.value.key) for t in tokens if t.value is not None}
    lows = {t.low for t in tokens}
    update = bool(lows & UPDATE_MARKERS) or any(c.update for c in clauses)
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


def _flips(token: Token, nxt: Token | None) -> bool:
    """A word that asserts a denial ("divorced": not married)."""
    return _state_word(token, nxt) and not STATE_OF[token.stem][1]


def _state_word(token: Token, nxt: Token | None) -> bool:
    """ "married", "disabled", "optional" said of the subject; not the verbs
    "closes", "requires", nor "a private developer"."""
    if token.kind != "word" or token.stem not in STATE_OF:
        return False
    if token.low.endswith(("ing", "es", "ts")):
        return False
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
    if len(value.split()) > 6 and re.search(r"\b(?:is|are|was|were|has|have|had)\b", value):
        return value, False  # a sentence after a label
    words = re.sub(r"[_./-]+|(?<=[a-z])(?=[A-Z])", " ", key)
    return f"{words} is {value}", True


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


def _stems(tokens: list[Token]) -> tuple[str, ...]:
    return tuple(_subject_stem(t) for t in tokens if _subject_word(t))


def _subject_word(token: Token) -> bool:
    if token.low in PRONOUNS or token.low in RELATIONS:
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
    if token.value is not None and token.kind != "name":
        return str(token.value.key)
    return token.stem


def _head(subject: list[Token]) -> str:
    head = ""
    for token in subject:
        if token.low in cl.PREPOSITIONS:
            break
        if _subject_word(token) and token.low not in PRONOUNS:
            head = _subject_stem(token)
    return head


def _build(subject: list[Token], clauses: list[cl.Clause]) -> Group:
    asserted: list[Token] = []
    denied: list[frozenset[str]] = []
    old: list[Value] = []
    states: set[tuple[str, bool]] = set()
    verbs: set[str] = set()
    objects: set[tuple[str, tuple[str, ...]]] = set()
    for clause in clauses:
        body = [t for t in clause.predicate if not t.taken]
        body = [t for t in clause.subject_tokens if t not in subject] + body
        if clause.negative:
            # the subject is part of what is denied: "SSO was removed from the app"
            words = _content(body) + _content(clause.subject_tokens)
            denied.append(frozenset(words))
            old.extend(t.value for t in body if t.value is not None)
        else:
            asserted.extend(body)
            old.extend(t.value for t in body if _is_old(body, t) and t.value is not None)
            verbs.add(clause.verb)
            objects |= _objects(body)
        for token, nxt in _next(clause.tokens):
            if _state_word(token, nxt):
                state, asserts = STATE_OF[token.stem]
                states.add((state, asserts != clause.negative))
    kept = [t for t in asserted if not _is_old(asserted, t)]
    words = _content(kept)
    frames = _frames(words) | _frames(_content(subject)) | _copula_frames(kept)
    for verb in verbs:
        word = verb.partition(":")[0]
        if word and word not in FRAME_OF and word not in CHANGE_STEMS:
            frames.add(f"@v:{verb}")
        if verb in _USE_VERBS:
            frames.add("@use")  # "runs on Buildkite", "is built with Sphinx"
        if verb in _LEAD_VERBS:
            frames.add("@lead")
    roles = _roles(kept, "@work" in frames)
    if roles:
        frames |= {"@work"}
    named = any(t.kind == "name" for t in kept)
    if "@work" in frames and (roles or named) and not any(s == "employ" for s, _ in states):
        states.add(("employ", True))  # working somewhere: employed
    lows = " ".join(t.low for c in clauses for t in c.tokens)
    return Group(
        subject=_stems(subject),
        head=_head(subject),
        relations=frozenset(t.stem for t in subject if t.low in RELATIONS),
        periods=frozenset(t.value.key for t in subject if t.value and t.value.kind == "period"),
        subject_names=tuple(t.value for t in subject if t.value and t.value.kind == "name"),
        words=frozenset(w for w in words if w not in FRAME_OF and w not in CHANGE_STEMS),
        frames=frozenset(frames),
        values=tuple(t.value for t in kept if t.value is not None),
        old=tuple(old),
        denied=tuple(denied),
        states=frozenset(states),
        roles=roles,
        complements=_complements(kept),
        new=_new_phrases(kept),
        pairs=_pairs(kept),
        objects=frozenset(objects),
        adjuncts=_adjuncts(kept),
        was=_was(asserted),
        preference=_preference(lows),
        shown={t.stem: t.raw for c in clauses for t in c.tokens if t.kind == "word"},
    )


def _frames(words: list[str]) -> set[str]:
    found = {FRAME_OF[w] for w in words if w in FRAME_OF}
    return found | {"@change" for w in words if w in CHANGE_STEMS}


def _copula_frames(tokens: list[Token]) -> set[str]:
    """ "is Maria Lopez" (a named value), "is in Warsaw" (a place)."""
    found = set()
    for i, token in enumerate(tokens[:-1]):
        if token.low not in cl.COPULAS:
            continue
        j = i + 1
        while j < len(tokens) - 1 and tokens[j].low in cl.ARTICLES | cl.ADVERBS:
            j += 1
        if tokens[j].kind == "name":
            found.add("@is-name")
        elif tokens[j].low in ("in", "at") and j + 1 < len(tokens) and tokens[j + 1].kind == "name":
            found |= {"@place", "@work"} if tokens[j].low == "at" else {"@place"}
    return found


def _content(tokens: list[Token]) -> list[str]:
    """Attribute words: no function words, no values; a denying verb stands
    for what it denies ("dislike" -> "like") or for nothing ("quit")."""
    out = []
    for i, token in enumerate(tokens):
        if token.kind == "word" and not token.taken and token.value is None:
            low, word = token.low, token.stem
            if low in STOP or low in NEGATORS or word in SLACK_STEMS or low in PRONOUNS:
                continue
            if word in NEGATIVE_STEMS and cl.denies(tokens, i):
                word = NEGATIVE_STEMS[word]
                if not word:
                    continue
            out.append(word)
        elif token.kind == "name" and token.value is not None and token.value.kind == "name":
            out.extend(str(token.value.key).split())
    return out


def _is_old(tokens: list[Token], token: Token) -> bool:
    """A value after "from" (with a "to" later or a verb of change before),
    or after "instead of" / "replacing"."""
    if token.value is None or token not in tokens:
        return False
    i = tokens.index(token)
    before = [t.low for t in tokens[max(0, i - 3) : i] if t.low not in cl.ARTICLES]
    if not before:
        return False
    if before[-1] in ("replacing", "replaces", "replaced") or before[-2:] == ["instead", "of"]:
        return True
    if before[-1] == "of" and len(before) >= 2 and before[-2] == "instead":
        return True
    if before[-1] != "from":
        return False
    return any(t.stem in CHANGE_STEMS for t in tokens[:i])


def _roles(tokens: list[Token], working: bool = False) -> tuple[tuple[str, ...], ...]:
    """ "is a nurse", "works as a paralegal", "became the manager", "promoted to COO"."""
    found = []
    for i, token in enumerate(tokens):
        low = token.low
        promoted = token.stem in ("becom", "promot")
        if not (low in cl.COPULAS or low == "as" or promoted):
            continue
        j = i + 1
        while j < len(tokens) and (tokens[j].low == "to" or tokens[j].low in cl.ADVERBS):
            j += 1
        article = j < len(tokens) and tokens[j].low in _DETERMINERS
        start = j + article
        while start < len(tokens) and tokens[start].low in ("new", "current", "acting", "interim"):
            start += 1
        phrase = _phrase(tokens, start)
        if not phrase:
            continue
        end = start + len(phrase)
        occupation = bool(_OCCUPATION.search(tokens[end - 1].low))
        if article:
            role = occupation or (working and low == "as") or _at_name(tokens, end)
        else:  # "is now head of sales", "promoted to COO"
            role = promoted or (occupation and phrase[-1] in _ROLE_HEADS)
        if role:
            found.append(_of(tokens, end, phrase))
    return tuple(found)


def _at_name(tokens: list[Token], j: int) -> bool:
    return j + 1 < len(tokens) and tokens[j].low == "at" and tokens[j + 1].kind == "name"


def _of(tokens: list[Token], j: int, phrase: tuple[str, ...]) -> tuple[str, ...]:
    """A role with its "of ...": "head of marketing"."""
    if j < len(tokens) and tokens[j].low == "of":
        return phrase + _phrase(tokens, j + 1)[:2]
    return phrase


def _complements(tokens: list[Token]) -> tuple[tuple[str, ...], ...]:
    """ "the default branch is master": a short phrase after a copula."""
    found = []
    for i, token in enumerate(tokens):
        if token.low in cl.COPULAS and i + 1 < len(tokens):
            phrase = _phrase(tokens, i + 1, plain=True)
            end = i + 1 + len(phrase)
            if phrase and (end >= len(tokens) or tokens[end].low in cl.PREPOSITIONS):
                found.append(phrase)
    return tuple(found)


def _new_phrases(tokens: list[Token]) -> tuple[tuple[str, ...], ...]:
    """ "renamed to main", "changed my shell to zsh": the value after a change."""
    found = []
    for i, token in enumerate(tokens):
        if token.stem not in CHANGE_STEMS:
            continue
        for j in range(i + 1, min(i + 6, len(tokens))):
            if tokens[j].low in ("to", "into") or (tokens[j].low == "as" and j == i + 1):
                k = j + 1
                if k < len(tokens) and tokens[k].low in cl.ARTICLES:
                    k += 1
                phrase = _phrase(tokens, k)
                if phrase:
                    found.append(phrase)
                break
    return tuple(found)


def _phrase(tokens: list[Token], j: int, plain: bool = False) -> tuple[str, ...]:
    """Up to three plain words from j, to the next function word; `plain`:
    no verb forms or frame words ("is hosted in", "is based in")."""
    words: list[str] = []
    for token in tokens[j : j + 3]:
        if token.kind != "word" or token.taken or token.unit or token.low in STOP:
            break
        if token.low in SLACK:
            break
        if token.low in NEGATORS or token.low in PRONOUNS:
            break
        if plain and (token.stem in FRAME_OF or token.low.endswith(("ed", "ing"))):
            break
        words.append(token.stem)
    return tuple(words)


def _objects(tokens: list[Token]) -> set[tuple[str, tuple[str, ...]]]:
    """What a verb is said of, keyed by the verb (or its frame) and its
    preposition: "listens to jazz" -> ("listen:to", ("jazz",))."""
    found = set()
    for k, token in enumerate(tokens):
        if token.kind != "word" or token.taken or token.stem not in VERB_STEMS:
            continue
        if token.low in cl.COPULAS or token.low in cl.AUXILIARIES or token.stem in CHANGE_STEMS:
            continue
        j, prep = k + 1, ""
        while j < len(tokens) and tokens[j].low in cl.ADVERBS:
            j += 1
        if j < len(tokens) and tokens[j].low in cl.PREPOSITIONS:
            prep, j = tokens[j].low, j + 1
        while j < len(tokens) and (tokens[j].low in cl.ARTICLES or tokens[j].low in PRONOUNS
                                   or tokens[j].low in cl.POSSESSIVES):  # fmt: skip
            j += 1
        words = _object_words(tokens, j)
        if words:
            found.add((f"{FRAME_OF.get(token.stem, token.stem)}:{prep}", words))
    return found


def _object_words(tokens: list[Token], j: int) -> tuple[str, ...]:
    words: list[str] = []
    for token in tokens[j : j + 4]:
        if token.kind == "name" and token.value is not None:
            words.extend(str(token.value.key).split())
        elif token.kind == "word" and not (token.taken or token.unit) and token.low not in STOP:
            if token.low in SLACK or token.low in NEGATORS or token.low in TIME_WORDS:
                break
            words.append(token.stem)
        elif not (token.kind == "name" and token.taken):
            break
    return tuple(words)


def _adjuncts(tokens: list[Token]) -> frozenset[str]:
    """Words of the circumstances told after a value ("switched to Garmin |
    for tracking her runs", "four bedrooms | after the loft conversion")."""
    seen_value, inside = False, False
    found: list[Token] = []
    for token in tokens:
        if token.value is not None:
            seen_value = True
        elif seen_value and token.low in _ADJUNCT:
            inside = True
        elif inside:
            found.append(token)
    return frozenset(_content(found))


def _was(tokens: list[Token]) -> tuple[tuple[str, ...], ...]:
    """Plain words after "from" in "switched from espresso to matcha", and
    after "instead of"."""
    found = []
    for i, token in enumerate(tokens):
        if token.low == "of" and i and tokens[i - 1].low == "instead":
            phrase = _phrase(
                tokens, i + 1 + (i + 1 < len(tokens) and tokens[i + 1].low in cl.ARTICLES)
            )
            if phrase:
                found.append(phrase)
            continue
        if token.low != "from" or not any(t.low == "to" for t in tokens[i + 1 :]):
            continue
        if any(t.stem in CHANGE_STEMS for t in tokens[:i]):
            phrase = _phrase(tokens, i + 1 + (tokens[i + 1].low in cl.ARTICLES))
            if phrase:
                found.append(phrase)
    return tuple(found)


def _pairs(tokens: list[Token]) -> frozenset[tuple[str, str]]:
    """Adjacent (modifier, head) words: ("dark", "mode"), ("window", "seat")."""
    found = set()
    for a, b in pairwise(tokens):
        if _plain(a) and _plain(b):
            found.add((a.stem, b.stem))
    return frozenset(found)


def _plain(token: Token) -> bool:
    if token.kind != "word" or token.taken or token.unit or token.value is not None:
        return False
    low = token.low
    if low in STOP or low in SLACK or low in NEGATORS or low in PRONOUNS:
        return False
    return token.stem not in FRAME_OF and token.stem not in CHANGE_STEMS


def _preference(text: str) -> tuple[str, str] | None:
    """(preferred, over) from "prefers X to Y" or "would rather X than Y"."""
    match = _PREFER.search(text)
    if match is None:
        return None
    x, y = (match.group(1), match.group(2)) if match.group(1) else (match.group(3), match.group(4))
    return stem(SYNONYMS.get(x, x)), stem(SYNONYMS.get(y, y))
