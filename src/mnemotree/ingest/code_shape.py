"""The shape of a Python function: what structures it is built from, as
features a pattern miner compares across files.

Features: `@decorator` (its dotted name; a property setter is `@*.setter`),
`with name` (a context manager), `except Type`, `raise Type`, `call name`
(of a context manager and a call, the last two parts of the dotted name),
`async` and `yield`. A leading `self.` or `cls.` is dropped, and calls of
Python's builtins (len, str, sorted…) are left out: they say nothing of a
codebase's habits.
"""

from __future__ import annotations

import ast
import builtins

_SKIPPED = frozenset(dir(builtins)) - {"isinstance", "open"}
_OWNERS = ("self", "cls")
MAX_FEATURES = 40


def shape(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    """The function's features, sorted (see the module)."""
    found: set[str] = {"async"} if isinstance(node, ast.AsyncFunctionDef) else set()
    for decorator in node.decorator_list:
        name = dotted(decorator.func if isinstance(decorator, ast.Call) else decorator)
        if name:
            found.add("@*.setter" if name.endswith(".setter") else f"@{name}")
    parts = _own_nodes(node)
    # The call that makes a context manager or an error is that structure,
    # not another call beside it.
    made = {id(made) for part in parts for made in _made(part)}
    for part in parts:
        if id(part) not in made:
            found.update(_features(part))
    return sorted(found)[:MAX_FEATURES]


def _made(part: ast.AST) -> list[ast.expr]:
    if isinstance(part, (ast.With, ast.AsyncWith)):
        return [item.context_expr for item in part.items]
    if isinstance(part, ast.Raise) and part.exc is not None:
        return [part.exc]
    return []


def _own_nodes(node: ast.AST) -> list[ast.AST]:
    """Every node of the function's body (nested functions included: they are its code)."""
    body = getattr(node, "body", [])
    return [part for statement in body for part in ast.walk(statement)]


def _features(part: ast.AST) -> list[str]:
    if isinstance(part, (ast.With, ast.AsyncWith)):
        return [
            f"with {_last_two(name)}"
            for item in part.items
            if (name := dotted(_called(item.context_expr)))
        ]
    if isinstance(part, ast.ExceptHandler):
        types = part.type.elts if isinstance(part.type, ast.Tuple) else [part.type]
        return [
            f"except {dotted(t)}" if t is not None else "except"
            for t in types
            if t is None or dotted(t)
        ]
    if isinstance(part, ast.Raise) and part.exc is not None:
        name = dotted(_called(part.exc))
        return [f"raise {name}"] if name else []
    if isinstance(part, ast.Call):
        name = dotted(part.func)
        if name and name not in _SKIPPED:
            return [f"call {_last_two(name)}"]
        return []
    if isinstance(part, (ast.Yield, ast.YieldFrom)):
        return ["yield"]
    return []


def _last_two(name: str) -> str:
    """`state.memory.store.transaction` -> `store.transaction`: what is used,
    not the path to it."""
    return ".".join(name.split(".")[-2:])


def _called(node: ast.expr) -> ast.expr:
    return node.func if isinstance(node, ast.Call) else node


def dotted(node: ast.expr | None) -> str:
    """`a.b.c` for a name or attribute chain (`self.` dropped), else ""."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return ""
    if node.id not in _OWNERS or not parts:
        parts.append(node.id)
    return ".".join(reversed(parts))


LOCAL = "."


def bound(tree: ast.Module) -> dict[str, str]:
    """The names a module binds at its top level, each with where it comes
    from: `.` for what it defines or imports relatively, else the first part
    of the module it imports it from (`import numpy as np` binds np from
    numpy; `from sqlite_utils.db import Table` binds Table from sqlite_utils)."""
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                local = alias.asname or alias.name.split(".", 1)[0]
                found.setdefault(local, alias.name.split(".", 1)[0])
        elif isinstance(node, ast.ImportFrom):
            origin = LOCAL if node.level else (node.module or "").split(".", 1)[0]
            for alias in node.names:
                found.setdefault(alias.asname or alias.name, origin)
    for node in tree.body:
        for name in _targets(node):
            found[name] = LOCAL
    return found


def _targets(node: ast.stmt) -> list[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, ast.Assign):
        return [t.id for t in node.targets if isinstance(t, ast.Name)]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return [node.target.id]
    return []
