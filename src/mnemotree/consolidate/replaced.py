"""A statement that retires a named thing outdates what said it was in use.

"We switched from PagerDuty to Opsgenie", "Transactional email was migrated
from Postmark to SES", "we replaced OpenSearch with Postgres full-text
search", "We no longer use CircleCI", "LaunchDarkly is gone": each names a
tool, service or system that is no longer in use. An earlier statement that
names it as it was (and not what replaced it) is outdated by the later one,
whatever its own subject and attribute: "Invoice emails are sent through
Postmark" is a different sentence from a migration note, but no longer
true. The comparison detectors, which match subject and attribute, cannot
see that; this reading complements them.

Only names count as the retired thing: a capitalised word or an identifier
(a word with digits, dots, dashes or inner capitals), so "we moved from
weekly to daily standups" retires nothing. People are not things: leaving
and moving people are for the detectors.
"""

from __future__ import annotations

import functools
import re

from .detect import Finding
from .detect_lexicon import stem

CONFIDENCE = 0.85  # a retirement said outright: acted on, and says it changed
_NAME = (
    r"((?:[\w.-]+/[\w./-]*\w|[A-Z][\w.+-]*|[a-z]+(?:\d|\.\w)[\w.-]*|[a-z]+-[\w-]+)"
    r"(?:\s+[A-Z][\w.+-]*){0,2})"
)
# A generic head after a name ("the Debezium connector", "the cron job"): the
# name is what is retired, the head says what kind of thing it was.
_HEAD = (
    r"(?:\s+(?:connector|service|cluster|server|job|jobs|pipeline|script|integration|feed"
    r"|account|instance|app|bot|plugin|extension|queue|database|bucket|workflow|tool))?"
)
_GONE = (
    r"(?:was|were|has\s+been|have\s+been|is|are|got)\s+(?:now\s+)?(?:retired|decommissioned"
    r"|removed|dropped|shut\s+down|sunset|turned\s+off|switched\s+off|deprecated|deleted)"
    r"|(?:is|are|was|were)\s+(?:now\s+)?no\s+longer\s+(?:used|needed|in\s+use|supported"
    r"|maintained|running|run)|(?:is|are)\s+gone"
)
_RETIRED = (
    # switched / migrated / ported / moved all of it ... from X to Y
    re.compile(
        r"(?i:\b(?:switch(?:ed|es)?|migrat(?:ed|es|e)|port(?:ed|s)?|went"
        r"|mov(?:ed|es|e)\s+(?:all|everything))\b[^.;:]*?\bfrom\s+(?:the\s+)?)"
        rf"{_NAME}(?i:\s+(?:to|onto)\b)"
    ),
    re.compile(rf"(?i:\breplac(?:ed|es|e)\s+(?:the\s+)?){_NAME}(?i:\s+(?:with|by)\b)"),
    re.compile(rf"\b{_NAME}(?i:\s+(?:was|has\s+been|is|got)\s+replaced\b)"),
    re.compile(rf"(?<![\w./-]){_NAME}{_HEAD}(?i:\s+(?:{_GONE})\b)"),
    re.compile(
        rf"(?i:\b(?:no\s+longer|don't|do\s+not|stopped)\s+us(?:e|es|ing)\s+(?:the\s+)?){_NAME}"
    ),
)


@functools.lru_cache(maxsize=4096)
def retired(text: str) -> frozenset[str]:
    """The names a statement says are no longer in use (casefolded). Cached:
    a consolidation scan reads each statement against many neighbours."""
    found = set()
    for pattern in _RETIRED:
        for match in pattern.finditer(text):
            words = match.group(1).strip(" .").split()
            if words and words[0] in _SENTENCE_WORDS:
                words = words[1:]  # "The Segment integration": the name follows
            if words:
                found.add(" ".join(words).casefold())
    return frozenset(found - {""})


def replaced(earlier: str, later: str) -> Finding | None:
    """`later` retires a thing `earlier` names as in use (and `earlier` does
    not itself speak of the retirement or of what replaced it)."""
    names = retired(later)
    if not names or retired(earlier):
        return None
    said = earlier.casefold()
    if any(_mentions(said, successor) for successor in _successors(later) - names):
        return None  # it names what replaced it, as the later says it: it knows
    told = later.casefold()
    gone = sorted((n for n in names if _mentions(said, n) and not _knows(said, n)), key=told.find)
    if not gone:
        return None
    return Finding.announced(f"{gone[0]} is no longer in use", CONFIDENCE)


