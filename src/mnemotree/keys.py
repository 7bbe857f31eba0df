"""API keys: made with the scopes they may reach, shown once, kept hashed.

A key reads `mt_<id>_<secret>`: the id finds the row, the secret (32 random
bytes) is checked against its sha256. A random secret that long needs no slow
hash; comparing digests takes constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import threading
import time
from collections.abc import Sequence
from datetime import datetime, timedelta

from . import sharing
from .errors import InvalidInput, NotFound, ScopeDenied, Unauthorized
from .model import clean_scope, clean_scopes
from .services import Part, Services
from .store import KeyRow, Store
from .timeutil import from_iso, to_iso

EVERY_SCOPE = "*"
TOUCH_EVERY = timedelta(minutes=1)
_UNKNOWN = "0" * 64  # compared against when no key has the presented id
_KEY = re.compile(r"mt_([0-9a-z]{12})_([A-Za-z0-9_-]{43})")


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def key_scopes(scopes: Sequence[str] | str) -> tuple[str, ...]:
    """A new key's scopes, from a list or "kb,user:42" (the CLI's form: split
    on commas, never into characters); "*" alone is every scope."""
    given = scopes.split(",") if isinstance(scopes, str) else list(clean_scopes(scopes) or ())
    cleaned = tuple(dict.fromkeys(s.strip() for s in given if s.strip()))
    if not cleaned:
        raise InvalidInput(
            "a key needs at least one scope, such as 'kb,user:42' (or '*' for every scope)",
            scopes,
        )
    if EVERY_SCOPE in cleaned:
        if len(cleaned) > 1:
            raise InvalidInput(f"'*' is every scope: give it alone, got {list(cleaned)}", scopes)
        return cleaned
    return tuple(clean_scope(s) for s in cleaned)


def create(
    store: Store, scopes: Sequence[str] | str, name: str, now: datetime
) -> tuple[KeyRow, str]:
    """A new key row and the key itself (shown once; only its hash is kept)."""
    chosen = key_scopes(scopes)
    if not isinstance(name, str) or len(name) > 200:
        raise InvalidInput(f"a key's name is text of at most 200 characters, got {name!r}", name)
    key_id = "".join(secrets.choice("0123456789abcdefghijklmnopqrstuvwxyz") for _ in range(12))
    secret = secrets.token_urlsafe(32)
    row = KeyRow(key_id, _digest(secret), name, chosen, to_iso(now), None, None)
    store.put_key(row)
    return row, f"mt_{key_id}_{secret}"


def verify(store: Store, presented: str | None) -> KeyRow:
    """The live key row for `presented`, or Unauthorized saying why."""
    if not presented:
        raise Unauthorized(
            "no API key: send 'Authorization: Bearer mt_...' "
            "(make one with `mnemotree keys create --scopes ...`)",
            None,
        )
    match = _KEY.fullmatch(presented.strip())
    row = store.get_key(match.group(1)) if match else None
    # The same work whether the id exists or not, so timing cannot tell
    # an attacker which key ids are real.
    secret = match.group(2) if match else presented
    expected = row.secret_hash if row is not None else _UNKNOWN
    genuine = hmac.compare_digest(expected, _digest(secret))
    if row is None or not genuine:
        raise Unauthorized("unknown API key", _shown(presented))
    if row.revoked_at is not None:
        raise Unauthorized(f"API key {row.id} was revoked at {row.revoked_at}", row.id)
    return row


def due_for_touch(row: KeyRow, now: datetime) -> bool:
    """Whether to write the key's last use: at most once a minute, since a
    write per request would cost more than the request."""
    return row.last_used_at is None or from_iso(row.last_used_at) <= now - TOUCH_EVERY


def revoke(store: Store, key_id: str, now: datetime) -> None:
    if store.get_key(key_id) is None:
        raise NotFound(f"no API key {key_id!r}; `mnemotree keys list` shows them", key_id)
    if not store.revoke_key(key_id, to_iso(now)):
        raise InvalidInput(f"API key {key_id} is revoked already", key_id)


def allowed_scopes(row: KeyRow, scopes: Sequence[str] | None) -> tuple[str, ...] | None:
    """The scopes a request with this key may read: the ones it asks for, all
    within the key's (ScopeDenied otherwise), or the key's own. None is every
    scope (a '*' key asking for none in particular)."""
    every = row.scopes == (EVERY_SCOPE,)
    asked = clean_scopes(scopes)
    if not asked:
        return None if every else row.scopes
    outside = [s for s in asked if not every and s not in row.scopes]
    if outside:
        raise ScopeDenied(
            f"this key may reach scopes {list(row.scopes)}, not {outside[0]!r}", outside[0]
        )
    return asked


def _shown(presented: str) -> str:
    """Enough of a bad key to recognise it in a log, never the secret."""
    return presented[:15] + "..." if len(presented) > 15 else presented


# How long a verified key is trusted without reading the database again: a
# revocation in this process applies at once, one by another process (the
# CLI beside a server) within this many seconds.
VERIFIED_FOR = 2.0


class _Verified:
    """Keys verified lately, by the sha256 of what was presented."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.seen: dict[str, tuple[KeyRow, frozenset[str], float]] = {}


