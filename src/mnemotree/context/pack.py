"""Packing candidates into tiers at mixed resolution, within exact token budgets.

Each candidate offers renderings from most to least detailed (full, summary,
compressed, index). A tier first gives every candidate, best first, its
cheapest rendering while it fits (so many relevant memories are at least
named), then upgrades them, best first, to the most detailed rendering the
remaining budget allows: a relevance-aware partial expansion rather than a
breadth-first one. Counts are exact (the tokenizer runs on the final text)
and ties break by node id, so the same inputs give the same context.

A line is the memory's text after a short reference (`m3`) that the
context maps to the node id: an id costs ~15 tokens, a reference 2, and the
text is what a model reads (a rendering naming several memories, such as a
contradiction, references each in brackets). Items of one kind (decisions,
a document's section) sit under one `### heading`, so what they share is
said once.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

Count = Callable[[str], int]
Label = Callable[[str], str]  # node id -> its short reference in this context

TITLES = {
    "critical": "Critical",
    "relevant": "Relevant",
    "background": "Background",
    "index": "Index",
}
_OPEN, _CLOSE = "\ue000", "\ue001"  # private-use characters: never in stored text
_MARK = re.compile(f"{_OPEN}([^{_CLOSE}]*){_CLOSE}")


def ref(node_id: str) -> str:
    """A place in a rendering where `node_id`'s reference goes (a rendering
    that names several memories, such as a contradiction, marks each)."""
    return f"{_OPEN}{node_id}{_CLOSE}"


def marked(text: str) -> list[str]:
    """The node ids a rendering marks, in order."""
    return _MARK.findall(text)


def render_line(template: str, node_id: str, label: Label) -> tuple[str, str]:
    """(the line, its text without the leading reference). A rendering
    without marks is led by `node_id`'s reference (none if it is empty)."""
    flat = " ".join(template.split())
    text = _MARK.sub(lambda m: f"[{label(m.group(1))}]", flat)
    if node_id and not _MARK.search(flat):
        # Bare, not "[m3]": a bracket costs a token on every line.
        return f"{label(node_id)} {text}", text
    return text, text


class Labels:
    """Short references ("m1", "m2", …), numbered in the order they are first
    asked for; `of` maps node ids to them."""

    def __init__(self) -> None:
        self.of: dict[str, str] = {}

    def __call__(self, node_id: str) -> str:
        found = self.of.get(node_id)
        if found is None:
            found = self.of[node_id] = f"m{len(self.of) + 1}"
        return found

    def refs(self) -> dict[str, str]:
        """Reference -> node id."""
        return {ref: node_id for node_id, ref in self.of.items()}


@dataclass(frozen=True)
class Candidate:
    """Something a tier may hold: a node (or a group it stands for), why, how
    much it matters (`priority`, higher first) and its renderings."""

    node_id: str
    priority: float
    reason: str
    renderings: tuple[tuple[str, str], ...]  # (level, text), most detailed first
    covers: tuple[str, ...] = ()  # other nodes this item stands for
    show_id: bool = True  # the line is led by its node's reference
    group: str = ""  # the heading it is shown under ("" for none)
    info: dict[str, Any] = field(default_factory=dict, compare=False)  # for the item's dict

    def line(self, index: int, label: Label) -> str:
        return self.render(index, label)[0]

    def render(self, index: int, label: Label) -> tuple[str, str]:
        shown = self.node_id if self.show_id else ""
        return render_line(self.renderings[index][1], shown, label)

    def ids(self) -> list[str]:
        """Node ids its lines may reference: its own, then those marked."""
        found = [self.node_id] if self.node_id and self.show_id else []
        for _, text in self.renderings:
            found += [i for i in marked(text) if i not in found]
        return found


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
    group: str = ""
    ref: str = ""  # the reference leading its line ("" for none)
    info: dict[str, Any] = field(default_factory=dict)
    template: str = field(default="", repr=False)  # the rendering, with marks
    show_id: bool = True

    def line(self, label: Label) -> str:
        return render_line(self.template, self.node_id if self.show_id else "", label)[0]

    def relabel(self, label: Label) -> None:
        """Its reference and text under `label` (its own reference first, as
        the line shows them)."""
        leads = bool(self.node_id) and self.show_id and not marked(self.template)
        self.ref = label(self.node_id) if leads else ""
        self.text = render_line(self.template, "", label)[1]

    def to_dict(self) -> dict[str, Any]:
        return {
            "node_id": self.node_id,
            "ref": self.ref,
            "level": self.level,
            "text": self.text,
            "tokens": self.tokens,
            "priority": round(self.priority, 6),
            "reason": self.reason,
            "covers": list(self.covers),
            "group": self.group,
            **self.info,
        }


