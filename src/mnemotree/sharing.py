"""Shared scopes: the scopes whose nodes may parent nodes of other scopes.

A node's ancestry travels with it (search hits, breadcrumbs, the API's node
view), so a parent in another scope would hand its text to every reader of
the child. The tree therefore keeps a child in its parent's scope unless the
parent's scope is declared shared, which says "readable by every key" (a
knowledge base that user notes hang under, say).
"""

from __future__ import annotations

import json

from .errors import InvalidOperation
from .model import clean_scope
from .store import Store

SETTING = "shared_scopes"


def shared_scopes(store: Store) -> frozenset[str]:
    """The scopes declared shared (readable by every key)."""
    found = store.get_setting(SETTING)
    return frozenset(json.loads(found)) if found else frozenset()


def set_shared(store: Store, scope: str, shared: bool) -> frozenset[str]:
    """Declare `scope` shared or not; returns the new set. Call in a transaction."""
    chosen = clean_scope(scope)
    now = set(shared_scopes(store))
    if shared:
        now.add(chosen)
    else:
        now.discard(chosen)
    store.set_setting(SETTING, json.dumps(sorted(now)))
    return frozenset(now)


def check_parent(
    store: Store, scope: str, parent_scope: str, *, node: str | None, parent: str
) -> None:
    """Refuse a node (None: a new one) in `scope` under a parent in another,
    unshared scope."""
    if scope == parent_scope or parent_scope in shared_scopes(store):
        return
    which = "a new node" if node is None else f"node {node}"
    raise InvalidOperation(
        f"{which} in scope {scope!r} cannot go under {parent} in scope {parent_scope!r}: "
        "a parent's text shows in its children's ancestry, so a child stays in its "
        f"parent's scope unless that scope is shared (`mnemotree scopes share {parent_scope}`)",
        node if node is not None else parent,
    )
