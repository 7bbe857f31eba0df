"""The node and the values that travel with it."""

from __future__ import annotations

import enum
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from .errors import InvalidInput
from .jsonlimits import plain_json
from .tags import parse_tags

DEFAULT_SCOPE = "default"
MAX_TEXT_CHARS = 10_000_000
MAX_SCOPE_CHARS = 128


@dataclass(slots=True)
class Node:
    """One node of a memory tree; roots are spaces, documents or sessions.

    Treat it as a value: change nodes through `Memory`, derive copies with
    `dataclasses.replace`. (Not frozen because frozen init is ~9x slower, and
    reads build hundreds of thousands of these.)
    """

    id: str
    root_id: str
    parent_id: str | None
    order_key: float
    text: str
    token_count: int
    created_at: str
    updated_at: str
    context_type: str = ""
    context_name: str = ""
    context_value: str = ""
    scope: str = DEFAULT_SCOPE
    version: int = 1
    is_summary: bool = False
    stale: bool = False
    metadata: dict[str, Any] = field(default_factory=dict)
    importance: float = 0.5

    @property
    def is_root(self) -> bool:
        return self.parent_id is None

    @property
    def tags(self) -> list[str]:
        """@tags in the text, and tags given in metadata (typed memories)."""
        found = parse_tags(self.text)
        given = self.metadata.get("tags") if self.metadata else None
        if isinstance(given, list):
            found += [t for t in given if isinstance(t, str) and t not in found]
        return found

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (the shape the CLI and exports print)."""
        data = asdict(self)
        data["tags"] = self.tags
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Node:
        """Inverse of `to_dict`; unknown keys are ignored."""
        names = cls.__dataclass_fields__
        return cls(**{k: v for k, v in data.items() if k in names})


def valid_since(node: Node) -> str:
    """When a memory became valid: as it says, else when it was written; a
    memory written after its own end ("true until March") held since always
    ('')."""
    start = node.metadata.get("valid_from")
    if start:
        return str(start)
    end = node.metadata.get("valid_to")
    return "" if end is not None and str(end) < node.created_at else node.created_at


@dataclass(frozen=True, slots=True)
class NewNode:
    """What a caller supplies to create a node; the engine fills in the rest."""

    text: str
    context_type: str = ""
    context_name: str = ""
    context_value: str = ""
    scope: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    importance: float = 0.5


@dataclass(frozen=True, slots=True)
class NodeVersion:
    """A past state of a node, kept on every update, move and delete."""

    node_id: str
    version: int
    op: str  # "update", "move", "delete" or "current"
    change_id: str
    recorded_at: str
    node: Node

    def to_dict(self) -> dict[str, Any]:
        return {
            "node_id": self.node_id,
            "version": self.version,
            "op": self.op,
            "change_id": self.change_id,
            "recorded_at": self.recorded_at,
            "node": self.node.to_dict(),
        }


class SerializeMode(str, enum.Enum):
    """How `serialize` treats interior summary nodes (the tree design's open question)."""

    INCLUDE = "include"  # the summary, then its children
    SKIP = "skip"  # only the children
    COLLAPSE = "collapse"  # only the summary, instead of its children


def clean_text(text: object, what: str = "text") -> str:
    """Validate node text: a non-empty, valid UTF-8 string without NUL bytes."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidInput(
                f"{what} is not valid UTF-8 (bad byte at offset {exc.start}); "
                "re-encode it as UTF-8",
                text[exc.start : exc.start + 8],
            ) from None
    if not isinstance(text, str):
        raise InvalidInput(f"{what} must be a string, got {type(text).__name__}", text)
    _require_utf8(text, what)
    if not text.strip():
        raise InvalidInput(f"{what} is empty; give some non-blank text", text)
    if "\x00" in text:
        raise InvalidInput(f"{what} contains a NUL character; remove it", text[:40])
    if len(text) > MAX_TEXT_CHARS:
        raise InvalidInput(
            f"{what} is {len(text):,} characters; the limit is {MAX_TEXT_CHARS:,}",
            len(text),
        )
    return text


def clean_scope(scope: object) -> str:
    """A scope is a short printable label such as 'default', 'kb' or 'user:42'.

    Checked where a scope comes in, never when rows are read: a database
    may hold scopes made before these rules.
    """
    value = clean_label(scope, "scope")
    if not value.strip():
        raise InvalidInput(
            "scope is empty; give a scope name such as 'default' or 'user:42'", scope
        )
    if len(value) > MAX_SCOPE_CHARS:
        raise InvalidInput(
            f"scope is {len(value):,} characters; a scope name is at most "
            f"{MAX_SCOPE_CHARS} characters, such as 'kb' or 'user:42'",
            _shown(value),
        )
    hidden = next((c for c in value if not c.isprintable()), None)
    if hidden is not None:
        # Control, bidi and zero-width characters make two scopes look alike.
        name = unicodedata.name(hidden, "a control character")
        raise InvalidInput(
            f"scope {_shown(value)} contains U+{ord(hidden):04X} ({name}); a scope name "
            "takes printable characters only (letters, digits, punctuation, spaces)",
            _shown(value),
        )
    return value


def clean_scopes(scopes: object) -> tuple[str, ...] | None:
    """Scopes to read: None (every scope), or a list of scope names.

    A bare string is refused: iterating it would read the scopes 'k' and 'b'
    for 'kb'.
    """
    if scopes is None:
        return None
    if isinstance(scopes, (str, bytes, bytearray)):
        raise InvalidInput(
            f"scopes must be a list such as ['kb']; got the string {_shown(scopes)}",
            _shown(scopes),
        )
    if isinstance(scopes, Mapping) or not isinstance(scopes, Iterable):
        raise InvalidInput(
            f"scopes must be a list of scope names such as ['kb'], got a {type(scopes).__name__}",
            type(scopes).__name__,
        )
    return tuple(clean_scope(s) for s in scopes)


def clean_metadata(metadata: object) -> dict[str, Any]:
    """Metadata is a JSON object within the JSON limits (jsonlimits); returns a copy."""
    if not isinstance(metadata, dict):
        raise InvalidInput(
            f"metadata must be a JSON object, got {type(metadata).__name__}",
            type(metadata).__name__,
        )
    if not metadata:  # the common case, kept cheap for bulk loads
        return {}
    copy: dict[str, Any] = plain_json(metadata, "metadata")
    return copy


def _shown(value: str | bytes | bytearray) -> str:
    """A value for a message: escaped (bidi controls would reorder the message
    itself) and cut short."""
    text = ascii(value[:40] if isinstance(value, str) else bytes(value[:40]))
    return text + ("..." if len(value) > 40 else "")


def clean_importance(value: object) -> float:
    """Importance is a number from 0 to 1."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise InvalidInput(f"importance must be a number from 0 to 1, got {value!r}", value)
    return float(value)


def clean_id(value: object, what: str = "node id") -> str:
    """Validate an id given by a caller, so bad bytes never reach the store."""
    if not isinstance(value, str) or not value:
        raise InvalidInput(f"{what} must be a non-empty string, got {value!r}", value)
    return _require_utf8(value, f"{what} {value!r}")


def clean_label(value: object, what: str) -> str:
    """Validate a short label (context fields, scope): a string without NUL."""
    if value == "":
        return ""
    if not isinstance(value, str):
        raise InvalidInput(f"{what} must be a string, got {type(value).__name__}", value)
    if "\x00" in value:
        raise InvalidInput(f"{what} contains a NUL character", value)
    return _require_utf8(value, what)


def _require_utf8(value: str, what: str) -> str:
    # Undecodable bytes arrive as lone surrogates (surrogateescape); SQLite cannot store them.
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInput(
            f"{what} is not valid UTF-8 (undecodable character at offset {exc.start}); "
            "re-encode it as UTF-8",
            value[max(0, exc.start - 10) : exc.start + 10],
        ) from None
    return value


@dataclass(frozen=True, slots=True)
class NodeFilter:
    """Which nodes a read may see. `scopes=None` means every scope (admin).

    Scopes are a hard boundary: stores apply them in their queries, so no
    search path can return a node outside them.
    """

    scopes: tuple[str, ...] | None = None
    roots: tuple[str, ...] = ()
    context_types: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    created_after: str | None = None
    created_before: str | None = None
    min_importance: float | None = None
    # Only memories valid at this ISO time (valid_from <= t < valid_to, when set).
    valid_at: str | None = None
    # Archived nodes (forgotten by consolidation) are left out unless asked for.
    include_archived: bool = False
