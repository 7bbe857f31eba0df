"""Offline extraction of memories from chat (the tiered-memory design's patterns, extended).

Each sentence is matched against cue patterns: decisions (decided, chose,
went with … 0.8), preferences (prefer, like, love, want … 0.7), constraints
(must, cannot, need to … 0.7) and goals (goal, aim, plan to … 0.8), and
facts about people, places and dates (my sister is …, I moved to …, on
3 May … 0.6-0.7). Speaking for oneself adds confidence; hedges (maybe,
might, not sure) and questions remove it. A chunk with no cue gives nothing
("no notable information").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .extractive import Said, content_terms, sentences

_CUES: list[tuple[str, float, re.Pattern[str]]] = [
    (kind, confidence, re.compile(pattern, re.IGNORECASE))
    for kind, confidence, pattern in [
        (
            "decision",
            0.8,
            r"\b(decided|decide to|chose|choose to|selected|went with|"
            r"going with|settled on|opted for|agreed to)\b",
        ),
        (
            "goal",
            0.8,
            r"\b(goal|objective|aim to|aiming|target|plan to|planning to|"
            r"hoping to|want to become|dream is)\b",
        ),
        # Idioms are no rules: "can't wait", "never forget", "where you need to be".
        (
            "constraint",
            0.7,
            r"\b(must|mustn't|should|shouldn't|(?:cannot|can't|can not)"
            r"(?!\s+(?:wait|believe|imagine|thank|stop|help))|"
            r"(?:need|needs|have|has) to(?!\s+be\b)|not allowed|only ever|"
            r"never(?!\s+(?:forget|mind|thought|knew|been|ever)))\b",
        ),
        # The verb after a subject: "I like tea", not "looks like rain".
        (
            "preference",
            0.7,
            r"\b(i|we|you|he|she|they)\s+(really\s+|also\s+|still\s+|"
            r"don't\s+|do not\s+|never\s+)?(like|likes|liked|love|loves|enjoy|"
            r"enjoys|prefer|prefers|want|wants|hate|hates|dislike)\b|"
            r"\bfavou?rite\b|\bprefer\b",
        ),
    ]
]
_PERSON = re.compile(
    r"\b(my|our|his|her|their)\s+(wife|husband|partner|son|daughter|kids?|children|mother|"
    r"mom|mum|father|dad|sister|brother|friend|boss|colleague|manager|dog|cat|name|"
    r"birthday|job|team)\b",
    re.IGNORECASE,
)
_PLACE = re.compile(
    r"\b(live|lives|lived|living|moved|moving|move|grew up|born|work|works|worked|"
    r"working|stay|staying|visited|visiting|travel(?:l?ed)?|trip)\s+(?:\w+\s+){0,2}?"
    r"(in|to|at|from)\s+[A-Z]",
)
_DATE = re.compile(
    r"\b(\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|"
    r"dec)[a-z]*|(?:jan|feb|mar|apr|jun|jul|aug|sep|oct|nov|dec)[a-z]*\s+\d{1,2}|"
    r"(?:19|20)\d\d|yesterday|last (?:week|month|year|weekend)|next (?:week|month|year))\b",
    re.IGNORECASE,
)
_SELF = re.compile(r"\b(i|i'm|i've|i'll|i'd|my|we|we're|we've|we'll|our|me|us)\b", re.IGNORECASE)
_HEDGE = re.compile(
    r"\b(maybe|might|perhaps|probably|not sure|i guess|possibly|thinking about|"
    r"considering|if)\b",
    re.IGNORECASE,
)
MIN_WORDS = 4


@dataclass(frozen=True, slots=True)
class Candidate:
    """A memory found in chat: its text (speaker: sentence), type, confidence,
    the index of the message it came from, and who said it."""

    text: str
    type: str
    confidence: float
    message: int
    speaker: str = ""


def extract(messages: Sequence[Said]) -> list[Candidate]:
    """Candidates from every sentence that carries a cue, at most one per sentence."""
    found = []
    for part in sentences(messages):
        text = part.text
        if text.endswith("?") or len(text.split()) < MIN_WORDS or not part.terms:
            continue
        kind, confidence = _classify(text)
        if kind is None:
            continue
        if _SELF.search(text):
            confidence += 0.1
        if _HEDGE.search(text):
            confidence -= 0.2
        shown = f"{part.speaker}: {text}" if part.speaker else text
        confidence = round(min(1.0, max(0.0, confidence)), 2)
        found.append(Candidate(shown, kind, confidence, part.message, part.speaker))
    return found


def _classify(text: str) -> tuple[str | None, float]:
    for kind, confidence, pattern in _CUES:
        if pattern.search(text):
            return kind, confidence
    if _PERSON.search(text) or _PLACE.search(text):
        return "fact", 0.6
    if _DATE.search(text) and _SELF.search(text):
        return "fact", 0.6
    return None, 0.0


def novel(candidates: Sequence[Candidate], known: Sequence[str]) -> list[Candidate]:
    """Candidates not already in a known text: one is known when a known text
    holds 80% of its content terms (the speaker's name aside) and every name
    and number among them, so "moved to Braga" is news after "moved to Porto"."""
    known_terms = [set(content_terms(k)) for k in known]
    out = []
    for candidate in candidates:
        terms = set(content_terms(candidate.text)) - set(content_terms(candidate.speaker))
        keys = _key_terms(candidate.text) & terms
        if not any(terms and len(terms & k) / len(terms) >= 0.8 and keys <= k for k in known_terms):
            out.append(candidate)
    return out


_NAME_OR_NUMBER = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-Z][\w'’-]+|\w*\d\w*)")


def _key_terms(text: str) -> set[str]:
    """Terms of the names (capitalised, not at a sentence start) and numbers."""
    sentence = text.split(": ", 1)[-1]
    return {t for word in _NAME_OR_NUMBER.findall(sentence) for t in content_terms(word)}
