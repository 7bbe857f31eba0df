"""A short reply that answers a question with a value, as a fact.

"BL-20417. renata@brightloaf.co" after "can you send me the account ID?",
"5, same as Q2" after "is Q3 eng still 5 heads?": the reply names the
number, code or date and the question names what it is. Alone, the reply
says nothing; with the question beside it, it is a fact ('Renata answered
Marcus's question "can you send me the account ID?": BL-20417;
renata@brightloaf.co.').
"""

from __future__ import annotations

from collections.abc import Sequence

from .actions import COMMIT
from .chat_text import plain, prose
from .cues import Candidate
from .extractive import Said
from .statements import mood, specific

ANSWER_WORDS = 12  # a longer reply says what it means in sentences of its own
CONFIDENCE = 0.6
# Moods an answer's sentences may have: a hedge, a joke or hearsay is no value.
_ANSWERING = frozenset({"stated", "small_talk"})


def answer(messages: Sequence[Said], index: int) -> Candidate | None:
    """The fact a short reply states by answering the question that ends
    the message just before it (someone else's), or None."""
    said = messages[index]
    previous = messages[index - 1] if index > 0 else None
    if previous is None or previous.speaker == said.speaker:
        return None
    if len(said.text.split()) > ANSWER_WORDS:
        return None
    # The reply is read first: most are no value, and then the message before
    # it need not be read at all.
    sentences = prose(said.text).sentences
    if not any(specific(s) for s in sentences):
        return None  # "sure, go ahead": no value to keep
    if any(mood(s) not in _ANSWERING or COMMIT.search(s) for s in sentences):
        return None  # a guess, a joke, hearsay; or a promise ("sure, I'll do it by friday")
    question = _question(previous.text)
    if question is None:
        return None
    value = "; ".join(plain(s).rstrip(".!") for s in sentences)
    asker = f"{previous.speaker}'s" if previous.speaker else "the"
    text = f'{said.speaker} answered {asker} question "{plain(question)}": {value}.'
    return Candidate(text, "fact", CONFIDENCE, index, said.speaker)


def _question(text: str) -> str | None:
    """The question a message ends with, or None. A condition after it
    still leaves it open ("start date? if her notice is long, that's a
    problem")."""
    sentences = prose(text).sentences
    if len(sentences) > 1 and mood(sentences[-1]) == "hypothetical":
        sentences = sentences[:-1]
    last = sentences[-1] if sentences else ""
    return last if last.rstrip().endswith("?") or mood(last) == "question" else None
