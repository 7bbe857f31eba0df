"""Search results (`Hit`) and what vectors are made from; re-exported by
`retrieval.search`, where callers import them."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..model import Node, valid_since
from .rank import Weights

# Metadata flag of structural nodes (e.g. a scope's default space): never hits.
CONTAINER = "container"
# What an ingested document is made of (see ingest.plan): its root, its
# headings, and the chunks of text under them.
DOCUMENT, SECTION, CHUNK = "document", "section", "chunk"


@dataclass(frozen=True)
class Citation:
    """Where a document's node comes from: its file, pages and section path."""

    path: str  # as it was read (a path, or the name given with bytes)
    title: str  # the document's title
    section: tuple[str, ...] = ()  # headings from the top, the innermost last
    page_start: int | None = None
    page_end: int | None = None
    line_start: int | None = None  # source code: the lines cited
    line_end: int | None = None
    relative_path: str = ""  # source code: the path below the folder it was read from

    @property
    def file(self) -> str:
        """The file's name without its folders."""
        return self.path.replace("\\", "/").rsplit("/", 1)[-1]

    @property
    def pages(self) -> str:
        """ "p. 3", "pp. 2-3", or "" for a document without pages."""
        first, last = self.page_start, self.page_end
        if first is None:
            return ""
        return f"p. {first}" if last in (None, first) else f"pp. {first}-{last}"

    @property
    def location(self) -> str:
        """Code as it is cited, "store/search.py:41-50"; "" without lines."""
        first, last = self.line_start, self.line_end
        if first is None:
            return ""
        where = self.relative_path or self.file
        return f"{where}:{first}" if last in (None, first) else f"{where}:{first}-{last}"

    def breadcrumb(self) -> str:
        """The document, then each heading: "Field Guide (guide.md) > Install >
        Linux", or "guide.md > Install" when its title is only the file's name."""
        file, title = self.file, " ".join(self.title.split())
        named = file.rsplit(".", 1)[0]
        if not file or title.casefold() in ("", file.casefold(), named.casefold()):
            document = file or title
        else:
            document = f"{title} ({file})"
        return " > ".join((document, *self.section))

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "path": self.path,
            "title": self.title,
            "section": list(self.section),
            "page_start": self.page_start,
            "page_end": self.page_end,
            "line_start": self.line_start,
            "line_end": self.line_end,
        }


@dataclass
class Hit:
    """A search result: the node, its score, its ancestry and what it covers."""

    node: Node
    score: float
    ancestry: list[Node]
    parts: dict[str, float] = field(default_factory=dict)
    covered: list[Hit] = field(default_factory=list)

    def citation(self) -> Citation | None:
        """Where a document hit comes from (None for a memory)."""
        return citation(self.node, self.ancestry)

    def to_dict(self, explain: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": self.node.id,
            "text": self.node.text,
            "score": round(self.score, 6),
            "scope": self.node.scope,
            "context_type": self.node.context_type,
            "context_name": self.node.context_name,
            # Which version of the truth it is: superseded ones end at valid_to.
            "version": self.node.version,
            "valid_from": valid_since(self.node) or None,
            "valid_to": self.node.metadata.get("valid_to"),
            "ancestry": [
                {"id": a.id, "text": a.text, "context_type": a.context_type} for a in self.ancestry
            ],
        }
        cited = self.citation()
        if cited is not None:
            data["source"] = cited.to_dict()
        if explain:
            data["parts"] = {k: round(v, 6) for k, v in self.parts.items()}
        if self.covered:
            data["covered"] = [c.to_dict(explain) for c in self.covered]
        return data


def citation(node: Node, ancestry: Sequence[Node] = ()) -> Citation | None:
    """A document node's source (None for a memory): from what ingest wrote on
    it, the title from its document (the last of `ancestry`, if it is there)."""
    if node.context_type not in (DOCUMENT, SECTION, CHUNK):
        return None
    meta = node.metadata
    path = meta.get("file_path")
    if not isinstance(path, str) or not path:
        return None
    if node.context_type == DOCUMENT:
        return Citation(
            path, node.text, (), 1 if meta.get("pages") else None, _number(meta, "pages")
        )
    root = next((a for a in reversed(ancestry) if a.context_type == DOCUMENT), None)
    title = root.text if root is not None else ""  # unknown without its document
    listed = meta.get("section_path")
    section = tuple(str(s) for s in listed) if isinstance(listed, list) else ()
    return Citation(
        path,
        title,
        section,
        _number(meta, "page_start"),
        _number(meta, "page_end"),
        _number(meta, "line_start"),
        _number(meta, "line_end"),
        str(meta.get("relative_path", "")),
    )


def _number(meta: dict[str, Any], key: str) -> int | None:
    value = meta.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def embed_text(node: Node) -> str:
    """What a node's vector is computed from: its name (speaker, heading) and text."""
    return f"{node.context_name}: {node.text}" if node.context_name else node.text


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def distinct_first(hits: list[Hit], enough: int) -> list[Hit]:
    """The hits in order, but a copy of a text already ranked goes after the
    next distinct ones (up to `enough` of them, all a caller shows): a second
    "Thanks, that's helpful." tells a reader nothing the first did not, and a
    chat's stock replies, repeated in every session, otherwise fill the top of
    a question they half match."""
    seen: set[str] = set()
    first: list[Hit] = []
    again: list[Hit] = []
    for at, hit in enumerate(hits):
        if len(first) >= enough:  # the rest is never shown: not worth reading
            return first + again + hits[at:]
        key = " ".join(hit.node.text.split()).casefold()
        (again if key in seen else first).append(hit)
        seen.add(key)
    return first + again


