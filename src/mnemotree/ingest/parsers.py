"""Parsers by file extension, behind one registry (add your own with
`register_parser`). A parser turns bytes and a file name into a ParsedDocument."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from ..errors import InvalidInput
from ..registry import Registry
from .docx import parse_docx
from .formats import parse_html, parse_markdown, parse_text
from .limits import DEFAULT_LIMITS, IngestLimits
from .parsed import ParsedDocument
from .pdf import parse_pdf
from .python_source import parse_python
from .tree_source import GRAMMARS, parser_for

Parser = Callable[[bytes, str], ParsedDocument]
LimitedParser = Callable[[bytes, str, IngestLimits], ParsedDocument]

# The built-in parsers take the limits; a registered one has the plain
# (bytes, name) signature, and the pipeline's own bounds (file size, nodes,
# time to plan) still apply to it.
_LIMITED: dict[str, LimitedParser] = {
    "pdf": parse_pdf,
    "docx": parse_docx,
    "md": parse_markdown,
    "html": parse_html,
    "txt": parse_text,
    "python": parse_python,
}
_PARSERS: Registry[Parser] = Registry(
    "parser",
    {
        "pdf": lambda: parse_pdf,
        "docx": lambda: parse_docx,
        "md": lambda: parse_markdown,
        "html": lambda: parse_html,
        "txt": lambda: parse_text,
        "python": lambda: parse_python,
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
    ".py": "python",
    ".pyi": "python",
}


# Other languages through tree-sitter (the `code` extra; a file of one fails
# naming the extra when it is missing).
def _plain(language: str) -> Parser:
    limited = parser_for(language)
    return lambda data, name: limited(data, name, DEFAULT_LIMITS)


for _language, _grammar in GRAMMARS.items():
    _LIMITED[_language] = parser_for(_language)
    _PARSERS.register(_language, partial(_plain, _language))
    _EXTENSIONS.update(dict.fromkeys(_grammar.extensions, _language))


def register_parser(name: str, parser: Parser, extensions: tuple[str, ...]) -> None:
    """Use `parser` for files ending in `extensions` (such as `(".rst",)`)."""
    _PARSERS.register(name, lambda: parser)
    _LIMITED.pop(name, None)
    for ext in extensions:
        _EXTENSIONS[ext.lower() if ext.startswith(".") else "." + ext.lower()] = name


def extensions() -> list[str]:
    return sorted(_EXTENSIONS)


def parser_name(filename: str) -> str | None:
    """The parser for a file name, by extension (None when unknown)."""
    base = filename.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return _EXTENSIONS.get("." + base.rsplit(".", 1)[-1]) if "." in base else None


def parse(data: bytes, filename: str, limits: IngestLimits = DEFAULT_LIMITS) -> ParsedDocument:
    """Parse a file's bytes with the parser its extension names."""
    name = parser_name(filename)
    if name is None:
        raise InvalidInput(
            f"{filename}: unknown file type; known extensions are {', '.join(extensions())}",
            filename,
        )
    limited = _LIMITED.get(name)
    if limited is not None:
        return limited(data, filename, limits)
    return _PARSERS.get(name)(data, filename)
