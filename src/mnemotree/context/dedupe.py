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
from collections.abc import Hashable
from typing import Generic, TypeVar

# Share of distinct words two texts must have in common (Jaccard) to be one.
SIMILAR = 0.85
# Words a text needs to count as repeated inside a longer one (a word or
# two, "Deploys", is a topic, not a statement).
CONTAINED = 6
_WORD = re.compile(r"\w+")
_NEGATIONS = frozenset(
    "not no never none nobody nothing neither nor without cannot".split()
)  # fmt: skip

Key = TypeVar("Key", bound=Hashable)


def words(text: str) -> tuple[str, ...]:
    """A text's words, lower case, with "n't" read as "not"."""
    return tuple(_WORD.findall(text.casefold().replace("n't", " not")))


def _telling(word: str) -> bool:
    """A word whose change changes the fact: a number or a negation."""
    return word in _NEGATIONS or any(c.isdigit() for c in word)


def same(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Whether two texts' words say the same thing (see the module's doc)."""
    if a == b:
        return bool(a)
    first, second = set(a), set(b)
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
        self._kept: dict[Key, tuple[tuple[str, ...], str]] = {}
        self._exact: dict[tuple[str, ...], Key] = {}

    def match(self, text: str) -> tuple[Key, bool] | None:
        said = words(text)
        if not said:
            return None
        found = self._exact.get(said)
        if found is not None:
            return found, False
        size = len(set(said))
        joined = f" {' '.join(said)} "
        for key, (kept, kept_joined) in self._kept.items():
            kept_size = len(set(kept))
            # Jaccard can reach SIMILAR only between sets of similar size.
            if min(size, kept_size) >= SIMILAR * max(size, kept_size) and same(said, kept):
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
        self._kept[key] = (said, f" {' '.join(said)} ")
