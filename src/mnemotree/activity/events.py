"""What the user did (`Memory.activity`): recorded events, and the workflows
found in them.

An event is a node under its scope's event log root: its text is
`kind: detail` (so "when did I last deploy?" finds it), its fields keep the
kind, detail, time, outcome and the situation (file, branch, activity).
Workflows found in the log are typed workflow memories; finding them again
updates the same memory (matched by its steps) instead of adding another.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import InvalidInput
from ..model import DEFAULT_SCOPE, NewNode, Node, NodeFilter, clean_scope, clean_scopes
from ..retrieval.search import CONTAINER
from ..services import Part, Services, moment
from ..structured.memories import TypedMemories
from ..structured.typed import LEVEL
from ..timeutil import from_iso, to_iso
from ..vocabulary import MESSAGE_TYPE, SESSION_TYPE
from . import mining
from .chat_steps import chat_events

LOG = "events"
EVENT = "event"
OUTCOMES = ("ok", "fail")
MAX_KIND = 40
MAX_DETAIL = 2000
SITUATION = ("file", "branch", "activity")
EXAMPLES = 20  # occurrences kept on a workflow as its evidence


@dataclass
class Detected:
    """What one detection found, and what it wrote."""

    events: int
    sessions: int
    workflows: list[dict[str, Any]] = field(default_factory=list)
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "events": self.events,
            "sessions": self.sessions,
            "workflows": self.workflows,
            "created": self.created,
            "updated": self.updated,
        }


class Activity(Part):
    """Recorded events and the workflows they show."""

    def __init__(self, services: Services, typed: TypedMemories) -> None:
        super().__init__(services)
        self.typed = typed

    def record(
        self,
        kind: str,
        detail: str = "",
        signals: Mapping[str, str] | None = None,
        *,
        outcome: str | None = None,
        at: str | None = None,
        scope: str | None = None,
    ) -> Node:
        """Record that something happened: a command run (`kind="command"`,
        `detail="pytest -q"`), a test, a deploy… `signals` say where (file,
        branch, activity), `outcome` whether it went well (ok or fail), `at`
        when (now by default)."""
        fields = _event_fields(kind, detail, signals, outcome)
        fields["at"] = moment(at, "at") or self.services.now()
        chosen = clean_scope(scope or DEFAULT_SCOPE)
        text = f"{fields['kind']}: {fields['detail']}" if fields["detail"] else fields["kind"]
        new = NewNode(text, EVENT, fields["kind"], scope=chosen, metadata=fields, importance=0.2)
        with self.store.transaction():
            return self._tree.append_child(self._log(chosen), new)

    def events(
        self,
        *,
        scopes: Sequence[str] | None = None,
        since: str | None = None,
        until: str | None = None,
        kinds: Sequence[str] = (),
        limit: int = 1000,
    ) -> list[Node]:
        """Recorded events, oldest first, of `kinds` (all by default) between
        `since` and `until`; at most `limit` (the latest ones)."""
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise InvalidInput(f"limit must be a positive number, got {limit!r}", limit)
        return self._logged(clean_scopes(scopes), since, until, kinds)[-limit:]

    def _logged(
        self,
        scopes: Sequence[str] | None,
        since: str | None,
        until: str | None,
        kinds: Sequence[str],
    ) -> list[Node]:
        """Every recorded event in `scopes` of `kinds` between the times, oldest first."""
        start, end = moment(since, "since"), moment(until, "until")
        wanted = {k.strip().lower() for k in kinds}
        found = [
            node
            for root in self.store.roots_of_type(LOG, scopes)
            for node in self.store.tree_nodes(root.id)
            if node.context_type == EVENT
            and (not wanted or node.context_name in wanted)
            and (start is None or str(node.metadata.get("at")) >= start)
            and (end is None or str(node.metadata.get("at")) <= end)
        ]
        found.sort(key=lambda n: (str(n.metadata.get("at")), n.id))
        return found

    def detect_workflows(
        self,
        *,
        scope: str | None = None,
        since: str | None = None,
        min_support: int = mining.MIN_SUPPORT,
        dry_run: bool = False,
    ) -> Detected:
        """Find repeated ordered step sequences in the scope's events (and the
        shell commands said in its chat sessions) and keep each as a workflow
        memory with its trigger (activity, branch pattern,
        file area), how often it was seen and how often it went well.
        `dry_run` reports without writing."""
        if isinstance(min_support, bool) or not isinstance(min_support, int) or min_support < 2:
            raise InvalidInput(f"min_support must be 2 or more, got {min_support!r}", min_support)
        chosen = clean_scope(scope or DEFAULT_SCOPE)
        nodes = self._logged([chosen], since, None, ())
        events = [_as_event(n) for n in nodes] + self._said(chosen, moment(since, "since"))
        found = mining.mine(events, min_support=min_support)
        report = Detected(len(events), len(mining.sessions(events)))
        existing = {
            tuple(n.metadata.get("mined_steps") or ()): n
            for n in self.store.typed_nodes(["workflow"], NodeFilter(scopes=(chosen,)), 10_000)
            if n.metadata.get("mined_steps")
        }
        for workflow in found:
            fields = _workflow_fields(workflow)
            report.workflows.append({"name": _name(workflow.steps), **fields})
            if dry_run:
                continue
            with self.store.transaction():
                old = existing.get(tuple(workflow.steps))
                if old is None:
                    report.created.append(self._write(workflow, fields, chosen).id)
                else:
                    self._refresh(old, workflow, fields)
                    report.updated.append(old.id)
        return report

    def _said(self, scope: str, since: str | None) -> list[mining.Event]:
        """Commands run or told to run in the scope's chat sessions."""
        found: list[mining.Event] = []
        for session in self.store.roots_of_type(SESSION_TYPE, [scope]):
            messages = [
                n
                for n in self.store.tree_nodes(session.id)
                if n.context_type == MESSAGE_TYPE and (since is None or n.created_at >= since)
            ]
            messages.sort(key=lambda n: (n.created_at, n.id))
            found += chat_events(session, messages)
        return found

    def _write(self, workflow: mining.Found, fields: dict[str, Any], scope: str) -> Node:
        hint, details = _described(workflow)
        return self.typed.workflow(
            _name(workflow.steps),
            [_shown(step) for step in workflow.steps],
            hint=hint,
            details=details,
            trigger=workflow.trigger().get("activity", ""),
            scope=scope,
            source="events",
            fields=fields,
        )

    def _refresh(self, old: Node, workflow: mining.Found, fields: dict[str, Any]) -> None:
        """A workflow found again: its counts, trigger and the levels that show them."""
        hint, details = _described(workflow)
        trigger = workflow.trigger().get("activity", "")
        meta = {**old.metadata, **fields, "trigger": trigger, "details": details}
        if meta == old.metadata:
            return
        self._tree.update(old.id, metadata=meta)
        texts = {"hint": hint, "details": "\n".join(f"{k}: {v}" for k, v in details.items())}
        for level in self.store.children_of([old.id], LEVEL):
            text = texts.get(level.context_name)
            if text is not None and text != level.text:
                self._tree.update(level.id, text)

    def _log(self, scope: str) -> str:
        """The root holding a scope's events, made on first use."""
        found = self.store.roots_of_type(LOG, [scope])
        if found:
            return found[0].id
        root = NewNode(f"Events ({scope})", LOG, "", scope, scope=scope, metadata={CONTAINER: True})
        return self._tree.create_root(root).id


