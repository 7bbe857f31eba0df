"""What the user is doing (the living-memory design's signals), and how it splits a budget."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from datetime import datetime, timezone

from ..errors import InvalidInput
from ..timeutil import from_iso

TIERS = ("critical", "relevant", "background", "index")
# The living-memory design's shares of the budget per tier; an activity rebalances them
# (Scenario 2: debugging grows tier 1 to 3,000 of 8,000 and shrinks tier 3).
SHARES: dict[str, tuple[float, float, float, float]] = {
    "default": (0.25, 0.375, 0.25, 0.125),
    "feature": (0.25, 0.375, 0.25, 0.125),
    "debugging": (0.375, 0.3125, 0.1875, 0.125),
    "reviewing": (0.3125, 0.3125, 0.25, 0.125),
    "refactoring": (0.25, 0.3125, 0.3125, 0.125),
    "deploying": (0.3125, 0.25, 0.3125, 0.125),
    "planning": (0.1875, 0.3125, 0.3125, 0.1875),
}
ACTIVITIES = tuple(a for a in SHARES if a != "default")
SIGNALS = ("file", "branch", "error", "activity", "time", "collaborator")
MAX_SIGNAL_CHARS = 2000


@dataclass(frozen=True)
class Signals:
    """The current situation: an open file, a branch, an error's text, an
    activity, the time (for routines) and a collaborator. All optional."""

    file: str = ""
    branch: str = ""
    error: str = ""
    activity: str = ""
    time: datetime | None = None
    collaborator: str = ""

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "time":
                if value is not None and not isinstance(value, datetime):
                    raise InvalidInput(f"signal time must be a datetime, got {value!r}", value)
                continue
            if not isinstance(value, str):
                raise InvalidInput(f"signal {f.name} must be text, got {value!r}", value)
            if len(value) > MAX_SIGNAL_CHARS:
                raise InvalidInput(
                    f"signal {f.name} is {len(value)} characters; the limit is {MAX_SIGNAL_CHARS}",
                    value[:40],
                )
        if self.activity and self.activity not in ACTIVITIES:
            raise InvalidInput(
                f"unknown activity {self.activity!r}; choose one of {list(ACTIVITIES)}",
                self.activity,
            )

    @classmethod
    def parse(cls, given: Mapping[str, object] | Iterable[str] | None) -> Signals:
        """From a mapping or `name=value` strings (the CLI's `--signal`);
        unknown names are errors that list the known ones."""
        if given is None:
            return cls()
        pairs: dict[str, object] = {}
        if isinstance(given, Mapping):
            pairs = dict(given)
        else:
            for item in given:
                name, sep, value = str(item).partition("=")
                if not sep:
                    raise InvalidInput(
                        f"a signal is name=value (e.g. file=src/auth/login.ts), got {item!r}", item
                    )
                pairs[name.strip()] = value.strip()
        unknown = sorted(set(pairs) - set(SIGNALS))
        if unknown:
            raise InvalidInput(
                f"unknown signal {unknown[0]!r}; choose from {list(SIGNALS)}", unknown[0]
            )
        time = pairs.pop("time", None)
        if isinstance(time, str):
            try:
                time = from_iso(time) if time else None
            except ValueError:
                raise InvalidInput(
                    f"signal time must be an ISO-8601 time such as 2026-03-02T09:30, got {time!r}",
                    time,
                ) from None
        return cls(time=time, **{k: v for k, v in pairs.items()})  # type: ignore[arg-type]

    def shares(self) -> tuple[float, float, float, float]:
        return SHARES[self.activity or "default"]

    def __bool__(self) -> bool:
        return any(getattr(self, f.name) for f in fields(self))


_PATH_PARTS = re.compile(r"[/\\]")
_WORDS = re.compile(r"[A-Za-z][A-Za-z0-9]+")
_GENERIC = frozenset(
    "src lib app test tests main index init py ts js tsx jsx go rs java rb md feature fix "
    "bugfix hotfix chore release dev develop master".split()
)


def file_parts(path: str) -> tuple[str, list[str], list[str]]:
    """A file signal as (its name, its folders from the nearest out, its topic
    words): "src/auth/login_flow.ts" gives "login_flow.ts", ["src/auth", "src"]
    and ["auth", "login", "flow"]."""
    parts = [p for p in _PATH_PARTS.split(path.strip()) if p and p != "."]
    if not parts:
        return "", [], []
    folders = ["/".join(parts[:i]) for i in range(len(parts) - 1, 0, -1)]
    return parts[-1], folders, topic_words(" ".join(parts))


def topic_words(text: str) -> list[str]:
    """Words of a path or branch that name a topic (not src, feature, ts…)."""
    words: list[str] = []
    for word in _WORDS.findall(text.replace("_", " ").replace("-", " ")):
        low = word.lower()
        if low not in _GENERIC and low not in words:
            words.append(low)
    return words


def situation_text(signals: Signals) -> str:
    """The topic words of the open file and the branch: what the work is about."""
    words: list[str] = []
    if signals.file:
        words += file_parts(signals.file)[2]
    if signals.branch:
        words += topic_words(signals.branch)
    return " ".join(dict.fromkeys(words))


def utc_hour(moment: datetime) -> int:
    """The hour routines are kept by: UTC, so every writer and reader agrees
    (a naive time is taken as UTC)."""
    if moment.tzinfo is None:
        return moment.hour
    return moment.astimezone(timezone.utc).hour