def fold(hits: list[Hit]) -> list[Hit]:
    """Hits under a returned summary are folded into it (the summary covers
    them), and a heading into a returned chunk of its own (the chunk's text
    follows the heading, which it cites: a function's signature is the
    first line of its code). A group stands where its best member ranked:
    a message that outranks its session's summary brings the summary up
    with it, rather than sinking to the summary's place."""
    by_id = {h.node.id: h for h in hits}
    cited: dict[str | None, Hit] = {}  # each heading's best returned chunk
    for hit in hits:
        if hit.node.context_type == CHUNK:
            cited.setdefault(hit.node.parent_id, hit)
    kept: list[Hit] = []
    placed: set[str] = set()
    for hit in hits:
        cover = next((by_id[a.id] for a in hit.ancestry if a.is_summary and a.id in by_id), None)
        if cover is None and hit.node.context_type == SECTION:
            cover = cited.get(hit.node.id)
        group = cover or hit
        if group.node.id not in placed:
            placed.add(group.node.id)
            kept.append(group)
        if cover is not None:
            cover.covered.append(hit)
    return kept


# The relevance floor: a search returns what is about the query, never just
# the `limit` best of whatever there is. A query is about something stored
# when a hit is close to it in meaning (`min_relevance`: a cosine unrelated
# text rarely reaches with the default model; on LoCoMo 759 of 760
# questions had a match that close, 95% one at 0.49, while 121 of 125
# off-topic questions had none), when a hit holds half of its telling words
# or two of them, or when it names a hit's speaker. Then each hit must show
# more than chance on its own: where the collection is large enough to say
# what chance scores (`chance_known`), its fused match is above it, or it is
# named, or made in a time the query names; in a smaller one, hits with at
# least half the best one's evidence are kept. Evidence is what says a hit
# is about the query (meaning, words, name, its neighbours and parent, a
# named time): recency, importance, accesses and usage rank relevant hits,
# they never make a hit relevant. Half the best hit's own evidence, applied
# on top of chance, kept ~12 of ~90 candidates on long chats and cost R@10
# 0.013-0.022 there and 0.015 on LoCoMo (a paraphrase fell below a strong
# match elsewhere).
MIN_RELEVANCE = Weights().min_relevance
RELATIVE_FLOOR = 0.5
MIN_SHARE = 0.5  # of the query's telling words, in one hit
MIN_WORDS = 2  # or this many of them
_SUFFIXES = ("ing", "ed", "es", "s")


def evidence(hit: Hit, weights: Weights) -> float:
    """The part of a hit's score that says it is about the query: its own
    match (meaning and words, fused per query), name (or a role the query
    names by pronoun), neighbours, parent and
    a named time."""
    p, w = hit.parts, weights
    return (
        (w.semantic + w.keyword) * p.get("match", 0.0)
        + w.name * max(p.get("name", 0.0), p.get("speaker", 0.0))
        + w.neighbours * p.get("neighbours", 0.0)
        + w.parent * p.get("parent", 0.0)
        + w.time * p.get("time", 0.0)
    )


def above_floor(
    hits: list[Hit],
    weights: Weights,
    terms: Sequence[str],
    minimum: float = MIN_RELEVANCE,
    *,
    chance_known: bool = False,
) -> list[Hit]:
    """`hits` (best first) without those below the relevance floor; all of
    them when `minimum` is 0 (no floor), none when nothing is about the query.
    `terms` are the query's telling words (its lexical terms); `chance_known`:
    each hit's `match` is read against what chance scores in its collection."""
    if minimum <= 0 or not hits:
        return hits
    if not any(_about(h.parts, minimum) for h in hits):
        wanted = {_stem(t) for t in terms}
        enough = min(MIN_WORDS, MIN_SHARE * len(wanted))
        if not wanted or not any(
            h.parts.get("keyword", 0.0) > 0 and _shared(h.node, wanted) >= enough for h in hits
        ):
            return []
    if chance_known:
        beat = [h for h in hits if _beats_chance(h.parts)]
        if beat:  # else a homogeneous scope: nothing stands out from the rest
            return beat
    shown = [evidence(h, weights) for h in hits]
    least = RELATIVE_FLOOR * max(shown)
    return [h for h, e in zip(hits, shown, strict=True) if e >= least]


def _about(parts: dict[str, float], minimum: float) -> bool:
    """Whether a hit alone shows the query is about something stored: close
    in meaning, named, or, while meaning more than chance, made in a time
    the query names ("which city did I visit in May?") or said by a chat
    role it names by pronoun ("which network am I on?" is about what the
    user said: a name said another way, as "Caroline" is in "what did
    Caroline do?"). Long chats, held-out half: 41 of 360 questions found
    nothing without the role; off-topic first-person questions ("how do I
    compile Rust?") now find the user's nearest messages in a chat."""
    p = parts.get
    return (
        p("semantic", 0.0) >= minimum
        or p("name", 0.0) > 0
        or ((p("time", 0.0) > 0 or p("speaker", 0.0) > 0) and p("match", 0.0) > 0)
    )


def _beats_chance(parts: dict[str, float]) -> bool:
    """Whether a hit shows more than chance on its own: its fused match
    (meaning above the collection's, or telling words), a name or role the
    query names, or a time it names."""
    p = parts.get
    return any(p(k, 0.0) > 0 for k in ("match", "name", "speaker", "time"))


def _shared(node: Node, wanted: set[str]) -> int:
    """How many of the query's telling words a node holds (crudely stemmed)."""
    held = {_stem(t) for t in _WORDS.findall(f"{node.context_name} {node.text}".lower())}
    return len(wanted & held)


def _stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


# Words as the query's terms are split (`query.terms_of`): "session_id" is
# two, so a note naming it holds both of a query's "session" and "id".
_WORDS = re.compile(r"[^\W_]+")
