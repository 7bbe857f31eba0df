"""A parsed document as a planned subtree: document → sections → chunks.

Ids are derived from the source, the section path and the content, so
re-ingesting a file plans the same ids for what did not change, and
`treesync` writes only the difference.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..model import NewNode, Node
from ..treesync import Planned
from . import chunker
from .limits import Budget
from .parsed import ParsedDocument, Section

# Bumped whenever parsing or chunking changes what a file becomes, so that
# unchanged files are parsed again once after an upgrade.
PARSER_VERSION = "2"
DOCUMENT = "document"
SECTION = "section"
CHUNK = "chunk"


def _digest(*parts: object) -> str:
    # JSON keeps the parts apart whatever they contain (a separator character
    # could appear in a scope or a file name and join two documents' ids).
    joined = json.dumps([str(p) for p in parts], ensure_ascii=False)
    return "doc:" + hashlib.sha256(joined.encode("utf-8", "surrogatepass")).hexdigest()[:24]


def owned(node: Node) -> bool:
    """Nodes an ingest made (and may delete); notes added under a document are not."""
    return node.id.startswith("doc:") and node.context_type in (DOCUMENT, SECTION, CHUNK)


def document_id(scope: str, source: str) -> str:
    """The root id of the document read from `source` into `scope`."""
    return _digest("document", scope, source)


@dataclass
class DocChunk:
    """The documents-and-chat design's DocChunk: a chunk node seen with its document fields."""

    chunk_id: str
    file_path: str
    page_start: int | None
    page_end: int | None
    element_type: str
    name: str
    content: str
    parent_chunk_id: str | None
    section_path: list[str]
    section_level: int
    document_type: str
    scope: str
    metadata: dict[str, Any]

    @classmethod
    def of(cls, node: Node) -> DocChunk:
        meta = node.metadata
        return cls(
            node.id,
            str(meta.get("file_path", "")),
            meta.get("page_start"),
            meta.get("page_end"),
            str(meta.get("element_type", "")),
            str(meta.get("name", node.context_name)),
            node.text,
            node.parent_id,
            list(meta.get("section_path", [])),
            int(meta.get("section_level", 0)),
            str(meta.get("document_type", "")),
            node.scope,
            meta,
        )


def plan_document(
    parsed: ParsedDocument,
    *,
    scope: str,
    source: str,
    filename: str,
    file_info: dict[str, Any],
    max_chars: int = chunker.MAX_CHARS,
    overlap: int = chunker.OVERLAP,
    budget: Budget | None = None,
    relative: str | None = None,
) -> Planned:
    """The subtree a parsed file becomes (`file_info`: size, mtime, sha256).
    `budget` bounds its nodes (max_nodes) and the time spent planning."""
    budget = budget or Budget(source)
    root_id = document_id(scope, source)
    meta = {
        "file_path": source,
        "document_type": parsed.doc_type,
        "parser": PARSER_VERSION,
        **file_info,
        **parsed.metadata,
    }
    if parsed.pages is not None:
        meta["pages"] = parsed.pages
    root = Planned(
        root_id,
        NewNode(parsed.title, DOCUMENT, filename, source, scope=scope, metadata=meta),
    )
    unique = _Ids(root_id, budget).unique
    planner = _Planner(parsed, source, unique, budget, (max_chars, overlap))
    if relative:  # code: cited by path and lines
        meta["relative_path"] = planner.base["relative_path"] = relative
    planner.walk(_hoisted(parsed), [], root)
    return root


