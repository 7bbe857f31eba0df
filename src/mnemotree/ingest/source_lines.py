"""Section text made of runs of a source file's lines, with where each run
starts (a class's text skips the lines of its methods)."""

from __future__ import annotations

from collections.abc import Sequence

from .parsed import Section

MAX_TITLE_CHARS = 200  # a signature longer than this is cut in the title (the text has it all)


def file_title(name: str) -> str:
    """A source file's document title: its name without its folders ("search.py")."""
    return name.replace("\\", "/").rsplit("/", 1)[-1]


def cut_title(title: str) -> str:
    """A symbol's title, at most MAX_TITLE_CHARS characters."""
    return title if len(title) <= MAX_TITLE_CHARS else title[: MAX_TITLE_CHARS - 1] + "…"


class SourceLines:
    """Text made of runs of a file's lines, with where each run starts."""

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = lines

    def root_section(self, title: str) -> Section:
        """The module: every line of the file, symbols to come as its children."""
        return Section(title, 0, element_type="module", line_start=1, line_end=len(self.lines))

    def text(
        self, first: int, last: int, skipped: Sequence[tuple[int, int]]
    ) -> tuple[str, list[tuple[int, int]]]:
        """Lines first..last (1-based, inclusive) without the `skipped` spans:
        the text and its (offset, line) marks; runs of blank lines dropped."""
        runs: list[tuple[int, list[str]]] = []
        line = first
        for start, end in sorted(skipped):
            runs.append((line, list(self.lines[line - 1 : start - 1])))
            line = max(line, end + 1)
        runs.append((line, list(self.lines[line - 1 : last])))
        parts: list[str] = []
        marks: list[tuple[int, int]] = []
        offset = 0
        for begin, run in runs:
            while run and not run[-1].strip():
                run.pop()
            lead = 0
            while lead < len(run) and not run[lead].strip():
                lead += 1
            if lead == len(run):
                continue
            block = "\n".join(run[lead:])
            if parts:
                offset += 2  # the blank line between runs
            marks.append((offset, begin + lead))
            parts.append(block)
            offset += len(block)
        return "\n\n".join(parts), marks


MAX_SUMMARY_CHARS = 400


def first_paragraph(doc: str) -> str:
    """A docstring's or doc comment's first paragraph, on one line (cut at
    `MAX_SUMMARY_CHARS`): what the symbol says it does."""
    paragraph = " ".join(doc.strip().split("\n\n", 1)[0].split())
    if len(paragraph) <= MAX_SUMMARY_CHARS:
        return paragraph
    return paragraph[: MAX_SUMMARY_CHARS - 1].rsplit(" ", 1)[0] + "…"
