"""Code patterns mined from ingested Python: shapes many functions across
files share, kept as pattern memories with examples and the folder they
belong to, refreshed when mined again, and offered for files of that folder."""

from __future__ import annotations

import ast
import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from mnemotree import Memory, Run
from mnemotree.ingest.code_shape import bound, shape
from mnemotree.ingest.patterns import Function, mine
from tests.cli_runner import run_cli
from tests.server_helpers import serving
from tests.test_mcp import params, payload

pytestmark = pytest.mark.both_stores

COMMAND = '''
from .main import cli, with_memory, render


@cli.command()
@with_memory
def {name}(state):
    """Show {name}."""
    with state.memory.store.transaction():
        found = state.memory.{name}()
    render.emit_json(found)
'''
HELPER = """
import json


def {name}(path):
    with open(path) as handle:
        return json.load(handle)
"""


def _project(top: Path, commands: int = 6) -> Path:
    (top / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    package = top / "demo" / "commands"
    package.mkdir(parents=True)
    (top / "demo" / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    for n in range(commands):
        (package / f"cmd{n}.py").write_text(COMMAND.format(name=f"show{n}"))
        (top / "demo" / f"util{n}.py").write_text(HELPER.format(name=f"load{n}"))
    return top / "demo"


def _shape(source: str) -> list[str]:
    node = ast.parse(source).body[-1]
    assert isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    return shape(node)


def test_a_functions_shape_names_its_structures() -> None:
    assert _shape(COMMAND.format(name="show")) == [
        "@cli.command",
        "@with_memory",
        "call memory.show",
        "call render.emit_json",
        "with store.transaction",
    ]
    source = (
        "async def f(self):\n"
        "    try:\n        yield await self.db.fetch(len(x))\n"
        "    except (KeyError, ValueError):\n        raise NotFound('x') from None\n"
        "@x.setter\ndef g(self, v): self._v = v\n"
    )
    assert _shape(source.split("@x")[0]) == [
        "async",
        "call db.fetch",
        "except KeyError",
        "except ValueError",
        "raise NotFound",
        "yield",
    ]
    assert _shape("@x.setter\ndef g(self, v): self._v = v\n") == ["@*.setter"]


def test_bound_names_say_where_they_come_from() -> None:
    tree = ast.parse(
        "import numpy as np\nfrom .main import cli\nfrom sqlite_utils.db import Table\n"
        "X = 1\ndef f(): pass\nclass C: pass\n"
    )
    assert bound(tree) == {
        "np": "numpy",
        "cli": ".",
        "Table": "sqlite_utils",
        "X": ".",
        "f": ".",
        "C": ".",
    }


def _function(path: str, features: set[str], own: set[str] | None = None) -> Function:
    return Function(path, 1, "f", frozenset(features), frozenset(features if own is None else own))


def test_a_shape_seen_in_one_or_two_places_or_only_of_the_language_is_no_pattern() -> None:
    shared = {"@cli.command", "@with_memory"}
    assert mine([_function(f"c{n}.py", shared) for n in range(3)]) == []  # three functions
    assert mine([_function("c.py", shared) for _ in range(5)]) == []  # one file, five functions
    idiom = {"with open", "call json.load"}
    assert mine([_function(f"u{n}.py", idiom, set()) for n in range(8)]) == []
    calls = {"call a.b", "call c.d"}  # calls alone are vocabulary, not structure
    assert mine([_function(f"u{n}.py", calls) for n in range(8)]) == []
    [found] = mine([_function(f"c{n}.py", shared) for n in range(4)])
    assert found.features == ("@cli.command", "@with_memory") and found.files == 4


def test_patterns_are_kept_as_memories_and_offered_for_their_folder(
    memory: Memory, tmp_path: Path
) -> None:
    memory.ingest(_project(tmp_path), scope="dev")
    report = memory.code.mine_patterns(scope="dev")
    assert [p["name"] for p in report.patterns] == [
        "@cli.command → @with_memory → with store.transaction → call render.emit_json"
    ]
    [kept] = memory.typed.memories(scopes=["dev"], types=["pattern"])
    meta = kept.node.metadata
    assert meta["functions"] == 6 and meta["files"] == 6 and meta["trigger"] == "demo/commands/"
    assert meta["examples"][0] == "demo/commands/cmd0.py:5"
    assert kept.levels["hint"].startswith("@cli.command → @with_memory")
    got = {p.node.id: p.reasons for p in memory.predict({"file": "demo/commands/cmd9.py"})}
    assert "pattern for files in demo/commands/" in got[kept.node.id]
    again = memory.code.mine_patterns(scope="dev")
    assert again.created == [] and again.updated == [] and again.archived == []
    (tmp_path / "demo" / "commands" / "cmd0.py").write_text("X = 1\n")
    (tmp_path / "demo" / "commands" / "cmd1.py").write_text("X = 2\n")
    (tmp_path / "demo" / "commands" / "cmd2.py").write_text("X = 3\n")
    memory.ingest(tmp_path / "demo", scope="dev")
    fewer = memory.code.mine_patterns(scope="dev")  # three left: no longer a pattern
    assert fewer.patterns == [] and fewer.archived == [kept.node.id]
    assert memory.typed.memories(scopes=["dev"], types=["pattern"]) == []


@pytest.mark.sqlite_only
def test_cli_mines_and_lists_patterns(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    with Memory(db, embedder="hashing") as memory:
        memory.ingest(_project(tmp_path), scope="default")
    mined = json.loads(run_cli(db, "--json", "patterns", "--mine").stdout)
    assert len(mined["created"]) == 1
    listed = run_cli(db, "patterns")
    assert "@cli.command → @with_memory" in listed.stdout and "6 functions" in listed.stdout


@pytest.mark.sqlite_only
def test_http_and_mcp_mine_and_list_patterns(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    with Memory(db, embedder="hashing") as memory:
        memory.ingest(_project(tmp_path), scope="dev")
    with serving(db, {"dev": "dev", "ops": "ops"}) as served:
        with served.as_("dev") as http:
            dry = http.post("/patterns/mine", json={"dry_run": True}).json()
            assert len(dry["patterns"]) == 1 and dry["created"] == []
            made = http.post("/patterns/mine", json={}).json()
            assert [p["id"] for p in http.get("/patterns").json()] == made["created"]
        with served.as_("ops") as http:
            assert http.get("/patterns").json() == []
            assert http.post("/patterns/mine", json={"scope": "dev"}).status_code == 403

    async def main() -> list[dict[str, Any]]:
        async with Client(params(db)) as client:
            return list(payload(await client.call_tool("patterns", {"scope": "dev"})))

    [listed] = asyncio.run(main())
    assert listed["functions"] == 6 and listed["area"] == "demo/commands/"


def test_consolidation_refreshes_patterns_and_undo_reverses_a_mining(
    memory: Memory, tmp_path: Path
) -> None:
    memory.ingest(_project(tmp_path), scope="dev")
    plan = memory.consolidation.run(steps=["patterns"])
    assert [(a.step, a.data["op"]) for a in plan.actions] == [("patterns", "create")]
    assert memory.typed.memories(scopes=["dev"], types=["pattern"]) == []  # a dry run
    run = memory.consolidation.run(steps=["patterns"], dry_run=False)
    assert isinstance(run, Run)
    [kept] = memory.typed.memories(scopes=["dev"], types=["pattern"])
    assert kept.node.metadata["functions"] == 6 and kept.levels["index"] == kept.node.text
    assert memory.consolidation.run(steps=["patterns"]).actions == ()  # nothing new
    memory.consolidation.undo(run.id)
    assert memory.typed.memories(scopes=["dev"], types=["pattern"]) == []
    mined = memory.code.mine_patterns(scope="dev")
    assert mined.run_id and len(mined.created) == 1
    memory.consolidation.undo(mined.run_id)
    assert memory.typed.memories(scopes=["dev"], types=["pattern"]) == []


ROUTE = """import {{ envelope, HttpError }} from "../http";
import {{ {name}Schema }} from "./schema";

export async function get{title}(req, res) {{
  const input = {name}Schema.parse(req.body);
  try {{
    return res.json(envelope(await load{title}(input)));
  }} catch (e) {{
    throw new HttpError(500, "{name} failed");
  }}
}}
"""


def test_typescript_functions_have_shapes_and_patterns(memory: Memory, tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text('{"name": "shop"}')
    for name in ("users", "orders", "carts", "items", "prices"):
        folder = tmp_path / "src" / "routes" / name
        folder.mkdir(parents=True)
        (folder / "get.ts").write_text(ROUTE.format(name=name, title=name.capitalize()))
    memory.ingest(tmp_path / "src", scope="shop")
    report = memory.code.mine_patterns(scope="shop")
    [found] = report.patterns  # at most four features describe it
    assert {"async", "call envelope", "call res.json"} <= set(found["mined_features"])
    assert found["functions"] == 5 and found["examples"][0] == "src/routes/carts/get.ts:4"
