"""Predicting what will be needed from signals (the living-memory design's predictive engine).

Evidence, each with a confidence in [0, 1] and a reason:
- artifact links: memories that name the open file (or one of the same name,
  or in its folder) or the branch;
- code: memories that name (or were used with) a file the open file imports,
  one that imports it, or its tests, from the ingested code's import links;
- history: memories cited before while this file or branch was open;
- error similarity: memories close to the error's text;
- co-access: memories cited together with the strongest predictions;
- routines: memories cited at this time of day on several days;
- collaborator: their preferences and memories that name them;
- workflows and code patterns: those whose trigger fits the situation (the
  activity, a branch pattern such as `release/*`, the folder of the open file).
Pieces of evidence for one memory combine as a noisy OR, so agreeing signals
raise confidence and none can pass 1. Scopes and validity (valid at the
situation's time, not archived) are applied by the store on every returned
memory and on the memory a compression level stands for; a document's title
or heading is never predicted (its chunks can be), nor source code (what
the code says is read from the files; predictions bring what they do not:
decisions, conventions, fixes, workflows).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from fnmatch import fnmatchcase
from typing import Any

from ..model import Node, NodeFilter
from ..retrieval.search import Hit
from ..store import Scopes, Store, UsageSignal
from ..structured.typed import LEVEL
from ..timeutil import Clock, to_iso
from .code_evidence import CALLER, IMPORTED, TEST, linked_files
from .render import is_content
from .signals import Signals, file_parts, situation_text, utc_hour

Search = Callable[[str, NodeFilter, int], list[Hit]]

WINDOW_DAYS = 90.0  # usage older than this no longer predicts
MIN_ERROR_SIMILARITY = 0.35
MIN_ROUTINE_DAYS = 2
CO_ACCESS_ANCHORS = 10
STRONG = 0.6  # predictions this confident anchor co-access
SITUATION_HITS = 10
CODE_SHARE = 3  # hits read per kept one, where source code may fill a search
ERROR_HITS = 10  # the assembler asks the same, so one search serves both
ARTIFACTS = 50  # memories read per artifact match
WORKFLOWS = 200  # workflows read per prediction
NEAR = 0.5  # a linked file's evidence, against the open file's own
LINKED = {
    IMPORTED: "names {other}, which {name} imports",
    CALLER: "names {other}, which imports {name}",
    TEST: "names {other}, which tests {name}",
}


@dataclass
class Prediction:
    node: Node
    confidence: float
    reasons: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.node.id,
            "text": self.node.text,
            "type": self.node.context_type,
            "confidence": round(self.confidence, 4),
            "reasons": self.reasons,
        }


class Predictor:
    """Predictions for a situation, read from the store's artifacts and usage log."""

    def __init__(self, store: Store, search: Search, clock: Clock) -> None:
        self.store = store
        self.search = search
        self.clock = clock

    def predict(
        self,
        signals: Signals,
        where: NodeFilter,
        limit: int = 20,
        situation_hits: list[Hit] | None = None,
    ) -> list[Prediction]:
        """The `limit` most confident predictions; `situation_hits`, if given,
        stand for the search of what the file and branch are about (the
        assembler's task search covers it)."""
        now = signals.time or self.clock()
        since = to_iso(now - timedelta(days=WINDOW_DAYS))
        found: dict[str, list[tuple[float, str]]] = {}

        def add(node_id: str, confidence: float, reason: str) -> None:
            found.setdefault(node_id, []).append((min(0.99, max(0.0, confidence)), reason))

        if signals.file:
            self._file(signals.file, since, where.scopes, add)
        if signals.branch:
            self._branch(signals.branch, since, where.scopes, add)
        self._situation(signals, where, situation_hits, add)
        if signals.error:
            for hit in self.search(signals.error, where, ERROR_HITS):
                similarity = hit.parts.get("semantic", 0.0)
                if similarity >= MIN_ERROR_SIMILARITY or hit.parts.get("keyword", 0.0) >= 0.5:
                    add(
                        hit.node.id,
                        0.9 * max(similarity, 0.5),
                        f"like this error ({similarity:.2f})",
                    )
        if signals.collaborator:
            self._collaborator(signals.collaborator, where, add)
        if signals.activity or signals.branch or signals.file:
            self._workflows(signals, where, add)
        if signals.activity:
            self._history("activity", signals.activity, since, where.scopes, add)
        hour = utc_hour(now)
        hours = [(hour + d) % 24 for d in (-1, 0, 1)]
        days, cited = self.store.cited_at_hours(hours, since, 50, where.scopes)
        for node_id, on in cited.items():
            if on >= MIN_ROUTINE_DAYS:
                add(
                    node_id,
                    0.9 * on / max(days, 1),
                    f"used around {hour}h UTC on {on} of {days} days",
                )
        self._co_access(found, since, where, add)
        return self._ranked(found, where, limit)

    def _situation(
        self, signals: Signals, where: NodeFilter, given: list[Hit] | None, add: _Add
    ) -> None:
        """One search for what the file and branch are about (`given`: the
        assembler's task search, which covers it)."""
        situation = situation_text(signals)
        if not situation:
            return
        searched = self.search(situation, where, SITUATION_HITS) if given is None else given
        if given is None and any(is_code(h.node) for h in searched):
            # Source code is read, not predicted: where it fills the places,
            # deeper, for what the situation's words find besides.
            searched = self.search(situation, where, CODE_SHARE * SITUATION_HITS)
        hits = [h for h in searched if not is_code(h.node)][:SITUATION_HITS]
        best = max((h.score for h in hits), default=0.0) or 1.0
        for hit in hits:
            if hit.parts.get("keyword", 0.0) > 0:
                add(hit.node.id, 0.4 * hit.score / best, f"about {situation}")

    def _file(self, path: str, since: str, scopes: Scopes, add: _Add) -> None:
        name, folders, _ = file_parts(path)
        prefixes = [f"{folders[0]}/"] if folders else []
        for node_id, _, ref, how in self.store.artifact_nodes(
            [path], [name], prefixes, ARTIFACTS, scopes
        ):
            if how == "ref" or ref == path:
                add(node_id, 0.9, f"names {path}")
            elif how == "name":
                add(node_id, 0.7, f"names a file called {name}")
            else:
                add(node_id, 0.45, f"names a file in {folders[0]}")
        self._history("file", path, since, scopes, add)
        for other, how in linked_files(self.store, path, scopes).items():
            self._near_file(other, LINKED[how].format(other=other, name=name), since, scopes, add)

    def _near_file(self, other: str, why: str, since: str, scopes: Scopes, add: _Add) -> None:
        """Evidence from a file the open one is linked to: what names it, and
        what was cited while it was open, at a share of its own weight."""
        for node_id, _, ref, how in self.store.artifact_nodes([other], [], [], ARTIFACTS, scopes):
            if how == "ref" or ref == other:
                add(node_id, NEAR * 0.9, why)
        contexts, cited = self.store.cited_under("file", other, since, 50, scopes)
        for node_id, times in cited.items():
            add(node_id, NEAR * 0.95 * times / (contexts + 0.5), why)

    def _branch(self, branch: str, since: str, scopes: Scopes, add: _Add) -> None:
        for node_id, kind, _, _ in self.store.artifact_nodes([branch], [], [], ARTIFACTS, scopes):
            add(node_id, 0.85 if kind == "branch" else 0.6, f"names branch {branch}")
        self._history("branch", branch, since, scopes, add)

    def _history(
        self, column: UsageSignal, value: str, since: str, scopes: Scopes, add: _Add
    ) -> None:
        contexts, cited = self.store.cited_under(column, value, since, 50, scopes)
        for node_id, times in cited.items():
            share = times / (contexts + 0.5)
            add(
                node_id, 0.95 * share, f"cited in {times} of {contexts} contexts with this {column}"
            )

    def _workflows(self, signals: Signals, where: NodeFilter, add: _Add) -> None:
        """Workflows and code patterns whose trigger fits the situation: the
        activity, a branch pattern the branch matches, the folder the open
        file is in. A trigger many of them share says less about each."""
        matches: dict[str, list[str]] = {}
        file = signals.file.replace("\\", "/")
        for node in self.store.typed_nodes(["workflow", "pattern"], where, WORKFLOWS):
            meta, kind = node.metadata, node.context_type
            if signals.activity and kind == "workflow" and meta.get("trigger") == signals.activity:
                add(node.id, 0.6, f"workflow for {signals.activity}")
            pattern = str(meta.get("trigger_branch") or "")
            if signals.branch and pattern and fnmatchcase(signals.branch, pattern):
                matches.setdefault(f"{kind} on branches like {pattern}", []).append(node.id)
            area = str(meta.get("trigger_area") or "")
            if file and area and (file.startswith(area) or f"/{area}" in file):
                matches.setdefault(f"{kind} for files in {area}", []).append(node.id)
        for why, ids in matches.items():
            for node_id in ids:
                add(node_id, 0.5 / len(ids), why)

    def _collaborator(self, name: str, where: NodeFilter, add: _Add) -> None:
        low = name.lower()
        for hit in self.search(name, where, SITUATION_HITS):
            mentions = low in hit.node.text.lower() or low in str(hit.node.metadata).lower()
            if not mentions:
                continue
            preference = hit.node.context_type == "preference"
            add(hit.node.id, 0.75 if preference else 0.5, f"{name}'s {hit.node.context_type}")

    def _co_access(
        self, found: dict[str, list[tuple[float, str]]], since: str, where: NodeFilter, add: _Add
    ) -> None:
        strong = sorted(
            (i for i, ev in found.items() if _combine(ev) >= STRONG),
            key=lambda i: (-_combine(found[i]), i),
        )
        # Anchors the caller may see, so another scope's usage shapes nothing here.
        seen = self.store.visible(strong[: 3 * CO_ACCESS_ANCHORS], where)
        anchors = [i for i in strong if i in seen][:CO_ACCESS_ANCHORS]
        batches, together = self.store.co_cited(anchors, since, 30, where.scopes)
        for node_id, times in together.items():
            if times >= 2 or times * 2 >= batches:
                add(node_id, 0.8 * times / max(batches, 1), f"used with these in {times} contexts")

    def _ranked(
        self, found: dict[str, list[tuple[float, str]]], where: NodeFilter, limit: int
    ) -> list[Prediction]:
        # The store decides what may be seen: scopes, validity, other filters.
        # Only the most confident are read; more if too few of them pass.
        ranked = sorted(found, key=lambda i: (-_combine(found[i]), i))
        merged: dict[str, list[tuple[float, str]]] = {}
        nodes: dict[str, Node] = {}
        start, step = 0, 3 * limit
        while len(nodes) < limit and start < len(ranked):
            chunk = ranked[start : start + step]
            start += step
            visible = self.store.visible(chunk, where)
            # A compression level stands for its memory.
            owners = {n.parent_id for n in visible.values() if n.context_type == LEVEL}
            parents = self.store.visible(sorted(i for i in owners if i), where)
            for node_id in chunk:
                node = visible.get(node_id)
                if node is not None and node.context_type == LEVEL:
                    node = parents.get(node.parent_id or "")
                if node is None or not is_content(node):  # a container, title or heading
                    continue
                if is_code(node):
                    continue  # the open files are read, not predicted
                nodes[node.id] = node
                merged.setdefault(node.id, []).extend(found[node_id])
        out = [Prediction(nodes[i], _combine(ev), _reasons(ev)) for i, ev in merged.items()]
        out.sort(key=lambda p: (-p.confidence, p.node.id))
        return out[:limit]


_Add = Callable[[str, float, str], None]


def is_code(node: Node) -> bool:
    """Whether a node is part of an ingested source file (cited by path and lines)."""
    return bool(node.metadata.get("relative_path"))


def _combine(evidence: list[tuple[float, str]]) -> float:
    """Noisy OR over distinct reasons: 1 - prod(1 - c). A reason given twice
    (a memory and its levels found by one search) counts once, at its best."""
    best: dict[str, float] = {}
    for confidence, reason in evidence:
        best[reason] = max(best.get(reason, 0.0), confidence)
    miss = 1.0
    for confidence in best.values():
        miss *= 1.0 - confidence
    return 1.0 - miss


def _reasons(evidence: list[tuple[float, str]]) -> list[str]:
    return list(dict.fromkeys(r for _, r in sorted(evidence, key=lambda e: (-e[0], e[1]))))
