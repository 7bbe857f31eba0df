"""JSON out of model replies: found in prose or code fences, checked against a schema.

Local models often wrap JSON in prose or fences, or leave a trailing comma;
`extract_json` copes with those. `validate` checks the JSON Schema keywords
structured output needs (type, enum, const, properties, required,
additionalProperties, items, min/maxItems, min/maxLength, minimum/maximum,
anyOf); other keywords are ignored.
"""

from __future__ import annotations

import json
import re
from typing import Any

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "number": (int, float),
    "integer": (int,),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list,),
    "null": (type(None),),
}


def extract_json(text: str) -> Any:
    """The first JSON object or array in `text`; ValueError says why there is none."""
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    for candidate in candidates:
        for start, char in enumerate(candidate):
            if char not in "{[":
                continue
            for attempt in (candidate[start:], _TRAILING_COMMA.sub(r"\1", candidate[start:])):
                try:
                    return json.JSONDecoder().raw_decode(attempt)[0]
                except json.JSONDecodeError:
                    continue
            break  # the first opening bracket did not parse: try the next candidate
    shown = text if len(text) <= 80 else text[:77] + "..."
    raise ValueError(f"no JSON object in the reply {shown!r}")


def validate(value: Any, schema: dict[str, Any], where: str = "$") -> list[str]:
    """Every way `value` breaks `schema`, as 'path: problem' lines (empty: valid)."""
    problems: list[str] = []
    kinds = schema.get("type")
    if kinds is not None:
        names = [kinds] if isinstance(kinds, str) else list(kinds)
        if not any(_is(value, name) for name in names):
            return [f"{where}: expected {' or '.join(names)}, got {_kind(value)}"]
    if "enum" in schema and value not in schema["enum"]:
        problems.append(f"{where}: {value!r} is not one of {schema['enum']}")
    if "const" in schema and value != schema["const"]:
        problems.append(f"{where}: expected {schema['const']!r}")
    if "anyOf" in schema and all(validate(value, s, where) for s in schema["anyOf"]):
        problems.append(f"{where}: matches none of the allowed forms")
    if isinstance(value, dict):
        problems += _object(value, schema, where)
    elif isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            problems.append(f"{where}: needs at least {schema['minItems']} items")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            problems.append(f"{where}: allows at most {schema['maxItems']} items")
        if isinstance(schema.get("items"), dict):
            for i, item in enumerate(value):
                problems += validate(item, schema["items"], f"{where}[{i}]")
    elif isinstance(value, str):
        if len(value) < schema.get("minLength", 0):
            problems.append(f"{where}: shorter than {schema['minLength']} characters")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            problems.append(f"{where}: longer than {schema['maxLength']} characters")
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            problems.append(f"{where}: {value} is below {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            problems.append(f"{where}: {value} is above {schema['maximum']}")
    return problems


def _object(value: dict[str, Any], schema: dict[str, Any], where: str) -> list[str]:
    required = schema.get("required", [])
    problems = [f"{where}: missing {key!r}" for key in required if key not in value]
    properties: dict[str, Any] = schema.get("properties", {})
    extra = schema.get("additionalProperties", True)
    for key, item in value.items():
        if key in properties:
            problems += validate(item, properties[key], f"{where}.{key}")
        elif extra is False:
            problems.append(f"{where}: unexpected key {key!r}")
        elif isinstance(extra, dict):
            problems += validate(item, extra, f"{where}.{key}")
    return problems


def _is(value: Any, name: str) -> bool:
    if isinstance(value, bool) and name in ("number", "integer"):
        return False
    if name == "integer" and isinstance(value, float):
        return value.is_integer()
    return isinstance(value, _TYPES.get(name, ()))


def _kind(value: Any) -> str:
    for name in _TYPES:
        if _is(value, name):
            return name
    return type(value).__name__
