"""Code files linked by what they import: an `imports` relation from a file's
document to each file of the same scope it imports (Python modules by dotted
name, TypeScript and JavaScript files by relative path), kept in step with
the files each time code in the scope is read."""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..model import Node
from ..store import RelationRow, Store
from .plan import DOCUMENT
from .python_source import LANGUAGE

IMPORTS = "imports"


def module_of(relative: str) -> tuple[str, ...]:
    """A Python file's dotted name from its path below the folder read:
    "pkg/sub/mod.py" is pkg.sub.mod, "pkg/sub/__init__.py" is pkg.sub."""
    parts = relative.replace("\\", "/").strip("/").split("/")
    last = parts[-1].rsplit(".", 1)[0]
    return tuple(parts[:-1]) if last == "__init__" else (*parts[:-1], last)


def _is_package(relative: str) -> bool:
    return relative.replace("\\", "/").rsplit("/", 1)[-1].startswith("__init__.")


@dataclass(frozen=True)
class _File:
    id: str
    language: str
    relative: str
    module: tuple[str, ...]
    imports: list[list[Any]]


class _Modules:
    """Files by dotted name. The folder read may sit above the package (a
    repository: src/pkg/...), so an import names a suffix of a file's name."""

    def __init__(self, files: Sequence[_File]) -> None:
        self.by_suffix: dict[tuple[str, ...], list[_File]] = {}
        for file in files:
            for start in range(len(file.module)):
                self.by_suffix.setdefault(file.module[start:], []).append(file)

    def find(self, name: tuple[str, ...], near: _File) -> _File | None:
        """The file named `name`; of several, the one nearest the importer."""
        found = self.by_suffix.get(name, [])
        if len(found) <= 1:
            return found[0] if found else None
        return max(found, key=lambda f: (_shared(f.module, near.module), f.relative))

    def targets(self, importer: _File) -> set[str]:
        """Ids of the files `importer` imports (itself left out)."""
        out: set[str] = set()
        for level, module, names in importer.imports:
            base = self._base(importer, int(level), str(module))
            if base is None:
                continue
            for name in names or [None]:
                # `from pkg import sub` imports the file pkg/sub.py if there is one.
                target = self.find((*base, name), importer) if name else None
                target = target or self.find(base, importer)
                if target is not None and target.id != importer.id:
                    out.add(target.id)
        return out

    @staticmethod
    def _base(importer: _File, level: int, module: str) -> tuple[str, ...] | None:
        named = tuple(p for p in module.split(".") if p)
        if level == 0:
            return named or None
        package = importer.module if _is_package(importer.relative) else importer.module[:-1]
        if level - 1 > len(package):
            return None  # beyond the folder read
        return (*package[: len(package) - (level - 1)], *named) or None


def _shared(a: tuple[str, ...], b: tuple[str, ...]) -> int:
    shared = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        shared += 1
    return shared


# Languages whose imports name files by relative path ("./db", "../auth/login").
SCRIPTS = frozenset({"typescript", "tsx", "javascript"})
_SCRIPT_SUFFIXES = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")


def _script_key(relative: str) -> str:
    """A script file as an import names it: no extension, no "/index"."""
    path = relative.replace("\\", "/")
    for suffix in _SCRIPT_SUFFIXES:
        if path.endswith(suffix):
            path = path[: -len(suffix)]
            break
    return path.removesuffix("/index")


def _script_targets(importer: _File, by_key: dict[str, _File]) -> set[str]:
    """Files a script imports by relative path ("./db" beside it, "../x" above)."""
    out: set[str] = set()
    folder = posixpath.dirname(importer.relative.replace("\\", "/"))
    for _, spec, _ in importer.imports:
        if not str(spec).startswith("."):
            continue  # a package from node_modules, not a file of the scope
        target = by_key.get(_script_key(posixpath.normpath(posixpath.join(folder, str(spec)))))
        if target is not None and target.id != importer.id:
            out.add(target.id)
    return out


def link_imports(store: Store, scope: str, now: str) -> int:
    """Make the scope's `imports` relations between code files what the
    files say now; returns how many relations were added or removed. Run in
    a transaction."""
    every = [f for root in store.roots_of_type(DOCUMENT, (scope,)) if (f := _file(root))]
    files = [f for f in every if f.language == LANGUAGE]
    scripts = [f for f in every if f.language in SCRIPTS]
    modules = _Modules(files)
    by_key = {_script_key(f.relative): f for f in scripts}
    ids = {f.id for f in every}
    existing = {
        (r.source_id, r.target_id)
        for r in store.relations(sorted(ids))
        if r.type == IMPORTS and r.source_id in ids
    }
    wanted = {(f.id, target) for f in files for target in modules.targets(f)}
    wanted |= {(f.id, target) for f in scripts for target in _script_targets(f, by_key)}
    for source, target in existing - wanted:
        store.delete_relation(source, target, IMPORTS)
    for source, target in sorted(wanted - existing):
        store.put_relation(RelationRow(source, target, IMPORTS, 1.0, now))
    return len(existing ^ wanted)


def _file(root: Node) -> _File | None:
    meta = root.metadata
    relative, imports = meta.get("relative_path"), meta.get("imports")
    language = meta.get("document_type")
    if language not in (LANGUAGE, *SCRIPTS) or not isinstance(relative, str) or not relative:
        return None
    listed = imports if isinstance(imports, list) else []
    return _File(root.id, str(language), relative, module_of(relative), listed)
