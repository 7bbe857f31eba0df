"""What a clause says besides its subject: its frames, its content words
and the slots that hold a value ("is a nurse", "renamed to main", "listens
to jazz", "switched from espresso to matcha", "prefers tea to coffee")."""

from __future__ import annotations

import re
from itertools import pairwise

from . import detect_clauses as cl
from .detect_lexicon import (
    CHANGE_STEMS,
    FRAME_OF,
    NEGATIVE_STEMS,
    NEGATORS,
    OCCUPATION,
    PRONOUNS,
    SLACK,
    SLACK_STEMS,
    STOP,
    SYNONYMS,
    TIME_WORDS,
    VERB_STEMS,
    stem,
)
from .detect_tokens import Token, word_of

_PREFER = re.compile(
    r"\b(?:prefers?|preferred|likes?|liked|loves?|loved|favou?rs?)\s+(?:\w+\s+)??(\w+)\s+"
    r"(?:to|over|more than|instead of)\s+(?:\w+\s+)??(\w+)"
    r"|\brather\s+(?:\w+\s+){0,2}?(\w+)\s+than\s+(?:\w+\s+)?(\w+)",
    re.I,
)


USE_VERBS = frozenset("run:on build:with build:on power:by".split())


LEAD_VERBS = frozenset("report:to answer:to".split())  # "reports to Mark": Mark leads


_DETERMINERS = cl.ARTICLES | cl.POSSESSIVES | {"my", "our", "your"}


_REASONS = frozenset("because since due thanks after".split())
_ADJUNCT = frozenset("for after because since during so while when thanks following".split())


_ROLE_HEADS = frozenset("head lead chief director manager owner".split())
# Words before a noun of someone that make it a habit or a liking, not a job.
_HABITUAL = frozenset(
    "keen avid big huge passionate lifelong regular heavy casual amateur occasional light "
    "social keen devoted enthusiastic serious".split()
)


def frames_in(words: list[str]) -> set[str]:
    found = {FRAME_OF[w] for w in words if w in FRAME_OF}
    return found | {"@change" for w in words if w in CHANGE_STEMS}


def copula_frames(tokens: list[Token]) -> set[str]:
    """ "is Maria Lopez" (a named value), "is in Warsaw", "are stored in
    Frankfurt" (a place)."""
    found = set()
    for i, token in enumerate(tokens[:-1]):
        if token.low not in cl.COPULAS:
            continue
        j = i + 1
        while j < len(tokens) - 1 and tokens[j].low in cl.ARTICLES | cl.ADVERBS:
            j += 1
        passive = tokens[j].kind == "word" and (
            tokens[j].low.endswith("ed") or tokens[j].low in cl.PAST
        )
        if passive and j < len(tokens) - 1 and tokens[j + 1].low == "in":
            j += 1  # "are stored | in Frankfurt", "is kept | in a vault"
        if tokens[j].kind == "name" and not passive:
            found.add("@is-name")
        elif tokens[j].low in ("in", "at") and j + 1 < len(tokens) and tokens[j + 1].kind == "name":
            found |= {"@place", "@work"} if tokens[j].low == "at" else {"@place"}
    return found


def content(tokens: list[Token]) -> list[str]:
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
                after = tokens[i + 1].low if i + 1 < len(tokens) else ""
                if not word or after == "from":
                    continue  # "retired from teaching": teaching is what is denied
            out.append(word)
        elif token.kind == "name" and token.value is not None and token.value.kind == "name":
            out.extend(str(token.value.key).split())
        elif token.value is not None and token.value.kind == "daypart":
            out.append(token.stem)  # "night" of "night shifts": a word as well
    return out


def is_old(tokens: list[Token], token: Token) -> bool:
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


def roles_in(tokens: list[Token], working: bool = False) -> tuple[tuple[str, ...], ...]:
    """ "is a nurse", "works as a paralegal", "became the manager", "promoted to COO"."""
    return tuple(role for role, _ in _roles(tokens, working))


def sole_roles_in(tokens: list[Token]) -> frozenset[tuple[str, ...]]:
    """Roles one person holds at a time, said with "the" or an owner: "is
    the release manager", "is our DBA"; not "is a designer"."""
    return frozenset(
        role for role, determiner in _roles(tokens) if determiner not in ("a", "an", "")
    )


def _roles(tokens: list[Token], working: bool = False) -> list[tuple[tuple[str, ...], str]]:
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
        phrase = _phrase_at(tokens, start)
        if not phrase or tokens[start].low in _HABITUAL:
            continue  # "a keen cyclist", "a heavy smoker": a habit, no job
        end = start + len(phrase)
        occupation = bool(OCCUPATION.search(tokens[end - 1].low))
        if article:
            role = occupation or (working and low == "as") or _at_name(tokens, end)
        else:  # "is now head of sales", "promoted to COO"
            role = promoted or (occupation and phrase[-1] in _ROLE_HEADS)
        if role:
            found.append((_of(tokens, end, phrase), tokens[j].low if article else ""))
    return found


