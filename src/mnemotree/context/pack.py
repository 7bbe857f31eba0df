"""Packing candidates into tiers at mixed resolution, within exact token budgets.

Each candidate offers renderings from most to least detailed (full, summary,
compressed, index). A tier first gives every candidate, best first, its
cheapest rendering while it fits (so many relevant memories are at least
named), then upgrades them, best first, to the most detailed rendering the
remaining budget allows: a relevance-aware partial expansion rather than a
breadth-first one. Counts are exact (the tokenizer runs on the final text)
and ties break by node id, so the same inputs give the same context.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

Count = Callable[[str], int]

TITLES = {
    "critical": "Critical",
    "relevant": "Relevant",
    "background": "Background",
    "index": "Index",
}


@dataclass(frozen=True)
class Candidate:
    """Something a tier may hold: a node (or a group it stands for), why, how
    much it matters (`priority`, higher first) and its renderings."""

    node_id: str
    priority: float
    reason: str
    renderings: tuple[tuple[str, str], ...]  # (level, text), most detailed first
    covers: tuple[str, ...] = ()  # other nodes this item stands for
    show_id: bool = True  # the line names its node id (traceable answers)

    def line(self, index: int) -> str:
        text = " ".join(self.renderings[index][1].split())
        return f"- {text} [{self.node_id}]" if self.show_id and self.node_id else f"- {text}"


@dataclass
class Item:
    """A placed candidate: the level it was rendered at and its exact tokens."""

    node_id: str
    level: str
    text: str
    tokens: int
    priority: float
    reason: str
    covers: tuple[str, ...] = ()
    full: bool = True  # rendered at its most detailed level

    def to_dict(self) -> dict[str, Any]:
        return {
            "node_id": self.node_id, "level": self.level, "text": self.text,
            "tokens": self.tokens, "priority": round(self.priority, 6), "reason": self.reason,
            "covers": list(self.covers),
        }  # fmt: skip


@dataclass
class Tier:
    name: str
    budget: int
    tokens: int = 0
    items: list[Item] = field(default_factory=list)
    text: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name, "budget": self.budget, "tokens": self.tokens,
            "items": [i.to_dict() for i in self.items],
        }  # fmt: skip


def order(candidates: Sequence[Candidate]) -> list[Candidate]:
    """Best first, ties by node id; a node offered twice keeps its best offer."""
    seen: set[str] = set()
    out = []
    for c in sorted(candidates, key=lambda c: (-c.priority, c.node_id, c.renderings[0][1])):
        key = c.node_id or c.renderings[0][1]
        if key not in seen:
            seen.add(key)
            out.append(c)
    return out


def pack(
    name: str, budget: int, candidates: Sequence[Candidate], count: Count
) -> tuple[Tier, list[Candidate]]:
    """The tier, and the candidates it left out entirely."""
    tier = Tier(name, max(0, budget))
    ranked = order([c for c in candidates if c.renderings])
    header = f"## {TITLES[name]}"
    if not ranked or budget <= 0:
        return tier, ranked
    lines = [[c.line(i) for i in range(len(c.renderings))] for c in ranked]
    # Counted as needed: most candidates are only ever tried at their cheapest.
    known: dict[tuple[int, int], int] = {}

    def cost(i: int, j: int) -> int:
        if (i, j) not in known:
            known[(i, j)] = count(lines[i][j] + "\n")
        return known[(i, j)]

    left = budget - count(header + "\n")
    level: dict[int, int] = {}
    for i, options in enumerate(lines):  # breadth: everyone at their cheapest
        # The least detailed rendering is the shortest but for rare tokenisations.
        cheapest = len(options) - 1
        if cost(i, cheapest) <= left:
            level[i] = cheapest
            left -= cost(i, cheapest)
    for i in sorted(level):  # depth: the best first, as detailed as still fits
        current = level[i]
        for j in range(current):
            extra = cost(i, j) - cost(i, current)
            if extra <= left:
                level[i] = j
                left -= extra
                break
    while level:
        text = "\n".join([header, *(lines[i][level[i]] for i in sorted(level))])
        used = count(text)
        if used <= budget:
            break
        # Tokens merged or split across line ends: give up the least important.
        del level[max(level)]
    if not level:
        return tier, ranked
    tier.text, tier.tokens = text, used
    for i in sorted(level):
        c, j = ranked[i], level[i]
        tier.items.append(Item(
            c.node_id, c.renderings[j][0], " ".join(c.renderings[j][1].split()), cost(i, j),
            c.priority, c.reason, c.covers, full=j == 0,
        ))  # fmt: skip
    return tier, [c for i, c in enumerate(ranked) if i not in level]
