"""What a parser returns: a document as a tree of sections with body text."""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Section:
    """A heading and the text under it before its first subsection.

    The document itself is the level-0 section: its body is the text before
    the first heading (or, for a PDF without an outline, nothing: its pages
    are level-1 sections of element type "page").
    """

    title: str
    level: int = 0
    text: str = ""
    page_start: int | None = None  # 1-based, inclusive (PDFs)
    page_end: int | None = None
    element_type: str = "section"
    children: list[Section] = field(default_factory=list)
    # (offset into `text`, 1-based page starting there), so chunks of a long
    # section know their own pages; empty when the text has no pages.
    page_marks: list[tuple[int, int]] = field(default_factory=list)
    # Source code: the section's 1-based lines (a symbol's whole extent), and
    # (offset into `text`, line starting there) for each run of lines its
    # text holds (a class's text skips the lines of its methods).
    line_start: int | None = None
    line_end: int | None = None
    line_marks: list[tuple[int, int]] = field(default_factory=list)
    # Code: what the symbol's own documentation says it does (the first
    # paragraph of its docstring or doc comment), shown under its title.
    summary: str = ""
    # Code: the structures a function is built from (decorators, context
    # managers, handled and raised errors, calls), for the pattern miner.
    shape: list[str] = field(default_factory=list)

    def lines_of(self, start: int, end: int) -> tuple[int | None, int | None]:
        """First and last line of text[start:end] (None without line marks)."""
        marks = self.line_marks
        if not marks:
            return None, None
        return self._line_at(start), self._line_at(max(start, end - 1))

    def _line_at(self, offset: int) -> int:
        at = max(bisect.bisect_right(self.line_marks, offset, key=_offset) - 1, 0)
        mark, line = self.line_marks[at]
        return line + self.text.count("\n", mark, max(mark, offset))

    def pages_of(self, start: int, end: int) -> tuple[int | None, int | None]:
        """First and last page of text[start:end] (the section's pages if unknown)."""
        marks = self.page_marks
        if not marks:
            return self.page_start, self.page_end
        # Marks are in offset order: a search, not a scan per chunk (a long
        # section of a many-page PDF has many chunks and many marks).
        first = bisect.bisect_right(marks, start, key=_offset) - 1
        last = bisect.bisect_left(marks, end, key=_offset) - 1
        return marks[max(first, 0)][1], marks[max(last, 0)][1]


def _offset(mark: tuple[int, int]) -> int:
    return mark[0]


@dataclass
class ParsedDocument:
    """A parsed file: its title, type, front matter or properties, and sections."""

    title: str
    doc_type: str  # pdf, docx, md, html, txt
    root: Section
    metadata: dict[str, Any] = field(default_factory=dict)
    pages: int | None = None


class SectionStack:
    """Builds the section tree from a stream of headings and paragraphs
    (the documents-and-chat design's section stack): a heading closes every open section at its
    level or deeper and opens a new one under what remains."""

    def __init__(self, root: Section) -> None:
        self.root = root
        self._open: list[Section] = [root]
        self._parts: dict[int, list[str]] = {id(root): []}

    def heading(self, level: int, title: str, page: int | None = None) -> None:
        level = max(1, min(level, 9))
        while len(self._open) > 1 and self._open[-1].level >= level:
            self._close(self._open.pop())
        section = Section(title.strip() or "(untitled)", level, page_start=page, page_end=page)
        self._open[-1].children.append(section)
        self._open.append(section)
        self._parts[id(section)] = []

    def paragraph(self, text: str) -> None:
        text = text.strip()
        if text:
            self._parts[id(self._open[-1])].append(text)

    def _close(self, section: Section) -> None:
        section.text = "\n\n".join(self._parts.pop(id(section)))

    def finish(self) -> Section:
        while self._open:
            self._close(self._open.pop())
        return self.root
