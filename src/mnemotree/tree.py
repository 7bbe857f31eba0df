"""Tree writes: the the tree design operations, each one transaction, history kept."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from . import ordering
from .batch import NodeBatch, snapshot
from .errors import InvalidInput, InvalidOperation, NotFound, not_found
from .ids import new_id, new_ids
from .model import (
    DEFAULT_SCOPE,
    NewNode,
    Node,
    NodeVersion,
    clean_id,
    clean_importance,
    clean_label,
    clean_metadata,
    clean_scope,
    clean_text,
)
from .perf import paused_gc
from .sharing import check_parent
from .store import Store
from .timeutil import Clock, to_iso
from .tokens import Tokenizer
from .traverse import require

_WINDOW = 8  # siblings on each side in the first respread attempt


class Tree:
    """Creates, edits, moves and deletes nodes; reads live in `traverse`."""

    def __init__(self, store: Store, tokenizer: Tokenizer, clock: Clock) -> None:
        self.store = store
        self.tokenizer = tokenizer
        self.clock = clock

    # -- helpers -------------------------------------------------------------

    def now(self) -> str:
        return to_iso(self.clock())

    def require(self, node_id: str) -> Node:
        """The node, or NotFound naming the id."""
        return require(self.store, node_id)

    def counted(self, new: NewNode) -> tuple[str, int]:
        """Cleaned text and token count, before the write lock is taken."""
        text = clean_text(new.text)  # a first count loads the tokenizer (0.3-0.9 s)
        return text, self.tokenizer.count(text)

    def build_node(
        self,
        new: NewNode,
        *,
        parent: Node | None,
        key: float,
        now: str | None = None,
        is_summary: bool = False,
        text: str | None = None,
        tokens: int | None = None,
        node_id: str | None = None,
        labels: _Labels | None = None,
        stored_scope: str | None = None,
    ) -> Node:
        """A new node. Bulk callers pass pre-cleaned text, counts, ids and a label
        cache; `stored_scope` is a scope read from the database (not checked again)."""
        labels = labels if labels is not None else _Labels()
        text = clean_text(new.text) if text is None else text
        node_id = node_id or new_id()
        now = now or self.now()
        metadata = clean_metadata(new.metadata)
        # Only a scope the caller gives is checked as input: one inherited
        # from a parent was stored before (perhaps under older rules).
        if new.scope is not None:
            scope = labels.clean("scope", new.scope)
        else:
            scope = stored_scope or (parent.scope if parent else DEFAULT_SCOPE)
        if parent is not None and scope != parent.scope:
            check_parent(self.store, scope, parent.scope, node=None, parent=parent.id)
        return Node(
            node_id,
            parent.root_id if parent else node_id,
            parent.id if parent else None,
            key,
            text,
            self.tokenizer.count(text) if tokens is None else tokens,
            now,
            now,
            labels.clean("context_type", new.context_type),
            labels.clean("context_name", new.context_name),
            labels.clean("context_value", new.context_value),
            scope,
            1,
            is_summary,
            False,
            metadata,
            0.5 if new.importance == 0.5 else clean_importance(new.importance),
        )

    snapshot = staticmethod(snapshot)

    def batch(self, change: str | None = None, now: str | None = None) -> NodeBatch:
        """Writes of one change, inside the caller's transaction (history kept)."""
        return NodeBatch(self.store, change or new_id(), now or self.now)

    def _touch(self, parent: str | Node | None) -> None:
        """Mark every summary above a changed node stale (it covers the change)."""
        if isinstance(parent, Node):
            if parent.is_summary or parent.parent_id is not None:
                self.batch().touch([parent.id])
        elif parent is not None:
            self.batch().touch([parent])

    def _next_sibling(self, node: Node) -> tuple[str, float] | None:
        found = self.store.sibling_keys(node.parent_id, node.order_key, below=False, limit=1)
        return found[0] if found else None

    def _prev_sibling(self, node: Node) -> tuple[str, float] | None:
        found = self.store.sibling_keys(node.parent_id, node.order_key, below=True, limit=1)
        return found[0] if found else None

    def _slot(
        self, parent_id: str | None, prev: float | None, nxt: float | None, exclude: str = ""
    ) -> float:
        """A key between two neighbouring sibling keys, respreading if needed."""
        if prev is None and nxt is None:
            return ordering.after_last(self.store.last_key(parent_id))
        if nxt is None:
            assert prev is not None
            return ordering.after_last(prev)
        if prev is None:
            return nxt - ordering.APPEND_STEP
        key = ordering.between(prev, nxt)
        return key if key is not None else self._respread(parent_id, prev, nxt, exclude)

    def _respread(self, parent_id: str | None, prev: float, nxt: float, exclude: str) -> float:
        width = _WINDOW
        while True:
            below = self._keys(parent_id, nxt, True, width + 1, exclude)
            above = self._keys(parent_id, prev, False, width + 1, exclude)
            outer_lo = below[width][1] if len(below) > width else None
            outer_hi = above[width][1] if len(above) > width else None
            if outer_lo is None and outer_hi is None:
                return self._renumber(parent_id, prev, exclude)
            win_below = list(reversed(below[:width]))
            win_above = above[:width]
            plan = ordering.respread_window(
                [k for _, k in win_below], [k for _, k in win_above], outer_lo, outer_hi
            )
            if plan is not None:
                low_keys, key, high_keys = plan
                self.batch().reorder(
                    [(i, k) for (i, _), k in zip(win_below, low_keys, strict=True)]
                    + [(i, k) for (i, _), k in zip(win_above, high_keys, strict=True)]
                )
                return key
            width *= 4

    def _keys(
        self, parent_id: str | None, key: float, below: bool, limit: int, exclude: str
    ) -> list[tuple[str, float]]:
        """Up to `limit` sibling keys beyond `key` without `exclude` (limit < 0: all)."""
        found = self.store.sibling_keys(
            parent_id, key, below=below, limit=limit + 1 if limit >= 0 else -1
        )
        kept = [pair for pair in found if pair[0] != exclude]
        return kept if limit < 0 else kept[:limit]

    def _renumber(self, parent_id: str | None, prev: float, exclude: str) -> float:
        siblings = self._keys(parent_id, float("-inf"), False, -1, exclude)
        slot = sum(1 for _, k in siblings if k <= prev)
        keys = ordering.renumber(len(siblings) + 1)
        new_key = keys.pop(slot)
        self.batch().reorder([(i, k) for (i, _), k in zip(siblings, keys, strict=True)])
        return new_key

    # -- creation ------------------------------------------------------------

    def create_root(self, new: NewNode) -> Node:
        """A new root (a space, a document, a session)."""
        text, tokens = self.counted(new)
        with self.store.transaction():
            key = ordering.after_last(self.store.last_key(None))
            node = self.build_node(new, parent=None, key=key, text=text, tokens=tokens)
            self.batch().insert([node])
        return node

    def append_child(self, parent_id: str, new: NewNode) -> Node:
        """Append after the last child: order = max(sibling orders) + 1.0."""
        text, tokens = self.counted(new)
        with self.store.transaction():
            parent = self.require(parent_id)
            key = ordering.after_last(self.store.last_key(parent.id))
            node = self.build_node(new, parent=parent, key=key, text=text, tokens=tokens)
            self.batch().insert([node])
            self._touch(parent)
        return node

    def append_many(self, parent_id: str, items: Sequence[NewNode]) -> list[Node]:
        """Append many children in one transaction (the fast path for bulk loads)."""
        texts = [clean_text(item.text) for item in items]
        counts = self.tokenizer.count_many(texts)
        with self.store.transaction(), paused_gc():
            parent = self.require(parent_id)
            key = self.store.last_key(parent.id)
            now = self.now()
            labels = _Labels()
            nodes = []
            for item, text, count, node_id in zip(
                items, texts, counts, new_ids(len(items)), strict=True
            ):
                key = ordering.after_last(key)
                nodes.append(
                    self.build_node(
                        item,
                        parent=parent,
                        key=key,
                        tokens=count,
                        now=now,
                        text=text,
                        node_id=node_id,
                        labels=labels,
                    )
                )
            self.batch(now=now).insert(nodes)
            self._touch(parent)
        return nodes

    def insert_between(self, first_id: str, second_id: str, new: NewNode) -> Node:
        """Insert between two adjacent siblings at `(4a + b) / 5`."""
        text, tokens = self.counted(new)
        with self.store.transaction():
            first, second = self.require(first_id), self.require(second_id)
            if first.parent_id != second.parent_id:
                raise InvalidOperation(
                    f"{first.id} and {second.id} have different parents "
                    f"({first.parent_id} and {second.parent_id}); insert between siblings",
                    (first.id, second.id),
                )
            if first.id == second.id:
                raise InvalidOperation(f"cannot insert between {first.id} and itself", first.id)
            if (second.order_key, second.id) < (first.order_key, first.id):
                first, second = second, first
            following = self._next_sibling(first)
            if following is None or following[0] != second.id:
                raise InvalidOperation(
                    f"{first.id} and {second.id} are not adjacent "
                    f"({following[0] if following else 'nothing'} follows {first.id}); "
                    "insert between neighbouring siblings",
                    (first.id, second.id),
                )
            parent = self.store.get(first.parent_id) if first.parent_id else None
            key = self._slot(first.parent_id, first.order_key, second.order_key)
            node = self.build_node(new, parent=parent, key=key, text=text, tokens=tokens)
            if parent is None:
                node = dataclasses.replace(node, root_id=node.id)
            self.batch().insert([node])
            self._touch(first.parent_id)
        return node

    # -- edits ---------------------------------------------------------------

    def update(
        self,
        node_id: str,
        text: str | None = None,
        *,
        context_type: str | None = None,
        context_name: str | None = None,
        context_value: str | None = None,
        scope: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Node:
        """Change a node's content; recounts tokens, bumps the version, keeps history."""
        changes: dict[str, Any] = {}
        if text is not None:
            changes["text"] = clean_text(text)
        for name, value in (
            ("context_type", context_type),
            ("context_name", context_name),
            ("context_value", context_value),
        ):
            if value is not None:
                changes[name] = clean_label(value, name)
        if scope is not None:
            changes["scope"] = clean_scope(scope)
        if metadata is not None:
            changes["metadata"] = clean_metadata(metadata)
        if not changes:
            raise InvalidInput("nothing to update: give text or a field to change", node_id)
        if "text" in changes:  # counted before the write lock is taken
            changes["token_count"] = self.tokenizer.count(changes["text"])
        with self.store.transaction():
            node = self.require(node_id)
            if changes.get("scope", node.scope) != node.scope:
                self._check_summary_scope(node, changes["scope"], node.parent_id)
                self._check_shared(node, changes["scope"], node.parent_id, children=True)
            if "text" in changes and node.is_summary:
                changes["stale"] = False
            now = self.now()
            updated = dataclasses.replace(node, **changes, version=node.version + 1, updated_at=now)
            self.batch(now=now).replace([(node, updated)])
            if "text" in changes and node.text != updated.text:
                self._touch(node.parent_id)
        return updated

    def delete(self, node_id: str, *, touch: bool = True) -> int:
        """Delete a node and its descendants; every one is kept in history.
        `touch=False` leaves the summaries above fresh (retention: they stand
        for what is pruned)."""
        with self.store.transaction():
            node = self.require(node_id)
            subtree = self.store.subtree(node.id)
            self.batch().delete(subtree)
            if touch:
                self._touch(node.parent_id)
        return len(subtree)

    def move(
        self,
        node_id: str,
        *,
        parent_id: str | None = None,
        after: str | None = None,
        before: str | None = None,
    ) -> Node:
        """Re-parent (append under `parent_id`) or reorder (next to `after`/`before`)."""
        if parent_id is None and after is None and before is None:
            raise InvalidInput("move needs a target: a parent, --after or --before", node_id)
        with self.store.transaction():
            node = self.require(node_id)
            anchor_ids = [i for i in (after, before) if i is not None]
            if node.id in anchor_ids or node.id == parent_id:
                raise InvalidOperation(f"cannot move {node.id} relative to itself", node.id)
            anchors = [self.require(i) for i in anchor_ids]
            parents = {a.parent_id for a in anchors}
            if parent_id is not None:
                parents.add(self.require(parent_id).id)
            if len(parents) > 1:
                raise InvalidOperation(
                    f"move targets disagree on the parent ({sorted(map(str, parents))})",
                    sorted(map(str, parents)),
                )
            target_parent = parents.pop()
            if target_parent is None and node.parent_id is not None:
                raise InvalidOperation(f"cannot make {node.id} a root by moving it", node.id)
            self._check_not_inside(node, target_parent)
            self._check_summary_scope(node, node.scope, target_parent)
            self._check_shared(node, node.scope, target_parent, children=False)
            prev, nxt = self._move_bounds(node, target_parent, after, before)
            key = self._slot(target_parent, prev, nxt, exclude=node.id)
            parent = self.store.get(target_parent) if target_parent else None
            root_id = parent.root_id if parent else node.root_id
            now = self.now()
            moved = dataclasses.replace(
                node,
                parent_id=target_parent,
                order_key=key,
                root_id=root_id,
                version=node.version + 1,
                updated_at=now,
            )
            batch = self.batch(now=now)
            batch.replace([(node, moved)], op="move")
            if root_id != node.root_id:
                batch.reroot([n.id for n in self.store.subtree(node.id)], root_id)
            self._touch(node.parent_id)
            if target_parent != node.parent_id:
                self._touch(target_parent)
        return moved

    def _check_summary_scope(self, node: Node, scope: str, parent_id: str | None) -> None:
        """A summary and what it summarises share one scope (else text leaks across)."""
        parent = self.store.get(parent_id) if parent_id else None
        if parent is not None and parent.is_summary and parent.scope != scope:
            raise InvalidOperation(
                f"node {node.id} would be in scope {scope!r} under summary {parent.id} "
                f"in scope {parent.scope!r}; a summary and its children share one scope",
                node.id,
            )
        if node.is_summary:
            mixed = sorted({c.scope for c in self.store.children(node.id)} - {scope})
            if mixed:
                raise InvalidOperation(
                    f"summary {node.id} covers nodes in scope {mixed[0]!r}; "
                    "a summary and its children share one scope",
                    node.id,
                )

    def _check_shared(
        self, node: Node, scope: str, parent_id: str | None, *, children: bool
    ) -> None:
        """Scopes change only at a shared scope's edge: under its parent, and
        (when the node's own scope changes) above its children."""
        parent = self.store.get(parent_id) if parent_id else None
        if parent is not None and parent.scope != scope:
            check_parent(self.store, scope, parent.scope, node=node.id, parent=parent.id)
        if children:
            for child in self.store.children(node.id):
                if child.scope != scope:
                    check_parent(self.store, child.scope, scope, node=child.id, parent=node.id)

    def _check_not_inside(self, node: Node, target_parent: str | None) -> None:
        cursor = target_parent
        while cursor is not None:
            if cursor == node.id:
                raise InvalidOperation(
                    f"cannot move {node.id} under its own descendant {target_parent}",
                    target_parent,
                )
            above = self.store.get(cursor)
            cursor = above.parent_id if above else None

    def _move_bounds(
        self, node: Node, parent_id: str | None, after: str | None, before: str | None
    ) -> tuple[float | None, float | None]:
        if after is not None:
            anchor = self.require(after)
            following = self._keys(parent_id, anchor.order_key, False, 1, node.id)
            if before is not None and (not following or following[0][0] != before):
                raise InvalidOperation(f"{after} and {before} are not adjacent", (after, before))
            return anchor.order_key, following[0][1] if following else None
        if before is not None:
            anchor = self.require(before)
            preceding = self._keys(parent_id, anchor.order_key, True, 1, node.id)
            return (preceding[0][1] if preceding else None), anchor.order_key
        last = self._keys(parent_id, float("inf"), True, 1, node.id)
        return (last[0][1] if last else None), None

    # -- summaries -----------------------------------------------------------

    def add_summary(self, node_ids: Sequence[str], new: NewNode) -> Node:
        """Put a summary above contiguous siblings, at their position (the tree design).

        The nodes must share one parent and be leaves or summaries (so summaries
        of summaries work); the summary keeps them as its children.
        """
        if not node_ids:
            raise InvalidInput("add_summary needs at least one node id", list(node_ids))
        if len(set(node_ids)) != len(node_ids):
            twice = sorted(i for i in set(node_ids) if list(node_ids).count(i) > 1)
            raise InvalidInput(f"node {twice[0]} is listed twice", twice)
        text, tokens = self.counted(new)
        with self.store.transaction():
            nodes = self._summarised(node_ids)
            scopes = sorted({n.scope for n in nodes})
            parent = self.require(nodes[0].parent_id)  # type: ignore[arg-type]
            # The summary speaks for its children, not its parent: their stored scope.
            summary = self.build_node(
                new,
                parent=parent,
                key=nodes[0].order_key,
                is_summary=True,
                text=text,
                tokens=tokens,
                stored_scope=None if new.scope is not None else scopes[0],
            )
            now = summary.created_at
            batch = self.batch(now=now)
            batch.insert([summary])
            moved = [
                dataclasses.replace(n, parent_id=summary.id, version=n.version + 1, updated_at=now)
                for n in nodes
            ]
            batch.replace(list(zip(nodes, moved, strict=True)), op="move")
            self._touch(parent)
        return summary

    def _summarised(self, node_ids: Sequence[str]) -> list[Node]:
        """The nodes a summary may stand above, in order: a contiguous run of
        siblings of one parent and one scope, each a leaf or a summary."""
        nodes = sorted((self.require(i) for i in node_ids), key=lambda n: (n.order_key, n.id))
        parent_id = nodes[0].parent_id
        for node in nodes:
            if node.parent_id != parent_id:
                raise InvalidOperation(
                    f"node {node.id} has parent {node.parent_id}, not {parent_id}; "
                    "summarise siblings of one parent",
                    node.id,
                )
            if parent_id is None:
                raise InvalidOperation(
                    f"node {node.id} is a root; roots cannot be summarised", node.id
                )
            if not node.is_summary and self.store.child_count(node.id):
                raise InvalidOperation(
                    f"node {node.id} has children and is not a summary; "
                    "summarise leaves (or summaries)",
                    node.id,
                )
        following = self.store.sibling_keys(
            parent_id, nodes[0].order_key, below=False, limit=len(nodes) - 1
        )
        for expected, (found, _) in zip(nodes[1:], following, strict=False):
            if expected.id != found:
                raise InvalidOperation(
                    f"nodes are not contiguous: {found} lies between them; "
                    "summarise a run of neighbouring siblings",
                    found,
                )
        scopes = sorted({n.scope for n in nodes})
        if len(scopes) > 1:
            raise InvalidOperation(
                f"nodes have different scopes {scopes}; a summary would reveal one "
                "scope's text to another, so summarise nodes of one scope",
                scopes,
            )
        return nodes

    # -- history -------------------------------------------------------------

    def history(self, node_id: str) -> list[NodeVersion]:
        """Past states, oldest first, then the current state (if the node exists)."""
        past = self.store.versions(clean_id(node_id))
        node = self.store.get(node_id)
        if node is None and not past:
            raise not_found("node", node_id)
        if node is not None:
            past.append(NodeVersion(node.id, node.version, "current", "", node.updated_at, node))
        return past

    def restore(self, node_id: str, version: int) -> Node:
        """Bring back a past version (recreating a deleted subtree if needed)."""
        clean_id(node_id)
        with self.store.transaction():
            versions = self.store.versions(node_id)
            node = self.store.get(node_id)
            target = next((v for v in versions if v.version == version), None)
            if target is None:
                if node is not None and node.version == version:
                    raise InvalidOperation(
                        f"node {node_id} is already at version {version}", version
                    )
                known = [v.version for v in versions] + ([node.version] if node else [])
                if not known:
                    raise not_found("node", node_id)
                raise NotFound(
                    f"node {node_id} has no version {version}; known versions: {known}", version
                )
            now = self.now()
            if node is None:
                node = self._undelete(node_id, versions, now)
            restored = dataclasses.replace(
                node,
                text=target.node.text,
                token_count=self.tokenizer.count(target.node.text),
                context_type=target.node.context_type,
                context_name=target.node.context_name,
                context_value=target.node.context_value,
                scope=target.node.scope,
                metadata=target.node.metadata,
                version=node.version + 1,
                updated_at=now,
            )
            self.batch(now=now).replace([(node, restored)])
            self._touch(node.parent_id)
        return restored

    def _undelete(self, node_id: str, versions: list[NodeVersion], now: str) -> Node:
        deletions = [v for v in versions if v.op == "delete"]
        if not deletions:
            raise not_found("node", node_id)
        deletion = max(deletions, key=lambda v: v.version)
        snapshots = self.store.versions_of_change(deletion.change_id)
        parent_id = deletion.node.parent_id
        parent = self.store.get(parent_id) if parent_id else None
        if parent_id is not None and parent is None:
            raise InvalidOperation(
                f"node {node_id} was deleted with its parent {parent_id}; "
                f"restore {parent_id} first",
                parent_id,
            )
        keep = {node_id}
        subtree = []
        for snap in snapshots:  # recorded parents first
            if snap.node_id in keep or snap.node.parent_id in keep:
                keep.add(snap.node_id)
                subtree.append(snap.node)
        root_id = parent.root_id if parent else node_id
        top = subtree[0]
        if self.store.key_taken(top.parent_id, top.order_key):
            # A sibling took this position meanwhile: go just before it, keeping keys unique.
            below = self.store.sibling_keys(top.parent_id, top.order_key, below=True, limit=1)
            key = self._slot(top.parent_id, below[0][1] if below else None, top.order_key)
            subtree[0] = dataclasses.replace(top, order_key=key)
        texts = [n.text for n in subtree]
        counts = self.tokenizer.count_many(texts)
        revived = [
            dataclasses.replace(
                n, root_id=root_id, version=n.version + 1, updated_at=now, token_count=c
            )
            for n, c in zip(subtree, counts, strict=True)
        ]
        self.batch(now=now).insert(revived)
        return revived[0]


class _Labels(dict[tuple[str, object], str]):
    """Validated labels, remembered: a bulk load repeats the same few values."""

    def clean(self, what: str, value: object) -> str:
        if value == "" and what != "scope":  # the common case: no label at all
            return ""
        found = self.get((what, value))
        if found is None:
            found = clean_scope(value) if what == "scope" else clean_label(value, what)
            self[(what, value)] = found
        return found
