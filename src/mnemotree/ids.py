"""Time-sortable unique ids (ULID layout: 48-bit milliseconds + 80 random bits)."""

from __future__ import annotations

import os
import threading
import time

_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford base32
_RANDOM_BITS = 80
_lock = threading.Lock()
_last_ms = -1
_last_rand = 0


# Two characters per lookup: 13 lookups make the 26 characters of an id.
_PAIRS = [a + b for a in _ALPHABET for b in _ALPHABET]


def _encode(value: int) -> str:
    return "".join([_PAIRS[(value >> shift) & 1023] for shift in range(120, -1, -10)])


def new_id() -> str:
    """Return a 26-character id that sorts by creation time."""
    return new_ids(1)[0]


def new_ids(count: int) -> list[str]:
    """Return `count` strictly increasing ids that sort after every earlier one.

    Ids made in the same millisecond stay increasing because the random part
    is incremented instead of redrawn.
    """
    global _last_ms, _last_rand
    with _lock:
        ms = time.time_ns() // 1_000_000
        if ms <= _last_ms:
            ms, first = _last_ms, _last_rand + 1
        else:
            # Half the range leaves room to increment within one millisecond.
            first = int.from_bytes(os.urandom(10), "big") >> 1
        if (first + count) >> _RANDOM_BITS:  # practically never: move to the next ms
            ms, first = ms + 1, int.from_bytes(os.urandom(10), "big") >> 1
        _last_ms, _last_rand = ms, first + count - 1
    base = ms << _RANDOM_BITS
    return [_encode(base | (first + i)) for i in range(count)]