class _Planner:
    """Sections become section nodes, their text chunk nodes, depth first."""

    def __init__(
        self,
        parsed: ParsedDocument,
        source: str,
        unique: Callable[..., str],
        budget: Budget,
        sizes: tuple[int, int],  # a chunk's characters at most, and their overlap
    ) -> None:
        self.parsed = parsed
        self.unique = unique
        self.budget = budget
        self.sizes = sizes
        self.base = {"file_path": source, "document_type": parsed.doc_type}

    def chunks(self, section: Section, path: list[str], into: Planned) -> None:
        name = section.title if path or section.element_type == "page" else self.parsed.title
        pieces = chunker.spans(section.text, *self.sizes)
        for number, (start, end) in enumerate(pieces, start=1):
            self.budget.check_time()
            text = section.text[start:end]
            first, last = section.pages_of(start, end)
            chunk_meta = {
                **self.base,
                "element_type": section.element_type,
                "name": f"{name} (part {number})" if len(pieces) > 1 else name,
                "section_path": path,
                "section_level": section.level,
            }
            if first is not None:
                chunk_meta.update(page_start=first, page_end=last)
            line_start, line_end = section.lines_of(start, end)
            if line_start is not None:
                chunk_meta.update(line_start=line_start, line_end=line_end)
            node = NewNode(text, CHUNK, name, metadata=chunk_meta)
            into.children.append(Planned(self.unique("chunk", *path, text), node))

    def walk(self, section: Section, path: list[str], into: Planned) -> None:
        self.chunks(section, path, into)
        for child in section.children:
            if child.element_type == "page":  # a page is a chunk, not a heading
                self.chunks(child, path, into)
                continue
            child_path = [*path, child.title]
            # A heading of prose; in code the symbol's kind (class, function).
            kind = "heading" if child.element_type == "section" else child.element_type
            section_meta: dict[str, Any] = {
                **self.base,
                "element_type": kind,
                "section_path": child_path,
                "section_level": child.level,
            }
            if child.page_start is not None:
                section_meta.update(page_start=child.page_start, page_end=child.page_end)
            if child.line_start is not None:
                section_meta.update(line_start=child.line_start, line_end=child.line_end)
            if child.shape:
                section_meta["shape"] = child.shape
            heading = f"{child.title}\n{child.summary}" if child.summary else child.title
            node = Planned(
                self.unique("section", *child_path),
                NewNode(heading, SECTION, metadata=section_meta),
            )
            into.children.append(node)
            self.walk(child, child_path, node)


class _Ids:
    """Stable ids for one document's nodes, at most max_nodes of them."""

    def __init__(self, root_id: str, budget: Budget) -> None:
        self.root_id = root_id
        self.budget = budget
        self.issued: set[str] = {root_id}
        # The occurrence number last given to each repeated id: the next copy
        # starts there instead of re-hashing every earlier copy (which made a
        # file of one repeated paragraph quadratic).
        self.repeats: dict[str, int] = {}

    def unique(self, kind: str, *parts: object) -> str:
        """A stable id; a repeat (two "Notes" sections, one sentence twice) takes
        its occurrence number in a part no heading or text can produce."""
        first = key = _digest(self.root_id, kind, *parts)
        if first in self.issued:
            repeat = self.repeats.get(first, 1)
            while key in self.issued:  # more than once only on a digest collision
                repeat += 1
                key = _digest(self.root_id, f"{kind}#{repeat}", *parts)
            self.repeats[first] = repeat
        self.issued.add(key)
        self.budget.at_most("max_nodes", len(self.issued) - 1, "sections and chunks")
        return key


def _hoisted(parsed: ParsedDocument) -> Section:
    """The document's sections, without a level that only repeats its title (a
    Markdown file's single `# Title`): its body and sections are the document's."""
    top = parsed.root
    only = top.children[0] if len(top.children) == 1 else None
    if top.text.strip() or only is None or only.title != parsed.title:
        return top
    hoisted = Section(top.title, 0, only.text, top.page_start, top.page_end, top.element_type)
    hoisted.children, hoisted.page_marks = only.children, only.page_marks
    _raise_levels(hoisted.children)
    return hoisted


def _raise_levels(sections: list[Section]) -> None:
    for section in sections:
        section.level -= 1
        _raise_levels(section.children)
