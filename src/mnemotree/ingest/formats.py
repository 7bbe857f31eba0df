"""Built-in parsers that need nothing beyond the standard library:
plain text, Markdown (ATX and setext headings, front matter) and HTML."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

from ..errors import ParseError
from .limits import DEFAULT_LIMITS, Budget, IngestLimits
from .parsed import ParsedDocument, Section, SectionStack


def decode(data: bytes, name: str, budget: Budget | None = None) -> str:
    """UTF-8 text (a BOM is dropped); binary data is refused naming the file,
    and so is text over max_text_chars."""
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
    (budget or Budget(name)).text(len(text))
    return text.replace("\r\n", "\n").replace("\r", "\n")


def stem(name: str) -> str:
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    return base.rsplit(".", 1)[0] if "." in base else base


def parse_text(data: bytes, name: str, limits: IngestLimits = DEFAULT_LIMITS) -> ParsedDocument:
    text = decode(data, name, Budget(name, limits))
    return ParsedDocument(stem(name), "txt", Section(stem(name), text=text.strip()))


# -- Markdown ------------------------------------------------------------------

_ATX = re.compile(r" {0,3}(#{1,6})(?=[ \t]|$)")
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
        pair = _pair(line)
        if pair:
            key, value = pair
            meta[key] = _scalar(value) if value else []
    meta = {k: ("" if v == [] else v) for k, v in meta.items()}
    return meta, text[end + 4 :].lstrip("\n")


_KEY = re.compile(r"[A-Za-z0-9_][\w .-]*")


def _pair(line: str) -> tuple[str, str] | None:
    """`key: value` split at the first colon (a regex with a lazy key and
    `\\s*:` took time quadratic in a long line of spaces)."""
    before, colon, after = line.partition(":")
    key = before.rstrip()
    if not colon or not _KEY.fullmatch(key):
        return None
    return key, after.lstrip()


def _heading(line: str) -> tuple[int, str] | None:
    """An ATX heading's level and title: `## Title ##` -> (2, "Title"). Done
    by hand: a regex with a lazy title and an optional closing run took time
    quadratic in a line of spaces."""
    opened = _ATX.match(line)
    if opened is None:
        return None
    rest = line[opened.end() :].strip(" \t")
    body = rest.rstrip("#")
    # A closing run of #s counts only after a space; a title of only #s stays.
    title = body.rstrip(" \t") if body != rest and body[-1:] in (" ", "\t") else rest
    return len(opened.group(1)), title.strip()


# A quote or list marker opening a container at the start of a line.
_CONTAINER = re.compile(r"[ \t]*(?:>|(?:[-*+]|\d{1,9}[.)])(?=[ \t]))")


def _nesting(line: str, budget: Budget) -> None:
    """Refuse a line nested deeper than max_depth: its quote and list markers,
    plus its indentation in steps of two columns (a nested list's item)."""
    depth, at = 0, 0
    most = budget.limits.max_depth
    while depth <= most and (marker := _CONTAINER.match(line, at)) is not None:
        depth, at = depth + 1, marker.end()
    if depth:
        indent = len(line) - len(line.lstrip(" \t"))
        depth += len(line[:indent].expandtabs(4)) // 2
        budget.at_most("max_depth", depth, "levels of nesting (quotes and lists)")


def _scalar(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def parse_markdown(data: bytes, name: str, limits: IngestLimits = DEFAULT_LIMITS) -> ParsedDocument:
    budget = Budget(name, limits)
    meta, text = _front_matter(decode(data, name, budget))
    root = Section(stem(name))
    stack = SectionStack(root)
    lines = text.split("\n")
    paragraph: list[str] = []
    fence: str | None = None
    first_h1: str | None = None

    def flush() -> None:
        stack.paragraph("\n".join(paragraph))
        paragraph.clear()

    for number, line in enumerate(lines):
        if number % 1024 == 0:
            budget.check_time()
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
        _nesting(line, budget)
        atx = _heading(line)
        if atx:
            flush()
            level, title = atx
            if level == 1 and first_h1 is None:
                first_h1 = title
            stack.heading(level, title)
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
    title = _md_title(meta, first_h1, name)
    return ParsedDocument(title, "md", root, {"front_matter": meta} if meta else {})


def _md_title(meta: dict[str, Any], first_h1: str | None, name: str) -> str:
    """The front matter's title, else the first level-1 heading, else the file name."""
    given = meta.get("title")
    given = ", ".join(map(str, given)) if isinstance(given, list) else given
    return str(given or first_h1 or stem(name))


# -- HTML ------------------------------------------------------------------------

_BLOCKS = frozenset(
    "p div li ul ol table tr pre blockquote section article header footer br dd dt "
    "figure figcaption main aside".split()
)
# Not "head": browsers close it at <body> even without </head>, and what it
# holds besides <title> is either skipped here or has no text.
_SKIP = frozenset({"script", "style", "noscript", "template", "svg"})


# Elements that never hold others, and ones whose end tag may be left out
# (HTML closes them implicitly): neither counts towards the nesting depth.
_VOID = frozenset("area base br col embed hr img input link meta param source track wbr".split())
_IMPLIED_END = frozenset(
    "p li dt dd tr td th thead tbody tfoot colgroup caption option optgroup rb rt rp "
    "html head body".split()
)


class _HTMLSections(HTMLParser):
    def __init__(self, stack: SectionStack, budget: Budget) -> None:
        super().__init__(convert_charrefs=True)
        self.stack = stack
        self.budget = budget
        self.titles: list[str] = []
        self._open: list[str] = []  # elements open now, for the nesting depth
        self._skip = 0
        self._in_title = False
        self._heading: int | None = None
        self._buffer: list[str] = []

    def _flush(self) -> None:
        self.budget.check_time()
        text = re.sub(r"[ \t\f\v]+", " ", "".join(self._buffer))
        lines = (line.strip().removeprefix("| ") for line in text.split("\n"))
        text = "\n".join(line for line in lines if line)
        self._buffer.clear()
        if self._heading is not None:
            if text.strip():  # an empty heading opens nothing
                self.stack.heading(self._heading, text.replace("\n", " "))
        else:
            self.stack.paragraph(text)

    def _nest(self, tag: str) -> None:
        if tag not in _VOID and tag not in _IMPLIED_END:
            self._open.append(tag)
            self.budget.at_most("max_depth", len(self._open), "levels of nested elements")

    def _unnest(self, tag: str) -> None:
        """Close `tag` and whatever is still open inside it (as browsers do);
        an end tag with no open element is ignored."""
        if tag in self._open:
            del self._open[len(self._open) - 1 - self._open[::-1].index(tag) :]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._nest(tag)
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
        self._unnest(tag)
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
            self.titles.append(data)
        elif not self._skip:
            self._buffer.append(data)


def _defused(html: str) -> str:
    """`html` with the constructs that make html.parser quadratic turned into
    what it would make of them anyway. It rescans from every `<` that opens
    something never closed: a `<` after the last `>`, a comment after the last
    comment end. Those are text, so they are escaped. `<![` sections (CDATA,
    which HTML does not have) become bogus comments, as browsers read them;
    html.parser would rescan them too, or fail on an unknown keyword."""
    html = html.replace("<![", "<!x[")
    ends = [m.start() for m in _COMMENT_END.finditer(html)]
    # A comment opened at `at` is closed only by an end starting at at + 4 or later.
    unclosed = html.find("<!--", max(0, ends[-1] - 3) if ends else 0)
    tail = html.rfind(">") + 1
    if unclosed < 0 or unclosed >= tail:
        return html[:tail] + html[tail:].replace("<", "&lt;")
    middle = html[unclosed:tail].replace("<!--", "&lt;!--")
    return html[:unclosed] + middle + html[tail:].replace("<", "&lt;")


_COMMENT_END = re.compile(r"--\s*>")  # html.parser's end of a comment


def parse_html(data: bytes, name: str, limits: IngestLimits = DEFAULT_LIMITS) -> ParsedDocument:
    root = Section(stem(name))
    stack = SectionStack(root)
    budget = Budget(name, limits)
    parser = _HTMLSections(stack, budget)
    try:
        parser.feed(_defused(decode(data, name, budget)))
        parser.close()
    except AssertionError as exc:  # what html.parser raises on markup it cannot read
        raise ParseError(f"{name} is not readable HTML ({exc})", name) from None
    parser._flush()
    stack.finish()
    title = " ".join("".join(parser.titles).split())
    if not title:
        first = next((s for s in root.children if s.level == 1), None)
        title = first.title if first else stem(name)
    return ParsedDocument(title, "html", root)
