"""`Memory`'s API keys and shared scopes: the HTTP server and MCP over HTTP
check the keys; a shared scope is readable by every key."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from . import keys, sharing
from .store import KeyRow
from .timeutil import to_iso

if TYPE_CHECKING:
    from .store import Store
    from .timeutil import Clock


class KeysMixin:
    """Mixed into Memory, which provides the store and clock."""

    store: Store
    clock: Clock

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
            return sharing.set_shared(self.store, scope, shared)
