"""A node's renderings, most detailed first: full, summary, compressed, index.

Typed memories with compression levels (episodes, patterns, workflows) offer
the levels they were given (seed 004). Any other node offers its text, a
compressed form (its first sentence, at most 16 words) and an index form (its
key, name or first words). A group of hits under one summary offers its
members in full, then the summary: a summary instead of its children.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..model import Node
from ..store import Store
from ..structured.typed import LEVEL, LEVELS, TYPES

_SENTENCE = re.compile(r"(?<=[.!?])\s+")
COMPRESSED_WORDS = 16
INDEX_WORDS = 5
# Which of a type's levels counts as which resolution.
_RESOLUTION = {
    "full": "full", "template": "full", "details": "full",
    "summary": "summary", "steps": "summary",
    "compressed": "compressed", "hint": "compressed",
    "index": "index",
}  # fmt: skip


def levels_of(store: Store, nodes: Sequence[Node]) -> dict[str, dict[str, str]]:
    """The compression levels of these nodes (only types that have them), in one query."""
    parents = [n.id for n in nodes if n.context_type in LEVELS]
    found: dict[str, dict[str, str]] = {}
    for child in store.children_of(parents, LEVEL):
        found.setdefault(child.parent_id or "", {})[child.context_name] = child.text
    return found


def renderings(node: Node, levels: dict[str, str] | None = None) -> tuple[tuple[str, str], ...]:
    """(resolution, text) pairs from most to least detailed, without repeats."""
    label = _label(node)
    out: list[tuple[str, str]] = []
    if levels:
        for name in LEVELS.get(node.context_type, ()):
            if levels.get(name, "").strip():
                out.append((_RESOLUTION.get(name, name), f"{label}{levels[name]}"))
    if not out:
        text = _said(node)
        out.append(("full", f"{label}{text}"))
        short = shorten(text, COMPRESSED_WORDS)
        out.append(("compressed", f"{label}{short}"))
        out.append(("index", f"{label}{index_text(node)}"))
    elif out[-1][0] != "index":
        out.append(("index", f"{label}{index_text(node)}"))
    return _distinct(out)


def group_renderings(summary: Node, members: Sequence[Node]) -> tuple[tuple[str, str], ...]:
    """Hits under one summary: all of them in full, else the summary, else its index."""
    # Each member names its id, so an answer citing one can be traced to it.
    full = " / ".join(f"{_said(m)} [{m.id}]" for m in members)
    return _distinct([
        ("full", full),
        ("summary", summary.text),
        ("compressed", shorten(summary.text, COMPRESSED_WORDS)),
        ("index", index_text(summary)),
    ])  # fmt: skip


def shorten(text: str, words: int) -> str:
    """The first sentence, cut at `words` words."""
    first = _SENTENCE.split(" ".join(text.split()), maxsplit=1)[0]
    parts = first.split()
    return " ".join(parts[:words]) + ("…" if len(parts) > words else "")


def index_text(node: Node) -> str:
    """A few words naming a node: its key, or its first words."""
    key = node.metadata.get("key")
    if isinstance(key, str) and key.strip():
        return key.strip()
    return shorten(node.text, INDEX_WORDS)


def _said(node: Node) -> str:
    """A message with its speaker; anything else as it is."""
    if node.context_type == "message" and node.context_name:
        return f"{node.context_name}: {node.text}"
    return node.text


def _label(node: Node) -> str:
    return f"{node.context_type}: " if node.context_type in TYPES else ""


def _distinct(pairs: list[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    seen: set[str] = set()
    out = []
    for level, text in pairs:
        flat = " ".join(text.split())
        if flat and flat not in seen:
            seen.add(flat)
            out.append((level, flat))
    return tuple(out)
