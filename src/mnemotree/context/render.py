"""A node's renderings, most detailed first: full, summary, compressed, index.

Typed memories with compression levels (episodes, patterns, workflows) offer
the levels they were given (the living-memory design). Any other node offers its text, a
compressed form (its first sentence, at most 16 words) and an index form (its
key, name or first words). A group of hits under one summary offers its
members in full, then the summary: a summary instead of its children.

A document chunk is shown under its document and sections, said once for
all its chunks (`group_of`); conventions are grouped by kind ("Constraints").
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from ..conversation.extractive import MAX_SENTENCES, Said, summarize
from ..model import Node, valid_since
from ..retrieval.hits import CHUNK, CONTAINER, DOCUMENT, SECTION, citation
from ..retrieval.query import STOPWORDS
from ..store import Store
from ..structured.typed import LEVEL, LEVELS, action_state
from .pack import ref

_SENTENCE = re.compile(r"(?<=[.!?])\s+")
COMPRESSED_WORDS = 16
INDEX_WORDS = 5
# Which of a type's levels counts as which resolution.
_RESOLUTION = {
    "full": "full",
    "template": "full",
    "details": "full",
    "summary": "summary",
    "steps": "summary",
    "compressed": "compressed",
    "hint": "compressed",
    "index": "index",
}


def is_content(node: Node) -> bool:
    """Whether a node can be shown as an item: not a container, nor a
    document's title or heading (its chunks are the content)."""
    return not node.metadata.get(CONTAINER) and node.context_type not in (DOCUMENT, SECTION)


def levels_of(store: Store, nodes: Sequence[Node]) -> dict[str, dict[str, str]]:
    """The compression levels of these nodes (only types that have them), in one query."""
    parents = [n.id for n in nodes if n.context_type in LEVELS]
    found: dict[str, dict[str, str]] = {}
    for child in store.children_of(parents, LEVEL):
        found.setdefault(child.parent_id or "", {})[child.context_name] = child.text
    return found


def renderings(node: Node, levels: dict[str, str] | None = None) -> tuple[tuple[str, str], ...]:
    """(resolution, text) pairs from most to least detailed, without repeats."""
    out: list[tuple[str, str]] = []
    if levels:
        for name in LEVELS.get(node.context_type, ()):
            if levels.get(name, "").strip():
                resolution = _RESOLUTION.get(name, name)
                shown = levels[name] if resolution == "index" else _titled(node, levels[name])
                out.append((resolution, shown))
        detail = next((levels[n] for n in levels if _RESOLUTION.get(n) == "full"), "")
        if detail.strip() and not {r for r, _ in out} & {"summary", "compressed"}:
            out[1:1] = _shorter(node, detail)
    if not out:
        text = said(node)
        out.append(("full", text))
        out.append(("compressed", compressed(node.text, text)))
        out.append(("index", index_text(node)))
    elif out[-1][0] != "index":
        out.append(("index", index_text(node)))
    return _distinct(out)


def _shorter(node: Node, detail: str) -> list[tuple[str, str]]:
    """A summary and a line of a memory given only in full (an episode's
    narrative): its sentences that carry most (a decision, a cause, an
    outcome), not its first ones."""
    flat = " ".join(detail.split())
    # The usual summary's length, which keeps every decision and cause it can.
    summary = _key_sentences(flat, MAX_SENTENCES)
    return [
        ("summary", _titled(node, summary)),
        ("compressed", _titled(node, compressed(flat, flat))),
    ]


@functools.lru_cache(maxsize=2048)  # contexts in a session show the same memories again
def _key_sentences(text: str, count: int) -> str:
    return summarize([Said("", text)], max_sentences=count) or text


# Headings of the groups typed memories are shown in.
_GROUPS = {
    "fact": "Facts",
    "decision": "Decisions",
    "preference": "Preferences",
    "entity": "Entities",
    "procedure": "Procedures",
    "constraint": "Constraints",
    "goal": "Goals",
    "action": "Open action items",
    "episode": "Episodes",
    "pattern": "Patterns",
    "workflow": "Workflows",
    "summary": "Summaries",
}


def group_of(node: Node, ancestry: Sequence[Node] = (), by_kind: bool = False) -> str:
    """The heading a node's line sits under: a document chunk's document,
    sections and pages ("Field Guide (guide.md) > Install, p. 3"; the document
    from `ancestry`), with `by_kind` a typed memory's kind ("Decisions"), else
    none."""
    if node.context_type == CHUNK:
        cited = citation(node, ancestry)
        if cited is not None:
            pages = cited.pages
            return cited.breadcrumb() + (f", {pages}" if pages else "")
    return _GROUPS.get(node.context_type, "") if by_kind else ""


