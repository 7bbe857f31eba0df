"""Applying a plan's actions, and undoing them: every change an action makes
is recorded as its inverse, so a run can be reversed exactly. Nothing is
deleted except what a run itself created, and only by its undo."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from ..errors import SchemaError
from ..ids import new_id
from ..model import NewNode, Node, valid_since
from ..store import ContradictionRow, RelationRow, Store
from ..structured.typed import LEVEL, LEVELS, level_nodes, superseded_end, typed_node
from ..tree import Tree
from .plan import Action

Undo = list[dict[str, Any]]


class Applier:
    """Runs actions inside the caller's transaction; `undo` reverses their log."""

    def __init__(self, store: Store, tree: Tree, space: Callable[[str], str]) -> None:
        self.store = store
        self.tree = tree
        self.space = space  # the root of a scope's loose memories (made on first use)

    def apply(self, action: Action, now: str, undo: Undo) -> bool:
        """Apply one action, appending its inverse to `undo`; False (and no
        change) when the memories it names changed since it was planned."""
        nodes = self.store.get_many(list(action.nodes))
        if len(nodes) != len(set(action.nodes)):
            return False  # a memory was deleted since
        if action.step != "decay" and self.store.archived(list(action.nodes)):
            return False  # already archived (by hand, or by an earlier action)
        by_id = {n.id: n for n in nodes}
        handler = getattr(self, f"_{action.step}")
        return bool(handler(action, by_id, now, undo))

    def _decay(self, action: Action, nodes: dict[str, Node], now: str, undo: Undo) -> bool:
        values: dict[str, float] = action.data["values"]
        undo.append({"op": "decay", "values": self.store.decays(list(values))})
        self.store.set_decay(list(values.items()))
        return True

    def _archive(self, node_ids: list[str], now: str, undo: Undo) -> None:
        subtree = [n.id for i in node_ids for n in self.store.subtree(i)]
        done = self.store.archive(subtree, now)
        if done:
            undo.append({"op": "unarchive", "ids": done})

    def set_node(self, before: Node, after: Node, now: str, undo: Undo) -> None:
        """Replace a node's fields (metadata, importance), keeping its history."""
        undo.append({"op": "node", "state": before.to_dict()})
        changed = dataclasses.replace(after, version=before.version + 1, updated_at=now)
        self.tree.batch(now=now).replace([(before, changed)])

    def _relate(self, row: RelationRow, undo: Undo) -> None:
        if not self.store.relations_between(row.source_id, row.target_id, row.type):
            self.store.put_relation(row)
            undo.append({"op": "unrelate", "row": list(row[:3])})

    def _dedupe(self, action: Action, nodes: dict[str, Node], now: str, undo: Undo) -> bool:
        keeper, others = nodes[action.nodes[0]], [nodes[i] for i in action.nodes[1:]]
        meta = {**keeper.metadata, "merged_from": _merged_from(keeper, others)}
        tags = sorted({t for n in (keeper, *others) for t in n.metadata.get("tags", [])})
        if tags:
            meta["tags"] = tags
        importance = max(float(action.data.get("importance", 0)), keeper.importance)
        start = action.data.get("valid_from")
        if start is not None and str(start) < valid_since(keeper):
            meta["valid_from"] = str(start)  # the older wording held the same fact since then
        merged = dataclasses.replace(keeper, metadata=meta, importance=importance)
        self._absorb(keeper, merged, others, now, undo)
        return True

    def _merge(self, action: Action, nodes: dict[str, Node], now: str, undo: Undo) -> bool:
        keeper, others = nodes[action.nodes[0]], [nodes[i] for i in action.nodes[1:]]
        meta = {
            **keeper.metadata,
            "turns": action.data["turns"],
            "participants": action.data["participants"],
            "merged_from": _merged_from(keeper, others),
        }
        self._absorb(keeper, dataclasses.replace(keeper, metadata=meta), others, now, undo)
        return True

    def _absorb(self, keeper: Node, merged: Node, others: list[Node], now: str, undo: Undo) -> None:
        """`keeper` becomes `merged`; the others are archived, derived from it."""
        self.set_node(keeper, merged, now, undo)
        for other in others:
            self._relate(RelationRow(keeper.id, other.id, "derived_from", 1.0, now), undo)
        self._archive([n.id for n in others], now, undo)

    def _add_levels(self, node: Node, levels: dict[str, str], undo: Undo) -> None:
        have = {c.context_name for c in self.store.children_of([node.id], LEVEL)}
        order = LEVELS[node.context_type]
        wanted = [n for n in order if n in levels and n not in have and levels[n].strip()]
        new = [NewNode(levels[name], LEVEL, context_name=name) for name in wanted]
        if new:
            made = self.tree.append_many(node.id, new)
            undo.append({"op": "delete", "ids": [n.id for n in made]})

    def _summarise(self, action: Action, nodes: dict[str, Node], now: str, undo: Undo) -> bool:
        self._add_levels(nodes[action.nodes[0]], action.data["levels"], undo)
        return True

    def _compress(self, action: Action, nodes: dict[str, Node], now: str, undo: Undo) -> bool:
        self._add_levels(nodes[action.nodes[0]], action.data["levels"], undo)
        self._archive(list(action.data.get("archive", [])), now, undo)
        return True

    def _refresh(self, action: Action, nodes: dict[str, Node], now: str, undo: Undo) -> bool:
        summary = nodes[action.nodes[0]]
        if not summary.stale:
            return False  # written again since the plan
        undo.append({"op": "node", "state": summary.to_dict()})
        self.tree.update(summary.id, action.data["text"])
        return True

    def _rerank(self, action: Action, nodes: dict[str, Node], undo: Undo) -> bool:
        node = nodes[action.nodes[0]]
        if abs(node.importance - float(action.data["from"])) > 1e-9:
            return False  # its importance changed since the plan
        undo.append({"op": "importance", "values": {node.id: node.importance}})
        self.store.set_importance([(node.id, float(action.data["to"]))])
        return True

    def _promote(self, action: Action, nodes: dict[str, Node], now: str, undo: Undo) -> bool:
        return self._rerank(action, nodes, undo)

    def _demote(self, action: Action, nodes: dict[str, Node], now: str, undo: Undo) -> bool:
        return self._rerank(action, nodes, undo)

    def _forget(self, action: Action, nodes: dict[str, Node], now: str, undo: Undo) -> bool:
        self._archive(list(action.nodes), now, undo)
        return True

    def _link(self, action: Action, nodes: dict[str, Node], now: str, undo: Undo) -> bool:
        a, b = action.nodes
        if self.store.relations_between(a, b, None) or self.store.relations_between(b, a, None):
            return False
        self._relate(RelationRow(a, b, "related_to", float(action.data["strength"]), now), undo)
        return True

    def _patterns(self, action: Action, nodes: dict[str, Node], now: str, undo: Undo) -> bool:
        """A code pattern memory made, brought up to date, or archived."""
        data, first = action.data, nodes[action.nodes[0]]
        if data["op"] == "archive":
            self._archive([first.id], now, undo)
            return True
        levels = {"template": data["template"], "hint": data["hint"], "index": data["name"]}
        if data["op"] == "update":
            meta = {**first.metadata, **data["fields"]}
            self.set_node(first, dataclasses.replace(first, metadata=meta), now, undo)
            for level in self.store.children_of([first.id], LEVEL):
                text = levels.get(level.context_name)
                if text is not None and text != level.text:
                    undo.append({"op": "node", "state": level.to_dict()})
                    self.tree.update(level.id, text)
            return True
        extra = {**data["fields"], "template": data["template"]}
        new = typed_node(data["name"], "pattern", scope=data["scope"], extra=extra)
        made = self.tree.append_child(self.space(data["scope"]), new)
        self.tree.append_many(made.id, level_nodes("pattern", levels))
        undo.append({"op": "delete", "ids": [made.id]})
        return True

    def _contradiction(self, action: Action, nodes: dict[str, Node], now: str, undo: Undo) -> bool:
        """An open contradiction or a candidate to review is recorded; an
        update is recorded resolved, and the later memory supersedes the earlier."""
        a, b = action.nodes
        status = str(action.data.get("status", "open"))  # plans saved before updates
        done = status == "update"
        row = ContradictionRow(
            new_id(),
            a,
            b,
            str(action.data["kind"]),
            action.reason,
            nodes[a].scope,
            now,
            "resolved" if done else status,
            "update" if done else None,
            "",
            now if done else None,
        )
        if not self.store.put_contradiction(row):
            return False
        undo.append({"op": "drop_contradiction", "id": row.id})
        if done:
            self.supersede(nodes[b], nodes[a], now, undo)
        return True

    def supersede(self, newer: Node, older: Node, now: str, undo: Undo) -> None:
        self._relate(RelationRow(newer.id, older.id, "supersedes", 1.0, now), undo)
        end = superseded_end(newer, older)
        if end is not None:
            meta = {**older.metadata, "valid_to": end}
            self.set_node(older, dataclasses.replace(older, metadata=meta), now, undo)

    def undo(self, ops: Undo, now: str) -> None:
        """Reverse a run's log, last change first."""
        for op in reversed(ops):
            kind = op["op"]
            if kind == "decay":
                self.store.set_decay(list(op["values"].items()))
            elif kind == "unarchive":
                self.store.unarchive(op["ids"])
            elif kind == "importance":
                self.store.set_importance(list(op["values"].items()))
            elif kind == "unrelate":
                self.store.delete_relation(*op["row"])
            elif kind == "drop_contradiction":
                self.store.delete_contradiction(op["id"])
            elif kind == "delete":
                for node_id in op["ids"]:
                    if self.store.get(node_id) is not None:
                        self.tree.delete(node_id)
            elif kind == "node":
                before = Node.from_dict(op["state"])
                current = self.store.get(before.id)
                if current is not None:
                    self.set_node(current, before, now, [])
            else:  # a log written by a newer version
                raise SchemaError(
                    f"this run's undo log has an operation {kind!r} this version does not "
                    "know; undo it with the version of mnemotree that applied it",
                    kind,
                )


def _merged_from(keeper: Node, others: list[Node]) -> list[str]:
    """Provenance: every memory merged into `keeper`, over all runs."""
    return sorted({*keeper.metadata.get("merged_from", []), *(n.id for n in others)})
