"""Writes src/schema.ts: the TypeScript types of what the client sends and
receives, generated from the server's own OpenAPI document (built in-process
on a throwaway store, no server started), so they cannot drift from it.

    .venv/bin/python clients/typescript/generate_types.py [--out FILE]

Declared: each component schema the client's routes reach, and each route's
answer as `<Summary>Response` (its inline request body, if any, as
`<Summary>Body`). tests/test_typescript_types.py checks the committed file.
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from mnemotree import Memory
from mnemotree.server import create_app

COMMAND = ".venv/bin/python clients/typescript/generate_types.py"
TARGET = Path(__file__).resolve().parent / "src" / "schema.ts"
# The routes src/index.ts calls (test/client.test.ts lists them too, checked
# against that source and the server's document).
ROUTES: tuple[tuple[str, str], ...] = (
    ("get", "/health"),
    ("post", "/remember"),
    ("post", "/search"),
    ("post", "/context/assemble"),
    ("post", "/ask"),
    ("post", "/nodes"),
    ("get", "/nodes/{node_id}"),
    ("patch", "/nodes/{node_id}"),
    ("delete", "/nodes/{node_id}"),
    ("get", "/nodes/{node_id}/children"),
    ("post", "/facts"),
    ("post", "/purge"),
)
REF = "#/components/schemas/"
PRIMITIVES = {
    "string": "string",
    "number": "number",
    "integer": "number",
    "boolean": "boolean",
    "null": "null",
}
INDENT = "  "

Schema = dict[str, Any]


def openapi() -> Schema:
    """The document `mnemotree serve` answers at /openapi.json."""
    with (
        tempfile.TemporaryDirectory(prefix="mnemotree-openapi-") as folder,
        Memory(Path(folder) / "m.db", embedder="hashing", llm="offline") as memory,
    ):
        return create_app(memory).openapi()


# -- what to declare ---------------------------------------------------------------


def declared(spec: Schema, routes: Iterable[tuple[str, str]]) -> dict[str, Schema]:
    """Every type to declare, by name: the routes' answers and inline bodies,
    then every component schema they reach."""
    components: dict[str, Schema] = spec.get("components", {}).get("schemas", {})
    chosen: dict[str, Schema] = {}
    bodies: list[Schema] = []
    for method, path in routes:
        operation = _operation(spec, method, path)
        summary = _pascal(operation.get("summary") or operation["operationId"])
        if summary + "Response" in chosen:
            raise ValueError(f"two routes are both summarised as {summary}")
        route = f"The answer to {method.upper()} {path}."
        described = "\n".join(filter(None, (route, operation.get("description"))))
        chosen[summary + "Response"] = {**_answer(operation), "description": described}
        body = _json(operation.get("requestBody"))
        if body is not None and "$ref" in body:
            bodies.append(body)
        elif body is not None:
            chosen[summary + "Body"] = body
    for name in _reached([*chosen.values(), *bodies], components):
        typed = _name(name)
        if typed in chosen:
            raise ValueError(f"two schemas would both be declared as {typed}")
        chosen[typed] = components[name]
    return chosen


def _operation(spec: Schema, method: str, path: str) -> Schema:
    operation: Schema | None = spec.get("paths", {}).get(path, {}).get(method)
    if operation is None:
        raise ValueError(f"the server's OpenAPI document has no {method.upper()} {path}")
    return operation


def _answer(operation: Schema) -> Schema:
    """The schema of the success answer; JSON null (what the client returns
    for an empty body) when it declares no content."""
    codes = sorted(code for code in operation.get("responses", {}) if code.startswith("2"))
    if not codes:
        raise ValueError(f"{operation['operationId']} declares no success answer")
    found = _json(operation["responses"][codes[0]])
    return {"type": "null"} if found is None else found


def _json(part: Schema | None) -> Schema | None:
    if part is None:
        return None
    schema: Schema | None = part.get("content", {}).get("application/json", {}).get("schema")
    return schema


def _reached(roots: list[Any], components: dict[str, Schema]) -> list[str]:
    """The component names `roots` refer to, directly or through each other."""
    seen: set[str] = set()
    waiting = [ref for root in roots for ref in _refs(root)]
    while waiting:
        name = waiting.pop()
        if name in seen:
            continue
        if name not in components:
            raise ValueError(f"{REF}{name} is referred to but not defined")
        seen.add(name)
        waiting.extend(_refs(components[name]))
    return sorted(seen)


def _refs(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        ref = value.get("$ref")
        if isinstance(ref, str) and ref.startswith(REF):
            yield ref[len(REF) :]
        for inner in value.values():
            yield from _refs(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _refs(inner)


def _pascal(words: str) -> str:
    return "".join(word[:1].upper() + word[1:] for word in re.split(r"[^A-Za-z0-9]+", words))


def _name(component: str) -> str:
    """A component's name as a TypeScript identifier (pydantic may use `-`)."""
    name = re.sub(r"[^A-Za-z0-9_$]", "_", component)
    return "_" + name if name[:1].isdigit() else name


