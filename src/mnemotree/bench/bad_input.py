"""The bad-input corpus: hostile values through the facade and the HTTP API.

Every case must end in one of our errors (a clean message; over HTTP a 4xx
in the documented `{"error", "message", "value"}` shape) and write nothing.
A traceback of another kind, a 5xx, another body shape or a changed node
count is a failure.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, cast

from ..errors import MnemotreeError
from ..memory import Memory

SCOPES = ["", " ", "a\u202eb", "a\x00b", "a\u200bb", "x" * 100_000, "line\nbreak", "tab\tscope"]
TEXTS = ["", "   ", "\ud800 lone surrogate", "\x00"]
DATES = ["yesterday-ish", "2026-13-45", "9999999-01-01", "", "T", "2026-01-01T25:00"]
IDS = ["", "../../etc/passwd", "x" * 10_000, "\x00", "01NOPE"]
DEEP_TEXT = "[" * 1_000 + "]" * 1_000
HUGE_INT_TEXT = "9" * 5_001


def deep() -> Any:
    """A list nested 1,000 levels deep."""
    value: Any = []
    for _ in range(1_000):
        value = [value]
    return value


def huge_int() -> int:
    return 10**5_001 - 1  # 5,001 digits: Python refuses to print it


def metadata_values() -> list[Any]:
    return [deep(), {"n": huge_int()}, {"x": float("nan")}, {1: "a"}, [], "text"]


@dataclass
class Outcome:
    cases: int = 0
    clean: int = 0
    failures: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "cases": self.cases,
            "clean": self.clean,
            "failures": len(self.failures),
            "examples": self.failures[:20],
        }


Case = tuple[str, Callable[[], object]]


def facade_cases(memory: Memory) -> list[Case]:
    """(name, call) pairs that must each raise one of our errors."""
    m, space = memory, memory.add("space")
    cases: list[Case] = []
    for i, scope in enumerate(SCOPES):
        cases += [
            (f"add scope {i}", partial(m.add, "x", scope=scope)),
            (f"remember scope {i}", partial(m.remember, "x", scope=scope)),
            (f"search scopes {i}", partial(m.search, "x", scopes=[scope])),
            (f"paths scope {i}", partial(_save, m, scope, "x")),
        ]
    cases.append(("search scopes str", partial(m.search, "x", scopes="kb")))
    cases += [(f"add text {i}", partial(m.add, text)) for i, text in enumerate(TEXTS)]
    # A query is read, not stored: odd characters in it are replaced, not refused.
    cases += [(f"search query {i}", partial(m.search, text)) for i, text in enumerate(TEXTS[:2])]
    for i, meta in enumerate(metadata_values()):
        cases += [
            (f"add metadata {i}", partial(m.add, "x", metadata=meta)),
            (f"remember metadata {i}", partial(m.remember, "x", metadata=meta)),
        ]
        if isinstance(meta, dict) or i == 0:  # path content may be a list or text
            cases.append((f"path content {i}", partial(_save, m, "default", meta)))
    cases += [
        ("fact deep", partial(m.typed.fact, "k", deep())),
        ("fact huge", partial(m.typed.fact, "k", huge_int())),
    ]
    for i, date in enumerate(DATES):
        cases += [
            (f"search valid_at {i}", partial(m.search, "x", valid_at=date)),
            (f"memories valid_at {i}", partial(m.typed.memories, valid_at=date)),
        ]
    for i, bad in enumerate(IDS):
        cases += [
            (f"get id {i}", partial(m.get, bad)),
            (f"append under id {i}", partial(m.append_child, bad, "x")),
            (f"delete id {i}", partial(m.delete, bad)),
        ]
    lines = [DEEP_TEXT, HUGE_INT_TEXT, "{not json", json.dumps({"id": "x"})]
    cases += [
        (f"import jsonl {i}", partial(m.exchange.import_jsonl, [t])) for i, t in enumerate(lines)
    ]
    cases += [
        ("search limit 0", partial(m.search, "x", limit=0)),
        ("search limit str", partial(m.search, "x", limit=cast(Any, "5"))),
        ("move into itself", partial(m.move, space.id, parent=space.id)),
    ]
    return cases


def _save(memory: Memory, scope: str, content: Any) -> object:
    return memory.paths(scope).save("p/q", content)


def http_cases() -> list[tuple[str, str, str, Any]]:
    """(name, method, path, JSON body or raw text) that must answer 4xx."""
    cases: list[tuple[str, str, str, Any]] = []
    for i, scope in enumerate(SCOPES[:7]):
        cases += [
            (f"remember scope {i}", "POST", "/remember", {"text": "x", "scope": scope}),
            (f"search scopes {i}", "POST", "/search", {"query": "x", "scopes": [scope]}),
        ]
    deep_metadata = '{"text": "x", "metadata": {"a": ' + DEEP_TEXT + "}}"
    cases += [
        ("search scopes str", "POST", "/search", {"query": "x", "scopes": "kb"}),
        ("deep body", "POST", "/remember", DEEP_TEXT),
        ("huge int", "POST", "/remember", '{"text": "x", "importance": ' + HUGE_INT_TEXT + "}"),
        ("deep metadata", "POST", "/remember", deep_metadata),
        ("deep path", "PUT", "/paths/a/b?scope=kb", '{"content": ' + DEEP_TEXT + "}"),
        ("not json", "POST", "/search", "{nope"),
        ("bad date", "POST", "/search", {"query": "x", "filters": {"valid_at": "2026-13-45"}}),
        ("bad limit", "POST", "/search", {"query": "x", "limit": -1}),
        ("no route", "GET", "/nope", None),
        ("bad method", "DELETE", "/search", None),
        ("missing node", "GET", "/nodes/01NOPE", None),
        ("bad upload name", "POST", "/documents?filename=../x.md", "# x"),
        ("bad resolution", "POST", "/contradictions/01NOPE/resolve", {"resolution": "x"}),
    ]
    return cases


def run() -> dict[str, Any]:
    """Both corpora against fresh databases; outcomes per side."""
    with tempfile.TemporaryDirectory() as tmp:
        with Memory(Path(tmp) / "facade.db", embedder="hashing") as memory:
            facade = _facade(memory)
        http = _http(Path(tmp) / "http.db")
    return {"facade": facade.to_dict(), "http": http.to_dict()}


def _facade(memory: Memory) -> Outcome:
    return _facade_from(facade_cases(memory), memory)


def _facade_from(cases: list[Case], memory: Memory) -> Outcome:
    outcome = Outcome()
    for name, call in cases:
        before = memory.stats().nodes
        outcome.cases += 1
        try:
            call()
        except MnemotreeError:
            if memory.stats().nodes == before:
                outcome.clean += 1
            else:
                outcome.failures.append(f"{name}: wrote nodes before failing")
            continue
        except Exception as exc:  # noqa: BLE001  (the corpus counts them; nothing is swallowed)
            outcome.failures.append(f"{name}: {type(exc).__name__}: {str(exc)[:120]}")
            continue
        outcome.failures.append(f"{name}: accepted")
    return outcome


def _http(db: Path) -> Outcome:
    from fastapi.testclient import TestClient

    from ..server import create_app

    outcome = Outcome()
    with Memory(db, embedder="hashing") as memory:
        key = memory.keys.create("*")[1]
        headers = {"authorization": f"Bearer {key}", "content-type": "application/json"}
        with TestClient(create_app(memory), base_url="http://127.0.0.1:8765") as client:
            for name, method, path, body in http_cases():
                before = memory.stats().nodes
                content = body if isinstance(body, str) or body is None else json.dumps(body)
                answer = client.request(method, path, content=content, headers=headers)
                outcome.cases += 1
                problem = _problem(answer.status_code, answer.text)
                if problem is None and memory.stats().nodes != before:
                    problem = "wrote nodes"
                if problem is None:
                    outcome.clean += 1
                else:
                    outcome.failures.append(f"{name}: {problem}")
    return outcome


def _problem(status: int, text: str) -> str | None:
    """What is wrong with an answer to a bad request, if anything."""
    if not 400 <= status < 500:
        return f"status {status}"
    try:
        body = json.loads(text)
    except ValueError:
        return f"not JSON: {text[:80]}"
    if not isinstance(body, dict) or set(body) != {"error", "message", "value"}:
        return f"body {text[:80]}"
    return None
