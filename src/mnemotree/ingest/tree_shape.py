"""The shape of a function read by tree-sitter (TypeScript, JavaScript, Go,
Rust, Java), in the features the pattern miner compares (see
`code_shape`): `@decorator` (TypeScript decorators, Java annotations),
`call name` (the last two parts of a called or constructed name), `raise
Type` (what `throw new Type(...)` throws), `except` / `except Type` (a
catch), and `async`; and the names a module binds, with where they come
from (`.` for its own declarations and relative imports)."""

from __future__ import annotations

import re
from typing import Any

from .code_shape import LOCAL

MAX_FEATURES = 40
_NAME = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)*")
_CALLS = {"call_expression": "function", "new_expression": "constructor"}
_DECLARED = (
    "function_declaration",
    "class_declaration",
    "abstract_class_declaration",
    "interface_declaration",
    "enum_declaration",
    "type_alias_declaration",
)


def tree_shape(node: Any, wrapper: Any) -> list[str]:
    """The features of the function `node` (declared by `wrapper`)."""
    found: set[str] = set()
    if any(c.type == "async" for c in node.children) or _async_value(node):
        found.add("async")
    for decorator in _decorators(node, wrapper):
        found.add(f"@{decorator}")
    thrown: set[int] = set()
    stack = list(node.children)
    while stack:
        part = stack.pop()
        found.update(_features(part, thrown))
        stack.extend(part.children)
    return sorted(found)[:MAX_FEATURES]


def _features(part: Any, thrown: set[int]) -> list[str]:
    """What one node of a function adds; `thrown` collects the constructions
    a throw makes (the error, not another call). Parents come before their
    children, so a throw is seen before what it constructs."""
    if part.type == "throw_statement":
        made = next((c for c in part.named_children if c.type == "new_expression"), None)
        name = _called(made) if made is not None else ""
        if made is None or not name:
            return []
        thrown.add(made.id)
        return [f"raise {name}"]
    if part.type == "catch_clause":
        types = [_text(t) for t in part.named_children if t.type == "catch_formal_parameter"]
        return [f"except {_last(t.split()[0])}" for t in types] or ["except"]
    name = ""
    if part.type in _CALLS and part.id not in thrown:
        name = _called(part)
    elif part.type == "method_invocation":
        name = _invoked(part)
    return [f"call {name}"] if name else []


def _async_value(node: Any) -> bool:
    """`const f = async () => ...`: the function is the declaration's value."""
    for declarator in (c for c in node.named_children if c.type == "variable_declarator"):
        value = declarator.child_by_field_name("value")
        if value is not None and any(c.type == "async" for c in value.children):
            return True
    return False


def _decorators(node: Any, wrapper: Any) -> list[str]:
    names: list[str] = []
    before = wrapper.prev_sibling
    while before is not None and before.type == "decorator":  # TypeScript, in a class body
        names.append(_callee_name(before.named_children[0]) if before.named_children else "")
        before = before.prev_sibling
    for modifiers in (c for c in node.children if c.type == "modifiers"):  # Java annotations
        for annotation in modifiers.named_children:
            if annotation.type in ("annotation", "marker_annotation"):
                named = annotation.child_by_field_name("name")
                names.append(_text(named) if named is not None else "")
    return [n for n in names if n]


def _callee_name(node: Any) -> str:
    if node.type in _CALLS:
        return _called(node)
    text = _text(node)
    return text if _NAME.fullmatch(text) else ""


def _called(node: Any) -> str:
    callee = node.child_by_field_name(_CALLS[node.type])
    if callee is None:
        return ""
    text = _text(callee).replace("this.", "", 1).replace("self.", "", 1)
    return _last(text) if _NAME.fullmatch(text) else ""


def _invoked(node: Any) -> str:
    name = node.child_by_field_name("name")
    target = node.child_by_field_name("object")
    if name is None:
        return ""
    whole = f"{_text(target)}.{_text(name)}" if target is not None else _text(name)
    whole = whole.replace("this.", "", 1)
    return _last(whole) if _NAME.fullmatch(whole) else ""


def _last(name: str) -> str:
    return ".".join(name.replace("::", ".").split(".")[-2:])


def _text(node: Any) -> str:
    return bytes(node.text or b"").decode("utf-8", "replace")


def tree_bound(root: Any) -> dict[str, str]:
    """The names a module binds: imported (from `.` when the import is
    relative, else from the package it names) and declared at its top."""
    found: dict[str, str] = {}
    for statement in root.named_children:
        inner = statement
        if statement.type == "export_statement":
            inner = statement.child_by_field_name("declaration") or next(
                iter(statement.named_children), statement
            )
        if statement.type == "import_statement":
            source = statement.child_by_field_name("source")
            spec = _text(source).strip("'\"`") if source is not None else ""
            origin = LOCAL if spec.startswith(".") else spec.split("/", 1)[0]
            for name in _imported(statement):
                found.setdefault(name, origin)
        elif inner.type in _DECLARED:
            named = inner.child_by_field_name("name")
            if named is not None:
                found[_text(named)] = LOCAL
        elif inner.type in ("lexical_declaration", "variable_declaration"):
            for declarator in inner.named_children:
                named = declarator.child_by_field_name("name")
                if declarator.type == "variable_declarator" and named is not None:
                    found[_text(named)] = LOCAL
    return found


def _imported(statement: Any) -> list[str]:
    names: list[str] = []
    stack = list(statement.named_children)
    while stack:
        part = stack.pop()
        if part.type == "import_specifier":
            alias = part.child_by_field_name("alias") or part.child_by_field_name("name")
            if alias is not None:
                names.append(_text(alias))
            continue
        if part.type == "identifier":
            names.append(_text(part))
        elif part.type != "string":
            stack.extend(part.named_children)
    return names
