"""Tree reads: traversal is serialisation (the tree design), plus budgeted expansion."""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Callable, Sequence
from operator import attrgetter

from .errors import InvalidInput, not_found
from .model import Node, SerializeMode, clean_id
from .perf import paused_gc
from .store import Store

_PAGE = 256  # children fetched per query while expanding
_MAX_OPENED = 2_000  # children of one node weighed by relevance, in reading order


def require(store: Store, node_id: str) -> Node:
    """The node, or NotFound naming the id (InvalidInput for a malformed id)."""
    node = store.get(clean_id(node_id))
    if node is None:
        raise not_found("node", node_id)
    return node


def ancestors(store: Store, node: Node) -> list[Node]:
    """Parent first, root last."""
    chain = []
    cursor = node.parent_id
    while cursor is not None:
        parent = require(store, cursor)
        chain.append(parent)
        cursor = parent.parent_id
    return chain


def walk(store: Store, node_id: str) -> list[tuple[int, Node, bool]]:
    """(depth, node, has_children) depth-first in reading order; `node_id` is depth 0."""
    top = require(store, node_id)
    nodes = store.tree_nodes(top.root_id) if top.parent_id is None else store.subtree(top.id)
    with paused_gc():
        return _depth_first(top, nodes)


def _depth_first(top: Node, nodes: list[Node]) -> list[tuple[int, Node, bool]]:
    kids: dict[str | None, list[Node]] = {}
    for node in nodes:
        group = kids.get(node.parent_id)
        if group is None:
            kids[node.parent_id] = [node]
        else:
            group.append(node)
    by_position = attrgetter("order_key", "id")
    for group in kids.values():
        group.sort(key=by_position, reverse=True)  # reversed: the stack pops the first
    out: list[tuple[int, Node, bool]] = []
    stack: list[tuple[int, Node]] = [(0, top)]
    while stack:
        depth, node = stack.pop()
        children = kids.get(node.id)
        out.append((depth, node, children is not None))
        if children is not None:
            depth += 1
            stack.extend([(depth, child) for child in children])
    return out


def serialize(
    store: Store, node_id: str, mode: SerializeMode | str = SerializeMode.INCLUDE
) -> list[tuple[int, Node]]:
    """Depth-first reading order; `mode` decides what interior summaries show."""
    mode = _mode(mode)
    with paused_gc():
        return _filter(walk(store, node_id), mode)


def _filter(rows: list[tuple[int, Node, bool]], mode: SerializeMode) -> list[tuple[int, Node]]:
    out: list[tuple[int, Node]] = []
    collapsed_at: int | None = None  # depth of the summary whose children are hidden
    for depth, node, has_children in rows:
        if collapsed_at is not None:
            if depth > collapsed_at:
                continue
            collapsed_at = None
        if node.is_summary and has_children:
            if mode is SerializeMode.SKIP:
                continue
            if mode is SerializeMode.COLLAPSE:
                collapsed_at = depth
        out.append((depth, node))
    return out


def _mode(mode: SerializeMode | str) -> SerializeMode:
    try:
        return SerializeMode(mode)
    except ValueError:
        choices = ", ".join(m.value for m in SerializeMode)
        raise InvalidInput(
            f"unknown serialize mode {mode!r}; choose one of {choices}", mode
        ) from None


def expand_to_budget(store: Store, node_id: str, max_tokens: int) -> list[tuple[int, Node]]:
    """The tree design's expansion: breadth first, left to right, until the budget is reached.

    Expansion stops at the first node that does not fit, so the result is a
    prefix of the breadth-first order (every node's parent is included) and
    costs only what it returns. It is given in reading order and never
    exceeds `max_tokens`. Relevance-aware expansion is the context engine's.
    """
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 0:
        raise InvalidInput(f"budget must be a non-negative integer, got {max_tokens!r}", max_tokens)
    top = require(store, node_id)
    if top.token_count > max_tokens:
        return []
    left = max_tokens - top.token_count
    Entry = tuple[tuple[float | str, ...], int, Node]
    chosen: list[Entry] = [((), 0, top)]
    queue: deque[Entry] = deque(chosen)
    while queue:
        path, depth, node = queue.popleft()
        after: float | None = None
        while True:
            # Every node costs at least one token, so `left` bounds the page.
            page = store.children(node.id, after_key=after, limit=min(_PAGE, left + 1))
            for child in page:
                if child.token_count > left:
                    chosen.sort(key=lambda entry: entry[0])
                    return [(d, n) for _, d, n in chosen]
                left -= child.token_count
                entry = ((*path, child.order_key, child.id), depth + 1, child)
                chosen.append(entry)
                queue.append(entry)
            if len(page) < _PAGE:
                break
            after = page[-1].order_key
    chosen.sort(key=lambda entry: entry[0])
    return [(d, n) for _, d, n in chosen]


Relevance = Callable[[Sequence[Node]], dict[str, float]]


def expand_by_relevance(
    store: Store, node_id: str, max_tokens: int, relevance: Relevance
) -> list[tuple[int, Node]]:
    """Best-first expansion: the most relevant node whose parent is already in
    is added next, if it fits; one that does not fit is skipped, not a stop.

    So a long, irrelevant branch costs nothing while a relevant one deep in
    the tree is opened; a summary stays in place of children that did not
    fit. Every node's parent is included, the result is in reading order and
    never exceeds `max_tokens`; ties go to reading order (deterministic).
    """
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 0:
        raise InvalidInput(f"budget must be a non-negative integer, got {max_tokens!r}", max_tokens)
    top = require(store, node_id)
    if top.token_count > max_tokens:
        return []
    left = max_tokens - top.token_count
    Path = tuple[float | str, ...]
    chosen: list[tuple[Path, int, Node]] = [((), 0, top)]
    frontier: list[tuple[float, Path, int, Node]] = []

    def open_(path: Path, depth: int, node: Node) -> None:
        # Each node costs a token at least, so no more than `left` children can
        # ever join; a node with 100k children is not read (or scored) whole.
        children = store.children(node.id, limit=min(_MAX_OPENED, left + 1))
        scores = relevance(children) if children else {}
        for child in children:
            key = (*path, child.order_key, child.id)
            heapq.heappush(frontier, (-scores.get(child.id, 0.0), key, depth + 1, child))

    open_((), 0, top)
    while frontier and left > 0:
        _, path, depth, node = heapq.heappop(frontier)
        if node.token_count > left:
            continue
        left -= node.token_count
        chosen.append((path, depth, node))
        open_(path, depth, node)
    chosen.sort(key=lambda entry: entry[0])
    return [(d, n) for _, d, n in chosen]
