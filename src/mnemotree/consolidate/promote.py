"""Promoting memories from private scopes into a shared one
(`Memory.consolidation.promote`): a project's memory made from what its
people know.

Only what the caller selects moves: memories by id, or the memories of named
source scopes (optionally of some types or tags); nothing else of a private
scope is read. Each selected memory, oldest first, is compared with what the
shared scope holds:
- the same statement (near in meaning, or a little less near and reworded,
  with no value, polarity or word that differs: the duplicate rule of
  consolidation) is merged: the shared memory gains the new author and
  source, nothing is copied;
- otherwise a copy is written with its provenance (`promoted_from`, `author`)
  and checked as a new statement is on write: an update (a newer value of
  the same fact, or a statement that says it changed) supersedes the older
  one; two people's statements that disagree without saying one changed are
  an open contradiction whose reason names both authors, for a person to
  settle.
The whole promotion is one consolidation run: `consolidation.undo(run_id)`
removes the copies, the contradictions and the superseding, and gives merged
memories back their former authors. A dry run does all of it in a
transaction it rolls back, so it reports exactly what would happen.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..errors import InvalidInput, MnemotreeError
from ..ids import new_id
from ..model import NewNode, Node, NodeFilter, clean_id, clean_scope, clean_scopes, valid_since
from ..services import Part, Services
from ..store import RunRow
from ..structured import typed
from .apply import Applier
from .contradictions import SAME_KEY, UPDATE, Change, row, verdict
from .dedupe import REWORDED_MARGIN, reworded, values_differ
from .on_write import WriteScan
from .plan import MEMORY_TYPES, Action, Policy

CANDIDATES = 10  # shared memories compared with each promoted one
MAX_SELECTED = 10_000


@dataclass
class Promotion:
    """What a promotion did (or, dry, would do): per memory, what happened."""

    run_id: str
    into: str
    dry_run: bool
    actions: list[Action] = field(default_factory=list)

    @property
    def summary(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for action in self.actions:
            counts[action.step] = counts.get(action.step, 0) + 1
        return counts

    def to_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "into": self.into,
            "dry_run": self.dry_run,
            "summary": self.summary,
            "actions": [a.to_dict() for a in self.actions],
        }


class Selection(NamedTuple):
    """What a caller chose to promote: memories by id, or those of source
    scopes (of some types or tags, if given)."""

    ids: Sequence[str]
    sources: Sequence[str]
    types: Sequence[str]
    tags: Sequence[str]


class _DryRun(MnemotreeError):
    """Raised to roll a dry run's transaction back."""