def _at_name(tokens: list[Token], j: int) -> bool:
    return j + 1 < len(tokens) and tokens[j].low == "at" and tokens[j + 1].kind == "name"


def _of(tokens: list[Token], j: int, phrase: tuple[str, ...]) -> tuple[str, ...]:
    """A role with its "of ...": "head of marketing"."""
    if j < len(tokens) and tokens[j].low == "of":
        return phrase + _phrase_at(tokens, j + 1)[:2]
    return phrase


def complements_in(tokens: list[Token]) -> tuple[tuple[str, ...], ...]:
    """ "the default branch is master": a short phrase after a copula."""
    found = []
    for i, token in enumerate(tokens):
        if token.low in cl.COPULAS and i + 1 < len(tokens):
            phrase = _phrase_at(tokens, i + 1, plain=True)
            end = i + 1 + len(phrase)
            if phrase and (end >= len(tokens) or tokens[end].low in cl.PREPOSITIONS):
                found.append(phrase)
    return tuple(found)


def _change_phrases(tokens: list[Token]) -> list[list[Token]]:
    """The phrase a change goes to: "moved | to the eu-west-1 cluster"."""
    found = []
    for i, token in enumerate(tokens):
        if token.stem not in CHANGE_STEMS:
            continue
        start = next(
            (
                j + 1
                for j in range(i + 1, min(i + 6, len(tokens)))
                if tokens[j].low in ("to", "into")
            ),
            None,
        )
        if start is not None:
            found.append(tokens[start : start + 6])
    return found


def changed_to(tokens: list[Token]) -> frozenset[str]:
    """The kinds of the values a change goes to: "number" of "grew to 60 seats"."""
    return frozenset(
        t.value.kind
        for phrase in _change_phrases(tokens)
        for t in phrase[:3]
        if t.value is not None
    )


def targets_in(tokens: list[Token]) -> frozenset[str]:
    """What kind of thing a change goes to, when its phrase says it after a
    value or a word ("moved to the eu-west-1 cluster", "switched to two-week
    sprints"): the last word; none for a bare value ("moved to Porto")."""
    found = set()
    for after in _change_phrases(tokens):
        phrase: list[Token] = []
        for nxt in after:
            if nxt.kind == "sep" or nxt.low in cl.PREPOSITIONS or nxt.low in cl.CONJUNCTIONS:
                break
            if nxt.low == "as":  # "moved to VS Code | as my editor"
                break
            valued = any(t.value is not None or t.kind == "name" for t in phrase)
            if nxt.low in SLACK and valued and not phrase[-1].possessive:
                break  # "moved to Austin | last quarter"; not "the App Store's new queue"
            if nxt.low not in cl.ARTICLES and nxt.low not in cl.POSSESSIVES | {"my", "our"}:
                phrase.append(nxt)
        last = phrase[-1] if len(phrase) >= 2 else None
        if last is None or last.kind != "word" or last.taken:
            continue
        if last.low not in STOP and last.stem not in CHANGE_STEMS:
            found.add(last.stem)
    return frozenset(found)


def new_phrases(tokens: list[Token]) -> tuple[tuple[str, ...], ...]:
    """ "renamed to main", "changed my shell to zsh": the value after a change."""
    found = []
    for i, token in enumerate(tokens):
        if token.stem not in CHANGE_STEMS:
            continue
        for j in range(i + 1, min(i + 6, len(tokens))):
            right_after = j == i + 1 and tokens[j].low in ("as", "in")  # "redesigned in green"
            if tokens[j].low in ("to", "into") or right_after:
                k = j + 1
                if k < len(tokens) and tokens[k].low in cl.ARTICLES:
                    k += 1
                phrase = _phrase_at(tokens, k)
                if phrase:
                    found.append(phrase)
                break
    return tuple(found)


def _phrase_at(tokens: list[Token], j: int, plain: bool = False) -> tuple[str, ...]:
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
        inflected = token.low.endswith(("ed", "ing")) and token.stem != token.low  # not "spring"
        if plain and (token.stem in FRAME_OF or inflected):
            break
        words.append(token.stem)
    return tuple(words)


def objects_in(tokens: list[Token]) -> set[tuple[str, tuple[str, ...]]]:
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
        while j < len(tokens) and (
            tokens[j].low in cl.ARTICLES
            or tokens[j].low in PRONOUNS
            or tokens[j].low in cl.POSSESSIVES
        ):
            j += 1
        words = _object_words(tokens, j)
        if words:
            key = FRAME_OF.get(token.stem, token.stem)
            # "asks for", "wishes for", "cares for": what is liked, as without "for"
            prep = "" if key == "@like" and prep == "for" else prep
            found.add((f"{key}:{prep}", words))
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


