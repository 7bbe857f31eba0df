"""Order keys: decimal positions among siblings (the tree design).

A new node between siblings a and b gets the tree design's 20% interpolation
`(4a + b) / 5`. Floats run out of room after a few dozen inserts at one
spot, so when the gap is too small the caller respreads a window of
neighbouring siblings (growing it until the spread leaves real room); that
keeps 10,000 inserts at one spot strictly ordered at a small amortised cost.
"""

from __future__ import annotations

from collections.abc import Sequence

APPEND_STEP = 1.0
# Below this gap (relative to the keys' magnitude) interpolation may collide.
_MIN_REL_GAP = 2.0**-40
# A respread window must leave at least this relative gap between keys.
_TARGET_REL_GAP = 2.0**-20


def _scale(*keys: float) -> float:
    return max([1.0, *(abs(k) for k in keys)])


def after_last(last: float | None) -> float:
    """Key for a node appended after the last sibling (max + 1.0)."""
    return APPEND_STEP if last is None else last + APPEND_STEP


def between(a: float, b: float) -> float | None:
    """Key strictly between a < b by 20% interpolation, or None if too tight."""
    if b - a <= _scale(a, b) * _MIN_REL_GAP:
        return None
    key = (4.0 * a + b) / 5.0
    if not a < key < b:
        return None
    return key


def spread(lo: float, hi: float, count: int) -> list[float] | None:
    """`count` evenly spaced keys strictly inside (lo, hi), or None if too tight."""
    gap = (hi - lo) / (count + 1)
    if gap <= _scale(lo, hi) * _TARGET_REL_GAP:
        return None
    keys = [lo + gap * (i + 1) for i in range(count)]
    if not all(x < y for x, y in zip([lo, *keys], [*keys, hi], strict=True)):
        return None
    return keys


def renumber(count: int) -> list[float]:
    """Fresh keys 1.0, 2.0, ... for a whole sibling list."""
    return [APPEND_STEP * (i + 1) for i in range(count)]


def respread_window(
    below: Sequence[float],
    above: Sequence[float],
    outer_lo: float | None,
    outer_hi: float | None,
) -> tuple[list[float], float, list[float]] | None:
    """New keys for a window around an insertion point.

    `below` are the window's keys before the new node (ascending), `above`
    after it; `outer_lo`/`outer_hi` bound the window (None at either end of
    the sibling list). Returns (new keys for below, key for the new node, new
    keys for above), or None when the window needs to grow.
    """
    window = [*below, *above]
    lo = outer_lo if outer_lo is not None else (window[0] if window else 0.0) - APPEND_STEP
    hi = outer_hi if outer_hi is not None else (window[-1] if window else 0.0) + APPEND_STEP
    keys = spread(lo, hi, len(window) + 1)
    if keys is None:
        return None
    n = len(below)
    return keys[:n], keys[n], keys[n + 1 :]
