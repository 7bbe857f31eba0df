"""`Memory`'s API keys and shared scopes: the HTTP server and MCP over HTTP
check the keys; a shared scope is readable by every key."""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from . import keys, sharing
from .store import KeyRow
from .timeutil import to_iso

if TYPE_CHECKING:
    from .store import Store
    from .timeutil import Clock


# How long a verified key is trusted without reading the database again: a
# revocation in this process applies at once, one by another process (the
# CLI beside a server) within this many seconds.
VERIFIED_FOR = 2.0


class _Verified:
    """Keys verified lately, by the sha256 of what was presented."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.seen: dict[str, tuple[KeyRow, frozenset[str], float]] = {}


class KeysMixin:
    """Mixed into Memory, which provides the store and clock."""

    store: Store
    clock: Clock
    _verified: _Verified | None = None

    def _verified_keys(self) -> _Verified:
        if self._verified is None:
            self._verified = _Verified()
        return self._verified

    def cached_key(self, presented: str | None) -> tuple[KeyRow, frozenset[str]] | None:
        """The live key row and the shared scopes for `presented`, if it was
        verified in the last VERIFIED_FOR seconds; None: call `check_key`.
        Reads no database, so a server may call it on its event loop."""
        if not presented:
            return None
        verified = self._verified_keys()
        with verified.lock:
            found = verified.seen.get(_fingerprint(presented))
        if found is None or found[2] < time.monotonic():
            return None
        return found[0], found[1]

    def check_key(self, presented: str | None) -> tuple[KeyRow, frozenset[str]]:
        """`verify_key` and the shared scopes, remembered for VERIFIED_FOR seconds."""
        row, shared = self.verify_key(presented), self.shared_scopes()
        verified = self._verified_keys()
        with verified.lock:
            if len(verified.seen) > 10_000:  # keys rarely number more; never grow unbounded
                verified.seen.clear()
            verified.seen[_fingerprint(presented or "")] = (
                row, shared, time.monotonic() + VERIFIED_FOR,
            )  # fmt: skip
        return row, shared

    def _forget_verified(self) -> None:
        verified = self._verified_keys()
        with verified.lock:
            verified.seen.clear()

    def create_key(self, scopes: Sequence[str] | str, *, name: str = "") -> tuple[KeyRow, str]:
        """A key limited to `scopes` ("*" for every scope). Returns its row and
        the key itself, which is shown this once: only a hash is stored."""
        with self.store.transaction():
            return keys.create(self.store, scopes, name, self.clock())

    def api_keys(self) -> list[KeyRow]:
        """Every key (revoked ones too), oldest first; no secrets."""
        return self.store.keys()

    def revoke_key(self, key_id: str) -> None:
        """Revoke a key: requests with it are refused from now on."""
        with self.store.transaction():
            keys.revoke(self.store, key_id, self.clock())
        self._forget_verified()

    def verify_key(self, presented: str | None) -> KeyRow:
        """The live key `presented` is, or Unauthorized."""
        row = keys.verify(self.store, presented)
        now = self.clock()
        if keys.due_for_touch(row, now):
            with self.store.transaction():
                self.store.touch_key(row.id, to_iso(now))
        return row

    def shared_scopes(self) -> frozenset[str]:
        """Scopes readable by every key, whose nodes may parent other scopes' nodes."""
        return sharing.shared_scopes(self.store)

    def share_scope(self, scope: str, shared: bool = True) -> frozenset[str]:
        """Declare `scope` shared (readable by every key), or no longer shared;
        returns the shared scopes. Nodes already placed under a scope that is
        no longer shared stay where they are; readers simply stop seeing the
        parent in their ancestry."""
        with self.store.transaction():
            found = sharing.set_shared(self.store, scope, shared)
        self._forget_verified()
        return found


def _fingerprint(presented: str) -> str:
    return hashlib.sha256(presented.encode("utf-8", "replace")).hexdigest()
