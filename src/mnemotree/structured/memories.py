"""Typed long-term memory (`Memory.typed`): typed memories, structured facts,
episodes, patterns, workflows, relations, time travel (`valid_at`) and decay."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date
from typing import TYPE_CHECKING, Any

from ..errors import InvalidInput, NotFound
from ..jsonlimits import MAX_DEPTH, check_json
from ..model import (
    DEFAULT_SCOPE,
    NewNode,
    Node,
    NodeFilter,
    clean_id,
    clean_importance,
    clean_scope,
    clean_scopes,
)
from ..services import Part, Services
from ..store import RelationRow
from ..timeutil import to_iso
from . import typed
from .supersede import supersede

if TYPE_CHECKING:
    from ..consolidate.on_write import WriteScan

MAX_LISTED = 10_000
ACTION_STATUSES = ("open", "done")


def action_fields(owner: object, due: object) -> dict[str, str]:
    """An action item's checked fields: its owner, status open, and its due
    date (YYYY-MM-DD) if it has one."""
    if not isinstance(owner, str) or not owner.strip():
        raise InvalidInput(f"an action needs an owner (a name), got {owner!r}", owner)
    fields = {"owner": owner.strip(), "status": "open"}
    if due in (None, ""):
        return fields
    try:
        fields["due"] = date.fromisoformat(str(due)).isoformat()
    except ValueError:
        raise InvalidInput(f"due must be a date such as 2026-03-04, got {due!r}", due) from None
    return fields


class TypedMemories(Part):
    """Typed memories and what relates them; new statements are checked
    against what the memory holds as they are written (`scan`)."""

    half_life_days: float = typed.HALF_LIFE_DAYS

    def __init__(self, services: Services, scan: Callable[[], WriteScan]) -> None:
        super().__init__(services)
        self._scan = scan  # built on the first write: searching never needs it

    def _typed(self, new: NewNode, levels: list[NewNode], under: str | None) -> Node:
        scope = clean_scope(new.scope or DEFAULT_SCOPE)
        with self.store.transaction():  # a failure leaves no new space behind either
            space = self.services.space
            parent = clean_id(under, "parent id") if under is not None else space(scope)
            node = self._tree.append_child(parent, new)
            if levels:
                self._tree.append_many(node.id, levels)
        return node

    def fact(
        self,
        key: str,
        value: Any,
        *,
        applies_to: str = "",
        confidence: float = 1.0,
        scope: str | None = None,
        **options: Any,
    ) -> Node:
        """A structured fact (the living-memory design): key, value, the context it applies to
        (`applies_to`, the living-memory design's fact scope) and confidence. A valid fact of
        the same key and scope with another value is recorded as contradicting it."""
        new, under = self._fact_node(
            key, value, applies_to=applies_to, confidence=confidence, scope=scope, **options
        )
        scan = self._scan()
        answers = scan.prepare(new)  # the model's part of the scan, before the lock
        with self.store.transaction():
            node = self._typed(new, [], under)
            pending = scan.contradicted(node, answers)
        scan.judge_later(node, pending)
        return node

    def _fact(self, key: str, value: Any, **options: Any) -> Node:
        """A fact written without the scan on write (a merge's result)."""
        new, under = self._fact_node(key, value, **options)
        return self._typed(new, [], under)

    def _fact_node(
        self,
        key: str,
        value: Any,
        *,
        applies_to: str = "",
        confidence: float = 1.0,
        scope: str | None = None,
        **options: Any,
    ) -> tuple[NewNode, str | None]:
        """The fact's node as it will be written, and the parent it goes under."""
        if not isinstance(key, str) or not key.strip():
            raise InvalidInput(f"a fact needs a key such as 'error_handling', got {key!r}", key)
        # Checked before repr(): a deep value would raise RecursionError there.
        check_json(value, "value", max_depth=MAX_DEPTH - 1)
        shown = value if isinstance(value, str) else repr(value)
        text = f"{key}: {shown}" + (f" ({applies_to})" if applies_to else "")
        fields = {"key": key, "value": value, "applies_to": applies_to}
        under = options.pop("under", None)
        new = typed.typed_node(
            text,
            "fact",
            importance=options.pop("importance", None),
            extra={**options.pop("fields", {}), **fields},
            scope=scope,
            confidence=confidence,
            **options,
        )
        return new, under

    def episode(
        self,
        title: str,
        *,
        narrative: str | None = None,
        summary: str | None = None,
        compressed: str | None = None,
        index: str | None = None,
        episode_type: str = "",
        participants: Sequence[str] = (),
        outcome: str = "",
        valence: float = 0.0,
        significance: float = 0.5,
        linked: Sequence[str] = (),
        turns: tuple[int, int] | None = None,
        artifacts: Sequence[dict[str, str]] = (),
        scope: str | None = None,
        **options: Any,
    ) -> Node:
        """An episode (the tiered- and living-memory designs): its levels (full narrative, summary,
        compressed, index) are child nodes, each searchable."""
        if episode_type and episode_type not in typed.EPISODE_TYPES:
            known = list(typed.EPISODE_TYPES)
            raise InvalidInput(
                f"unknown episode type {episode_type!r}; choose one of {known}", episode_type
            )
        if not isinstance(valence, (int, float)) or not -1 <= valence <= 1:
            raise InvalidInput(f"valence must be from -1 to 1, got {valence!r}", valence)
        checked = typed.clean_artifacts(artifacts)
        if turns is not None and (len(turns) != 2 or turns[0] > turns[1]):
            raise InvalidInput(f"turns is a (first, last) range, got {turns!r}", turns)
        missing = [i for i in linked if self.store.get(i) is None]
        if missing:
            raise NotFound(f"linked memory {missing[0]!r} does not exist", missing[0])
        fields = {
            "episode_type": episode_type,
            "participants": list(participants),
            "outcome": outcome,
            "valence": valence,
            "significance": clean_importance(significance),
            "linked": list(linked),
            "turns": list(turns) if turns else None,
            "artifacts": checked,
        }
        new = typed.typed_node(title, "episode", scope=scope, extra=fields, **options)
        levels = {"full": narrative, "summary": summary, "compressed": compressed, "index": index}
        return self._typed(new, typed.level_nodes("episode", levels), None)

    def pattern(
        self,
        name: str,
        template: dict[str, Any] | str,
        hint: str,
        *,
        index: str | None = None,
        trigger: str = "",
        scope: str | None = None,
        **options: Any,
    ) -> Node:
        """A code pattern (the living-memory design): template, hint and index
        levels; `trigger` is the folder it belongs to, `fields` are kept with it."""
        shown = (
            template
            if isinstance(template, str)
            else "\n".join(f"{k}: {v}" for k, v in template.items())
        )
        extra = {**options.pop("fields", {}), "trigger": trigger, "template": template}
        new = typed.typed_node(name, "pattern", scope=scope, extra=extra, **options)
        levels = {"template": shown, "hint": hint, "index": index or name}
        return self._typed(new, typed.level_nodes("pattern", levels), None)

    def workflow(
        self,
        name: str,
        steps: Sequence[str],
        *,
        hint: str | None = None,
        details: dict[str, str] | None = None,
        trigger: str = "",
        scope: str | None = None,
        **options: Any,
    ) -> Node:
        """A workflow (the living-memory design): steps, a one-line hint, and
        optional details per step; `fields` are kept with it."""
        if isinstance(steps, str) or not steps or not all(isinstance(s, str) for s in steps):
            raise InvalidInput(f"a workflow needs a list of steps, got {steps!r}", steps)
        extra = {
            **options.pop("fields", {}),
            "trigger": trigger,
            "steps": list(steps),
            "details": details or {},
        }
        new = typed.typed_node(name, "workflow", scope=scope, extra=extra, **options)
        detail = "\n".join(f"{k}: {v}" for k, v in (details or {}).items())
        levels = {
            "details": detail,
            "steps": "\n".join(f"{i}. {s}" for i, s in enumerate(steps, 1)),
            "hint": hint or f"{name}: " + "→".join(steps),
            "index": name,
        }
        return self._typed(new, typed.level_nodes("workflow", levels), None)

    def action(
        self,
        text: str,
        *,
        owner: str,
        due: object = None,
        scope: str | None = None,
        **options: Any,
    ) -> Node:
        """An action item: what `owner` will do, by `due` (an ISO date, or
        none); open until `done`, and shown in contexts while open."""
        fields = action_fields(owner, due)
        under = options.pop("under", None)
        new = typed.typed_node(text, "action", scope=scope, extra=fields, **options)
        scan = self._scan()
        answers = scan.prepare(new)
        with self.store.transaction():
            node = self._typed(new, [], under)
            pending = scan.contradicted(node, answers)
        scan.judge_later(node, pending)
        return node

    def actions(
        self, *, scopes: Sequence[str] | None = None, status: str | None = "open", limit: int = 1000
    ) -> list[Node]:
        """Action items valid now, soonest due first (those without a date
        last); `status` open (the default), done, or None for both."""
        if status not in (None, *ACTION_STATUSES):
            raise InvalidInput(
                f"unknown action status {status!r}; use {' or '.join(ACTION_STATUSES)}", status
            )
        listed = self.memories(scopes=scopes, types=["action"], limit=limit)
        chosen = [
            m.node for m in listed if status is None or m.node.metadata.get("status") == status
        ]
        return sorted(chosen, key=lambda n: (str(n.metadata.get("due") or "9999"), n.created_at))

    def done(self, node_id: str) -> Node:
        """Mark an action item done (its open state stays in history); it
        leaves contexts."""
        node = self._tree.require(clean_id(node_id))
        if node.context_type != "action":
            raise InvalidInput(f"{node.id} is a {node.context_type} node, not an action", node.id)
        if node.metadata.get("status") == "done":
            raise InvalidInput(f"action {node.id} is already done", node.id)
        done_at = to_iso(self.clock())
        return self._tree.update(
            node.id, metadata={**node.metadata, "status": "done", "done_at": done_at}
        )

    def relate(self, source: str, target: str, type: str, *, strength: float = 1.0) -> None:
        """Relate two memories; `supersedes` also ends the target's validity
        (when the source became valid) and settles contradictions between them."""
        relation = typed.clean_relation(type)
        a, b = (self._tree.require(clean_id(i)) for i in (source, target))
        if a.id == b.id:
            raise InvalidInput(f"a memory cannot relate to itself ({a.id})", a.id)
        weight = clean_importance(strength)
        now = to_iso(self.clock())
        with self.store.transaction():
            if relation == "supersedes":
                supersede(self._tree, a, b, now, weight)
            else:
                self.store.put_relation(RelationRow(a.id, b.id, relation, weight, now))

    def relations(self, node_id: str) -> list[RelationRow]:
        """Relations from or to a memory."""
        return self.store.relations([self._tree.require(clean_id(node_id)).id])

    def memories(
        self,
        *,
        scopes: Sequence[str] | None = None,
        types: Sequence[str] = (),
        valid_at: object = None,
        include_expired: bool = False,
        limit: int = 1000,
    ) -> list[typed.TypedMemory]:
        """Typed memories valid now, newest first; `valid_at` keeps those valid
        then instead, `include_expired` lists superseded and expired ones too."""
        kinds = [typed.clean_type(t) for t in types] or list(typed.TYPES)
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LISTED:
            raise InvalidInput(f"limit must be from 1 to {MAX_LISTED}, got {limit!r}", limit)
        at = typed.clean_time(valid_at, "valid_at")
        where = NodeFilter(
            scopes=clean_scopes(scopes), valid_at=self.services.valid_at(at, include_expired)
        )
        nodes = self.store.typed_nodes(kinds, where, limit)
        return self._views(nodes)

    def _views(self, nodes: list[Node]) -> list[typed.TypedMemory]:
        accesses = self.store.access_times([n.id for n in nodes])
        levels = self._levels([n for n in nodes if n.context_type in typed.LEVELS])
        archived = self.store.archived([n.id for n in nodes])
        now = self.clock()
        return [
            typed.view(
                n,
                accesses.get(n.id, []),
                levels.get(n.id, {}),
                now,
                self.half_life_days,
                n.id in archived,
            )
            for n in nodes
        ]

    def _levels(self, nodes: list[Node]) -> dict[str, dict[str, str]]:
        """Each memory's live levels (an archived one, compressed away, is left out)."""
        found: dict[str, dict[str, str]] = {n.id: {} for n in nodes}
        for level in self.store.children_of([n.id for n in nodes], typed.LEVEL):
            found[level.parent_id or ""][level.context_name] = level.text
        return found

    def memory(self, node_id: str) -> typed.TypedMemory:
        """One typed memory with its levels, access count and decay."""
        node = self._tree.require(clean_id(node_id))
        if node.context_type not in typed.TYPES:
            kind = node.context_type or "plain"
            raise InvalidInput(f"{node.id} is a {kind} node, not a typed memory", node.id)
        return self._views([node])[0]

    def render(self, node_id: str, level: str | None = None) -> str:
        """A memory at one compression level (the most detailed by default)."""
        node = self._tree.require(clean_id(node_id))
        return typed.render_level(node, self._levels([node]).get(node.id, {}), level)

    def narrative_arc(self, *, scopes: Sequence[str] | None = None) -> dict[str, list[Node]]:
        """Episodes in thirds (beginning, middle, end) and the key moments."""
        chosen = clean_scopes(scopes)
        return typed.narrative_arc(
            self.store.typed_nodes(["episode"], NodeFilter(scopes=chosen), MAX_LISTED)
        )
