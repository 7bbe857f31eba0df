"""One error hierarchy for the whole package.

Every error carries the offending value so that front-ends can name it; they
translate these to exit codes, HTTP statuses or MCP errors at the edge only.
"""

from __future__ import annotations

from typing import Any


class MnemotreeError(Exception):
    """Base class of every error mnemotree raises on purpose."""

    def __init__(self, message: str, value: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.value = value

    def __str__(self) -> str:
        return self.message


class NotFound(MnemotreeError):
    """A node, version or other object does not exist."""


class InvalidOperation(MnemotreeError):
    """The operation is not allowed on these nodes (wrong parent, not a leaf...)."""


class InvalidInput(MnemotreeError):
    """A value given by the caller is malformed (empty text, bad UTF-8, bad option)."""


class AlreadyExists(MnemotreeError):
    """An object with this id already exists (for example when importing)."""


class Unauthorized(MnemotreeError):
    """No API key, or one that is unknown, malformed or revoked."""


class ScopeDenied(MnemotreeError):
    """The caller's scopes do not include the node's scope."""


class SchemaError(MnemotreeError):
    """The database file is not a mnemotree database, or its schema is too new."""


class StorageError(MnemotreeError):
    """The database could not be read or written (locked, read-only, disk full)."""


class MissingExtra(MnemotreeError):
    """An optional dependency is not installed; the message names the extra."""


class ProviderError(MnemotreeError):
    """A configured endpoint (embeddings, LLM) failed or answered nonsense."""


class ParseError(MnemotreeError):
    """A file could not be read as its type says (malformed, encrypted, not text)."""


def not_found(what: str, value: Any) -> NotFound:
    """Build a NotFound whose message names the missing object."""
    return NotFound(f"no {what} with id {value!r}", value)
