"""Timestamps: timezone-aware UTC, stored as fixed-width ISO-8601 strings."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    """The default clock."""
    return datetime.now(timezone.utc)


def to_iso(moment: datetime) -> str:
    """Fixed-width ISO text, so that string order is time order."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).isoformat(timespec="microseconds")


def from_iso(text: str) -> datetime:
    """Parse what `to_iso` wrote (and any ISO-8601 with an offset or a Z)."""
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment
