"""Resource bounds for ingesting one file, in one place.

An upload is untrusted input: a 1.5 MB DOCX can inflate to gigabytes, a PDF
can claim a million pages, a text of one repeated line can become a million
nodes. Every parser and the planner check these bounds as they go and stop
with a ParseError naming the bound, the value seen and how to raise it.

Override them per call (`Memory.ingest(..., limits=IngestLimits(...))`) or
on the command line (`mnemotree ingest --limit max_pdf_pages=20000`).
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidInput, ParseError

MIB = 1024 * 1024


@dataclass(frozen=True)
class IngestLimits:
    """Bounds on what one file may cost; see the field comments for what each bounds."""

    max_file_bytes: int = 256 * MIB  # bytes read (or uploaded) per file
    max_text_chars: int = 64 * MIB  # characters of text extracted from one file
    max_nodes: int = 200_000  # sections and chunks one file becomes (PDF bookmarks too)
    max_unzipped_bytes: int = 128 * MIB  # DOCX: all parts together, inflated
    max_zip_parts: int = 10_000  # DOCX: entries in the zip archive
    max_pdf_pages: int = 10_000
    max_depth: int = 256  # HTML element nesting; Markdown quote/list nesting
    max_seconds: float = 300.0  # wall clock to parse and plan one file
    # Not a bound on the file but on the writer: each write transaction holds
    # at most this many nodes, so other writes wait for one batch, not a file.
    batch_nodes: int = 500

    def __post_init__(self) -> None:
        for spec in dataclasses.fields(self):
            value = getattr(self, spec.name)
            kinds = (int,) if spec.type == "int" else (int, float)
            if isinstance(value, bool) or not isinstance(value, kinds) or value <= 0:
                kind = "whole number" if spec.type == "int" else "number"
                raise InvalidInput(
                    f"ingest limit {spec.name} must be a positive {kind}, got {value!r}", value
                )

    @classmethod
    def parse(
        cls, pairs: list[str] | tuple[str, ...], base: IngestLimits | None = None
    ) -> IngestLimits:
        """Limits from `name=value` strings (the CLI's `--limit`), over `base`."""
        known = {f.name: f for f in dataclasses.fields(cls)}
        changes: dict[str, Any] = {}
        for pair in pairs:
            name, sep, raw = pair.partition("=")
            name = name.strip().replace("-", "_")
            if not sep or name not in known:
                raise InvalidInput(
                    f"--limit wants NAME=VALUE with NAME one of {', '.join(known)}; got {pair!r}",
                    pair,
                )
            changes[name] = _number(name, raw.strip(), known[name].type == "float")
        return dataclasses.replace(base or DEFAULT_LIMITS, **changes)


def _number(name: str, raw: str, real: bool) -> int | float:
    try:
        return float(raw) if real else int(raw.replace("_", ""))
    except ValueError:
        kind = "a number" if real else "a whole number"
        raise InvalidInput(f"--limit {name} wants {kind}, got {raw!r}", raw) from None


DEFAULT_LIMITS = IngestLimits()


def exceeded(
    name: str, limit: str, allowed: int | float, seen: int | float, what: str
) -> ParseError:
    """The error for file `name` going over `limit` (a field of IngestLimits,
    here `allowed`) with `seen` (counted in `what`, such as "pages")."""
    return ParseError(
        f"{name}: {_shown(seen)} {what} is over the limit {limit}={_shown(allowed)}; "
        f"raise it with `--limit {limit}=N` (command line) or IngestLimits({limit}=N) (Python)",
        seen,
    )


def _shown(value: int | float) -> str:
    return f"{value:,}" if isinstance(value, int) else f"{value:g}"


class Budget:
    """One file's limits as it is read: the counts it may reach and its
    wall-clock budget, checked between pages and sections (a thread cannot be
    stopped from outside, so long steps check in)."""

    def __init__(self, name: str, limits: IngestLimits = DEFAULT_LIMITS) -> None:
        self.name = name
        self.limits = limits
        self._started = time.monotonic()

    def at_most(self, limit: str, seen: int, what: str) -> None:
        """Refuse `seen` (in `what`) if it is over the limit named `limit`."""
        allowed = getattr(self.limits, limit)
        if seen > allowed:
            raise exceeded(self.name, limit, allowed, seen, what)

    def text(self, chars: int) -> None:
        """Refuse a file whose extracted text has reached `chars` characters."""
        self.at_most("max_text_chars", chars, "characters of text")

    def check_time(self) -> None:
        spent = time.monotonic() - self._started
        if spent >= self.limits.max_seconds:
            raise exceeded(
                self.name,
                "max_seconds",
                self.limits.max_seconds,
                round(spent, 1),
                "seconds of parsing",
            )
