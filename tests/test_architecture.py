"""The house rules, read from the code itself (its imports and string literals).

Layers point down only: front-ends (cli, server) -> the `mnemotree` package
(`Memory` and its exports) -> domain packages -> store protocols -> the SQLite
backend. Front-ends use only what `mnemotree` exports; only the composition
root picks a backend; SQL lives in the backend; no module imports itself back
through a cycle.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "mnemotree"
FRONT_ENDS = ("mnemotree.cli", "mnemotree.server", "mnemotree.integrations")
# Measurement harnesses: they run baselines on the backend itself (plain FTS5
# next to the engine's ranking), so they may reach below the facade.
HARNESSES = ("mnemotree.bench",)
BACKENDS = ("mnemotree.store.sqlite", "mnemotree.store.postgres")
COMPOSITION_ROOTS = ("mnemotree.memory",)
# Lower layers first; a module may import its own layer or any below it.
LAYERS: tuple[tuple[str, ...], ...] = (
    (
        "mnemotree.errors",
        "mnemotree.ids",
        "mnemotree.timeutil",
        "mnemotree.config",
        "mnemotree.perf",
        "mnemotree.ordering",
        "mnemotree.tags",
        "mnemotree.registry",
        "mnemotree.jsonlimits",
        "mnemotree.vocabulary",
        "mnemotree.telemetry",
        "mnemotree.model",
        "mnemotree.tokens",
    ),
    ("mnemotree.embed", "mnemotree.llm", "mnemotree.nli"),
    ("mnemotree.store",),
    (
        "mnemotree.services",
        "mnemotree.batch",
        "mnemotree.tree",
        "mnemotree.treesync",
        "mnemotree.traverse",
        "mnemotree.keys",
        "mnemotree.sharing",
        "mnemotree.retrieval",
        "mnemotree.structured",
        "mnemotree.conversation",
        "mnemotree.context",
        "mnemotree.consolidate",
        "mnemotree.ingest",
        "mnemotree.exchange",
        "mnemotree.rag",
        "mnemotree.activity",
    ),
    ("mnemotree.memory", "mnemotree.memory_", "mnemotree.async_memory", "mnemotree.client"),
    ("mnemotree",),
    (*FRONT_ENDS, *HARNESSES, "mnemotree.__main__"),
)
_SQL = re.compile(
    r"^\s*(SELECT\b.*\bFROM\b|INSERT (OR \w+ )?INTO\b|UPDATE \w+ SET\b|DELETE FROM\b"
    r"|CREATE (TABLE|INDEX|VIRTUAL TABLE|TRIGGER|UNIQUE INDEX)\b|PRAGMA \w+)",
    re.DOTALL,
)


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


MODULES = _modules()


def _package_of(module: str, path: Path) -> str:
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def _imports(module: str) -> Iterator[tuple[int, str]]:
    """(line, imported module) for every import of ours in `module`, lazy ones
    included (a lazy import is still a dependency)."""
    path = MODULES[module]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("mnemotree"):
                    yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = _package_of(module, path).split(".")
                anchor = ".".join(package[: len(package) - node.level + 1])
                base = f"{anchor}.{base}" if base else anchor
            if not base.startswith("mnemotree"):
                continue
            for alias in node.names:  # `from . import x` may name a module
                sub = f"{base}.{alias.name}"
                yield node.lineno, sub if sub in MODULES else base


def _layer(module: str) -> int:
    best, depth = -1, -1
    for level, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            below = prefix if prefix.endswith("_") else prefix + "."
            # The package itself is its own layer: its modules each have one.
            matches = module == prefix or (prefix != "mnemotree" and module.startswith(below))
            if matches and len(prefix) > depth:
                best, depth = level, len(prefix)
    assert best >= 0, f"{module} is in no layer: add it to LAYERS"
    return best


def _within(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def test_every_module_has_a_layer() -> None:
    for module in MODULES:
        _layer(module)


def test_imports_point_down_only() -> None:
    upward = [
        f"{module}:{line} imports {target}"
        for module in MODULES
        for line, target in _imports(module)
        if _layer(target) > _layer(module)
    ]
    assert upward == []


def test_front_ends_use_only_what_mnemotree_exports() -> None:
    import mnemotree

    exported = set(mnemotree.__all__) | {"__version__"}
    wrong: list[str] = []
    for module in MODULES:
        if not _within(module, FRONT_ENDS):
            continue
        path = MODULES[module]
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ImportFrom):
                continue
            targets = [t for line, t in _imports(module) if line == node.lineno]
            if not targets:
                continue  # not ours: the standard library, a dependency
            target = targets[0]
            if _within(target, (*FRONT_ENDS, *HARNESSES)):
                continue  # itself, the other front-end it starts, a benchmark it runs
            names = {alias.name for alias in node.names}
            if target != "mnemotree" or not names <= exported:
                wrong.append(f"{module}:{node.lineno} from {target} import {sorted(names)}")
    assert wrong == []


def test_only_the_composition_root_picks_a_backend() -> None:
    allowed = (*COMPOSITION_ROOTS, *BACKENDS, *HARNESSES)
    wrong = [
        f"{module}:{line} imports {target}"
        for module in MODULES
        for line, target in _imports(module)
        if _within(target, BACKENDS) and not _within(module, allowed)
    ]
    assert wrong == []


def test_sql_lives_in_the_backend() -> None:
    found: list[str] = []
    for module, path in MODULES.items():
        if _within(module, (*BACKENDS, *HARNESSES)):
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = [a.name for a in node.names] + [getattr(node, "module", "") or ""]
                if "sqlite3" in names:
                    found.append(f"{module}:{node.lineno} imports sqlite3")
            elif isinstance(node, ast.Constant) and _SQL.match(str(node.value)):
                found.append(f"{module}:{node.lineno} {str(node.value)[:40]!r}")
    assert found == []


def test_no_import_cycles() -> None:
    graph = {m: {t for _, t in _imports(m) if t != m and t in MODULES} for m in MODULES}
    # A package's __init__ re-exporting its own modules is not a cycle of meaning.
    for module in graph:
        graph[module] = {t for t in graph[module] if not t.startswith(module + ".")}
    cycles: list[list[str]] = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(module: str) -> None:
        state[module] = 1
        stack.append(module)
        for target in sorted(graph[module]):
            if state.get(target) == 1:
                cycles.append([*stack[stack.index(target) :], target])
            elif target not in state:
                visit(target)
        stack.pop()
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module)
    assert cycles == []


def test_the_rules_can_fail() -> None:
    """The checks above read real imports: a made-up upward import is caught."""
    assert _layer("mnemotree.store.sqlite.search") < _layer("mnemotree.retrieval.search")
    assert _layer("mnemotree.cli.main") > _layer("mnemotree")
    assert _SQL.match("SELECT id FROM nodes WHERE x = ?")
    assert not _SQL.match("Select the best answer from the list")


# The store's node writes; only the batch writer calls them, so every replaced
# or deleted node is kept in history first.
NODE_WRITES = frozenset(
    {
        "insert",
        "replace",
        "delete",
        "add_versions",
        "set_keys",
        "set_root",
        "mark_summaries_stale",
        "set_token_counts",
    }
)


def test_only_the_batch_writer_writes_nodes() -> None:
    writers = ("mnemotree.batch", *BACKENDS)
    found: list[str] = []
    for module, path in MODULES.items():
        if _within(module, writers):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            owner = node.func.value
            name = owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", "")
            if node.func.attr in NODE_WRITES and name in {"store", "_store"}:
                found.append(f"{module}:{node.lineno} store.{node.func.attr}(...)")
    assert found == []


def test_no_two_commands_share_a_name() -> None:
    """Click lets a later command of a name replace an earlier one silently."""
    names: dict[str, str] = {}
    for path in sorted((PACKAGE / "cli").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for decorator in node.decorator_list:
                if not (
                    isinstance(decorator, ast.Call)
                    and isinstance(decorator.func, ast.Attribute)
                    and decorator.func.attr == "command"
                    and isinstance(decorator.func.value, ast.Name)
                ):
                    continue
                given = [a.value for a in decorator.args if isinstance(a, ast.Constant)]
                name = str(given[0]) if given else node.name.rstrip("_").replace("_", "-")
                group = decorator.func.value.id
                where = f"{path.name}:{node.lineno}"
                key = f"{group} {name}"
                assert key not in names, f"{key} is defined in {names.get(key)} and {where}"
                names[key] = where
