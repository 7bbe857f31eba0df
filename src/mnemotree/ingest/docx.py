"""DOCX parsing with python-docx: heading styles drive the
section stack (seed 002); tables become `a | b | c` lines in their section."""

from __future__ import annotations

import io
import re
import zipfile
import zlib
from typing import Any

from ..errors import MissingExtra, ParseError
from .formats import stem
from .parsed import ParsedDocument, Section, SectionStack

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


def _level(style: Any) -> int | None:
    """Heading level of a paragraph style, following custom styles to their base."""
    for _ in range(4):
        if style is None:
            return None
        found = _HEADING.match(style.name or "")
        if found:
            return int(found.group(1))
        style = style.base_style
    return None


def parse_docx(data: bytes, name: str) -> ParsedDocument:
    docx = _docx()
    from docx.opc.exceptions import PackageNotFoundError
    from lxml.etree import LxmlError

    if not data:
        raise ParseError(f"{name} is empty: nothing to index", name)
    try:
        document = docx.Document(io.BytesIO(data))
        root = Section(stem(name))
        stack = SectionStack(root)
        title = ""
        for block in document.iter_inner_content():
            if isinstance(block, docx.table.Table):
                rows = [" | ".join(c.text.strip() for c in row.cells) for row in block.rows]
                stack.paragraph("\n".join(r for r in rows if r.strip(" |")))
                continue
            text = block.text
            style = block.style
            if style is not None and (style.name or "").lower() == "title" and not title:
                title = text.strip()
                continue
            level = _level(style)
            if level is not None and text.strip():
                stack.heading(level, text)
            else:
                stack.paragraph(text)
        stack.finish()
        props = document.core_properties
        meta = {k: v for k, v in (("author", props.author), ("subject", props.subject)) if v}
        title = title or (props.title or "").strip()
    # What a damaged zip or XML part raises inside python-docx.
    except (
        PackageNotFoundError, zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError,
        KeyError, ValueError, LxmlError,
    ) as exc:  # fmt: skip
        raise ParseError(f"{name} is not a readable DOCX file ({exc})", name) from None
    if not title:
        first = next((s for s in root.children if s.level == 1), None)
        title = first.title if first else stem(name)
    return ParsedDocument(title, "docx", root, meta)
