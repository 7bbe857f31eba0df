"""Code patterns kept as memories (`Memory.code.mine_patterns`): the shapes
many functions of a scope's ingested code share, each a pattern memory
with its compressed form, examples (`path:line`) and the folder it belongs
to, which predictions and contexts offer it for.

Mining reads what ingesting stored (each function's shape, each module's
bound names), so it runs on either store without the files. Mining again
updates the patterns it finds again (matched by their features) and
archives the mined patterns it no longer finds; patterns written by hand
are never touched. Its changes are consolidation actions (step
`patterns`): each consolidation run refreshes every scope's patterns, and
`undo` reverses a mining like any run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..consolidate.plan import Action, Plan, Run
from ..model import DEFAULT_SCOPE, Node, NodeFilter, clean_scope
from ..services import Part, Services
from .code_shape import LOCAL
from .patterns import Function, Mined, head, mine
from .plan import DOCUMENT, SECTION
from .python_source import LANGUAGE
from .tree_source import GRAMMARS

SOURCE = "code"  # the `source` of a mined pattern memory
STEP = "patterns"  # the consolidation step that keeps them
CODE = frozenset({LANGUAGE, *GRAMMARS})  # languages whose functions have shapes
EXAMPLES = 5


@dataclass
class PatternReport:
    """What a mining found, and what it changed (or, dry, would change)."""

    functions: int
    files: int
    patterns: list[dict[str, Any]] = field(default_factory=list)
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    archived: list[str] = field(default_factory=list)
    run_id: str = ""  # the consolidation run that applied it (undo takes it)

    def to_dict(self) -> dict[str, Any]:
        return {
            "functions": self.functions,
            "files": self.files,
            "patterns": self.patterns,
            "created": self.created,
            "updated": self.updated,
            "archived": self.archived,
            "run_id": self.run_id,
        }


Apply = Callable[[Plan], Run]


class CodePatterns(Part):
    """Mines a scope's code for patterns and keeps them as memories, through
    consolidation actions (step `patterns`): a mining is a run `undo` reverses,
    and a consolidation run refreshes the patterns of every scope with code."""

    def __init__(self, services: Services, apply: Apply) -> None:
        super().__init__(services)
        self._apply = apply

    def mine_patterns(self, *, scope: str | None = None, dry_run: bool = False) -> PatternReport:
        """Find the shapes the scope's functions share (see the module)."""
        chosen = clean_scope(scope or DEFAULT_SCOPE)
        documents = self._documents(chosen)
        functions = self._functions(documents)
        found = mine(functions)
        report = PatternReport(len(functions), len(documents))
        report.patterns = [{"name": p.compressed(), **_fields(p)} for p in found]
        actions = self._diff(chosen, found, documents)
        if dry_run or not actions:
            return report
        run = self._apply(Plan(self.services.now(), tuple(actions), len(functions)))
        report.run_id = run.id
        kept = self._mined(chosen)
        for action in run.actions:
            op = action.data["op"]
            if op == "create":
                report.created.append(kept[tuple(action.data["fields"]["mined_features"])].id)
            else:
                (report.updated if op == "update" else report.archived).append(action.nodes[0])
        return report

    def plan(self) -> list[Action]:
        """What mining every scope's code again would change (a consolidation step)."""
        by_scope: dict[str, list[Node]] = {}
        for document in self._documents(None):
            by_scope.setdefault(document.scope, []).append(document)
        actions: list[Action] = []
        for scope, documents in sorted(by_scope.items()):
            actions += self._diff(scope, mine(self._functions(documents)), documents)
        return actions

    def _diff(self, scope: str, found: list[Mined], documents: list[Node]) -> list[Action]:
        """Actions bringing the scope's mined pattern memories in line with `found`."""
        existing = self._mined(scope)
        anchor = documents[0] if documents else None  # what a new pattern's action names
        actions: list[Action] = []
        for pattern in found:
            fields = _fields(pattern)
            old = existing.pop(pattern.features, None)
            if old is None and anchor is not None:
                data = {"op": "create", "scope": scope, **_levels(pattern), "fields": fields}
                reason = f"{len(pattern.functions)} functions in {pattern.files} files share it"
                actions.append(Action(STEP, (anchor.id,), reason, data))
            elif old is not None and {**old.metadata, **fields} != old.metadata:
                data = {"op": "update", **_levels(pattern), "fields": fields}
                actions.append(Action(STEP, (old.id,), "found again, changed", data))
        for old in existing.values():
            reason = f"no longer found in the code of {len(documents)} files"
            actions.append(Action(STEP, (old.id,), reason, {"op": "archive"}))
        return actions

    def _mined(self, scope: str) -> dict[tuple[str, ...], Node]:
        live = self.store.typed_nodes(["pattern"], NodeFilter(scopes=(scope,)), 10_000)
        archived = self.store.archived([n.id for n in live])
        return {
            tuple(n.metadata.get("mined_features") or ()): n
            for n in live
            if n.metadata.get("source") == SOURCE and n.id not in archived
        }

    def _documents(self, scope: str | None) -> list[Node]:
        """The ingested code files of `scope` (of every scope: None)."""
        return [
            d
            for d in self.store.roots_of_type(DOCUMENT, None if scope is None else [scope])
            if d.metadata.get("document_type") in CODE and d.metadata.get("relative_path")
        ]

    def _functions(self, documents: list[Node]) -> list[Function]:
        """The functions of these code files (one project), with their shapes."""
        packages = {part for d in documents for part in _parts(str(d.metadata["relative_path"]))}
        out: list[Function] = []
        for document in documents:
            path = str(document.metadata["relative_path"])
            bound = document.metadata.get("bound") or {}
            own = {n for n, origin in bound.items() if origin == LOCAL or origin in packages}
            for node in self.store.tree_nodes(document.id):
                features = node.metadata.get("shape")
                if node.context_type != SECTION or not isinstance(features, list):
                    continue
                shape = frozenset(str(f) for f in features)
                out.append(
                    Function(
                        path,
                        int(node.metadata.get("line_start") or 0),
                        node.text.split("\n", 1)[0],
                        shape,
                        frozenset(f for f in shape if head(f) in own),
                    )
                )
        return out


def _fields(pattern: Mined) -> dict[str, Any]:
    return {
        "mined_features": list(pattern.features),
        "functions": len(pattern.functions),
        "files": pattern.files,
        "together": pattern.together,
        "examples": pattern.examples(EXAMPLES),
        "trigger_area": pattern.area,
        "trigger": pattern.area,
        "source": SOURCE,
    }


def _levels(pattern: Mined) -> dict[str, str]:
    """The pattern memory's text and levels: the compressed form, a template
    with examples, and a one-line hint."""
    where = f" in {pattern.area}" if pattern.area else ""
    examples = pattern.examples(EXAMPLES)
    return {
        "name": pattern.compressed(),
        "template": f"shape: {pattern.compressed()}\nexamples: {', '.join(examples)}",
        "hint": (
            f"{pattern.compressed()}: {len(pattern.functions)} functions in "
            f"{pattern.files} files{where}, e.g. {', '.join(examples[:2])}"
        ),
    }


def _parts(relative: str) -> list[str]:
    """A file's folders and its module name: the names its project's imports start from."""
    parts = relative.replace("\\", "/").split("/")
    return [*parts[:-1], parts[-1].rsplit(".", 1)[0]]