def group_renderings(summary: Node, members: Sequence[Node]) -> tuple[tuple[str, str], ...]:
    """Hits under one summary: all of them in full, else the summary, else its index."""
    # Each member is referenced, so an answer citing one can be traced to it.
    full = " / ".join(f"{said(m)} {ref(m.id)}" for m in members)
    return _distinct(
        [
            ("full", full),
            ("summary", summary.text),
            ("compressed", shorten(summary.text, COMPRESSED_WORDS)),
            ("index", index_text(summary)),
        ]
    )


def _titled(node: Node, text: str) -> str:
    """A level's text led by its memory's title (a workflow's steps say
    nothing of what they are for), unless it starts with it already."""
    title = " ".join(node.text.split())
    if not title or " ".join(text.split()).casefold().startswith(title.casefold()):
        return text
    return f"{title}: {text}"


def compressed(text: str, shown: str) -> str:
    """A text in a line: its sentence that carries most (a decision, a cause,
    a number; `extractive.salience`) rather than its first, cut at
    COMPRESSED_WORDS words. `shown` is the text as shown in full (a message
    after its speaker): a one-sentence text is that, shortened."""
    picked = _salient(text, COMPRESSED_WORDS)
    if picked is None:
        return shorten(shown, COMPRESSED_WORDS)
    lead = shown[: len(shown) - len(text)] if shown.endswith(text) else ""
    return shorten(lead + picked, COMPRESSED_WORDS)


def _salient(text: str, words: int) -> str | None:
    """The sentence of a text longer than `words` words that carries most;
    None for a shorter text or one sentence (its start is the line)."""
    flat = " ".join(text.split())
    if len(flat.split()) <= words or not _SENTENCE.search(flat):
        return None
    return _key_sentences(flat, 1)


# A name: capitalised words not opening a sentence ("Casa Olmedo", "Priya").
_NAMED = re.compile(r"(?<![.!?:]\s)(?<![.!?:])(?<!^)\b([A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*)")


_CALENDAR = frozenset(
    """monday tuesday wednesday thursday friday saturday sunday january february march
    april june july august september october november december""".split()
)


def named(text: str) -> set[str]:
    """The names a text says, each once (a stopword alone is no name)."""
    return {
        name.rstrip("'’-")
        for name in _NAMED.findall(text)
        if len(name) > 1
        and name.lower() not in STOPWORDS
        and name.lower() not in _CALENDAR
        and not (name.isupper() and len(name) < 3)
    }


def shorten(text: str, words: int) -> str:
    """The first sentence, cut at `words` words."""
    first = _SENTENCE.split(" ".join(text.split()), maxsplit=1)[0]
    parts = first.split()
    return " ".join(parts[:words]) + ("…" if len(parts) > words else "")


def index_text(node: Node) -> str:
    """A few words naming a node: its key, or the first words of its
    sentence that carries most."""
    key = node.metadata.get("key")
    if isinstance(key, str) and key.strip():
        return key.strip()
    return shorten(_salient(node.text, INDEX_WORDS) or node.text, INDEX_WORDS)


def said(node: Node) -> str:
    """A message with its speaker; an action item with its state; anything
    else as it is."""
    if node.context_type == "message" and node.context_name:
        return f"{node.context_name}: {node.text}"
    if node.context_type == "action":
        return f"{node.text} ({action_state(node.metadata)})"
    return node.text


def _distinct(pairs: list[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    seen: set[str] = set()
    out = []
    for level, text in pairs:
        flat = " ".join(text.split())
        if flat and flat not in seen:
            seen.add(flat)
            out.append((level, flat))
    return tuple(out)


def contradiction_renderings(a: Node, b: Node) -> tuple[tuple[str, str], ...]:
    """Two statements that cannot both hold, each with its date, and the
    question a person has to settle."""
    first, second = said(a), said(b)
    return _distinct(
        [
            (
                "full",
                f"«{first}» {ref(a.id)} ({since(a)}) vs «{second}» {ref(b.id)} "
                f"({since(b)}): which holds?",
            ),
            (
                "compressed",
                f"«{shorten(first, 8)}» {ref(a.id)} vs «{shorten(second, 8)}» "
                f"{ref(b.id)}: which holds?",
            ),
            ("index", f"«{index_text(a)}» {ref(a.id)} vs «{index_text(b)}» {ref(b.id)}"),
        ]
    )


def since(node: Node) -> str:
    """The day a memory became valid (or was written)."""
    return (valid_since(node) or node.created_at)[:10]
