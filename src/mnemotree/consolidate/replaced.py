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

CONFIDENCE = 0.85  # a retirement said outright: acted on, and says it changed
_NAME = r"((?:[A-Z][\w.+-]*|[a-z]+(?:\d|\.\w)[\w.-]*|[a-z]+-[\w-]+)(?:\s+[A-Z][\w.+-]*){0,2})"
_RETIRED = (
    # switched / migrated / ported / moved all of it ... from X to Y
    re.compile(
        r"(?i:\b(?:switch(?:ed|es)?|migrat(?:ed|es|e)|port(?:ed|s)?|went"
        r"|mov(?:ed|es|e)\s+(?:all|everything))\b[^.;:]*?\bfrom\s+(?:the\s+)?)"
        rf"{_NAME}(?i:\s+(?:to|onto)\b)"
    ),
    re.compile(rf"(?i:\breplac(?:ed|es|e)\s+(?:the\s+)?){_NAME}(?i:\s+(?:with|by)\b)"),
    re.compile(rf"\b{_NAME}(?i:\s+(?:was|has\s+been|is|got)\s+replaced\b)"),
    re.compile(
        rf"\b{_NAME}(?i:\s+(?:was|has\s+been|is|got)\s+(?:retired|decommissioned|removed"
        r"|dropped|shut\s+down|sunset|turned\s+off)\b)"
    ),
    re.compile(rf"\b{_NAME}(?i:\s+is\s+gone\b)"),
    re.compile(
        rf"(?i:\b(?:no\s+longer|don't|do\s+not|stopped)\s+us(?:e|es|ing)\s+(?:the\s+)?){_NAME}"
    ),
)
_WORD = re.compile(r"[\w.+-]+")


@functools.lru_cache(maxsize=4096)
def retired(text: str) -> frozenset[str]:
    """The names a statement says are no longer in use (casefolded). Cached:
    a consolidation scan reads each statement against many neighbours."""
    found = set()
    for pattern in _RETIRED:
        for match in pattern.finditer(text):
            name = match.group(1).strip(" .")
            if name and name.split()[0] not in _SENTENCE_WORDS:
                found.add(name.casefold())
    return frozenset(found - {""})


def replaced(earlier: str, later: str) -> Finding | None:
    """`later` retires a thing `earlier` names as in use (and `earlier` does
    not itself speak of the retirement or of what replaced it)."""
    names = retired(later)
    if not names or retired(earlier):
        return None
    if (_names(earlier) & _names(later)) - names:
        return None  # it names what else the later names (what replaced it): it knows
    said = " ".join(_WORD.findall(earlier)).casefold()
    gone = sorted(
        n
        for n in names
        if re.search(rf"(?<![\w.-]){re.escape(n)}(?![\w-])", said)
        # "moved from X to Y" already tells of the change, whatever the verb
        and not re.search(rf"\bfrom\s+(?:the\s+)?{re.escape(n)}(?![\w-])", said)
    )
    if not gone:
        return None
    return Finding(
        kind="changed_value",
        reason=f"{gone[0]} is no longer in use",
        confidence=CONFIDENCE,
        update=True,
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
