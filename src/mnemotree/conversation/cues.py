"""What capture found in chat (`Candidate`), and whether memory already holds it (`novel`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .extractive import content_terms
from .voice import ADDED_WORDS


@dataclass(frozen=True, slots=True)
class Candidate:
    """A memory found in chat: its text (a sentence that stands alone), type,
    confidence, the index of the message it came from, and who said it."""

    text: str
    type: str
    confidence: float
    message: int
    speaker: str = ""
    owner: str = ""  # an action item's
    due: str = ""  # an action item's, ISO
    settled: bool = False  # decided by a reply: an acceptance or a pick, with what it settles
    instruction: bool = False  # a standing instruction to the assistant ("keep answers short")


def novel(candidates: Sequence[Candidate], known: Sequence[str]) -> list[Candidate]:
    """Candidates not already in a known text: one is known when a known text
    holds 80% of its content terms (the speaker's name and the words the
    rewrite into the third person brings in aside) and every name
    and number among them, so "moved to Braga" is news after "moved to Porto"."""
    known_terms = [set(content_terms(k)) for k in known]
    out = []
    for candidate in candidates:
        said_by = set(content_terms(candidate.speaker)) | ADDED_WORDS
        terms = set(content_terms(candidate.text)) - said_by
        keys = _key_terms(candidate.text) & terms
        if not any(terms and len(terms & k) / len(terms) >= 0.8 and keys <= k for k in known_terms):
            out.append(candidate)
    return out


_NAME_OR_NUMBER = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-Z][\w'’-]+|\w*\d\w*)")


def _key_terms(text: str) -> set[str]:
    """Terms of the names (capitalised, not at a sentence start) and numbers."""
    sentence = text.split(": ", 1)[-1]
    return {t for word in _NAME_OR_NUMBER.findall(sentence) for t in content_terms(word)}
