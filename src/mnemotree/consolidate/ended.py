"""A state that is over outdates what said someone was in it.

"Acme bought the Pro plan; the trial is over" after "Acme is on a free
trial", "Halden signed; the pilot ended" after "Halden is a pilot customer":
the later statement says a state ended, and the earlier one describes its
subject by that state ("is a pilot customer", "is on a free trial", "is in
the beta"). Its other statements ("the pilot covers three sites") are
history about the state, not a description of the subject, and stay.

Both must name one subject (a capitalised name the earlier statement opens
with), so "the trial is over" says nothing of another customer's trial.
"""

from __future__ import annotations

import functools
import re

from .detect import Finding

CONFIDENCE = 0.85  # the end said outright, of the state the subject was described by
_ENDED = re.compile(
    r"(?i:\b(?:the|our|their|its|his|her)\s+)(?P<state>[a-z][\w-]*)"
    r"(?i:\s+(?:is|was|has|have|had)?\s*(?:now\s+|just\s+|officially\s+)?"
    r"(?:over|ended|finished|done|closed|cancell?ed|called\s+off|wrapped\s+up"
    r"|came\s+to\s+an\s+end)\b)"
)
_SUBJECT = re.compile(r"^\s*(?P<subject>[A-Z][\w'’&.-]*(?:\s+[A-Z][\w'’&.-]*){0,3})\s+")
_NOT_NAMES = frozenset("The Our This That It We They Decision Note Goal Everyone".split())


@functools.lru_cache(maxsize=4096)
def states_ended(text: str) -> frozenset[str]:
    """The states a statement says are over (casefolded): "the pilot is over"."""
    return frozenset(m.group("state").casefold() for m in _ENDED.finditer(text))


def ended(earlier: str, later: str) -> Finding | None:
    """`later` says a state is over that `earlier` describes its subject by."""
    states = states_ended(later)
    if not states or states_ended(earlier):
        return None
    opening = _SUBJECT.match(earlier)
    if opening is None or opening.group("subject").split()[0] in _NOT_NAMES:
        return None
    subject = opening.group("subject")
    first = re.escape(subject.split()[0])
    if re.search(rf"(?<![\w'’-]){first}(?![\w-])", later) is None:
        return None  # another subject ("Acme Corp" is met as "Acme")
    rest = earlier[opening.end() :]
    for state in sorted(states):
        described = re.match(
            rf"(?i:(?:is|are|was)\s+(?:still\s+)?(?:a|an|on\s+(?:a|an|the|its|their)"
            rf"|in\s+(?:a|an|the|its|their))\s+(?:[\w-]+\s+){{0,2}}?{re.escape(state)}\b)",
            rest,
        )
        if described is not None:
            return Finding.announced(f"{subject}: the {state} is over", CONFIDENCE)
    return None