# -- TypeScript --------------------------------------------------------------------


def render(spec: Schema, routes: Iterable[tuple[str, str]] = ROUTES) -> str:
    """schema.ts: the types of `routes` (method, path) in `spec`, sorted by name."""
    header = (
        f"// Generated by `{COMMAND}` from the server's\n"
        "// OpenAPI document (/openapi.json): do not edit, regenerate.\n"
    )
    types = declared(spec, routes)
    return header + "".join("\n" + _declaration(name, types[name]) for name in sorted(types))


def _declaration(name: str, schema: Schema) -> str:
    doc = _doc(schema, 0)
    if _is_object(schema):
        return f"{doc}export interface {name} {_object(schema, 0)}\n"
    return f"{doc}export type {name} = {_type(schema, 0)};\n"


def _type(schema: Schema | bool, depth: int) -> str:
    """The TypeScript type of a JSON schema (a boolean schema: anything or nothing)."""
    if isinstance(schema, bool):
        return "unknown" if schema else "never"
    if "$ref" in schema:
        return _name(schema["$ref"].removeprefix(REF))
    if "const" in schema:
        return _literal(schema["const"])
    if "enum" in schema:
        return _union(_literal(value) for value in schema["enum"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return _union(_type(member, depth) for member in schema[key])
    if "allOf" in schema:
        return " & ".join(_grouped(_type(member, depth)) for member in schema["allOf"])
    kind = schema.get("type")
    if isinstance(kind, list):
        return _union(_type({**schema, "type": one}, depth) for one in kind)
    if kind == "array":
        return _array(schema, depth)
    if _is_object(schema):
        return _object(schema, depth)
    return PRIMITIVES.get(kind, "unknown") if isinstance(kind, str) else "unknown"


def _is_object(schema: Schema) -> bool:
    plain = not any(key in schema for key in ("$ref", "anyOf", "oneOf", "allOf", "enum", "const"))
    return plain and (schema.get("type") == "object" or "properties" in schema)


def _object(schema: Schema, depth: int) -> str:
    properties: dict[str, Schema | bool] = schema.get("properties", {})
    required = set(schema.get("required", []))
    # JSON Schema allows other properties unless it says otherwise.
    extra: Schema | bool = schema.get("additionalProperties", True)
    inner = INDENT * (depth + 1)
    lines: list[str] = []
    for key in sorted(properties):
        value = properties[key]
        if isinstance(value, dict):
            lines.append(_doc(value, depth + 1))
        optional = "" if key in required else "?"
        lines.append(f"{inner}{_key(key)}{optional}: {_type(value, depth + 1)};\n")
    if not properties:
        return (
            "Record<string, never>"
            if extra is False
            else f"{{ [key: string]: {_type(extra, depth)} }}"
        )
    if extra is not False:
        # TypeScript needs every property to fit the index signature: with
        # properties beside it, only `unknown` is sure to.
        lines.append(f"{inner}[key: string]: unknown;\n")
    return "{\n" + "".join(lines) + INDENT * depth + "}"


def _array(schema: Schema, depth: int) -> str:
    items: Schema | bool = schema.get("items", True)
    if "prefixItems" in schema:
        members = [_type(member, depth) for member in schema["prefixItems"]]
        if items is not False:
            members.append(f"...{_grouped(_type(items, depth))}[]")
        return "[" + ", ".join(members) + "]"
    return _grouped(_type(items, depth)) + "[]"


def _union(members: Iterable[str]) -> str:
    unique = list(dict.fromkeys(members))
    if "unknown" in unique:
        return "unknown"
    return " | ".join(unique) if unique else "never"


def _grouped(typed: str) -> str:
    return f"({typed})" if " | " in typed or " & " in typed else typed


def _literal(value: Any) -> str:
    """A JSON scalar as a TypeScript literal type (JSON's spelling is TypeScript's)."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return json.dumps(value)
    return "unknown"


def _key(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z_$][A-Za-z0-9_$]*", name) else json.dumps(name)


def _doc(schema: Schema, depth: int) -> str:
    """A JSDoc comment of the schema's description and default, if it has either."""
    text = schema.get("description") or ""
    if "default" in schema:
        default = json.dumps(schema["default"])
        text = f"{text} (default: {default})" if text else f"default: {default}"
    if not text:
        return ""
    lines = text.replace("*/", "*\\/").splitlines()
    indent = INDENT * depth
    if len(lines) == 1:
        return f"{indent}/** {lines[0]} */\n"
    body = "".join(f"{indent} * {line}".rstrip() + "\n" for line in lines)
    return f"{indent}/**\n{body}{indent} */\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write the client's types from /openapi.json.")
    parser.add_argument("--out", type=Path, default=TARGET, help=f"default: {TARGET}")
    out: Path = parser.parse_args(argv).out
    out.write_text(render(openapi()), encoding="utf-8", newline="\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