def _event_fields(
    kind: object, detail: object, signals: Mapping[str, str] | None, outcome: object
) -> dict[str, Any]:
    if not isinstance(kind, str) or not kind.strip() or len(kind) > MAX_KIND:
        raise InvalidInput(
            f"an event's kind is a short word such as 'command', 'test' or 'deploy', got {kind!r}",
            kind,
        )
    if not isinstance(detail, str) or len(detail) > MAX_DETAIL:
        shown = detail[:40] if isinstance(detail, str) else detail
        raise InvalidInput(f"an event's detail is text of at most {MAX_DETAIL} characters", shown)
    if outcome not in (None, "", *OUTCOMES):
        raise InvalidInput(f"outcome must be one of {list(OUTCOMES)}, got {outcome!r}", outcome)
    situation: dict[str, str] = {}
    for name, value in (signals or {}).items():
        if name not in SITUATION:
            known = list(SITUATION)
            raise InvalidInput(f"unknown event signal {name!r}; choose from {known}", name)
        if not isinstance(value, str):
            raise InvalidInput(f"event signal {name} must be text, got {value!r}", value)
        if value.strip():
            situation[name] = value.strip()
    return {
        "kind": kind.strip().lower(),
        "detail": " ".join(detail.split()),
        "outcome": outcome or "",
        "signals": situation,
    }


def _as_event(node: Node) -> mining.Event:
    meta = node.metadata
    signals = meta.get("signals") or {}
    return mining.Event(
        node.id,
        from_iso(str(meta.get("at") or node.created_at)),
        mining.step_of(str(meta.get("kind") or node.context_name), str(meta.get("detail") or "")),
        str(meta.get("outcome") or ""),
        str(signals.get("activity", "")),
        str(signals.get("branch", "")),
        str(signals.get("file", "")),
    )


def _workflow_fields(workflow: mining.Found) -> dict[str, Any]:
    trigger = workflow.trigger()
    examples = workflow.occurrences[-EXAMPLES:]
    return {
        "mined_steps": workflow.steps,
        "optional_steps": workflow.optional,
        "support": workflow.support,
        "sessions": workflow.sessions,
        "success": workflow.success,
        "trigger_branch": trigger.get("branch", ""),
        "trigger_area": trigger.get("area", ""),
        "last_seen": to_iso(workflow.occurrences[-1][0].at),
        "examples": [[e.id for e in events] for events in examples],
    }


def _described(workflow: mining.Found) -> tuple[str, dict[str, str]]:
    """The workflow's one-line hint and its details (optional steps, how it went)."""
    shown = [_shown(step) for step in workflow.steps]
    seen = f"seen {workflow.support} times"
    if workflow.success is not None:
        seen += f", went well {round(100 * workflow.success)}% of them"
    details = {_shown(step): "optional" for step in workflow.optional}
    return f"{' → '.join(shown)} ({seen})", {**details, "observed": seen}


def _shown(step: str) -> str:
    kind, _, head = step.partition(": ")
    return head if kind == "command" and head else step


def _name(steps: Sequence[str]) -> str:
    return " → ".join(_shown(s) for s in steps)
