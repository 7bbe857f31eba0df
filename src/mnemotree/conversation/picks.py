"""A short reply that picks one of the options it was offered, as a decision.

"off peak is fine", "DéménEurope then, june 8", "netflix stays", "skip
coimbra": each picks something someone offered. Kept as a memory, the pick
says who chose what ("Keiko chose off peak"), not the reply's own words,
which read as nothing alone ("off peak is fine").
"""

from __future__ import annotations

import re

from .voice import OPENER, third_person

CHOICE_WORDS = 8  # a pick is short: longer replies say more than which
# Said after the option: "X it is", "X then", "X is fine", "X, yes".
_AFTER = (
    r"it is|then|is fine|works(?: for (?:me|us))?|makes sense|is the one|wins|"
    r"sounds (?:good|right)"
)
_LEADS = r"(?:let'?s )?go (?:with|for)|i'?ll (?:take|go with)|we'?ll (?:take|go with)"
_VERBS = r"skip|drop|cancel|keep"
PICK = re.compile(
    rf"(?:\b(?:{_AFTER}|stays)|,\s*(?:yes|please))$|"
    rf"^(?:ok |okay |yeah |so )?(?:{_LEADS}|{_VERBS})\b",
    re.I,
)
_CHOSEN_AFTER = re.compile(rf"^(?P<option>.+?),?\s+(?:{_AFTER})$", re.I)
_STAYS = re.compile(r"^(?P<option>.+?)\s+stays$", re.I)
_CHOSEN_BEFORE = re.compile(rf"^(?:{_LEADS})\s+(?P<option>.+)$", re.I)
_DONE_TO = re.compile(rf"^(?P<verb>{_VERBS})\s+(?P<option>.+)$", re.I)
_YES = re.compile(r"^(?:yes|please)$", re.I)


def chose(sentence: str, speaker: str, team: str | None) -> str:
    """The pick as a memory says it: "off peak is fine, daytime works for
    me", said by Keiko, is "Keiko chose off peak, daytime works for Keiko";
    "netflix stays" is "Keiko will keep netflix"; "the 16th, yes" is "Keiko
    chose the 16th"."""
    clauses = [c.strip() for c in sentence.rstrip(" .!").split(",") if c.strip()]
    for at, clause in enumerate(clauses):
        option = OPENER.sub("", clause).strip()
        confirmed = at + 1 < len(clauses) and _YES.match(clauses[at + 1])
        picked = f"{speaker} chose {option}" if confirmed and option else _picked(option, speaker)
        if picked:
            rest = ", ".join(clauses[at + (2 if confirmed else 1) :])
            said = third_person(rest, speaker, team) if rest else ""
            return f"{picked}, {said[:1].lower()}{said[1:]}" if said else picked
    return third_person(sentence, speaker, team)


def _picked(clause: str, speaker: str) -> str:
    """Who chose what, if `clause` picks; else ""."""
    found = _STAYS.match(clause)
    if found:
        return f"{speaker} will keep {found.group('option')}"
    found = _DONE_TO.match(clause)
    if found:
        return f"{speaker} will {found.group('verb').lower()} {found.group('option')}"
    found = _CHOSEN_AFTER.match(clause) or _CHOSEN_BEFORE.match(clause)
    return f"{speaker} chose {found.group('option')}" if found else ""