class Promoter(Part):
    """Moves selected private memories into a shared scope (see the module)."""

    def __init__(self, services: Services, scan: WriteScan) -> None:
        super().__init__(services)
        self._scan = scan
        self.duplicate_cosine = Policy().duplicate_cosine
        # Each change is logged with its inverse, as a consolidation run's are.
        self._applier = Applier(self.store, self._tree, services.space)

    def promote(self, into: str, selection: Selection, dry_run: bool) -> Promotion:
        target = clean_scope(into)
        chosen = self._selected(target, *selection)
        now = self.services.now()
        done = Promotion(new_id(), target, dry_run)
        undo: list[dict[str, Any]] = []
        try:
            with self.store.transaction():
                for node in chosen:
                    done.actions.append(self._one(node, target, now, undo))
                if dry_run:
                    raise _DryRun("dry run", None)
                self.store.put_run(
                    RunRow(
                        done.run_id,
                        now,
                        now,
                        done.summary,
                        tuple(a.to_dict() for a in done.actions),
                        tuple(undo),
                        None,
                    )
                )
        except _DryRun:
            done.run_id = ""
        return done

    def _selected(
        self,
        target: str,
        ids: Sequence[str],
        sources: Sequence[str],
        types: Sequence[str],
        tags: Sequence[str],
    ) -> list[Node]:
        """The memories the caller chose, oldest first (by when each became valid)."""
        if isinstance(ids, str) or isinstance(sources, str):
            given = ids if isinstance(ids, str) else sources
            raise InvalidInput(f"ids and sources are lists of strings, got {given!r}", given)
        if not ids and not sources:
            raise InvalidInput(
                "choose what to promote: memory ids, or the source scopes to take them "
                "from (nothing private is copied unless chosen)",
                None,
            )
        scopes = clean_scopes(sources) or ()
        if target in scopes:
            raise InvalidInput(f"{target!r} is the scope promoted into, not a source", target)
        found: dict[str, Node] = {}
        for node_id in ids:
            node = self._tree.require(clean_id(node_id))
            if node.scope == target:
                raise InvalidInput(f"{node.id} is already in {target!r}", node.id)
            if node.context_type not in MEMORY_TYPES:
                kind = node.context_type or "plain"
                raise InvalidInput(f"{node.id} is a {kind} node, not a memory", node.id)
            found[node.id] = node
        if scopes:
            kinds = [typed.clean_type(t) for t in types] or list(MEMORY_TYPES)
            where = NodeFilter(scopes=scopes, valid_at=self.services.now())
            wanted = {t.strip().lower().lstrip("@") for t in tags}
            for node in self.store.typed_nodes(kinds, where, MAX_SELECTED):
                if not wanted or wanted & set(node.metadata.get("tags", [])):
                    found[node.id] = node
        archived = self.store.archived(list(found))
        kept = [n for n in found.values() if n.id not in archived]
        return sorted(kept, key=lambda n: (valid_since(n), n.id))

    def _one(self, node: Node, target: str, now: str, undo: list[dict[str, Any]]) -> Action:
        author = _author(node)
        same = self._duplicate(node, target, now)
        if same is not None:
            authors = sorted({*_authors(same), author})
            sources = [*same.metadata.get("promoted_from", []), node.id]
            meta = {**same.metadata, "authors": authors, "promoted_from": sources}
            self._applier.set_node(same, dataclasses.replace(same, metadata=meta), now, undo)
            return Action("merge", (same.id,), f"{author} said the same", {"source": node.id})
        copy = self._copy(node, target, author, now)
        undo.append({"op": "delete", "ids": [copy.id]})
        action = Action("promote", (copy.id,), f"from {author}", {"source": node.id})
        for change in self._scan.changes(copy, self._scan.prepare()):
            action.data.setdefault("found", []).append(
                self._settle(change, copy, author, now, undo)
            )
        return action

    def _duplicate(self, node: Node, target: str, now: str) -> Node | None:
        where = NodeFilter(scopes=(target,), valid_at=now)
        hits = self.retriever.search(node.text, where, CANDIDATES, self.services.weights, False)
        alike = [h.node for h in hits if h.node.context_type in MEMORY_TYPES]
        if not alike:
            return None
        vectors = self.retriever.embedder.embed_batch([node.text, *(n.text for n in alike)])
        for other, vector in zip(alike, vectors[1:], strict=True):
            if other.text.strip().lower() == node.text.strip().lower():
                return other
            cosine = float(vector @ vectors[0])
            near = cosine >= self.duplicate_cosine or (
                cosine >= self.duplicate_cosine - REWORDED_MARGIN and reworded(node, other)
            )
            older, newer = sorted((node, other), key=valid_since)
            if near and values_differ(older.text, newer.text) is None:
                return other
        return None

    def _copy(self, node: Node, target: str, author: str, now: str) -> Node:
        meta = {**node.metadata, "author": author, "promoted_from": [node.id], "promoted_at": now}
        meta.setdefault("valid_from", valid_since(node))
        new = NewNode(
            node.text,
            node.context_type,
            node.context_name,
            node.context_value,
            scope=target,
            metadata=meta,
            importance=node.importance,
        )
        copy = self._tree.append_child(self.services.space(target), new)
        levels = self.store.children_of([node.id], typed.LEVEL)
        if levels:
            self._tree.append_many(
                copy.id, [NewNode(lv.text, typed.LEVEL, lv.context_name) for lv in levels]
            )
        return copy

    def _settle(
        self, change: Change, copy: Node, author: str, now: str, undo: list[dict[str, Any]]
    ) -> dict[str, str]:
        """Record one finding about a copy: an update supersedes (by time);
        people who disagree without saying it changed get a contradiction
        naming both."""
        other = _author(change.earlier)
        status = verdict(change, copy)
        people = other != author and change.kind != SAME_KEY and not change.says_changed
        if status == UPDATE and people:
            status = "open"
        found = row(change, copy, status, now)
        if other != author:
            found = found._replace(
                reason=f"{other} said {change.earlier.text!r}; {author} said {copy.text!r} "
                f"({change.reason})"
            )
        if not self.store.put_contradiction(found):
            return {"with": change.earlier.id, "status": "known"}
        undo.append({"op": "drop_contradiction", "id": found.id})
        if status == UPDATE:
            older = self.store.get(change.earlier.id) or change.earlier
            self._applier.supersede(copy, older, now, undo)
        return {"with": change.earlier.id, "status": status, "reason": found.reason}


def _author(node: Node) -> str:
    """Who said it: the author a promoted memory carries, else its scope."""
    return str(node.metadata.get("author") or node.scope)


def _authors(node: Node) -> list[str]:
    given = node.metadata.get("authors")
    return [str(a) for a in given] if isinstance(given, list) else [_author(node)]
