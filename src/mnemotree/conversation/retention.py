"""Retention and daily logs for chat (the documents-and-chat design).

Raw messages are kept 30 days, summaries and memory-log sections 90 days
(365 in the `admin` scope). Only what a summary still stands for and capture
has read is pruned: a message leaves once a summary above it covers it and
its turn is captured, never while it is in the live window, so pruning loses
no conversation that is not summarised and no memory not yet captured. A
summary's age is that of the newest message it covers. Deletions go through
the tree, so they stay in history (restorable). Captured typed memories are
long-term memory and are not touched here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from typing import TYPE_CHECKING

from ..errors import InvalidInput
from ..model import Node
from ..timeutil import to_iso
from ..vocabulary import MESSAGE_TYPE

if TYPE_CHECKING:
    from ..tree import Tree

ADMIN_SCOPE = "admin"
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
MESSAGES_DAYS, SUMMARIES_DAYS, ADMIN_DAYS = 30.0, 90.0, 365.0


@dataclass(frozen=True, slots=True)
class Retention:
    """Days to keep raw messages, summaries, and summaries in `admin`."""

    messages_days: float = MESSAGES_DAYS
    summaries_days: float = SUMMARIES_DAYS
    admin_days: float = ADMIN_DAYS

    def __post_init__(self) -> None:
        for name in ("messages_days", "summaries_days", "admin_days"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
                raise InvalidInput(f"{name} must be a number of days >= 0, got {value!r}", value)

    def summary_days(self, scope: str) -> float:
        return self.admin_days if scope == ADMIN_SCOPE else self.summaries_days


@dataclass
class PruneReport:
    """What a prune removed (or would remove, with `dry_run`)."""

    messages: list[str] = field(default_factory=list)
    summaries: list[str] = field(default_factory=list)
    log_sections: list[str] = field(default_factory=list)
    dry_run: bool = False

    def to_dict(self) -> dict[str, object]:
        return {
            "messages": len(self.messages),
            "summaries": len(self.summaries),
            "log_sections": len(self.log_sections),
            "dry_run": self.dry_run,
            "ids": {
                "messages": self.messages,
                "summaries": self.summaries,
                "log_sections": self.log_sections,
            },
        }


def prune_session(
    tree: Tree, session: Node, now: datetime, retention: Retention, report: PruneReport
) -> None:
    """Prune one session; the session remembers the last turn it pruned, so
    turn numbers are never reused."""
    nodes = tree.store.tree_nodes(session.id)
    by_parent: dict[str | None, list[Node]] = {}
    for node in nodes:
        by_parent.setdefault(node.parent_id, []).append(node)
    # Only what capture has read may go: a message past `captured_turn`
    # (capture failed, or is not due yet) still has memories to give.
    captured = int(session.metadata.get("captured_turn", 0))

    def read(node: Node) -> bool:
        return all(int(m.metadata.get("turn", 0)) <= captured for m in messages_under(node))

    message_cut = _cut(now, retention.messages_days)
    summary_cut = _cut(now, retention.summary_days(session.scope))
    gone_messages: list[Node] = []  # every message that goes, under a pruned summary too
    gone_summaries: list[Node] = []

    def newest(node: Node) -> str:
        """A summary's age: its newest message (its own time once none is left)."""
        below = [newest(c) for c in by_parent.get(node.id, [])]
        return max(below) if below and node.is_summary else node.created_at

    def messages_under(node: Node) -> list[Node]:
        found = [node] if node.context_type == MESSAGE_TYPE else []
        return found + [m for c in by_parent.get(node.id, []) for m in messages_under(c)]

    def visit(node: Node) -> None:
        for child in by_parent.get(node.id, []):
            if child.is_summary and newest(child) < summary_cut and read(child):
                gone_summaries.append(child)  # its whole subtree goes with it
                gone_messages.extend(messages_under(child))
            elif child.is_summary:
                visit(child)
            elif (
                child.context_type == MESSAGE_TYPE
                and node.is_summary
                and child.created_at < message_cut
                and read(child)
            ):
                gone_messages.append(child)

    visit(session)
    report.messages += [m.id for m in gone_messages]
    report.summaries += [s.id for s in gone_summaries]
    if report.dry_run or not (gone_messages or gone_summaries):
        return
    last = max([int(m.metadata.get("turn", 0)) for m in gone_messages], default=0)
    with tree.store.transaction():
        for node in gone_summaries + gone_messages:
            if tree.store.get(node.id) is not None:  # not gone with a pruned summary
                # The summary above stands for what is pruned: it is not stale.
                tree.delete(node.id, touch=False)
        current = tree.require(session.id)  # read in the write: keep others' keys
        through = max(last, int(current.metadata.get("pruned_through", 0)))
        tree.update(session.id, metadata={**current.metadata, "pruned_through": through})


def _cut(now: datetime, days: float) -> str:
    """The time before which things are old; "" (nothing is older) for
    periods longer than the calendar holds."""
    try:
        return to_iso(now - timedelta(days=days))
    except OverflowError:
        return ""


def prune_log(
    tree: Tree, root: Node, now: datetime, retention: Retention, report: PruneReport
) -> None:
    """Drop memory-log sections older than the scope's summary retention."""
    cut = _cut(now, retention.summary_days(root.scope))
    old = [s for s in tree.store.children(root.id) if s.created_at < cut]
    report.log_sections += [s.id for s in old]
    if not report.dry_run:
        with tree.store.transaction():
            for section in old:
                tree.delete(section.id)


def day_of(value: str | date | None, now: datetime) -> date:
    """A day given as YYYY-MM-DD, a date, or None for today (UTC)."""
    if value is None:
        return now.date()
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    text = str(value).strip()
    try:
        if not _DAY.fullmatch(text):  # newer Pythons also take 20260102, 2026-W01-1 …
            raise ValueError(text)
        return date.fromisoformat(text)
    except ValueError:
        raise InvalidInput(f"day must be YYYY-MM-DD, got {value!r}", value) from None


def daily_log(sessions: Sequence[tuple[Node, list[Node]]], day: date, scope_label: str) -> str:
    """The day's messages, session by session (`log/YYYY-MM-DD.md` of the
    documents-and-chat design)."""
    midnight = datetime(day.year, day.month, day.day, tzinfo=timezone.utc)
    start, end = to_iso(midnight), to_iso(midnight + timedelta(days=1))
    parts = [f"# {day.isoformat()} ({scope_label})"]
    for session, messages in sessions:
        said = [m for m in messages if start <= m.created_at < end]
        if not said:
            continue
        lines = [f"## {session.text} ({session.id})", ""]
        for message in said:
            clock = message.created_at[11:16]
            text = message.text.replace("\n", "\n  ")
            lines.append(f"- {clock} **{message.context_name}**: {text}")
        parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n"
