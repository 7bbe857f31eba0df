"""Limits on JSON that callers hand us: metadata, path content, imported
records, tool arguments.

Python's json module recurses, so about 1,000 levels of nesting raise
RecursionError, and integers of more than 4,300 digits raise ValueError, from
`json.loads` and `json.dumps` alike: both used to escape as tracebacks. Values
are checked here first, by a walk that keeps its own stack (it cannot run out
of Python's), against limits far inside those; text is parsed with both
errors turned into InvalidInput.
"""

from __future__ import annotations

import json
import math
from typing import Any

from .errors import InvalidInput

MAX_DEPTH = 64  # nested objects and lists; real metadata is a few levels deep
MAX_INT_DIGITS = 1000  # well inside Python's 4,300, so no conversion can raise
MAX_JSON_CHARS = 10_000_000  # about the length of the JSON text, like a node's text

_INT_BOUND = 10**MAX_INT_DIGITS
_DIGITS_PER_BIT = math.log10(2)
_KINDS = "strings, finite numbers, true/false, null, lists and objects with string keys"

# A place in the value for messages: (parent place, key or index), None at the top.
_Place = tuple[Any, str | int] | None


def check_json(
    value: object,
    what: str,
    *,
    max_depth: int = MAX_DEPTH,
    max_chars: int | None = MAX_JSON_CHARS,
) -> None:
    """Raise InvalidInput unless `value` is plain JSON within the limits.

    Tuples count as lists (they serialise as such). A value that contains
    itself is refused as too deep rather than walked forever.
    """
    size = 0
    stack: list[tuple[object, int, _Place]] = [(value, 0, None)]
    while stack:
        item, depth, place = stack.pop()
        if isinstance(item, str):
            size += _str_size(item, what, place)
        elif item is None or isinstance(item, bool):
            size += 5
        elif isinstance(item, int):
            size += _int_size(item, what, place)
        elif isinstance(item, float):
            size += _float_size(item, what, place)
        elif isinstance(item, (dict, list, tuple)):
            if depth >= max_depth:
                raise InvalidInput(
                    f"{what} is nested more than {max_depth} levels deep (at "
                    f"{_where(what, place)}); the limit is {max_depth}: flatten it, "
                    "or keep the deep part as a JSON string",
                    depth + 1,
                )
            size += 2 + _push_children(item, depth + 1, place, stack, what)
        else:
            raise InvalidInput(
                f"{what} is not plain JSON: {_where(what, place)} is of type "
                f"{type(item).__name__}; use {_KINDS}",
                type(item).__name__,
            )
        if max_chars is not None and size > max_chars:
            raise InvalidInput(
                f"{what} is more than {max_chars:,} characters as JSON; the limit is "
                f"{max_chars:,}: keep large data in a document or a file instead",
                size,
            )


def plain_json(value: object, what: str, **limits: Any) -> Any:
    """A copy of `value` as JSON gives it back (tuples become lists), once
    `check_json` passed; `limits` are check_json's."""
    check_json(value, what, **limits)
    # Safe now: the depth and the integers are far inside json's own limits.
    return json.loads(json.dumps(value, allow_nan=False, ensure_ascii=False))


def parse_json(
    text: str,
    what: str,
    *,
    hint: str = "",
    max_depth: int = MAX_DEPTH,
    max_chars: int | None = MAX_JSON_CHARS,
) -> Any:
    """Parse JSON text into a value within the limits, or raise InvalidInput.

    `hint` ends the message for text that is not JSON at all (how to write it).
    """
    if max_chars is not None and len(text) > max_chars:
        raise InvalidInput(
            f"{what} is {len(text):,} characters of JSON; the limit is {max_chars:,}",
            len(text),
        )
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInput(
            f"{what} is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})"
            + (f"; {hint}" if hint else ""),
            text[:80],
        ) from None
    except RecursionError:
        raise InvalidInput(
            f"{what} is nested too deeply to read; the limit is {max_depth} levels: "
            "flatten it, or keep the deep part as a JSON string",
            text[:80],
        ) from None
    except ValueError as exc:  # an integer longer than Python converts (4,300 digits)
        raise InvalidInput(
            f"{what} holds an integer too long to read ({exc}); the limit is "
            f"{MAX_INT_DIGITS:,} digits: write it as a string",
            text[:80],
        ) from None
    check_json(value, what, max_depth=max_depth, max_chars=max_chars)
    return value


def _push_children(
    item: dict[Any, Any] | list[Any] | tuple[Any, ...],
    depth: int,
    place: _Place,
    stack: list[tuple[object, int, _Place]],
    what: str,
) -> int:
    """Put a container's members on the stack; returns the size of its keys
    and separators."""
    if not isinstance(item, dict):
        stack.extend((child, depth, (place, index)) for index, child in enumerate(item))
        return len(item)
    size = 0
    for key, child in item.items():
        if not isinstance(key, str):
            raise InvalidInput(
                f"{what} keys must be strings: {_where(what, place)} has the "
                f"{type(key).__name__} key {_short(key)}; write it as a string",
                _short(key),
            )
        size += _str_size(key, what, place) + 2
        stack.append((child, depth, (place, key)))
    return size


def _str_size(value: str, what: str, place: _Place) -> int:
    # Undecodable bytes arrive as lone surrogates (surrogateescape); SQLite cannot store them.
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise InvalidInput(
                f"{what} holds text that is not valid UTF-8 at {_where(what, place)} "
                f"(a lone surrogate at offset {exc.start}); re-encode it as UTF-8",
                # Shown escaped: the surrogate itself cannot be sent back as JSON.
                value[max(0, exc.start - 10) : exc.start + 10]
                .encode("utf-8", "backslashreplace")
                .decode("utf-8"),
            ) from None
    return len(value) + 2


def _int_size(value: int, what: str, place: _Place) -> int:
    if -_INT_BOUND < value < _INT_BOUND:
        return value.bit_length() // 3 + 2  # a little over its digits; cheap
    digits = int(abs(value).bit_length() * _DIGITS_PER_BIT) + 1
    raise InvalidInput(
        f"{what} holds an integer of about {digits:,} digits at {_where(what, place)}; "
        f"the limit is {MAX_INT_DIGITS:,} digits: write it as a string",
        digits,
    )


def _float_size(value: float, what: str, place: _Place) -> int:
    if math.isfinite(value):
        return 24
    raise InvalidInput(
        f"{what} is not plain JSON: {value} at {_where(what, place)} is not a finite "
        "number; use null or a string",
        str(value),
    )


def _where(what: str, place: _Place) -> str:
    """`metadata["a"][0]`, cut short when deep (for messages)."""
    steps: list[str] = []
    while place is not None:
        place, key = place
        steps.append(f"[{key}]" if isinstance(key, int) else f"[{json.dumps(key[:40])}]")
    text = what + "".join(reversed(steps))
    return text if len(text) <= 120 else text[:117] + "..."


def _short(value: object) -> str:
    """A short repr that cannot raise (a huge int's repr does) or recurse."""
    if isinstance(value, (str, bool, float)) or value is None:
        return repr(value)[:40]
    if isinstance(value, int):
        return repr(value)[:40] if -_INT_BOUND < value < _INT_BOUND else "<a huge integer>"
    return f"<{type(value).__name__}>"
