"""Code patterns kept as memories (`Memory.docs.mine_patterns`): the shapes
many functions of a scope's ingested Python share, each a pattern memory
with its compressed form, examples (`path:line`) and the folder it belongs
to, which predictions and contexts offer it for.

Mining reads what ingesting stored (each function's shape, each module's
bound names), so it runs on either store without the files. Mining again
updates the patterns it finds again (matched by their features) and
archives the mined patterns it no longer finds; patterns written by hand
are never touched.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..model import DEFAULT_SCOPE, Node, NodeFilter, clean_scope
from ..services import Part, Services
from ..structured.memories import TypedMemories
from ..structured.typed import LEVEL
from .code_shape import LOCAL
from .patterns import Function, Mined, head, mine
from .plan import DOCUMENT, SECTION
from .python_source import LANGUAGE

SOURCE = "code"  # the `source` of a mined pattern memory
EXAMPLES = 5


@dataclass
class PatternReport:
    """What a mining found, and what it wrote."""

    functions: int
    files: int
    patterns: list[dict[str, Any]] = field(default_factory=list)
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    archived: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "functions": self.functions,
            "files": self.files,
            "patterns": self.patterns,
            "created": self.created,
            "updated": self.updated,
            "archived": self.archived,
        }


class CodePatterns(Part):
    """Mines a scope's code for patterns and keeps them as memories."""

    def __init__(self, services: Services, typed: TypedMemories) -> None:
        super().__init__(services)
        self.typed = typed

    def mine_patterns(self, *, scope: str | None = None, dry_run: bool = False) -> PatternReport:
        """Find the shapes the scope's Python functions share (see the module)."""
        chosen = clean_scope(scope or DEFAULT_SCOPE)
        functions, files = self.functions(chosen)
        found = mine(functions)
        report = PatternReport(len(functions), files)
        existing = {
            tuple(n.metadata.get("mined_features") or ()): n
            for n in self.store.typed_nodes(["pattern"], NodeFilter(scopes=(chosen,)), 10_000)
            if n.metadata.get("source") == SOURCE
        }
        for pattern in found:
            fields = _fields(pattern)
            report.patterns.append({"name": pattern.compressed(), **fields})
            if dry_run:
                continue
            with self.store.transaction():
                old = existing.pop(pattern.features, None)
                if old is None:
                    report.created.append(self._write(pattern, fields, chosen).id)
                elif self._refresh(old, pattern, fields):
                    report.updated.append(old.id)
        if not dry_run and existing:
            gone = sorted(n.id for n in existing.values())
            with self.store.transaction():
                subtree = [n.id for i in gone for n in self.store.subtree(i)]
                self.store.archive(subtree, self.services.now())
            report.archived = gone
        return report

    def functions(self, scope: str) -> tuple[list[Function], int]:
        """The scope's ingested Python functions with their shapes, and how many files."""
        documents = [
            d
            for d in self.store.roots_of_type(DOCUMENT, [scope])
            if d.metadata.get("document_type") == LANGUAGE and d.metadata.get("relative_path")
        ]
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
        return out, len(documents)

    def _write(self, pattern: Mined, fields: dict[str, Any], scope: str) -> Node:
        return self.typed.pattern(
            pattern.compressed(),
            {"shape": pattern.compressed(), "examples": ", ".join(fields["examples"])},
            hint=_hint(pattern),
            index=pattern.compressed(),
            trigger=pattern.area,
            scope=scope,
            source=SOURCE,
            fields=fields,
        )

    def _refresh(self, old: Node, pattern: Mined, fields: dict[str, Any]) -> bool:
        meta = {**old.metadata, **fields, "trigger": pattern.area}
        if meta == old.metadata:
            return False
        self._tree.update(old.id, metadata=meta)
        for level in self.store.children_of([old.id], LEVEL):
            if level.context_name == "hint" and level.text != _hint(pattern):
                self._tree.update(level.id, _hint(pattern))
        return True


def _fields(pattern: Mined) -> dict[str, Any]:
    return {
        "mined_features": list(pattern.features),
        "functions": len(pattern.functions),
        "files": pattern.files,
        "together": pattern.together,
        "examples": pattern.examples(EXAMPLES),
        "trigger_area": pattern.area,
    }


def _hint(pattern: Mined) -> str:
    where = f" in {pattern.area}" if pattern.area else ""
    return (
        f"{pattern.compressed()}: {len(pattern.functions)} functions in "
        f"{pattern.files} files{where}, e.g. {', '.join(pattern.examples(2))}"
    )


def _parts(relative: str) -> list[str]:
    """A file's folders and its module name: the names its project's imports start from."""
    parts = relative.replace("\\", "/").split("/")
    return [*parts[:-1], parts[-1].rsplit(".", 1)[0]]
