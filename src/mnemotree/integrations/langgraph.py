"""A LangGraph store (`BaseStore`) kept in mnemotree (extra `langgraph`).

An item is a path-memory entry in one scope: namespace `("users", "42",
"prefs")` and key `"tea"` live at path `users/42/prefs/tea`, its value the
entry's content, its history kept like any node's. `search` with a query
ranks by mnemotree's hybrid search (words, meaning and the tree); a filter
matches top-level values (`{"kind": "note"}`, or `{"n": {"$gte": 3}}`).

>>> store = MnemotreeStore(Memory("memory.db"), scope="user:42")
>>> store.put(("prefs",), "tea", {"likes": "green tea"})
>>> store.search(("prefs",), query="what does the user drink")

TTLs are not offered (`supports_ttl` is False): a mnemotree entry stays
until it is deleted, and its history after that.
"""

from __future__ import annotations

import asyncio
import contextlib
import operator
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from .. import InvalidInput, Memory, MissingExtra, NotFound

try:
    from langgraph.store.base import (
        BaseStore,
        GetOp,
        Item,
        ListNamespacesOp,
        Op,
        PutOp,
        Result,
        SearchItem,
        SearchOp,
    )
except ImportError as exc:  # pragma: no cover - the extra names the fix
    raise MissingExtra(
        "the LangGraph store needs langgraph: pip install 'mnemotree[langgraph]'", exc.name
    ) from None

_PATH_TYPE = "path"  # the node type of a path-memory entry
_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "$eq": operator.eq,
    "$ne": operator.ne,
    "$gt": operator.gt,
    "$gte": operator.ge,
    "$lt": operator.lt,
    "$lte": operator.le,
}


class MnemotreeStore(BaseStore):
    """LangGraph's long-term memory store, over one scope of a `Memory`."""

    supports_ttl = False

    def __init__(self, memory: Memory, *, scope: str = "default") -> None:
        self.memory = memory
        self.scope = scope
        self._paths = memory.paths(scope)

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        return [self._one(op) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await asyncio.to_thread(self.batch, list(ops))

    def _one(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            return self._get(op.namespace, op.key)
        if isinstance(op, PutOp):
            self._put(op)
            return None
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, ListNamespacesOp):
            return self._namespaces(op)
        raise InvalidInput(f"unknown store operation {type(op).__name__}", repr(op)[:200])

    # -- items -----------------------------------------------------------------------

    def _get(self, namespace: tuple[str, ...], key: str) -> Item | None:
        try:
            entry = self._paths.get(_path(namespace, key), record=False)
        except NotFound:
            return None
        return _item(entry) if entry.has_content else None

    def _put(self, op: PutOp) -> None:
        path = _path(op.namespace, op.key)
        if op.value is None:
            with contextlib.suppress(NotFound):  # not there: already as asked
                self._paths.delete(path, recursive=True)
            return
        if not isinstance(op.value, dict):
            raise InvalidInput(
                f"a LangGraph item's value must be a dict, got {type(op.value).__name__}",
                repr(op.value)[:200],
            )
        self._paths.save(path, dict(op.value), context_tokens=0)

    def _search(self, op: SearchOp) -> list[SearchItem]:
        prefix = "/".join(_labels(op.namespace_prefix)) if op.namespace_prefix else ""
        entries = [e for e in self._listed(prefix) if _matches(e.content, op.filter)]
        scores: dict[str, float] = {}
        if op.query:
            hits = self.memory.search(
                op.query,
                scopes=[self.scope],
                context_types=[_PATH_TYPE],
                limit=max(10, min(len(entries), 1000)),
                min_relevance=0,
                record=False,
            )
            scores = {h.node.id: h.score for h in hits}
            entries = [e for e in entries if e.node_id in scores]
            entries.sort(key=lambda e: -scores[e.node_id])
        chosen = entries[op.offset : op.offset + op.limit]
        return [_item(e, scores.get(e.node_id)) for e in chosen]

    def _listed(self, prefix: str) -> list[Any]:
        """The entries at or below `prefix` that are LangGraph items (dict values)."""
        listed = self._paths.list(prefix)
        return [e for e in listed if e.has_content and isinstance(e.content, dict)]

    def _namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        found = {tuple(e.path.split("/")[:-1]) for e in self._listed("")}
        if op.max_depth is not None:
            found = {ns[: op.max_depth] for ns in found}
        for condition in op.match_conditions or ():
            found = {ns for ns in found if _namespace_matches(ns, condition)}
        ordered = sorted(ns for ns in found if ns)
        return ordered[op.offset : op.offset + op.limit]


def _labels(namespace: tuple[str, ...]) -> tuple[str, ...]:
    for label in namespace:
        if not isinstance(label, str) or not label.strip() or "/" in label:
            raise InvalidInput(
                f"namespace {namespace!r} cannot be a mnemotree path: each label must be "
                f"non-empty text without '/', got {label!r}",
                list(namespace),
            )
    return namespace


def _path(namespace: tuple[str, ...], key: str) -> str:
    if not namespace:
        raise InvalidInput("a LangGraph namespace cannot be empty", [])
    return "/".join(_labels((*namespace, key)))


def _item(entry: Any, score: float | None = None) -> SearchItem:
    *namespace, key = entry.path.split("/")
    return SearchItem(
        tuple(namespace),
        key,
        dict(entry.content),
        datetime.fromisoformat(entry.created),
        datetime.fromisoformat(entry.modified),
        score,
    )


def _matches(value: Any, wanted: dict[str, Any] | None) -> bool:
    if not wanted:
        return True
    if not isinstance(value, dict):
        return False
    for name, expected in wanted.items():
        if isinstance(expected, dict) and expected and set(expected) <= set(_COMPARE):
            try:
                if not all(_COMPARE[o](value.get(name), v) for o, v in expected.items()):
                    return False
            except TypeError:  # None or another type compared with an order
                return False
        elif value.get(name) != expected:
            return False
    return True


def _namespace_matches(namespace: tuple[str, ...], condition: Any) -> bool:
    pattern = tuple(condition.path)
    if len(pattern) > len(namespace):
        return False
    part = (
        namespace[: len(pattern)]
        if condition.match_type == "prefix"
        else namespace[-len(pattern) :]
    )
    return all(p == "*" or p == n for p, n in zip(pattern, part, strict=True))
