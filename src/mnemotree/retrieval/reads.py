"""One search's reads of the store about its candidates, each node read once.

The query's vector is made on a worker thread, and until it comes the
search has its keyword candidates and nothing else to do. So it reads now
what scoring and tracing will ask of them (their siblings, the siblings
themselves, accesses, usage, ancestors), and once the vector comes only the
nodes it added are read. The statements are the store's usual ones over
fewer ids at a time: the ranking is the same whether anything was read
ahead or not.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import TypeVar

from ..model import Node, NodeFilter
from ..store import Store
from ..store.records import UsageCounts
from ..timeutil import to_iso
from .rank import ACCESSES_COUNTED

Siblings = tuple[str | None, str | None]  # previous, next
V = TypeVar("V")


class Reads:
    """The store's answers for one search's nodes, under its filter `where`
    (nodes, siblings, accesses, usage) or its scopes only (ancestors: a note
    found by type still shows the section it sits in)."""

    def __init__(self, store: Store, where: NodeFilter, now: datetime) -> None:
        self.store, self.where, self.now = store, where, now
        self._at = to_iso(now)
        self._scoped = NodeFilter(scopes=where.scopes)
        self._nodes: dict[str, Node | None] = {}  # None: read, and filtered out
        self._ancestors: dict[str, Node | None] = {}
        self._siblings: dict[str, Siblings | None] = {}  # None: a root
        self._accesses: dict[str, list[float] | None] = {}
        self._usage: dict[str, UsageCounts | None] = {}
        self._links: dict[str, str | None] = {}  # ancestor -> its parent
        self._linked: set[str] = set()  # nodes whose ancestors are in `_links`

    def visible(self, node_ids: Iterable[str]) -> dict[str, Node]:
        """The nodes among `node_ids` that pass the search's filter."""
        return _known(self._nodes, node_ids, lambda ids: self.store.visible(ids, self.where))

    def ancestors(self, node_ids: Iterable[str]) -> dict[str, Node]:
        """The nodes among `node_ids` in the search's scopes."""
        return _known(self._ancestors, node_ids, lambda ids: self.store.visible(ids, self._scoped))

    def adjacent(self, node_ids: Iterable[str]) -> list[tuple[str, str | None, str | None]]:
        """(id, previous sibling, next sibling) of each node that has a parent."""
        siblings = _known(self._siblings, node_ids, self._read_siblings)
        return [(i, before, after) for i, (before, after) in siblings.items()]

    def _read_siblings(self, node_ids: list[str]) -> dict[str, Siblings]:
        return {i: (before, after) for i, before, after in self.store.adjacent(node_ids)}

    def access_ages(self, node_ids: Iterable[str]) -> dict[str, list[float]]:
        """Seconds since each node's latest accesses (see `Store.access_ages`)."""
        return _known(
            self._accesses,
            node_ids,
            lambda ids: self.store.access_ages(ids, self._at, ACCESSES_COUNTED),
        )

    def usage_counts(self, node_ids: Iterable[str]) -> dict[str, UsageCounts]:
        return _known(self._usage, node_ids, self.store.usage_counts)

    def ancestor_links(self, node_ids: Iterable[str]) -> dict[str, str | None]:
        """{ancestor: its parent} for every ancestor of these nodes (and of
        others read before: walking up from a node only meets its own)."""
        unread = sorted({i for i in node_ids if i not in self._linked})
        if unread:
            self._links.update(self.store.ancestor_links(unread))
            self._linked.update(unread)
        return self._links

    def ahead(self, node_ids: Sequence[str], busy: Callable[[], bool]) -> None:
        """Read what scoring and tracing will ask of `node_ids`, one statement
        at a time while `busy()` (the vector is still being made): a search
        whose vector is ready never waits for these."""
        steps: list[Callable[[], object]] = [
            lambda: self.adjacent(node_ids),
            lambda: self.visible(self._sibling_ids(node_ids)),
            lambda: self.access_ages([*node_ids, *self._sibling_ids(node_ids)]),
            lambda: self.usage_counts([*node_ids, *self._sibling_ids(node_ids)]),
            lambda: self.ancestors(self.ancestor_links(node_ids)),
        ]
        for step in steps:
            if not busy():
                return
            step()

    def _sibling_ids(self, node_ids: Sequence[str]) -> list[str]:
        """The siblings read so far of `node_ids`, that pass the filter or are unread."""
        out = []
        for node_id in node_ids:
            for sibling in self._siblings.get(node_id) or ():
                if sibling is not None and self._nodes.get(sibling, sibling) is not None:
                    out.append(sibling)
        return out


def _known(
    memo: dict[str, V | None],
    node_ids: Iterable[str],
    read: Callable[[list[str]], dict[str, V]],
) -> dict[str, V]:
    """`memo`'s answers for `node_ids`, reading (in one call) the ids it lacks;
    an id the read does not answer is remembered as None."""
    wanted = list(dict.fromkeys(node_ids))
    unread = sorted(i for i in wanted if i not in memo)
    if unread:
        found = read(unread)
        for node_id in unread:
            memo[node_id] = found.get(node_id)
    out: dict[str, V] = {}
    for node_id in wanted:
        value = memo[node_id]
        if value is not None:
            out[node_id] = value
    return out
