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
from .chat_text import prose
from .statements import read

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
MAX_KEY_SENTENCES = 5  # with the decisions and causes beyond MAX_SENTENCES
KEY = 3.0  # the salience of a decision or a cause
ASSISTANT = 0.4  # the weight of an assistant's sentence beside the user's
_CAUSE = re.compile(
    r"\b(?:because|caused by|root cause|due to|the reason|so that|which is why|that's why|"
    r"turned out|resulted in|led to|fixed by|the fix|since then)\b",
    re.I,
)
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
        for part in prose(said.text).sentences:
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


def summarize(
    messages: Sequence[Said],
    max_sentences: int = MAX_SENTENCES,
    settled: Sequence[tuple[int, str]] = (),
) -> str:
    """The chunk's own sentences that carry it, in order, each with its
    speaker ("Alice: …"); empty when nothing has content.

    A sentence is worth what it carries (`salience`: a decision, a cause or
    outcome, an action item, a rule, a number) times the key terms it adds
    that the sentences already chosen do not cover (so repeats are not
    chosen twice), per square root of its length. `max_sentences` are
    chosen, and (for a summary of the usual length or longer) more, up to
    MAX_KEY_SENTENCES, while decisions and causes are left: a summary of a
    chunk that holds a decision holds it."""
    parts = [s for s in sentences(messages) if s.terms]
    # What a reply settled (`settled`: message index, the decision as capture
    # reads it) is a decision of that message.
    decided = [
        Sentence(messages[i].speaker, text, i, frozenset(content_terms(text)))
        for i, text in settled
    ]
    settles = {id(d) for d in decided}
    parts = sorted(parts + [d for d in decided if d.terms], key=lambda p: p.message)
    if not parts:
        return ""
    weights = term_weights(parts)
    # What the chat settles is the user's: an assistant's explanations weigh less.
    worth = [
        KEY
        if id(p) in settles
        else salience(p.text) * (ASSISTANT if messages[p.message].role == "assistant" else 1.0)
        for p in parts
    ]
    covered: set[str] = set()
    chosen: list[int] = []
    # A shorter summary asked for (a compressed level) gets no extra sentences.
    most = (
        max(max_sentences, MAX_KEY_SENTENCES) if max_sentences >= MAX_SENTENCES else max_sentences
    )
    while len(chosen) < most:
        best, best_gain = -1, 0.0
        for i, part in enumerate(parts):
            if i in chosen or (len(chosen) >= max_sentences and worth[i] < KEY):
                continue
            gain = sum(weights[t] for t in part.terms - covered) * worth[i]
            gain /= math.sqrt(max(1, len(part.text.split())))
            if gain > best_gain:
                best, best_gain = i, gain
        if best < 0:
            break
        chosen.append(best)
        covered |= parts[best].terms
    return " ".join(shown(parts[i]) for i in sorted(chosen))


def salience(sentence: str) -> float:
    """What a sentence carries, as a weight: decisions and causes most, then
    action items, rules and goals, then facts with a number or a name;
    questions, jokes, hedges and small talk little."""
    reading = read(sentence)
    if reading.mood in ("question", "joke", "small_talk", "hypothetical", "reported"):
        return 0.3
    if _CAUSE.search(sentence) or reading.kind == "decision":
        return KEY
    return {"action": 2.0, "constraint": 1.8, "goal": 1.8, "preference": 1.5}.get(
        reading.kind or "", 1.3 if reading.kind == "fact" else 1.0
    )


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
