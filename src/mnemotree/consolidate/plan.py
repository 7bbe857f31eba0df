"""A consolidation plan: actions, each with its step and reason, and the
policy whose thresholds produced them (the tiered- and living-memory designs)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, fields
from typing import Any

from ..errors import InvalidInput
from ..structured.typed import TYPES
from ..vocabulary import CONSOLIDATION_STEPS

MEMORY_TYPES = ("memory", *TYPES)
# Kinds of memory a person keeps on purpose: they leave when superseded or
# expired, never for disuse. Episodes fade by their levels (summary,
# compressed, index) instead of being archived.
PROTECTED_TYPES = (
    "decision",
    "constraint",
    "procedure",
    "goal",
    "preference",
    "pattern",
    "workflow",
    "entity",
    "episode",
)

STEPS = CONSOLIDATION_STEPS


@dataclass(frozen=True, slots=True)
class Policy:
    """Thresholds of each step; the defaults are the designs' numbers."""

    # Near enough to be one statement, when no value differs and no single
    # word is swapped (consolidate/dedupe.py): paraphrases of a short
    # statement are often 0.87-0.92 alike.
    duplicate_cosine: float = 0.87
    related_cosine: float = 0.80  # link discovery by similarity (below duplicates)
    # Pairs the text detectors look at (on write too): 0.40 lets 148 of the 150
    # labelled contradictions through with MiniLM; 0.55 let 133.
    contradiction_cosine: float = 0.40
    neighbours: int = 10  # vector neighbours looked at per memory
    summarise_after_days: float = 7.0
    compress_after_days: float = 30.0
    forget_after_days: float = 90.0  # unused this long: trivia may be archived
    forget_below: float = 0.3  # importance x decay of an unused memory
    # Unused this long, a note of a past one-off event needs less evidence of
    # being everyday life to be archived (`salience.EVERYDAY_PAST_LONG_UNUSED`).
    long_disuse_days: float = 365.0
    keep_importance: float = 0.8  # never forgotten as unused from this importance up
    superseded_grace_days: float = 30.0  # a superseded memory stays this long after its end
    half_life_days: float = 30.0
    promote_cited: int = 3  # cited in this many contexts since the last run: more important
    demote_retrieved: int = 5  # retrieved this often and never cited: less important
    importance_step: float = 0.1
    tag_group_max: int = 12  # shared @tags link memories only in groups this small
    co_cited_min: int = 2  # contexts two memories were both cited in
    max_links: int = 5  # new related_to links per memory and run
    decay_change: float = 0.01  # smaller changes of a stored decay are not written
    judge_max: int = 200  # similar pairs an LLM judge is asked about per run
    # Types never archived for disuse (only when superseded or expired).
    protected_types: tuple[str, ...] = PROTECTED_TYPES
    # Days unused before a memory of a type may be archived, where they differ
    # from `forget_after_days`.
    disuse_days: dict[str, float] = field(default_factory=dict)

    def disuse_after(self, kind: str) -> float | None:
        """Days unused before a memory of this type may be archived; None:
        never (a protected type)."""
        if kind in self.protected_types:
            return None
        return self.disuse_days.get(kind, self.forget_after_days)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Policy:
        """A policy from settings; unknown names and bad values are refused.
        Per-type settings also come flat, as numbers (what `--set` gives):
        `disuse_days.fact=180`, `protected.fact=1`, `protected.decision=0`."""
        known = {f.name for f in fields(cls)}
        out: dict[str, Any] = {}
        per_type: dict[str, float] = {}
        protect: dict[str, bool] = {}
        for name, value in data.items():
            group, dot, kind = name.partition(".")
            if dot and group in ("disuse_days", "protected"):
                _type_name(kind, name)
                number = _number(name, value)
                if group == "protected":
                    protect[kind] = _switch(name, number)
                else:
                    per_type[kind] = number
            elif name not in known:
                raise InvalidInput(
                    f"unknown consolidation setting {name!r}; known: {sorted(known)}", name
                )
            elif name == "protected_types":
                out[name] = _type_names(name, value)
            elif name == "disuse_days":
                out[name] = _ages(name, value)
            else:
                out[name] = _number(name, value)
        if per_type:
            out["disuse_days"] = {**out.get("disuse_days", {}), **per_type}
        if protect:
            chosen = set(out.get("protected_types", PROTECTED_TYPES))
            chosen |= {k for k, on in protect.items() if on}
            chosen -= {k for k, on in protect.items() if not on}
            out["protected_types"] = tuple(t for t in MEMORY_TYPES if t in chosen)
        return cls(**out)


def _number(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise InvalidInput(f"{name} must be a number ≥ 0, got {value!r}", value)
    return value


def _switch(name: str, value: float) -> bool:
    if value not in (0, 1):
        raise InvalidInput(f"{name} must be 1 (protected) or 0 (not), got {value!r}", value)
    return value == 1


def _type_name(kind: object, name: str) -> str:
    if kind not in MEMORY_TYPES:
        raise InvalidInput(
            f"{name}: unknown memory type {kind!r}; choose from {list(MEMORY_TYPES)}", kind
        )
    return str(kind)


def _type_names(name: str, value: object) -> tuple[str, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise InvalidInput(f"{name} must be a list of memory types, got {value!r}", value)
    chosen = {_type_name(kind, name) for kind in value}
    return tuple(t for t in MEMORY_TYPES if t in chosen)


def _ages(name: str, value: object) -> dict[str, float]:
    if not isinstance(value, dict):
        raise InvalidInput(f"{name} must map memory types to days, got {value!r}", value)
    return {_type_name(k, name): _number(f"{name}.{k}", v) for k, v in value.items()}


@dataclass(frozen=True, slots=True)
class Action:
    """One change a plan proposes. `nodes` are the memories it touches, first
    the one it changes or keeps; `data` is what applying it needs."""

    step: str
    nodes: tuple[str, ...]
    reason: str
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "nodes": list(self.nodes),
            "reason": self.reason,
            "data": self.data,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Action:
        return cls(
            str(data["step"]), tuple(data["nodes"]), str(data["reason"]), dict(data.get("data", {}))
        )


@dataclass(frozen=True, slots=True)
class Plan:
    """What a consolidation would do, computed without changing anything."""

    created_at: str
    actions: tuple[Action, ...]
    memories: int  # live memories looked at
    seconds: float = 0.0

    @property
    def summary(self) -> dict[str, int]:
        """Actions per step (decay counts the memories whose factor changes)."""
        counts: Counter[str] = Counter()
        for action in self.actions:
            counts[action.step] += len(action.nodes) if action.step == "decay" else 1
        return {step: counts[step] for step in STEPS if counts[step]}

    def to_dict(self) -> dict[str, Any]:
        return {
            "created_at": self.created_at,
            "memories": self.memories,
            "seconds": round(self.seconds, 3),
            "summary": self.summary,
            "actions": [a.to_dict() for a in self.actions],
        }


@dataclass(frozen=True, slots=True)
class Run:
    """An applied plan: what was done, what was skipped, and its id for `undo`."""

    id: str
    applied_at: str
    summary: dict[str, int]
    actions: tuple[Action, ...]
    skipped: int = 0
    undone_at: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.id,
            "applied_at": self.applied_at,
            "summary": self.summary,
            "skipped": self.skipped,
            "undone_at": self.undone_at,
            "actions": [a.to_dict() for a in self.actions],
        }