def circumstances(tokens: list[Token]) -> set[str]:
    """How or where something is said to happen: the words of a phrase after
    a preposition ("by hand", "in staging"), and manner adverbs ("manually")."""
    found: set[str] = set()
    inside = False
    for token in tokens:
        if token.kind == "sep":
            inside = False
        elif token.low in cl.PREPOSITIONS and token.low not in ("to", "of"):
            inside = True
        elif token.kind == "word" and token.low.endswith("ly") and token.low not in STOP | SLACK:
            found.add(token.stem)  # "manually"; not "completely", which says no less
        elif inside and token.value is not None:
            found.add(word_of(token.value))  # "on Fridays", "in eu-west-1"
        elif inside and token.kind == "word" and token.low not in STOP | SLACK and not token.taken:
            found.add(token.stem)
    return found


def before_reason(tokens: list[Token]) -> list[Token]:
    """What a clause says before a reason or a time it gives ("since my knee
    injury", "because of the noise", "after the move")."""
    for i, token in enumerate(tokens):
        if i > 1 and token.low in _REASONS and token.kind == "word":
            return tokens[:i]
    return tokens


def adjuncts_in(tokens: list[Token]) -> frozenset[str]:
    """Words of the circumstances told after a value ("switched to Garmin |
    for tracking her runs", "four bedrooms | after the loft conversion")."""
    seen_value, inside = False, False
    found: list[Token] = []
    for i, token in enumerate(tokens):
        if token.value is not None:
            seen_value = True
        elif (seen_value and token.low in _ADJUNCT) or (i > 1 and token.low in _REASONS):
            inside = True  # a reason is told apart anywhere: "since my knee injury"
        elif inside:
            found.append(token)
    return frozenset(content(found))


def was_in(tokens: list[Token]) -> tuple[tuple[str, ...], ...]:
    """Plain words after "from" in "switched from espresso to matcha", and
    after "instead of"."""
    found = []
    for i, token in enumerate(tokens):
        if token.low == "of" and i and tokens[i - 1].low == "instead":
            phrase = _phrase_at(
                tokens, i + 1 + (i + 1 < len(tokens) and tokens[i + 1].low in cl.ARTICLES)
            )
            if phrase:
                found.append(phrase)
            continue
        if token.low != "from" or not any(t.low == "to" for t in tokens[i + 1 :]):
            continue
        if any(t.stem in CHANGE_STEMS for t in tokens[:i]):
            phrase = _phrase_at(tokens, i + 1 + (tokens[i + 1].low in cl.ARTICLES))
            if phrase:
                found.append(phrase)
    return tuple(found)


def pairs_in(tokens: list[Token]) -> frozenset[tuple[str, str]]:
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
    return token.stem not in FRAME_OF and token.stem.rstrip("~") not in CHANGE_STEMS


def preference_in(text: str) -> tuple[str, str] | None:
    """(preferred, over) from "prefers X to Y" or "would rather X than Y"."""
    match = _PREFER.search(text)
    if match is None:
        return None
    x, y = (match.group(1), match.group(2)) if match.group(1) else (match.group(3), match.group(4))
    return stem(SYNONYMS.get(x, x)), stem(SYNONYMS.get(y, y))


# Prepositions whose phrase can say where or for what a value holds.
_SCOPING = frozenset("in on for at".split())


def scopes_in(tokens: list[Token]) -> frozenset[tuple[str, str]]:
    """Where or for what something is said to hold, by a plain noun after a
    preposition: ("in", "staging") of "runs 2 replicas in staging", ("for",
    "admin") of "the timeout for admins"; not a value ("in Berlin", "in 4
    minutes", "in the morning")."""
    found = set()
    for i, token in enumerate(tokens[:-1]):
        if token.low not in _SCOPING:
            continue
        j = i + 1
        while j < len(tokens) - 1 and tokens[j].low in _DETERMINERS:
            j += 1
        noun = tokens[j]
        if noun.kind != "word" or noun.taken or noun.unit or noun.value is not None:
            continue
        low = noun.low
        if low in STOP or low in SLACK or low in NEGATORS or low in PRONOUNS:
            continue
        if low in TIME_WORDS or noun.stem in TIME_WORDS:
            continue
        found.add((token.low, noun.stem))
    return frozenset(found)


# Words that make a number a bound (a limit, a target), not an amount measured or done.
_BOUND = re.compile(
    r"\b(?:limits?|limited|caps?|capped|max|maximum|min|minimum|targets?|goals?|quotas?|"
    r"thresholds?|ceiling|under|below|above|at most|at least|up to|no more than|less than|"
    r"more than|fewer than)\b"
)


def bounded(lows: str) -> bool:
    """ "The rate limit is 100 requests a minute", "keep it under 300 ms": a
    bound, which an amount said outright ("serves 40 million requests a
    day", "loads in 1.4 seconds") neither changes nor contradicts."""
    return _BOUND.search(lows) is not None
