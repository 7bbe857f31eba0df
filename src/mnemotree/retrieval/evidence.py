"""What a search's candidates show of the query: the pool both sides found,
each candidate's own match (`Match`), the chat role a question asks about
(`addressed_role`), and whether a message only asks (`asks`)."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..model import Node
from .hits import CONTAINER
from .query import LexicalQuery
from .rank import Surprise, Weights

# Without a shared word, a node must be at least this close in meaning to count:
# recency and importance rank relevant hits, they never make a hit relevant.
MIN_SEMANTIC = 0.2


@dataclass(slots=True)
class Pool:
    """A search's candidates and what each side said of them."""

    vector: npt.NDArray[np.float32]
    pending: dict[str, npt.NDArray[np.float32]]  # embedded with the query, not stored yet
    lexical: LexicalQuery
    keyword: dict[str, float]
    semantic: dict[str, float]
    found: dict[str, Node]  # candidates the filter lets through

    def nodes(self) -> dict[str, Node]:
        """Candidates matched by words or close enough in meaning, in id order
        (so every tie is the same on every run); containers left out."""
        return {
            i: self.found[i]
            for i in sorted(self.found)
            if (i in self.keyword or self.semantic.get(i, 0.0) >= MIN_SEMANTIC)
            and not self.found[i].metadata.get(CONTAINER)
        }


class Match:
    """A query's candidates' own match: the nats of meaning and of words
    (`Surprise`) over the best candidate's, so the best is 1 whatever the
    collection; and the raw cosine and scaled BM25, to show."""

    def __init__(
        self,
        surprise: Surprise | None,
        weights: Weights,
        semantic: dict[str, float],
        keyword: dict[str, float],
        candidates: dict[str, Node],
        looks: Callable[[str], float],
    ) -> None:
        self.surprise, self.weights, self.looks = surprise, weights, looks
        self.semantic, self.bm25 = semantic, keyword
        self.best_bm25 = max(keyword.values(), default=0.0) or 1.0
        self._seen: dict[str, float] = {}  # each candidate weighed once
        # When nothing stands out from chance (every note of a scope says the
        # same words), a best barely above it must not make the rest look weak.
        clear = surprise.evidence(surprise.clear(), 0.0, weights) if surprise else 0.0
        self.best = max(clear, max((self._nats(i) for i in candidates), default=0.0), 1e-9)

    def _nats(self, node_id: str) -> float:
        found = self._seen.get(node_id)
        if found is None:
            found = self._seen[node_id] = self._weigh(node_id)
        return found

    def _weigh(self, node_id: str) -> float:
        cosine = max(0.0, self.semantic.get(node_id, 0.0))
        if self.surprise is None:  # too few texts to read chance from: as they are
            w = self.weights
            return w.semantic * cosine + w.keyword * self.bm25.get(node_id, 0.0) / self.best_bm25
        looks = self.looks(node_id)
        return self.surprise.evidence(cosine, self.bm25.get(node_id, 0.0), self.weights, looks)

    def of(self, node_id: str) -> float:
        if self.surprise is None:  # the raw weighted sum, as a share of its weights
            total = self.weights.semantic + self.weights.keyword
            return self._nats(node_id) / total if total > 0.0 else 0.0
        return min(1.0, self._nats(node_id) / self.best)

    def cosine(self, node_id: str) -> float:
        return max(0.0, self.semantic.get(node_id, 0.0))

    def keyword(self, node_id: str) -> float:
        return self.bm25.get(node_id, 0.0) / self.best_bm25


# A question put to an assistant names the chat's roles by pronoun: "I" is
# the user, "you" the assistant ("which network am I on?", "what did you
# suggest for my knee?").
_ROLE_PRONOUNS = {
    "user": frozenset({"i", "me", "my", "mine", "myself"}),
    "assistant": frozenset({"you", "your", "yours", "yourself"}),
}
# Auxiliaries that ask what someone did or is ("did I", "have you", "am I");
# not the modal of a request ("can you make me...": about the user's needs).
_ASKING = frozenset({"did", "do", "does", "have", "has", "had", "am", "are", "was", "were"})


def addressed_role(terms: Sequence[str]) -> frozenset[str]:
    """The chat role whose words a query asks about: the subject of its
    auxiliary ("what did I ask you to...": the user), else the one that says
    "I" (always a subject), else the only role it names. A query naming both
    with neither as its subject favours neither."""
    for before, word in itertools.pairwise(terms):
        if before in _ASKING and word in ("i", "you"):
            return frozenset({"user" if word == "i" else "assistant"})
    if "i" in terms:
        return frozenset({"user"})
    named = frozenset(r for r, words in _ROLE_PRONOUNS.items() if words.intersection(terms))
    return named if len(named) == 1 else frozenset()


# A message that only asks: every sentence of it ends with a question mark.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_TRAILER = re.compile(r"[\s\U0001F300-\U0001FAFF\u2600-\u27BF)\]\"']+$")


def asks(text: str) -> bool:
    """Whether a message only asks (each of its sentences a question), and
    asks to be told, not for something to be done: "can you always answer
    in bullets?" is an instruction, what it says is the memory."""
    if "?" not in text:  # most messages, long answers above all: no sentence to split
        return False
    sentences = [_TRAILER.sub("", s) for s in _SENTENCE_END.split(text.strip())]
    sentences = [s for s in sentences if s]
    if not sentences or _REQUEST.match(sentences[0]):
        return False
    return all(s.endswith("?") for s in sentences)


ASKED = 0.5  # the share of its own match a message that only asks keeps
_REQUEST = re.compile(
    r"^\W*(?:can|could|would|will) you\b|^\W*(?:please|pls|would you mind|remind me)\b", re.I
)
