"""`@tags` in node text: cross-entity links carried in content (the tree design)."""

from __future__ import annotations

import re

# Not preceded by a word character, so e-mail addresses are not tags.
_TAG = re.compile(r"(?<![\w@])@([A-Za-z0-9_][\w\-]*(?:[./][\w\-]+)*)")


def parse_tags(text: str) -> list[str]:
    """Return the distinct tags of `text`, lowercased, in order of appearance."""
    seen: dict[str, None] = {}
    for match in _TAG.finditer(text):
        seen.setdefault(match.group(1).lower(), None)
    return list(seen)
