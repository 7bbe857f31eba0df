"""Parsers by file extension, behind one registry (add your own with
`register_parser`). A parser turns bytes and a file name into a ParsedDocument."""

from __future__ import annotations

from collections.abc import Callable

from ..errors import InvalidInput
from ..registry import Registry
from .docx import parse_docx
from .formats import parse_html, parse_markdown, parse_text
from .parsed import ParsedDocument
from .pdf import parse_pdf

Parser = Callable[[bytes, str], ParsedDocument]

_PARSERS: Registry[Parser] = Registry(
    "parser",
    {
        "pdf": lambda: parse_pdf,
        "docx": lambda: parse_docx,
        "md": lambda: parse_markdown,
        "html": lambda: parse_html,
        "txt": lambda: parse_text,
    },
)
_EXTENSIONS = {
    ".pdf": "pdf",
    ".docx": "docx",
    ".md": "md",
    ".markdown": "md",
    ".html": "html",
    ".htm": "html",
    ".txt": "txt",
    ".text": "txt",
}


def register_parser(name: str, parser: Parser, extensions: tuple[str, ...]) -> None:
    """Use `parser` for files ending in `extensions` (such as `(".rst",)`)."""
    _PARSERS.register(name, lambda: parser)
    for ext in extensions:
        _EXTENSIONS[ext.lower() if ext.startswith(".") else "." + ext.lower()] = name


def extensions() -> list[str]:
    return sorted(_EXTENSIONS)


def parser_name(filename: str) -> str | None:
    """The parser for a file name, by extension (None when unknown)."""
    base = filename.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return _EXTENSIONS.get("." + base.rsplit(".", 1)[-1]) if "." in base else None


def parse(data: bytes, filename: str) -> ParsedDocument:
    """Parse a file's bytes with the parser its extension names."""
    name = parser_name(filename)
    if name is None:
        raise InvalidInput(
            f"{filename}: unknown file type; known extensions are {', '.join(extensions())}",
            filename,
        )
    return _PARSERS.get(name)(data, filename)
