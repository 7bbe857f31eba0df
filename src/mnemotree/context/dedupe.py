"""Identical or near-identical texts, so a context says each thing once.

Two texts are the same when their words are (case, spacing and punctuation
aside), when one holds the other whole (a sentence and the paragraph it is
part of), or when nearly all their words are shared and the few that differ
are neither numbers nor negations: "Deploys go out on Tuesdays." from a
document and "deploys go out on tuesdays" from a memory are one statement;
"...Kubernetes 1.27." and "...Kubernetes 1.29.", or "Ana likes long
meetings." and "Ana does not like long meetings.", are two.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Hashable
from functools import lru_cache
from typing import Generic, TypeVar

from ..retrieval.query import STOPWORDS

# Share of distinct words two texts must have in common (Jaccard) to be one.
SIMILAR = 0.85
# Share of the shorter text's telling words two texts must have in common to
# be compared at all (a cheap filter: repeats share nearly all).
SHARED = 0.6
# Words a text needs to count as repeated inside a longer one (a word or
# two, "Deploys", is a topic, not a statement).
CONTAINED = 6
_WORD = re.compile(r"\w+")
_NEGATIONS = frozenset("not no never none nobody nothing neither nor without cannot".split())

Key = TypeVar("Key", bound=Hashable)


@lru_cache(maxsize=8192)  # the same memories come back context after context
def words(text: str) -> tuple[str, ...]:
    """A text's words, lower case, with "n't" read as "not"."""
    return tuple(_WORD.findall(text.casefold().replace("n't", " not")))


def _telling(word: str) -> bool:
    """A word whose change changes the fact: a number or a negation."""
    return word in _NEGATIONS or any(c.isdigit() for c in word)


def same(
    a: tuple[str, ...],
    b: tuple[str, ...],
    first: frozenset[str] | None = None,
    second: frozenset[str] | None = None,
) -> bool:
    """Whether two texts' words say the same thing (see the module's doc);
    `first` and `second` are their sets of words, if known."""
    if a == b:
        return bool(a)
    first = frozenset(a) if first is None else first
    second = frozenset(b) if second is None else second
    if not first or not second:
        return False
    shared = len(first & second)
    if shared < SIMILAR * len(first | second):
        return False
    return not any(_telling(w) for w in first ^ second)


class Seen(Generic[Key]):
    """Texts kept so far, each under a key. `match(text)` names the kept text
    a new one repeats, and whether the new one says more (it holds the kept
    text whole, as a chunk holds the sentence a memory repeats)."""

    def __init__(self) -> None:
        self._kept: dict[Key, tuple[tuple[str, ...], frozenset[str], str]] = {}
        self._exact: dict[tuple[str, ...], Key] = {}
        # Kept texts by their telling words: a repeat shares one (only texts
        # of stopwords alone, under "", are compared with every new one).
        self._by_word: dict[str, set[Key]] = {}
        self._order: dict[Key, int] = {}
        self._size: dict[Key, int] = {}  # telling words of each kept text

    def match(self, text: str) -> tuple[Key, bool] | None:
        said = words(text)
        if not said:
            return None
        found = self._exact.get(said)
        if found is not None:
            return found, False
        distinct = frozenset(said)
        size = len(distinct)
        joined = f" {' '.join(said)} "
        telling = _telling_words(said)
        keys = set(self._by_word.get("", ()))
        if not telling:
            keys = set(self._kept)
        shared: Counter[Key] = Counter()
        for word in telling:
            shared.update(self._by_word.get(word, ()))
        # A repeat shares most telling words of the shorter of the two.
        keys |= {k for k, n in shared.items() if n >= SHARED * min(len(telling), self._size[k])}
        for key in sorted(keys, key=self._order.__getitem__):  # in the order kept
            kept, kept_distinct, kept_joined = self._kept[key]
            kept_size = len(kept_distinct)
            # Jaccard can reach SIMILAR only between sets of similar size.
            similar = min(size, kept_size) >= SIMILAR * max(size, kept_size)
            if similar and same(said, kept, distinct, kept_distinct):
                return key, False
            if len(said) >= CONTAINED and said != kept and joined in kept_joined:
                return key, False
            if len(kept) >= CONTAINED and kept_joined in joined:
                return key, True
        return None

    def keep(self, text: str, key: Key) -> None:
        """Keep `text` under `key` (in place of what was kept there)."""
        said = words(text)
        self._exact[said] = key
        self._kept[key] = (said, frozenset(said), f" {' '.join(said)} ")
        self._order.setdefault(key, len(self._order))
        self._size[key] = len(_telling_words(said))
        for word in _telling_words(said) or {""}:
            self._by_word.setdefault(word, set()).add(key)


@lru_cache(maxsize=8192)
def _telling_words(said: tuple[str, ...]) -> frozenset[str]:
    return frozenset(w for w in said if len(w) > 2 and w not in STOPWORDS)
