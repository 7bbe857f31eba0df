"""Chat text into the sentences a speaker states in their own words.

People paste things into chat: code blocks, tables, logs, stack traces,
quoted messages, forwarded e-mails. What is pasted is not the speaker's
statement (an error log saying "connection refused" is no fact about the
user), so it is set aside before sentences are read. What is left is split
into sentences the way chat is typed: lines are sentences too, lowercase
starts are allowed, and an emoji or a run of dots ends a sentence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_FENCE = re.compile(r"```.*?(?:```|\Z)", re.S)
_INLINE_CODE = re.compile(r"`[^`\n]{1,200}`")
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
_QUOTED_LINE = re.compile(r"^\s*>")
# A line that reads as machine output: a timestamp, a log level, a stack
# frame, a shell prompt, a key=value dump, or mostly non-letters.
_LOG_LINE = re.compile(
    r"^\s*(?:\[?\d{4}-\d\d-\d\d[T ]\d\d:\d\d|\[?\d\d:\d\d:\d\d|"
    r"(?:DEBUG|INFO|WARN|WARNING|ERROR|FATAL|TRACE|CRITICAL)\b|"
    r"at [\w.$<>]+\(|File \"|Traceback|\$ |# |[\w.-]+Exception\b|[\w.-]+Error:)"
)
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
# Ends of a sentence in chat: punctuation, or an emoji, then a space.
_END = re.compile(r"(?<=[.!?…])\s+|(?<=[\U0001F300-\U0001FAFF\u2600-\u27BF])\s+")
_ABBREVIATION = re.compile(
    r"\b(?:e\.g|i\.e|etc|vs|approx|dr|mr|mrs|ms|st|fig|inc|ltd|jr|sr)\.$", re.I
)
_LETTER = re.compile(r"[^\W\d_]")


@dataclass(frozen=True, slots=True)
class Prose:
    """A message's own sentences, and whether it held pasted material."""

    sentences: tuple[str, ...]
    pasted: bool


def prose(text: str) -> Prose:
    """The sentences a message states, pasted material set aside."""
    without_code = _FENCE.sub("\n", text)
    pasted = without_code != text
    kept: list[str] = []
    for line in without_code.split("\n"):
        if _TABLE_ROW.match(line) or _QUOTED_LINE.match(line) or _machine(line):
            pasted = True
            continue
        line = _BULLET.sub("", _INLINE_CODE.sub(_code_word, line)).strip()
        if line:
            kept.extend(_split(line))
    return Prose(tuple(kept), pasted)


def _code_word(found: re.Match[str]) -> str:
    """Inline code stays as a word ("we use `pnpm`" states a choice)."""
    return found.group(0).strip("`")


def _machine(line: str) -> bool:
    stripped = line.strip()
    if not stripped:
        return False
    if _LOG_LINE.match(stripped):
        return True
    letters = len(_LETTER.findall(stripped))
    return len(stripped) >= 12 and letters < 0.5 * len(stripped.replace(" ", ""))


def _split(line: str) -> list[str]:
    """Sentences of one line; an abbreviation's dot ends none."""
    out: list[str] = []
    for piece in _END.split(line):
        piece = piece.strip()
        if not piece:
            continue
        if out and _ABBREVIATION.search(out[-1]):
            out[-1] = f"{out[-1]} {piece}"
        else:
            out.append(piece)
    return out


# Asterisks around words only: "2 * 3" keeps its own, and underscores stay
# ("__init__.py" is a name, not emphasis).
_EMPHASIS = re.compile(
    r"\*\*(?=\S)(.+?)(?<=\S)\*\*|(?<![\w*])\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?![\w*])"
)
_HEADING = re.compile(r"^\s*#{1,6}\s+")
_EMOJI = re.compile(r"[\U0001F300-\U0001FAFF\u2600-\u27BF\uFE0F]\s*")


def plain(sentence: str) -> str:
    """A sentence without its markup: bold and italic marks, a heading's
    hashes, emoji ("**Open-jaw**: fly in..." reads "Open-jaw: fly in...")."""
    unmarked = _EMPHASIS.sub(lambda m: next(g for g in m.groups() if g is not None), sentence)
    return _EMOJI.sub("", _HEADING.sub("", unmarked)).strip()
