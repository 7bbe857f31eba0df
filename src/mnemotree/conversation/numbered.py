"""Replies that name items of a numbered list by their numbers.

Plans and options come as lists ("1. CI check on pool sizes / 2. pool
saturation alert / ..."), and replies name them by number: "2 and 3 are
me", "I'll take 4", "1. obviously". Alone such a reply says nothing; with
the list it is an action item of its speaker's (a claim) or a decision (a
pick), named by the items' own words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .extractive import Said

LOOK_BACK = 6  # messages back a list may be named from
_ITEM = re.compile(r"^\s*(\d{1,2})[.)]\s+(\S.*?)\s*$", re.M)
_NUMBERS = (
    r"(?:#|no\.?\s*|number\s+|item\s+|option\s+)?\d{1,2}(?:\s*(?:,|and|&|\+)\s*(?:#)?\d{1,2})*"
)
# "2 and 3 are me", "1 is mine obviously", "I'll take 4", "me for 5".
_CLAIMS = (
    re.compile(rf"^(?P<n>{_NUMBERS})\s+(?:is|are|'s)\s+(?:mine|me|on me)\b", re.I),
    re.compile(rf"\bi'?ll (?:take|own|do|grab|handle)\s+(?P<n>{_NUMBERS})\b", re.I),
    re.compile(rf"^(?:and\s+)?me for\s+(?P<n>{_NUMBERS})\b", re.I),
)
# "1. obviously", "option 2 please", "#3 then": a pick of one option.
_PICK = re.compile(
    r"^(?:ok\s+|so\s+|yeah\s+)?(?:option\s+|#|number\s+)?(?P<n>\d{1,2})\b[.!,]?\s*"
    r"(?:obviously|please|pls|then|it is|for sure|definitely|for me|sounds good)?\W*$",
    re.I,
)


@dataclass(frozen=True, slots=True)
class Named:
    """Items of a list a sentence names: a claim (its speaker will do them)
    or a pick (one option chosen)."""

    kind: str  # "claim" or "pick"
    items: tuple[str, ...]


def listed(messages: Sequence[Said], index: int) -> dict[int, str]:
    """The latest numbered list (two items at least) of the messages just
    before `index`: number -> the item's words."""
    for said in reversed(messages[max(0, index - LOOK_BACK) : index]):
        items = {int(n): text.strip() for n, text in _ITEM.findall(said.text)}
        if len(items) >= 2:
            return items
    return {}


def named(sentence: str, items: dict[int, str]) -> Named | None:
    """The list items `sentence` claims or picks, if it names some by number."""
    if not items:
        return None
    for pattern in _CLAIMS:
        found = pattern.search(sentence)
        if found:
            chosen = _items(found.group("n"), items)
            return Named("claim", chosen) if chosen else None
    found = _PICK.match(sentence.strip())
    if found:
        chosen = _items(found.group("n"), items)
        return Named("pick", chosen) if chosen else None
    return None


def _items(numbers: str, items: dict[int, str]) -> tuple[str, ...]:
    return tuple(items[n] for n in map(int, re.findall(r"\d{1,2}", numbers)) if n in items)
