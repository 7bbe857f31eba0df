"""Prediction reads the code: memories about the files the open file
imports, the files importing it and its tests, from the ingested source's
import links; the source itself is never predicted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mnemotree import Memory
from mnemotree.context.code_evidence import is_test, linked_files

pytestmark = pytest.mark.both_stores


def _project(top: Path) -> Path:
    (top / "src" / "auth").mkdir(parents=True)
    (top / "package.json").write_text(json.dumps({"name": "demo"}))
    files = {
        "src/auth/routes.ts": 'import { login } from "./service";\nexport const r = login;\n',
        "src/auth/service.ts": (
            'import { User } from "./model";\n'
            "/** Log a user in with their session token. */\n"
            "export function login(token: string): User { return new User(token); }\n"
        ),
        "src/auth/model.ts": "export class User { constructor(public token: string) {} }\n",
        "src/auth/service.test.ts": (
            'import { login } from "./service";\ntest("x", () => login("t"));\n'
        ),
    }
    for name, text in files.items():
        (top / name).write_text(text)
    return top


def _decision(memory: Memory, text: str, path: str) -> str:
    return memory.remember(
        text, type="decision", artifacts=[{"type": "file", "ref": path}], scope="dev"
    ).id


def test_memories_about_linked_files_are_predicted_with_their_reason(
    memory: Memory, tmp_path: Path
) -> None:
    memory.ingest(_project(tmp_path) / "src", scope="dev")
    model = _decision(memory, "User tokens are opaque strings, never JWTs", "src/auth/model.ts")
    routes = _decision(memory, "Every auth route answers JSON errors", "src/auth/routes.ts")
    flaky = _decision(memory, "The login test needs a fake clock", "src/auth/service.test.ts")
    got = {p.node.id: p.reasons for p in memory.predict({"file": "src/auth/service.ts"})}
    assert "names src/auth/model.ts, which service.ts imports" in got[model]
    assert "names src/auth/routes.ts, which imports service.ts" in got[routes]
    assert "names src/auth/service.test.ts, which tests service.ts" in got[flaky]
    assert all(memory.get(i).metadata.get("relative_path") is None for i in got)  # no source
    # Links go one step: routes.ts does not import model.ts itself.
    from_model = {p.node.id: p.reasons for p in memory.predict({"file": "src/auth/model.ts"})}
    assert from_model[model][0] == "names src/auth/model.ts"
    assert not any("which" in reason for reason in from_model.get(routes, []))


def test_a_file_never_ingested_has_no_links(memory: Memory, tmp_path: Path) -> None:
    memory.ingest(_project(tmp_path) / "src", scope="dev")
    assert linked_files(memory.store, "src/billing/service.ts", None) == {}
    assert linked_files(memory.store, "src/auth/service.ts", ["other"]) == {}
    assert linked_files(memory.store, "", None) == {}
    assert linked_files(memory.store, "auth/service.ts", None) == {
        "src/auth/routes.ts": "caller",
        "src/auth/service.test.ts": "test",
        "src/auth/model.ts": "imported",
    }


@pytest.mark.parametrize(
    ("path", "test"),
    [
        ("tests/test_login.py", True),
        ("pkg/test_login.py", True),
        ("src/auth/service.test.ts", True),
        ("src/auth/service.spec.js", True),
        ("auth/login_test.go", True),
        ("src/__tests__/login.ts", True),
        ("src/auth/testing.py", False),
        ("src/contest/rules.py", False),
    ],
)
def test_test_files_are_told_by_their_path(path: str, test: bool) -> None:
    assert is_test(path) is test