@dataclass
class Tier:
    name: str
    budget: int
    tokens: int = 0
    items: list[Item] = field(default_factory=list)
    text: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "budget": self.budget,
            "tokens": self.tokens,
            "items": [i.to_dict() for i in self.items],
        }

    def compose(self, label: Label) -> str:
        """The tier's text from its items (in order, each group's heading once)."""
        return compose(self.name, [(i.group, i.line(label)) for i in self.items])


def compose(name: str, lines: Sequence[tuple[str, str]]) -> str:
    """A tier's text: its title, then its (group, line) pairs grouped."""
    return grouped(f"## {TITLES[name]}", lines)


def grouped(title: str, lines: Sequence[tuple[str, str]]) -> str:
    """`title`, then each group's lines under its heading, groups in the order
    they first appear (lines of no group first)."""
    groups: dict[str, list[str]] = {"": []}
    for group, line in lines:
        groups.setdefault(group, []).append(line)
    out = [title]
    for group, members in groups.items():
        if members and group:
            out.append(f"### {group}")
        out += members
    return "\n".join(out)


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
    name: str, budget: int, candidates: Sequence[Candidate], count: Count, label: Label
) -> tuple[Tier, list[Candidate]]:
    """The tier, and the candidates it left out entirely."""
    tier = Tier(name, max(0, budget))
    ranked = order([c for c in candidates if c.renderings])
    if not ranked or budget <= 0:
        return tier, ranked
    lines = [[c.line(i, label) for i in range(len(c.renderings))] for c in ranked]
    cost = _Costs(lines, count)
    level = _levels(ranked, cost, budget - count(f"## {TITLES[name]}\n"), count)
    placed = _grouped(ranked, level)
    while placed:
        text = compose(name, [(ranked[i].group, lines[i][level[i]]) for i in placed])
        used = count(text)
        if used <= budget:
            break
        # Tokens merged or split across line ends: give up the least important.
        del level[max(level)]
        placed = _grouped(ranked, level)
    if not placed:
        return tier, ranked
    tier.text, tier.tokens = text, used
    tier.items.extend(_item(ranked[i], level[i], cost(i, level[i]), label) for i in placed)
    return tier, [c for i, c in enumerate(ranked) if i not in level]


class _Costs:
    """Tokens of candidate i's rendering j, counted as needed: most
    candidates are only ever tried at their cheapest."""

    def __init__(self, lines: list[list[str]], count: Count) -> None:
        self.lines, self.count = lines, count
        self.known: dict[tuple[int, int], int] = {}

    def __call__(self, i: int, j: int) -> int:
        if (i, j) not in self.known:
            self.known[(i, j)] = self.count(self.lines[i][j] + "\n")
        return self.known[(i, j)]


def _levels(ranked: Sequence[Candidate], cost: _Costs, left: int, count: Count) -> dict[int, int]:
    """{candidate: rendering}: first everyone at their cheapest (breadth), then
    the best first as detailed as still fits (depth), within `left` tokens."""
    level: dict[int, int] = {}
    opened: set[str] = {""}
    for i, options in enumerate(cost.lines):  # breadth: everyone at their cheapest
        # The least detailed rendering is the shortest but for rare tokenisations.
        cheapest = len(options) - 1
        group = ranked[i].group
        heading = 0 if group in opened else count(f"### {group}\n")
        if cost(i, cheapest) + heading <= left:
            level[i] = cheapest
            left -= cost(i, cheapest) + heading
            opened.add(group)
    for i in sorted(level):  # depth: the best first, as detailed as still fits
        current = level[i]
        for j in range(current):
            extra = cost(i, j) - cost(i, current)
            if extra <= left:
                level[i] = j
                left -= extra
                break
    return level


def _item(c: Candidate, j: int, tokens: int, label: Label) -> Item:
    shown, own = c.render(j, label)
    return Item(
        c.node_id,
        c.renderings[j][0],
        own,
        tokens,
        c.priority,
        c.reason,
        c.covers,
        full=j == 0,
        group=c.group,
        ref="" if shown == own else label(c.node_id),
        info=c.info,
        template=c.renderings[j][1],
        show_id=c.show_id,
    )


def _grouped(ranked: Sequence[Candidate], level: dict[int, int]) -> list[int]:
    """Placed candidates in the order the text shows them: by group (in the
    order groups first appear, no group first), best first within one."""
    first: dict[str, int] = {"": -1}
    for i in sorted(level):
        first.setdefault(ranked[i].group, i)
    return sorted(level, key=lambda i: (first[ranked[i].group], i))
