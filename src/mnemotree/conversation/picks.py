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
_PRONOUN = re.compile(r"^(?:it|that|this|them|those|these|me|us|you|one)\b", re.I)


def chose(sentence: str, speaker: str, team: str | None) -> str:
    """The pick as a memory says it: "off peak is fine, daytime works for
    me", said by Keiko, is "Keiko chose off peak, daytime works for Keiko";
    "netflix stays" is "Keiko will keep netflix"; "the 16th, yes" is "Keiko
    chose the 16th". A pick of "it" or "that" is said as it was."""
    clauses = [c.strip() for c in sentence.rstrip(" .!").split(",") if c.strip()]
    for at, clause in enumerate(clauses):
        option = OPENER.sub("", clause).strip()
        confirmed = at + 1 < len(clauses) and _YES.match(clauses[at + 1])
        picked = _said(("chose", option), speaker, team) if confirmed else ""
        picked = picked or _said(_picked(option), speaker, team)
        if picked:
            rest = ", ".join(clauses[at + (2 if confirmed else 1) :])
            said = third_person(rest, speaker, team) if rest else ""
            return f"{picked}, {said[:1].lower()}{said[1:]}" if said else picked
    return third_person(sentence, speaker, team)


def _picked(clause: str) -> tuple[str, str] | None:
    """(what was done, to which option), if `clause` picks."""
    found = _STAYS.match(clause)
    if found:
        return "will keep", found.group("option")
    found = _DONE_TO.match(clause)
    if found:
        return f"will {found.group('verb').lower()}", found.group("option")
    found = _CHOSEN_BEFORE.match(clause)
    if found:  # "we'll go with thursday then": the option without its "then"
        after = _CHOSEN_AFTER.match(found.group("option"))
        return "chose", (after or found).group("option")
    found = _CHOSEN_AFTER.match(clause)
    return ("chose", found.group("option")) if found else None


def _said(pick: tuple[str, str] | None, speaker: str, team: str | None) -> str:
    """ "Keiko chose X", with X's first person named; "" for a pronoun option."""
    if pick is None or not pick[1] or _PRONOUN.match(pick[1]):
        return ""
    verb, option = pick
    named = third_person(option, speaker, team)
    named = option[:1] + named[1:] if named[:1].lower() == option[:1].lower() else named
    return f"{speaker} {verb} {named}"
