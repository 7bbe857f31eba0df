"""DOCX parsing with python-docx: heading styles drive the
section stack (the documents-and-chat design); tables become `a | b | c` lines in their section.

The archive is checked before python-docx opens it (see zipcheck), and
styles and tables are read without python-docx's per-paragraph searches.
"""

from __future__ import annotations

import io
import re
import zipfile
import zlib
from typing import Any

from ..errors import MissingExtra, ParseError
from .formats import stem
from .limits import DEFAULT_LIMITS, Budget, IngestLimits
from .parsed import ParsedDocument, Section, SectionStack
from .zipcheck import check_zip

_HEADING = re.compile(r"^heading\s*([1-9])$", re.IGNORECASE)


def _docx() -> Any:
    try:
        import docx
    except ImportError:
        raise MissingExtra(
            "reading DOCX files needs python-docx, a mnemotree dependency: pip install python-docx",
            "python-docx",
        ) from None
    return docx


class _Styles:
    """Heading levels and title-ness of paragraph styles, looked up in a dict
    built once: python-docx searches the styles part on every paragraph, which
    makes a file with many styles and paragraphs quadratic."""

    def __init__(self, document: Any) -> None:
        from docx.enum.style import WD_STYLE_TYPE

        self._paragraph = WD_STYLE_TYPE.PARAGRAPH
        element = document.styles.element
        self._by_id: dict[str, Any] = {}
        for style in element.style_lst:
            self._by_id.setdefault(style.styleId, style)  # the first wins, as in python-docx
        self._default = element.default_for(self._paragraph)
        self._levels: dict[int, int | None] = {}

    def of(self, paragraph: Any) -> Any:
        """The paragraph's style element (the default one if its id is unknown)."""
        style_id = paragraph._p.style
        style = self._by_id.get(style_id) if style_id else None
        return style if style is not None and style.type == self._paragraph else self._default

    def level(self, style: Any) -> int | None:
        """Heading level of a style, following custom styles to their base."""
        if style is None:
            return None
        if id(style) not in self._levels:
            self._levels[id(style)] = self._find_level(style)
        return self._levels[id(style)]

    def _find_level(self, style: Any) -> int | None:
        for _ in range(4):
            if style is None:
                return None
            found = _HEADING.match(style.name_val or "")
            if found:
                return int(found.group(1))
            style = self._by_id.get(style.basedOn_val) if style.basedOn_val else None
        return None


def _table_text(table: Any) -> str:
    """A table as `a | b | c` lines. A merged cell repeats its text in every
    grid column it covers (as python-docx's row.cells does), with spans cut at
    the table's width and vertical merges taken from the row above: a cell
    claiming a billion columns, or merged down thousands of rows, costs no
    more than its own text."""
    from docx.text.paragraph import Paragraph

    width = len(table.columns)
    above: dict[int, str] = {}  # grid column -> text there in the previous row
    lines = []
    for tr in table._tbl.tr_lst:
        column, here, cells = tr.grid_before, {}, []
        for tc in tr.tc_lst:
            span = max(1, min(tc.grid_span, width - column))
            if tc.vMerge == "continue":
                text = above.get(column, "")
            else:
                text = "\n".join(Paragraph(p, table).text for p in tc.p_lst).strip()
            here.update(dict.fromkeys(range(column, column + span), text))
            cells.extend([text] * span)
            column += span
        above = here
        line = " | ".join(cells)
        if line.strip(" |"):
            lines.append(line)
    return "\n".join(lines)


def parse_docx(data: bytes, name: str, limits: IngestLimits = DEFAULT_LIMITS) -> ParsedDocument:
    docx = _docx()
    from docx.opc.exceptions import PackageNotFoundError
    from lxml.etree import LxmlError

    if not data:
        raise ParseError(f"{name} is empty: nothing to index", name)
    budget = Budget(name, limits)
    check_zip(data, budget)  # before python-docx inflates every part into memory
    try:
        document = docx.Document(io.BytesIO(data))
        root, meta, title = _read(docx, document, name, budget)
    # What a damaged zip or XML part raises inside python-docx.
    except (
        PackageNotFoundError,
        zipfile.BadZipFile,
        zlib.error,
        EOFError,
        NotImplementedError,
        KeyError,
        ValueError,
        LxmlError,
    ) as exc:
        raise ParseError(f"{name} is not a readable DOCX file ({exc})", name) from None
    if not title:
        first = next((s for s in root.children if s.level == 1), None)
        title = first.title if first else stem(name)
    return ParsedDocument(title, "docx", root, meta)


def _read(
    docx: Any, document: Any, name: str, budget: Budget
) -> tuple[Section, dict[str, Any], str]:
    """The document's sections, properties and its Title-styled paragraph."""
    root = Section(stem(name))
    stack = SectionStack(root)
    styles = _Styles(document)
    title = ""
    chars = 0
    for block in document.iter_inner_content():
        budget.check_time()
        if isinstance(block, docx.table.Table):
            text = _table_text(block)
            chars += len(text)
            budget.text(chars)
            stack.paragraph(text)
            continue
        text = block.text
        chars += len(text)
        budget.text(chars)
        style = styles.of(block)
        if style is not None and (style.name_val or "").lower() == "title" and not title:
            title = text.strip()
            continue
        level = styles.level(style)
        if level is not None and text.strip():
            stack.heading(level, text)
        else:
            stack.paragraph(text)
    stack.finish()
    props = document.core_properties
    meta = {k: v for k, v in (("author", props.author), ("subject", props.subject)) if v}
    return root, meta, title or (props.title or "").strip()
