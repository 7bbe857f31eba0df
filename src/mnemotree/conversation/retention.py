"""Retention and daily logs for chat (seed 002 §3.4).

Raw messages are kept 30 days, summaries and memory-log sections 90 days
(365 in the `admin` scope). Only what a summary still stands for is pruned:
a message leaves once a summary above it covers it, never while it is in the
live window, so pruning loses no conversation that is not summarised. A
summary's age is that of the newest message it covers. Deletions go through
the tree, so they stay in history (restorable). Captured typed memories are
long-term memory and are not touched here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone

from ..errors import InvalidInput
from ..model import Node
from ..timeutil import to_iso
from ..tree import Tree
from .session import MESSAGE_TYPE

ADMIN_SCOPE = "admin"
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
            "messages": len(self.messages), "summaries": len(self.summaries),
            "log_sections": len(self.log_sections), "dry_run": self.dry_run,
            "ids": {"messages": self.messages, "summaries": self.summaries,
                    "log_sections": self.log_sections},
        }  # fmt: skip


def prune_session(
    tree: Tree, session: Node, now: datetime, retention: Retention, report: PruneReport
) -> int:
    """Prune one session; returns how many messages it lost (for turn numbers)."""
    nodes = tree.store.tree_nodes(session.id)
    by_parent: dict[str | None, list[Node]] = {}
    for node in nodes:
        by_parent.setdefault(node.parent_id, []).append(node)
    message_cut = to_iso(now - timedelta(days=retention.messages_days))
    summary_cut = to_iso(now - timedelta(days=retention.summary_days(session.scope)))
    gone_messages: list[str] = []
    gone_summaries: list[str] = []

    def newest(node: Node) -> str:
        below = [newest(c) for c in by_parent.get(node.id, [])]
        return max([node.created_at, *below]) if node.is_summary else node.created_at

    def visit(node: Node) -> None:
        for child in by_parent.get(node.id, []):
            if child.is_summary and newest(child) < summary_cut:
                gone_summaries.append(child.id)  # its whole subtree goes with it
            elif child.is_summary:
                visit(child)
            elif (
                child.context_type == MESSAGE_TYPE
                and node.is_summary
                and child.created_at < message_cut
            ):
                gone_messages.append(child.id)

    visit(session)
    lost = len(gone_messages) + sum(
        1 for s in gone_summaries for n in tree.store.subtree(s) if n.context_type == MESSAGE_TYPE
    )
    report.messages += gone_messages
    report.summaries += gone_summaries
    if report.dry_run or (not lost and not gone_summaries):
        return lost
    with tree.store.transaction():
        for node_id in gone_summaries + gone_messages:
            # The summary above stands for what is pruned: it is not stale.
            tree.delete(node_id, touch=False)
        meta = {**session.metadata, "pruned": int(session.metadata.get("pruned", 0)) + lost}
        tree.update(session.id, metadata=meta)
    return lost


def prune_log(
    tree: Tree, root: Node, now: datetime, retention: Retention, report: PruneReport
) -> None:
    """Drop memory-log sections older than the scope's summary retention."""
    cut = to_iso(now - timedelta(days=retention.summary_days(root.scope)))
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
    try:
        return date.fromisoformat(str(value).strip())
    except ValueError:
        raise InvalidInput(f"day must be YYYY-MM-DD, got {value!r}", value) from None


def daily_log(sessions: Sequence[tuple[Node, list[Node]]], day: date, scope_label: str) -> str:
    """Seed 002's `log/YYYY-MM-DD.md`: the day's messages, session by session."""
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
