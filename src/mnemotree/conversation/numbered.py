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

from .chat_text import plain
from .extractive import Said
from .statements import mood

LOOK_BACK = 6  # messages back a list may be claimed from
MAX_LINES = 200  # lines of a message read for a list
_ITEM = re.compile(r"[ \t]{0,8}(\d{1,2})[.)][ \t]+(\S.{0,300})")
_NUMBERS = r"(?:#|no\.?\s*|number\s+|item\s+|option\s+)?\d{1,2}(?:\s*(?:,|and|&|\+)\s*#?\d{1,2})*"
# A number that names an item ends there: not "I'll take 2 tickets".
_ALONE = r"(?=\s*(?:[,.!;]|$|(?:and|too|then|as well|if|for sure|obviously)\b))"
# "2 and 3 are me", "1 is mine obviously", "3's mine", "I'll take 4", "me for 5".
_CLAIMS = (
    re.compile(rf"^(?P<n>{_NUMBERS})(?:\s+(?:is|are)|'s)\s+(?:mine|me|on me)\b", re.I),
    re.compile(rf"\bi'?ll (?:take|own|do|grab|handle)\s+(?P<n>{_NUMBERS}){_ALONE}", re.I),
    re.compile(rf"^(?:and\s+)?me for\s+(?P<n>{_NUMBERS}){_ALONE}", re.I),
)
# "1. obviously", "option 2 please", "#3 then": a pick of one option.
_PICK = re.compile(
    r"^(?:ok\s+|so\s+|yeah\s+)?(?:option\s+|#|number\s+)?(?P<n>\d{1,2})\b[.!,]?"
    r"(?:\s*(?:obviously|please|pls|then|it is|for sure|definitely|for me|sounds good))?"
    r"[\s.!]{0,4}$",
    re.I,
)
PICK_CHARS = 40  # a pick by number is a reply of a few words
_UNMEANT = frozenset({"question", "hedge", "hypothetical", "joke"})


@dataclass(frozen=True, slots=True)
class Named:
    """Items of a list a sentence names: a claim (its speaker will do them)
    or a pick (one option chosen)."""

    kind: str  # "claim" or "pick"
    items: tuple[str, ...]


def listed(messages: Sequence[Said], index: int, *, nearest: bool = False) -> dict[int, str]:
    """The latest numbered list (two items at least) of the messages just
    before `index`: number -> the item's words, without markup. `nearest`:
    only in the last message by someone else (what a bare "1." answers)."""
    speaker = messages[index].speaker if index < len(messages) else ""
    for said in reversed(messages[max(0, index - LOOK_BACK) : index]):
        if nearest and said.speaker == speaker:
            continue
        items = _items_of(said.text)
        if len(items) >= 2 or nearest:
            return items if len(items) >= 2 else {}
    return {}


def _items_of(text: str) -> dict[int, str]:
    found = (_ITEM.match(line) for line in text.splitlines()[:MAX_LINES])
    return {int(m.group(1)): plain(m.group(2)).rstrip(" .;:") for m in found if m}


def named(sentence: str, messages: Sequence[Said], index: int) -> Named | None:
    """The list items `sentence` (of message `index`) claims, if it claims
    some by number and means it (not "maybe I'll take 2?"). The lists before
    it are read only for a sentence that claims."""
    found = next((f for f in (p.search(sentence) for p in _CLAIMS) if f), None)
    if found is None or mood(sentence) in _UNMEANT:
        return None
    chosen = _items(found.group("n"), listed(messages, index))
    return Named("claim", chosen) if chosen else None


def by_number(messages: Sequence[Said], index: int) -> Named | None:
    """The option message `index`, a short reply, picks by its number ("1.
    obviously") from the list just before it."""
    text = messages[index].text.strip()
    found = _PICK.match(text) if len(text) <= PICK_CHARS else None
    chosen = _items(found.group("n"), listed(messages, index, nearest=True)) if found else ()
    return Named("pick", chosen[:1]) if chosen else None


def _items(numbers: str, items: dict[int, str]) -> tuple[str, ...]:
    return tuple(items[n] for n in map(int, re.findall(r"\d{1,2}", numbers)) if n in items)