class ApiKeys(Part):
    """API keys and shared scopes (`Memory.keys`): the HTTP server and MCP over
    HTTP check the keys; a shared scope is readable by every key."""

    def __init__(self, services: Services) -> None:
        super().__init__(services)
        self._verified = _Verified()

    def _verified_keys(self) -> _Verified:
        return self._verified

    def cached(self, presented: str | None) -> tuple[KeyRow, frozenset[str]] | None:
        """The live key row and the shared scopes for `presented`, if it was
        verified in the last VERIFIED_FOR seconds; None: call `check`.
        Reads no database, so a server may call it on its event loop."""
        if not presented:
            return None
        verified = self._verified_keys()
        with verified.lock:
            found = verified.seen.get(_fingerprint(presented))
        if found is None or found[2] < time.monotonic():
            return None
        return found[0], found[1]

    def check(self, presented: str | None) -> tuple[KeyRow, frozenset[str]]:
        """`verify` and the shared scopes, remembered for VERIFIED_FOR seconds."""
        row, shared = self.verify(presented), self.shared_scopes()
        verified = self._verified_keys()
        with verified.lock:
            if len(verified.seen) > 10_000:  # keys rarely number more; never grow unbounded
                verified.seen.clear()
            verified.seen[_fingerprint(presented or "")] = (
                row,
                shared,
                time.monotonic() + VERIFIED_FOR,
            )
        return row, shared

    def forget_verified(self) -> None:
        verified = self._verified_keys()
        with verified.lock:
            verified.seen.clear()

    def create(self, scopes: Sequence[str] | str, *, name: str = "") -> tuple[KeyRow, str]:
        """A key limited to `scopes` ("*" for every scope). Returns its row and
        the key itself, which is shown this once: only a hash is stored."""
        with self.store.transaction():
            return create(self.store, scopes, name, self.clock())

    def revoke(self, key_id: str) -> None:
        """Revoke a key: requests with it are refused from now on."""
        with self.store.transaction():
            revoke(self.store, key_id, self.clock())
        self.forget_verified()

    def verify(self, presented: str | None) -> KeyRow:
        """The live key `presented` is, or Unauthorized."""
        row = verify(self.store, presented)
        now = self.clock()
        if due_for_touch(row, now):
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
        self.forget_verified()
        return found

    def list(self) -> list[KeyRow]:
        """Every key (revoked ones too), oldest first; no secrets."""
        return self.store.keys()


def _fingerprint(presented: str) -> str:
    return hashlib.sha256(presented.encode("utf-8", "replace")).hexdigest()
