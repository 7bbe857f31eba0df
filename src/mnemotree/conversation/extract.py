"""Offline capture: the memories a window of chat states, as clean sentences.

Each message is read as its speaker typed it: pasted material (code, logs,
tables, quotes) set aside (`chat_text`), each sentence's mood and kind read
(`statements`), and a kept sentence rewritten to stand alone: the speaker's
first person named, "we" made the team, a short reply that leans on the
message before it ("we can't ship without one") given that message's
subject (`voice`). A request becomes an action item once its addressee
accepts it; an action item carries its owner and due date (`actions`).
What an assistant says waits for review (its confidence stays below the
promotion mark), unless it restates what the user said.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date

from .actions import due, owner
from .chat_text import prose
from .cues import Candidate
from .extractive import Said
from .statements import Reading, read
from .voice import USER, third_person

# Confidence an assistant's statement keeps at most: below the promotion
# mark, so it waits for `promote`.
ASSISTANT_CAP = 0.6
# A reply this short that points back ("without one", "that's fine") is
# read with the message before it.
_LEANING = re.compile(r"\b(?:one|it|that|this|them|those|these)\b", re.I)
_ASKED = re.compile(
    r"^(?:@?[A-Za-z]+[,:]?\s+)?(?:can|could|would|will)\s+you(?:\s+(?:please|pls))?\s+"
    r"|^(?:@?[A-Za-z]+[,:]?\s+)?(?:please|pls|plz)\s+",
    re.I,
)


def extract(messages: Sequence[Said]) -> list[Candidate]:
    """Every memory the messages state, at most one per sentence."""
    found: list[Candidate] = []
    for index, said in enumerate(messages):
        reply = messages[index + 1] if index + 1 < len(messages) else None
        before = messages[index - 1] if index > 0 else None
        for sentence in prose(said.text).sentences:
            reading = read(sentence)
            if reading.kind is None:
                continue
            candidate = _candidate(sentence, reading, index, said, before, reply)
            if candidate is not None:
                found.append(candidate)
    return found


def _candidate(
    sentence: str,
    reading: Reading,
    index: int,
    said: Said,
    before: Said | None,
    reply: Said | None,
) -> Candidate | None:
    kind, confidence = reading.kind, reading.confidence
    assert kind is not None
    who = ""
    when = ""
    if kind == "action" or reading.mood == "request":
        who = owner(sentence, said.speaker, (reply.speaker, reply.text) if reply else None)
        if reading.mood == "request" and (not who or _assistant(who, said, reply)):
            return None  # asked, not (yet) taken on; or an ask of the assistant
        kind = "action" if who else kind
        day = said.day or date.today()
        accepted = reply is not None and who == reply.speaker
        when = due(sentence, day) or (due(reply.text, day) if reply and accepted else "")
    text = _standalone(sentence, said, before, who)
    if said.role == "assistant":
        confidence = min(confidence, ASSISTANT_CAP)
    confidence = round(max(0.0, min(1.0, confidence)), 2)
    return Candidate(text, kind, confidence, index, said.speaker, who, when)


def _assistant(who: str, said: Said, reply: Said | None) -> bool:
    """Whether `who` is the assistant a user asked: what it is asked to do
    is the conversation itself, not an action item."""
    return reply is not None and who == reply.speaker and reply.role == "assistant"


def _standalone(sentence: str, said: Said, before: Said | None, who: str) -> str:
    """The sentence as a memory reads it, alone."""
    asked = _ASKED.match(sentence)
    if asked and who:
        rest = sentence[asked.end() :].rstrip(" ?!.")
        rest = re.sub(r"\bme\b", said.speaker, rest) if said.speaker else rest
        text = f"{who} will {rest}"
    elif said.role == "assistant":
        text = sentence.strip()  # its "we" is not the user's team
    else:
        text = third_person(sentence, _named(said))
    if before is not None and _leans(sentence):
        lead = prose(before.text).sentences
        if lead:
            text = f"{text.rstrip('.')} ({lead[-1].rstrip('.?!')})"
    return text if text.endswith((".", "!", "?", ")")) else text + "."


def _named(said: Said) -> str:
    """Who "I" is in a message: its speaker's name; an unnamed user is "the user"."""
    if not said.speaker or said.speaker.lower() == said.role.lower() or said.speaker == "user":
        return USER
    return said.speaker


def _leans(sentence: str) -> bool:
    """A short sentence whose subject is in the message before it."""
    words = sentence.split()
    return len(words) <= 9 and bool(_LEANING.search(sentence))
