"""Built-in parsers that need nothing beyond the standard library:
plain text, Markdown (ATX and setext headings, front matter) and HTML."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

from ..errors import ParseError
from .parsed import ParsedDocument, Section, SectionStack


def decode(data: bytes, name: str) -> str:
    """UTF-8 text (a BOM is dropped); binary data is refused naming the file."""
    if not data.strip():
        raise ParseError(f"{name} is empty: nothing to index", name)
    if b"\x00" in data:
        raise ParseError(f"{name} is binary data, not text; check the file's extension", name)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ParseError(
            f"{name} is not UTF-8 text (bad byte at offset {exc.start}); re-save it as UTF-8",
            name,
        ) from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def stem(name: str) -> str:
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    return base.rsplit(".", 1)[0] if "." in base else base


def parse_text(data: bytes, name: str) -> ParsedDocument:
    text = decode(data, name)
    return ParsedDocument(stem(name), "txt", Section(stem(name), text=text.strip()))


# -- Markdown ------------------------------------------------------------------

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def _front_matter(text: str) -> tuple[dict[str, Any], str]:
    """`key: value` front matter between `---` lines (lists as `- item`)."""
    if not text.startswith("---\n"):
        return {}, text
    end = text.find("\n---", 3)
    if end < 0 or text[end + 4 : end + 5] not in ("", "\n"):
        return {}, text
    meta: dict[str, Any] = {}
    key = None
    for line in text[4:end].split("\n"):
        item = re.match(r"^\s*-\s+(.*)$", line)
        if item and key is not None:
            value = meta.get(key)
            meta[key] = (
                [*value, _scalar(item.group(1))]
                if isinstance(value, list)
                else [_scalar(item.group(1))]
            )
            continue
        pair = re.match(r"^([A-Za-z0-9_][\w .-]*?)\s*:\s*(.*)$", line)
        if pair:
            key = pair.group(1)
            meta[key] = _scalar(pair.group(2)) if pair.group(2) else []
    meta = {k: ("" if v == [] else v) for k, v in meta.items()}
    return meta, text[end + 4 :].lstrip("\n")


def _scalar(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def parse_markdown(data: bytes, name: str) -> ParsedDocument:
    meta, text = _front_matter(decode(data, name))
    root = Section(stem(name))
    stack = SectionStack(root)
    lines = text.split("\n")
    paragraph: list[str] = []
    fence: str | None = None
    first_h1: str | None = None

    def flush() -> None:
        stack.paragraph("\n".join(paragraph))
        paragraph.clear()

    for line in lines:
        opened = _FENCE.match(line)
        if fence is not None:  # inside a code block: headings are code
            paragraph.append(line)
            marks = opened.group(1) if opened else ""
            closes = bool(marks) and not line[len(line) - len(line.lstrip()) + len(marks) :].strip()
            if closes and marks[0] == fence[0] and len(marks) >= len(fence):  # no info string
                fence = None
                flush()  # a code block is a paragraph of its own
            continue
        if opened:
            flush()
            fence = opened.group(1)
            paragraph.append(line)
            continue
        atx = _ATX.match(line)
        if atx:
            flush()
            title = (atx.group(2) or "").strip()
            if len(atx.group(1)) == 1 and first_h1 is None:
                first_h1 = title
            stack.heading(len(atx.group(1)), title)
            continue
        setext = _SETEXT.match(line)
        if setext and paragraph:
            title = " ".join(line.strip() for line in paragraph)
            paragraph.clear()
            level = 1 if setext.group(1)[0] == "=" else 2
            if level == 1 and first_h1 is None:
                first_h1 = title
            flush()
            stack.heading(level, title)
            continue
        if not line.strip():
            flush()
        else:
            paragraph.append(line)
    flush()
    stack.finish()
    given = meta.get("title")
    given = ", ".join(map(str, given)) if isinstance(given, list) else given
    title = str(given or first_h1 or stem(name))
    return ParsedDocument(title, "md", root, {"front_matter": meta} if meta else {})


# -- HTML ------------------------------------------------------------------------

_BLOCKS = frozenset(
    "p div li ul ol table tr pre blockquote section article header footer br dd dt "
    "figure figcaption main aside".split()
)
# Not "head": browsers close it at <body> even without </head>, and what it
# holds besides <title> is either skipped here or has no text.
_SKIP = frozenset({"script", "style", "noscript", "template", "svg"})


class _HTMLSections(HTMLParser):
    def __init__(self, stack: SectionStack) -> None:
        super().__init__(convert_charrefs=True)
        self.stack = stack
        self.title = ""
        self._skip = 0
        self._in_title = False
        self._heading: int | None = None
        self._buffer: list[str] = []

    def _flush(self) -> None:
        text = re.sub(r"[ \t\f\v]+", " ", "".join(self._buffer))
        lines = (line.strip().removeprefix("| ") for line in text.split("\n"))
        text = "\n".join(line for line in lines if line)
        self._buffer.clear()
        if self._heading is not None:
            if text.strip():  # an empty heading opens nothing
                self.stack.heading(self._heading, text.replace("\n", " "))
        else:
            self.stack.paragraph(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIP:
            self._skip += 1
        elif self._skip:  # inside skipped content, headings are not headings
            return
        elif tag == "title":
            self._in_title = True
        elif len(tag) == 2 and tag[0] == "h" and tag[1] in "123456":
            self._flush()
            self._heading = int(tag[1])
        elif self._heading is not None and (tag in _BLOCKS or tag in ("td", "th")):
            self._buffer.append(" ")  # inside a heading, blocks are only spacing
        elif tag in _BLOCKS:
            if tag == "br":
                self._buffer.append("\n")
            else:
                self._flush()
        elif tag in ("td", "th"):
            self._buffer.append(" | ")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP:
            self._skip = max(0, self._skip - 1)
        elif self._skip:
            return
        elif tag == "title":
            self._in_title = False
        elif len(tag) == 2 and tag[0] == "h" and tag[1] in "123456" and self._heading:
            self._flush()
            self._heading = None
        elif tag in _BLOCKS and self._heading is None:
            self._flush()

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        elif not self._skip:
            self._buffer.append(data)


def parse_html(data: bytes, name: str) -> ParsedDocument:
    root = Section(stem(name))
    stack = SectionStack(root)
    parser = _HTMLSections(stack)
    parser.feed(decode(data, name))
    parser.close()
    parser._flush()
    stack.finish()
    title = " ".join(parser.title.split())
    if not title:
        first = next((s for s in root.children if s.level == 1), None)
        title = first.title if first else stem(name)
    return ParsedDocument(title, "html", root)