def _mentions(text: str, name: str) -> bool:
    return re.search(rf"(?<![\w./-]){re.escape(name)}(?![\w/-])", text) is not None


def _knows(text: str, name: str) -> bool:
    """Does a statement speak of `name` as left behind ("moved from X",
    "instead of X", "X is being replaced")? Then it tells of the change
    itself, and nothing in it is outdated by the change."""
    n = re.escape(name)
    return (
        re.search(
            rf"\b(?:from|instead\s+of|rather\s+than|replac\w*|not|off|away\s+from)"
            rf"\s+(?:the\s+)?{n}(?![\w-])|(?<![\w.-]){n}\s+(?:\w+\s+)?(?:is|are)\s+being\s+",
            text,
        )
        is not None
    )


def _successors(text: str) -> set[str]:
    """What a statement says came in (casefolded): the name phrase after
    "to", "onto", "with" or "by" ("ported to GitHub Actions", "replaced X
    with Postgres full-text search"). The whole phrase counts: an earlier
    statement that names only "Postgres", as a source, does not name
    "Postgres full-text search" as what replaced the retired thing."""
    found = set()
    for match in _SUCCESSOR.finditer(text):
        words = match.group(1).split()
        if not _NAMED.fullmatch(words[0]) or words[0] in _SENTENCE_WORDS:
            continue
        phrase = []
        for word in words:
            if word.casefold() in _FUNCTION or word[0].isdigit():
                break
            phrase.append(word.rstrip(".,;:"))
            if word[-1] in ".,;:":
                break  # the phrase ends with its clause
        found.add(" ".join(phrase).casefold())
    return found - {""}


_SUCCESSOR = re.compile(
    r"(?i:\b(?:to|onto|with|by)\s+(?:the\s+|a\s+|an\s+)?)([\w./+-]+(?:\s+[\w./+-]+){0,3})"
)
_FUNCTION = frozenset(
    """for in on at from to and or but because since so as of with by than then now
    which that who where when while until after before is are was were every each all
    some any""".split()
)


def _names(text: str) -> set[str]:
    """The names a statement mentions (casefolded), as `_NAME` reads them."""
    return {
        m.group(1).rstrip(".").casefold()
        for m in _NAMED.finditer(text)
        if m.group(1).split()[0] not in _SENTENCE_WORDS and not _opener(text, m)
    }


def _opener(text: str, match: re.Match[str]) -> bool:
    """A plain capitalised word that opens a sentence ("To add ...", "In Q1"):
    capitalised for its place, not as a name."""
    word = match.group(1)
    before = text[: match.start()].rstrip()
    return word.isalpha() and word.istitle() and (not before or before[-1] in ".:;!?")


_NAMED = re.compile(rf"(?<![\w.-]){_NAME}")
# Capitalised only because they start a clause: never the retired thing.
_SENTENCE_WORDS = frozenset("We The Our It They This That All Everything Decision".split())


def retired_value(earlier: str, key: str, old: object, new: object) -> Finding | None:
    """A fact's new value retires its old one: `earlier` names the old value
    (a name: "PagerDuty", "eu-west-1", not a bare number or word) as in use,
    in words of the key ("paging_tool": "alerts page through PagerDuty"),
    and knows nothing of the new one."""
    if not isinstance(old, str) or not isinstance(new, str) or not _NAMED.fullmatch(old.strip()):
        return None
    said, name = earlier.casefold(), " ".join(old.casefold().split())
    if len(name) < 3 or not _mentions(said, name) or _knows(said, name) or retired(earlier):
        return None
    if _mentions(said, " ".join(new.casefold().split()).split(" (")[0]):
        return None  # it names the new value too: it speaks of both
    topic = {stem(w) for w in re.split(r"[_\W]+", key.casefold()) if len(w) > 2} - _GENERIC
    if not topic & {stem(w) for w in re.findall(r"[a-z]+", said)}:
        return None  # another use of the name than the key's
    return Finding.announced(f"{key}: {old} then {new}", CONFIDENCE)


# Key words that say what kind of value a key holds, not what it is about.
_GENERIC = {stem(w) for w in "tool service provider name value current main default".split()}
