"""Offline summaries: chosen sentences in their original voice (the tree design's
open question answered yes), and key topics.

A summary covers the chunk's key terms: sentences are picked greedily by
the weight of the terms they add that earlier picks did not already cover
(so redundancy is penalised), per square root of their length, then put back
in reading order with their speaker. No model, a few milliseconds a chunk.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from ..retrieval.query import STOPWORDS, terms_of

_SENTENCE = re.compile(r"(?<=[.!?…])\s+(?=[\"'“(\[A-Z0-9])")
# Chat fillers and everyday verbs and adverbs: frequent, but never a topic.
_FILLER = frozenset(
    """
    yeah yes ok okay oh hey hi hello thanks thank wow cool great sure right well lol haha nice
    awesome maybe still even ever never always today now really actually though thing things
    lot use used using make made making go going went gone know knew think thought want wanted
    need needed see saw seen say said tell told come came take took give gave look looks looked
    find found feel felt try tried keep kept let put seem seems one two good bad new old way
    last next sounds sound glad congrats congratulations anything something everything nothing
    pretty lately totally definitely super
    """.split()
)
MAX_SENTENCES = 3
MAX_SENTENCE_CHARS = 400


@dataclass(frozen=True, slots=True)
class Said:
    """One message: who said it, and what; the speaker's chat role (user,
    assistant) and the day it was said, where known."""

    speaker: str
    text: str
    role: str = ""
    day: date | None = None


@dataclass(frozen=True, slots=True)
class Sentence:
    speaker: str
    text: str
    message: int  # index of its message in the chunk
    terms: frozenset[str]


def sentences(messages: Sequence[Said]) -> list[Sentence]:
    """Every sentence of every message, with its content terms."""
    out = []
    for index, said in enumerate(messages):
        for part in _SENTENCE.split(said.text.strip()):
            part = part.strip()
            if part:
                out.append(Sentence(said.speaker, part, index, frozenset(content_terms(part))))
    return out


def content_terms(text: str) -> list[str]:
    """Terms that carry topic: no stopwords, fillers or one-letter words."""
    return [t for t in terms_of(text) if t not in STOPWORDS and t not in _FILLER and len(t) > 2]


def term_weights(parts: Sequence[Sentence]) -> dict[str, float]:
    """Frequent in the chunk, but not in every sentence of it."""
    counts = Counter(t for s in parts for t in s.terms)
    n = len(parts)
    return {t: c * math.log(1 + n / c) for t, c in counts.items()}


def summarize(messages: Sequence[Said], max_sentences: int = MAX_SENTENCES) -> str:
    """A few of the chunk's own sentences that cover its key terms, in order,
    each with its speaker ("Alice: …"); empty when nothing has content."""
    parts = [s for s in sentences(messages) if s.terms]
    if not parts:
        return ""
    weights = term_weights(parts)
    covered: set[str] = set()
    chosen: list[int] = []
    while len(chosen) < max_sentences:
        best, best_gain = -1, 0.0
        for i, part in enumerate(parts):
            if i in chosen:
                continue
            gain = sum(weights[t] for t in part.terms - covered)
            gain /= math.sqrt(max(1, len(part.text.split())))
            if gain > best_gain:
                best, best_gain = i, gain
        if best < 0:
            break
        chosen.append(best)
        covered |= parts[best].terms
    return " ".join(shown(parts[i]) for i in sorted(chosen))


def shown(said: Said | Sentence) -> str:
    """A sentence as a summary shows it: after its speaker if it has one,
    cut at MAX_SENTENCE_CHARS."""
    text = said.text.strip()
    if len(text) > MAX_SENTENCE_CHARS:
        text = text[: MAX_SENTENCE_CHARS - 1].rstrip() + "…"
    return f"{said.speaker}: {text}" if said.speaker else text


def key_topics(messages: Sequence[Said], k: int = 5) -> list[str]:
    """The chunk's heaviest terms, names first, in the form most often written."""
    parts = [s for s in sentences(messages) if s.terms]
    weights = term_weights(parts)
    forms: dict[str, Counter[str]] = {}
    named: set[str] = set()  # capitalised somewhere other than a sentence start
    for part in parts:
        for place, word in enumerate(re.findall(r"[^\W_]+(?:['’][^\W_]+)*", part.text)):
            found = terms_of(word)
            term = found[0] if found else ""
            if term in weights:
                forms.setdefault(term, Counter())[word if place else word.lower()] += 1
                if place and word[:1].isupper():
                    named.add(term)
    speakers = {t for said in messages for t in terms_of(said.speaker)}

    def score(term: str) -> float:
        return weights[term] * (1.5 if term in named else 1.0)

    ranked = sorted((t for t in weights if t not in speakers), key=lambda t: (-score(t), t))
    return [forms[t].most_common(1)[0][0] if t in forms else t for t in ranked[:k]]
