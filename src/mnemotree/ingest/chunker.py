"""Splitting long section text into overlapping chunks (the documents-and-chat design's chunker)."""

from __future__ import annotations

from ..errors import InvalidInput

MAX_CHARS = 2000
OVERLAP = 200
# Preferred places to end a chunk, best first: a sentence end, then a blank
# line, then a line end. A break is taken only in the back half of a window,
# so chunks never get tiny.
_BREAKS = (". ", "! ", "? ", "\n\n", "\n")


def split(text: str, max_chars: int = MAX_CHARS, overlap: int = OVERLAP) -> list[str]:
    """`text` in pieces of at most `max_chars`, each starting `overlap`
    characters before the previous one ended (at a word start when possible)."""
    return [text[a:b] for a, b in spans(text, max_chars, overlap)]


def spans(text: str, max_chars: int = MAX_CHARS, overlap: int = OVERLAP) -> list[tuple[int, int]]:
    """(start, end) of each piece `split` returns, as offsets into `text`
    (pieces carry no leading or trailing whitespace)."""
    if max_chars < 2 or not 0 <= overlap < max_chars // 2:
        raise InvalidInput(
            f"chunking needs max_chars >= 2 and 0 <= overlap < max_chars / 2, "
            f"got max_chars={max_chars}, overlap={overlap}",
            (max_chars, overlap),
        )
    pieces: list[tuple[int, int]] = []
    start = len(text) - len(text.lstrip())
    stop = len(text.rstrip())
    while start < stop:
        limit = start + max_chars
        end = stop if limit >= stop else _break_before(text, start + max_chars // 2, limit)
        piece = _trimmed(text, start, end)
        # Around long whitespace a piece may add nothing to the last one (same
        # end) or contain it (same start): keep only the larger.
        if piece is not None and (not pieces or piece[1] > pieces[-1][1]):
            while pieces and piece[0] <= pieces[-1][0]:
                pieces.pop()
            pieces.append(piece)
        if end >= stop:
            break
        start = _word_start(text, end - overlap, end)
    return pieces


def _trimmed(text: str, start: int, end: int) -> tuple[int, int] | None:
    chunk = text[start:end]
    if not chunk.strip():
        return None
    return start + len(chunk) - len(chunk.lstrip()), start + len(chunk.rstrip())


def _break_before(text: str, low: int, limit: int) -> int:
    """Where to end a chunk inside text[low:limit]: just after the best break."""
    for mark in _BREAKS:
        at = text.rfind(mark, low, limit - len(mark) + 1)
        if at >= 0:
            return at + len(mark.rstrip()) if mark.strip() else at + len(mark)
    at = text.rfind(" ", low, limit)  # no break: at least do not cut a word
    return at if at > 0 else limit


def _word_start(text: str, at: int, end: int) -> int:
    """The first word start at or after `at` (before `end`), for the overlap."""
    if at <= 0:
        return 0
    if text[at - 1].isspace():
        return at
    space = text.find(" ", at, end)
    return space + 1 if space >= 0 else at
