"""What a short reply points back to, read from the messages before it.

People answer in fragments: "off peak is fine", "card.", "DéménEurope then,
june 8", "yep, I've got it". Alone such a sentence says little; with the
sentence it answers it is a memory. The answered sentence is the one of
the last few messages by someone else that shares the most words with the
reply ("off peak" finds the option that priced the off-peak plan), the
nearest on a tie; a reply that shares no word answers the question or
proposal that ends the message just before it. When neither is there, the
reply's referent is not clear and it is not kept alone.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .chat_text import prose
from .extractive import Said, content_terms
from .statements import mood

_NOT_MEANT = frozenset({"hedge", "hypothetical", "joke", "reported"})
LOOK_BACK = 3  # messages by others a reply may answer
SHORT_WORDS = 9  # a sentence this short may lean on what came before
FRAGMENT_WORDS = 4  # this short, it says nothing alone
# Words that point back: "without one", "that's fine", "it is".
_POINTING = re.compile(r"\b(?:one|it|that|this|them|those|these|then)\b", re.I)
# What a message ends with that a bare reply answers: a question or a proposal.
_OPEN = re.compile(
    r"\?\s*\W*$|"
    r"^(?:so |ok |okay |then )?(?:let'?s|how about|what about|we could|i'?d (?:go|say))\b",
    re.I,
)


def leans(sentence: str) -> bool:
    """Whether a sentence is short enough, and points back, so that it says
    what it means only with the message it answers."""
    words = sentence.split()
    return len(words) <= SHORT_WORDS and (fragment(sentence) or bool(_POINTING.search(sentence)))


# A short sentence with its own subject and verb says it alone: "we're all in
# Zaragoza", "Reuben is off on the 24th".
_CLAUSE = re.compile(
    r"^(?:i|we|he|she|they)(?:'\w+|\s+\w+)|"
    r"^(?:\w+\s+)?(?-i:[A-Z])[^\W\d_]+\s+(?:is|are|was|were|has|had|will)\b",
    re.I,
)


def fragment(sentence: str) -> bool:
    return len(sentence.split()) <= FRAGMENT_WORDS and not _CLAUSE.match(sentence)


def antecedent(
    messages: Sequence[Said], index: int, sentence: str, *, picks: bool = False
) -> str | None:
    """The earlier sentence `sentence` (of message `index`) answers, or None
    when it is not clear. A reply that only leans on what came before is not
    read with a hedge, a joke or hearsay ("ok I'll write this up" is no
    answer to "we could maybe self-host it"); a pick (`picks`) may choose
    an option offered as "we could...".
    """
    said = messages[index]
    own = set(content_terms(sentence)) - set(content_terms(said.speaker))
    best: tuple[int, int, str] | None = None  # (shared words, -distance, sentence)
    for distance, other in enumerate(earlier(messages, index), 1):
        for candidate in prose(other.text).sentences:
            shared = len(own & set(content_terms(candidate)))
            better = shared and (best is None or (shared, -distance) > best[:2])
            if better and _meant(candidate, picks):  # its mood read only for a better one
                best = (shared, -distance, candidate)
    if best is not None:
        return best[2]
    previous = messages[index - 1] if index > 0 else None
    if previous is None or previous.speaker == said.speaker:
        return None
    said_before = prose(previous.text).sentences
    if said_before and _OPEN.search(said_before[-1]) and _meant(said_before[-1], picks):
        return said_before[-1]
    return None


def _meant(sentence: str, picks: bool) -> bool:
    return picks or mood(sentence) not in _NOT_MEANT


def earlier(messages: Sequence[Said], index: int) -> list[Said]:
    """The last LOOK_BACK messages by others before `index`, nearest first;
    the speaker's own earlier words are skipped, not answered."""
    speaker = messages[index].speaker
    found = [m for m in reversed(messages[max(0, index - 2 * LOOK_BACK) : index])]
    return [m for m in found if m.speaker != speaker][:LOOK_BACK]
