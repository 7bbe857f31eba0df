"""PDF parsing with pypdfium2.

With an outline, each bookmark becomes a section holding the text from its
title to the next bookmark's title, with its page range (the documents-and-chat design, tier 1).
Without one, each page with text is a chunk (tier 3), and a short document
(one page, or under 500 characters) is a single chunk.

Bounds (see limits): max_pdf_pages from the page tree before any page is
read, max_text_chars from each page's character count before its text is
built, max_nodes on bookmarks, and the time budget between pages.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Any

from ..errors import MissingExtra, ParseError
from .formats import stem
from .limits import DEFAULT_LIMITS, Budget, IngestLimits
from .parsed import ParsedDocument, Section

SMALL_CHARS = 500


@dataclass
class _Mark:
    level: int
    title: str
    page: int  # 0-based
    top: float | None = None  # where on the page it points (PDF units, from the bottom)
    offset: int = 0  # where in the page's text that is


def _pdfium() -> Any:
    try:
        import pypdfium2
    except ImportError:
        raise MissingExtra(
            "reading PDFs needs pypdfium2, a mnemotree dependency: pip install pypdfium2",
            "pypdfium2",
        ) from None
    return pypdfium2


def parse_pdf(data: bytes, name: str, limits: IngestLimits = DEFAULT_LIMITS) -> ParsedDocument:
    pdfium = _pdfium()
    if not data:
        raise ParseError(f"{name} is empty: nothing to index", name)
    budget = Budget(name, limits)
    try:
        pdf = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        reason = str(exc)
        if "password" in reason.lower():
            raise ParseError(
                f"{name} is encrypted (password-protected); decrypt it first", name
            ) from None
        raise ParseError(f"{name} is not a readable PDF ({reason})", name) from None
    try:
        budget.at_most("max_pdf_pages", len(pdf), "pages")
        pages = _pages(pdf, budget)
        marks = _outline(pdf, len(pages), budget)
        _place(pdf, marks, budget)
        title = _title(pdf) or stem(name)
    except pdfium.PdfiumError as exc:
        raise ParseError(f"{name} is damaged ({exc})", name) from None
    finally:
        pdf.close()
    if not any(p.strip() for p in pages):
        raise ParseError(
            f"{name} has no extractable text (scanned images?); run OCR on it first", name
        )
    root = Section(title, page_start=1, page_end=len(pages))
    if marks:
        _sections(root, pages, marks, budget)
    elif len(pages) <= 1 or sum(len(p.strip()) for p in pages) < SMALL_CHARS:
        root.text = "\n\n".join(p.strip() for p in pages if p.strip())
    else:
        root.children = [
            Section(f"Page {i + 1}", 1, text.strip(), i + 1, i + 1, "page")
            for i, text in enumerate(pages)
            if text.strip()
        ]
    return ParsedDocument(title, "pdf", root, {"pages": len(pages)}, pages=len(pages))


def _pages(pdf: Any, budget: Budget) -> list[str]:
    """Every page's text, stopping at max_text_chars (counted before a page's
    text is built) and at the time budget."""
    pages: list[str] = []
    chars = 0
    for index in range(len(pdf)):
        budget.check_time()
        text = _page_text(pdf, index, budget, chars)
        chars += len(text)
        pages.append(text)
    return pages


def _page_text(pdf: Any, index: int, budget: Budget, before: int) -> str:
    page = pdf[index]
    try:
        textpage = page.get_textpage()
        try:
            budget.text(before + textpage.count_chars())
            text = str(textpage.get_text_bounded())
        finally:
            textpage.close()
    finally:
        page.close()
    return _normalised(text)


def _title(pdf: Any) -> str:
    meta = pdf.get_metadata_dict(skip_empty=True)
    return " ".join(str(meta.get("Title", "")).split())


def _outline(pdf: Any, count: int, budget: Budget) -> list[_Mark]:
    """Bookmarks in reading order; ones without a page take the previous page,
    and pages never go backwards (an outline out of order still reads forward).
    Each becomes a section, so there may be at most max_nodes of them."""
    marks: list[_Mark] = []
    page = 0
    for seen, item in enumerate(pdf.get_toc(max_depth=16), start=1):
        budget.at_most("max_nodes", seen, "bookmarks")
        budget.check_time()
        dest = item.get_dest()
        index = dest.get_index() if dest is not None else None
        if index is not None and 0 <= index < count:
            page = max(page, index)
        title = " ".join((item.get_title() or "").split())
        if title:
            top = _top(dest) if index is not None and page == index else None
            marks.append(_Mark(item.level, title, page, top))
    return marks


def _top(dest: Any) -> float | None:
    """The height a destination shows at the top of the window, if it names one."""
    raw = _pdfium().raw
    mode, position = dest.get_view()
    at = {
        raw.PDFDEST_VIEW_XYZ: 1,
        raw.PDFDEST_VIEW_FITH: 0,
        raw.PDFDEST_VIEW_FITBH: 0,
        raw.PDFDEST_VIEW_FITR: 3,
    }.get(mode)
    if at is None or len(position) <= at:
        return None
    top = float(position[at])
    # An unset coordinate reads as 0: that is "wherever", not the page's foot.
    return top if top > 0 else None


def _place(pdf: Any, marks: list[_Mark], budget: Budget) -> None:
    """Where in its page's text each bookmark points: the first character at
    or below the height its destination names (0, the page's top, without one).
    Two bookmarks on one page are told apart this way when their titles are
    not printed."""
    for mark in marks:
        if mark.top is None:
            continue
        budget.check_time()
        page = pdf[mark.page]
        try:
            textpage = page.get_textpage()
            try:
                mark.offset = _offset_below(textpage, mark.top)
            finally:
                textpage.close()
        finally:
            page.close()


def _offset_below(textpage: Any, top: float) -> int:
    """The offset in the page's (normalised) text of its first printed
    character whose top is at or below `top` (half a point of slack)."""
    text = str(textpage.get_text_range())
    # One character of text per character index (pdfium's own line breaks included).
    for index in range(min(len(text), textpage.count_chars())):
        if text[index].strip() and textpage.get_charbox(index)[3] <= top + 0.5:
            return len(_normalised(text[:index]))
    return len(_normalised(text))


def _normalised(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _title_pattern(title: str) -> re.Pattern[str]:
    """A title as it may be printed: any whitespace between words, any case."""
    return re.compile(r"\s+".join(re.escape(w) for w in title.split()), re.IGNORECASE)


def _locate(title: str, text: str, start: int, end: int) -> int:
    """Where a bookmark's title is printed on its page: a line of its own if
    there is one (a heading), else the first mention; -1 if absent."""
    pattern = _title_pattern(title)
    line = re.compile(
        rf"^[ \t]*(?:{_NUMBERING}[ \t]+)?(?:{pattern.pattern})[ \t]*$",
        re.IGNORECASE | re.MULTILINE,
    )
    found = line.search(text, start, end) or pattern.search(text, start, end)
    if found is None:
        return -1
    return found.start() + len(found.group(0)) - len(found.group(0).lstrip())


# A heading's printed number ("2.", "2.1", "IV.", "A."), which outlines leave out.
_NUMBERING = r"(?:\d+(?:\.\d+)*\.?|[IVXLC]+\.|[A-Z]\.)"


def _heading_at(title: str, body: str) -> re.Match[str] | None:
    """The title (with any printed number) at the start of `body`."""
    numbered = re.compile(rf"(?:{_NUMBERING}[ \t]+)?(?:{_title_pattern(title).pattern})", re.I)
    return numbered.match(body)


def _starts(
    marks: list[_Mark], pages: list[str], offsets: list[int], full: str, budget: Budget
) -> list[tuple[int, bool]]:
    """Where each bookmark starts in the joined text, and whether at its printed title.

    Bookmarks start in reading order: each title is looked for after the
    previous start, on its own page. A title not printed there starts where
    its destination points on that page (its top, without a height), never
    on a later page: the next bookmark's page is its own.
    """
    starts: list[tuple[int, bool]] = []
    floor = 0
    for mark in marks:
        budget.check_time()  # each title is searched for on its page
        top = offsets[mark.page]
        bottom = top + len(pages[mark.page])
        found = _locate(mark.title, full, max(top, floor), bottom) if floor <= bottom else -1
        if found >= 0:
            starts.append((found, True))
        else:
            starts.append((max(floor, top + min(mark.offset, len(pages[mark.page]))), False))
        floor = starts[-1][0]
    return starts


def _shared(
    starts: list[tuple[int, bool]], marks: list[_Mark], length: int
) -> list[tuple[int, bool]]:
    """Bookmarks that start at one place: the text there goes to the deepest
    of them that surely holds it, the one every later bookmark of the group
    sits inside ("2" for "2", "2.1", "2.2"; "2.1" for "2", "2.1"). The ones
    after it start where the group's text ends, empty."""
    out = list(starts)
    i = 0
    while i < len(out):
        j = i
        while j + 1 < len(out) and out[j + 1][0] == out[i][0]:
            j += 1
        holder = i
        for k in range(i + 1, j + 1):
            if marks[k].level <= marks[k - 1].level:
                break  # no longer each inside the one before
            if all(marks[m].level > marks[k].level for m in range(k + 1, j + 1)):
                holder = k
        end = out[j + 1][0] if j + 1 < len(out) else length
        for k in range(holder + 1, j + 1):
            out[k] = (end, False)
        i = j + 1
    return out


def _sections(root: Section, pages: list[str], marks: list[_Mark], budget: Budget) -> None:
    """Nest sections by outline level and give each its own stretch of text."""
    # Page texts joined, with each page's offset, so a section can be cut
    # where the next title appears on its page.
    offsets, joined = [], []
    at = 0
    for text in pages:
        offsets.append(at)
        joined.append(text)
        at += len(text) + 2
    full = "\n\n".join(joined)

    def page_of(position: int) -> int:
        return bisect.bisect_right(offsets, position) - 1

    starts = _shared(_starts(marks, pages, offsets, full, budget), marks, len(full))
    before = starts[0][0]
    lead = len(full[:before]) - len(full[:before].lstrip())
    root.text = full[:before].strip()
    root.page_marks = [
        (max(0, offsets[p] - lead), p + 1) for p in range(page_of(max(0, before - 1)) + 1)
    ]
    stack: list[Section] = [root]
    levels: list[int] = [-1]
    for i, mark in enumerate(marks):
        begin, titled = starts[i]
        end = starts[i + 1][0] if i + 1 < len(marks) else len(full)
        end = max(end, begin)
        body = full[begin:end].rstrip()
        last = page_of(begin + len(body) - 1) if body else mark.page
        heading = _heading_at(mark.title, body) if titled else None
        start = begin + (heading.end() if heading else 0)  # the heading is not body text
        text = full[start : begin + len(body)]
        start += len(text) - len(text.lstrip())
        section = Section(mark.title, 0, text.strip(), mark.page + 1, max(mark.page, last) + 1)
        section.page_marks = [
            (max(0, offsets[p] - start), p + 1)
            for p in range(page_of(start), last + 1)
            if p == page_of(start) or offsets[p] > start
        ]
        while len(stack) > 1 and levels[-1] >= mark.level:
            stack.pop()
            levels.pop()
        section.level = len(stack)
        stack[-1].children.append(section)
        stack.append(section)
        levels.append(mark.level)
