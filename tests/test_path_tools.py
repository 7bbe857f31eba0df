"""Path memory as an agent sees it (the path-memory design): tool schemas, the dispatcher,
the system-prompt outline, context injection and the `mnemotree path` CLI."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mnemotree import InvalidInput, Memory, NotFound
from mnemotree.structured import TOOLS, Injected, PathMemory, dispatch, inject, outline
from tests.cli_runner import run_cli

NAMES = ["saveMemory", "queryMemory", "queryMemoryHeading", "listMemory", "deleteMemory"]
INSTRUCTIONS = [
    "Use queryMemory(path) to retrieve specific entries.",
    "Use queryMemoryHeading(path, query) to search within a heading.",
    "Use saveMemory(path, content) to store new information.",
]


@pytest.fixture
def pm(memory: Memory) -> Iterator[PathMemory]:
    yield memory.paths()


def call(pm: PathMemory, name: str, args: dict[str, Any], as_text: bool) -> dict[str, Any]:
    result = dispatch(pm, name, json.dumps(args) if as_text else args)
    json.dumps(result)  # results are plain JSON for the model
    return result


# -- schemas --------------------------------------------------------------------------


def test_tools_are_five_json_schema_functions() -> None:
    assert [t["function"]["name"] for t in TOOLS] == NAMES
    json.loads(json.dumps(TOOLS))
    for tool in TOOLS:
        assert tool["type"] == "function"
        fn = tool["function"]
        assert isinstance(fn["description"], str) and fn["description"]
        params = fn["parameters"]
        assert params["type"] == "object"
        assert set(params["required"]) <= set(params["properties"])
        for prop in params["properties"].values():
            assert isinstance(prop.get("description"), str)
    by_name = {t["function"]["name"]: t["function"]["parameters"] for t in TOOLS}
    assert by_name["saveMemory"]["required"] == ["path", "content"]
    assert set(by_name["saveMemory"]["properties"]) == {"path", "content", "contextTokens"}
    assert by_name["saveMemory"]["properties"]["contextTokens"]["type"] == "integer"
    assert by_name["queryMemory"]["required"] == ["path"]
    assert set(by_name["queryMemoryHeading"]["properties"]) == {"path", "query", "recencyBias"}
    bias = by_name["queryMemoryHeading"]["properties"]["recencyBias"]
    assert (bias["type"], bias["minimum"], bias["maximum"]) == ("number", 0, 1)
    assert by_name["listMemory"]["required"] == []
    assert set(by_name["listMemory"]["properties"]) == {"rootPath"}
    assert by_name["deleteMemory"]["properties"]["recursive"]["type"] == "boolean"


# -- the dispatcher -------------------------------------------------------------------


@pytest.mark.parametrize("as_text", [True, False], ids=["json-string", "dict"])
def test_dispatch_round_trip(memory: Memory, as_text: bool) -> None:
    pm = memory.paths()
    memory.remember("the multi window architecture needs a shared database")
    goal = {"goal": "multi window architecture", "blockers": ["schema"], "priority": "high"}

    saved = call(pm, "saveMemory", {"path": "Halo/Goals/MultiWindow", "content": goal}, as_text)
    assert saved["status"] == "SUCCESS"
    assert saved["path"] == "Halo/Goals/MultiWindow"
    assert saved["chunksStored"] >= 1
    entry = pm.get("Halo/Goals/MultiWindow", record=False)
    assert saved["chunksStored"] == len(entry.snapshot)
    assert saved["contextTokens"] == sum(memory.tokenizer.count(c.text) for c in entry.snapshot)
    assert saved["contextTokens"] <= 1000

    small = call(
        pm,
        "saveMemory",
        {"path": "Halo/Goals/Brightness", "content": "decay", "contextTokens": 0},
        as_text,
    )
    assert (small["status"], small["contextTokens"], small["chunksStored"]) == ("SUCCESS", 0, 0)
    again = call(
        pm,
        "saveMemory",
        {"path": "Halo/Goals/Brightness", "content": "faster decay", "contextTokens": 0},
        as_text,
    )
    assert again["version"] == 2

    got = call(pm, "queryMemory", {"path": "Halo/Goals/MultiWindow"}, as_text)
    assert got["status"] == "SUCCESS"
    assert got["content"] == goal
    assert [c["text"] for c in got["contextChunks"]] == [c.text for c in entry.snapshot]
    assert "the multi window architecture needs a shared database" in [
        c["text"] for c in got["contextChunks"]
    ]
    assert {"created", "modified", "version"} <= set(got["metadata"])
    assert got["metadata"]["version"] == 1
    assert got["metadata"]["accessed"] is not None

    heading = call(pm, "queryMemoryHeading", {"path": "Halo/Goals"}, as_text)
    assert heading["status"] == "SUCCESS"
    assert heading["totalChildren"] == 2
    assert {c["path"] for c in heading["children"]} == {
        "Halo/Goals/MultiWindow",
        "Halo/Goals/Brightness",
    }
    for child in heading["children"]:
        assert {"path", "heading", "content", "modified"} <= set(child)
    ranked = call(
        pm,
        "queryMemoryHeading",
        {"path": "Halo/Goals", "query": "multi window architecture", "recencyBias": 0.0},
        as_text,
    )
    assert ranked["status"] == "SUCCESS"
    assert ranked["children"][0]["path"] == "Halo/Goals/MultiWindow"
    assert ranked["children"][0]["score"] > ranked["children"][1]["score"]
    assert all("relevantChunks" in c for c in ranked["children"])

    listed = call(pm, "listMemory", {}, as_text)
    assert listed == {
        "status": "SUCCESS",
        "tree": {"Halo": {"Goals": {"MultiWindow": goal, "Brightness": "faster decay"}}},
        "totalEntries": 2,
    }
    below = call(pm, "listMemory", {"rootPath": "Halo/Goals"}, as_text)
    assert below["status"] == "SUCCESS" and below["totalEntries"] == 2
    assert below["tree"] == {"Goals": {"MultiWindow": goal, "Brightness": "faster decay"}}

    gone = call(pm, "deleteMemory", {"path": "Halo/Goals/Brightness"}, as_text)
    assert gone["status"] == "SUCCESS" and gone["path"] == "Halo/Goals/Brightness"
    refused = call(pm, "deleteMemory", {"path": "Halo"}, as_text)
    assert refused["status"] == "ERROR" and "recursive" in refused["error"]
    all_gone = call(pm, "deleteMemory", {"path": "Halo", "recursive": True}, as_text)
    assert all_gone["status"] == "SUCCESS" and all_gone["deleted"] == 3
    assert call(pm, "listMemory", {}, as_text) == {
        "status": "SUCCESS",
        "tree": {},
        "totalEntries": 0,
    }


def test_list_tree_keeps_content_of_entries_with_children(pm: PathMemory) -> None:
    pm.save("A", {"about": "a"}, context_tokens=0)
    pm.save("A/B", [1, 2], context_tokens=0)
    pm.save("C/D/E", "e", context_tokens=0)
    result = dispatch(pm, "listMemory", {})
    assert result["tree"] == {
        "A": {"_content": {"about": "a"}, "B": [1, 2]},
        "C": {"D": {"E": "e"}},
    }
    assert result["totalEntries"] == 3


def test_dispatch_not_found(pm: PathMemory) -> None:
    assert dispatch(pm, "queryMemory", {"path": "Nope"}) == {"status": "NOT_FOUND", "path": "Nope"}
    pm.save("Goals/Phase1", "x", context_tokens=0)
    cases: list[tuple[str, dict[str, Any]]] = [
        ("queryMemory", {"path": "Goals/Phase2"}),
        ("queryMemoryHeading", {"path": "Missing"}),
        ("queryMemoryHeading", {"path": "Goals/Phase1/Deeper", "query": "x"}),
        ("deleteMemory", {"path": "Goals/Phase2"}),
        ("deleteMemory", {"path": "Missing", "recursive": True}),
    ]
    for name, args in cases:
        result = dispatch(pm, name, args)
        assert result["status"] == "NOT_FOUND", (name, result)
        assert result["path"] == args["path"]
    # A heading is not an entry.
    heading = dispatch(pm, "queryMemory", {"path": "Goals"})
    assert heading["status"] == "NOT_FOUND" and heading["path"] == "Goals"
    # An entry without anything under it has no children to list.
    assert dispatch(pm, "queryMemoryHeading", {"path": "Goals/Phase1"})["status"] == "NOT_FOUND"
    assert pm.get("Goals/Phase1").content == "x"


def test_dispatch_errors_are_results(memory: Memory, pm: PathMemory) -> None:
    pm.save("Goals/Phase1", "x", context_tokens=0)
    before = memory.stats().nodes
    cases: list[tuple[str, Any]] = [
        ("saveMemory", "{not json"),
        ("saveMemory", "[1, 2]"),
        ("saveMemory", '"text"'),
        ("forgetEverything", {"path": "Goals"}),
        ("saveMemory", {"path": "Goals/P2"}),
        ("saveMemory", {"content": "x"}),
        ("queryMemory", {}),
        ("queryMemoryHeading", {}),
        ("deleteMemory", "{}"),
        ("saveMemory", {"path": "a//b", "content": 1}),
        ("saveMemory", {"path": "../etc", "content": 1}),
        ("saveMemory", {"path": "", "content": 1}),
        ("saveMemory", {"path": 7, "content": 1}),
        ("saveMemory", {"path": "ok", "content": 1, "contextTokens": -1}),
        ("saveMemory", {"path": "ok", "content": 1, "contextTokens": "many"}),
        ("queryMemory", {"path": "/Goals"}),
        ("queryMemoryHeading", {"path": "Goals", "query": "x", "recencyBias": 2}),
        ("listMemory", {"rootPath": "a//b"}),
        ("deleteMemory", {"path": "Goals/"}),
    ]
    for name, args in cases:
        result = dispatch(pm, name, args)
        assert result["status"] == "ERROR", (name, args, result)
        assert isinstance(result["error"], str) and result["error"]
    assert "saveMemory" in dispatch(pm, "forgetEverything", {})["error"]
    assert "path" in dispatch(pm, "queryMemory", {})["error"]
    assert "content" in dispatch(pm, "saveMemory", {"path": "a"})["error"]
    assert memory.stats().nodes == before
    saved = dispatch(pm, "saveMemory", json.dumps({"path": "ok", "content": float("nan")}))
    assert saved["status"] == "ERROR"  # NaN parses from the JSON string but is not content
    assert memory.stats().nodes == before


def test_dispatch_non_string_query_is_an_error_result(pm: PathMemory) -> None:
    pm.save("Goals/Phase1", "x", context_tokens=0)
    result = dispatch(pm, "queryMemoryHeading", {"path": "Goals", "query": 5})
    assert result["status"] == "ERROR"


# -- the outline ----------------------------------------------------------------------


def test_outline_renders_the_tree(pm: PathMemory) -> None:
    assert "(empty)" in outline(pm)
    for path in (
        "Halo/Goals/Multi",
        "Halo/Goals/Bright",
        "Halo/Bugs/Hang",
        "User/Prefs/Style",
        "Top",
    ):
        pm.save(path, path, context_tokens=0)
    text = outline(pm)
    assert text.startswith("You have access to a structured memory system")
    lines = text.splitlines()
    for line in INSTRUCTIONS:
        assert line in lines
    start = lines.index("Halo/")
    listing = lines[start : lines.index(INSTRUCTIONS[0]) - 1]
    assert listing == [
        "Halo/",
        "  Bugs/",
        "    Hang",
        "  Goals/",
        "    Bright",
        "    Multi",
        "Top",
        "User/",
        "  Prefs/",
        "    Style",
    ]
    assert lines[start - 1] == "" and lines[lines.index(INSTRUCTIONS[0]) - 1] == ""
    # An entry that also has entries below is shown as a heading.
    pm.save("Top/Below", 1, context_tokens=0)
    assert "Top/" in outline(pm).splitlines()
    # depth limits the levels shown.
    shallow = outline(pm, depth=1).splitlines()
    assert "Halo/" in shallow and "  Goals/" not in shallow and "    Multi" not in shallow


def test_outline_keeps_children_under_their_heading(pm: PathMemory) -> None:
    pm.save("Project/Goals", "g", context_tokens=0)
    pm.save("Project Notes", "n", context_tokens=0)
    lines = outline(pm).splitlines()
    start = lines.index("Project/")
    assert lines[start : start + 3] == ["Project/", "  Goals", "Project Notes"]


def test_outline_marks_emptied_headings(pm: PathMemory) -> None:
    pm.save("Goals/Phase1", "x", context_tokens=0)
    pm.delete("Goals/Phase1")
    assert dispatch(pm, "queryMemory", {"path": "Goals"})["status"] == "NOT_FOUND"
    assert "Goals/" in outline(pm).splitlines()


# -- injection ------------------------------------------------------------------------

SNAPSHOT_CONVERSATION = [
    {"role": "user", "content": "the database schema uses sqlite tables"},
    {"role": "assistant", "content": "schema migration for the database"},
    {"role": "user", "content": "bananas are yellow"},
]


def _messages() -> list[dict[str, str]]:
    chat = [
        {
            "role": "user" if i % 2 == 0 else "assistant",
            "content": f"message number {i}: " + "some filler words " * (i + 1),
        }
        for i in range(8)
    ]
    return [
        {"role": "system", "content": "You are a helpful assistant."},
        *chat[:3],
        {"role": "system", "content": "Answer briefly."},
        *chat[3:],
    ]


def _tokens(memory: Memory, messages: list[dict[str, str]]) -> int:
    return sum(memory.tokenizer.count(m["content"]) for m in messages)


def _check(memory: Memory, result: Injected, original: list[dict[str, str]], budget: int) -> None:
    systems = [m for m in original if m["role"] == "system"]
    others = [m for m in original if m["role"] != "system"]
    assert result.tokens == _tokens(memory, result.messages)
    assert result.tokens <= budget
    n = len(systems)
    assert result.messages[:n] == systems
    block = result.messages[n]
    assert block["role"] == "system"
    assert block["content"].startswith("Memory P/Schema:\n")
    kept = result.messages[n + 1 :]
    assert kept == others[len(others) - len(kept) :]  # oldest pruned first
    assert result.pruned == len(others) - len(kept)


def test_inject_prunes_oldest_and_fits_budget(memory: Memory, pm: PathMemory) -> None:
    pm.save("P/Schema", {"db": "sqlite"}, conversation=SNAPSHOT_CONVERSATION)
    messages = _messages()
    others = [m for m in messages if m["role"] != "system"]

    roomy = inject(pm, "P/Schema", messages, 100_000)
    _check(memory, roomy, messages, 100_000)
    assert roomy.pruned == 0
    assert len(roomy.messages) == len(messages) + 1
    block = roomy.messages[2]["content"]
    assert '"db": "sqlite"' in block
    assert "[user] the database schema uses sqlite tables" in block
    assert "[assistant] schema migration for the database" in block
    full = roomy.tokens
    assert messages == _messages()  # the input is not changed

    prunes = []
    for budget in range(full, 0, -7):
        try:
            result = inject(pm, "P/Schema", messages, budget, keep_recent=2)
        except InvalidInput:
            break
        _check(memory, result, messages, budget)
        assert len(result.messages) - 3 >= 2  # the last two are always kept
        if result.pruned > 0 and result.messages[2]["content"] == block:
            # Pruned no more than needed: the next older message would not fit.
            previous = others[result.pruned - 1]
            assert result.tokens + memory.tokenizer.count(previous["content"]) > budget
        prunes.append(result.pruned)
    assert prunes == sorted(prunes)
    assert prunes[0] == 0 and prunes[-1] == len(others) - 2

    # Then the snapshot gives way, weakest chunk first, before giving up.
    systems = [m for m in messages if m["role"] == "system"]
    bare = _tokens(memory, systems)
    entry_only = memory.tokenizer.count('Memory P/Schema:\n{\n "db": "sqlite"\n}')
    strongest = "[user] the database schema uses sqlite tables"
    one_chunk = memory.tokenizer.count(
        'Memory P/Schema:\n{\n "db": "sqlite"\n}\n\nContext from when it was saved:\n' + strongest
    )
    fits_one = inject(pm, "P/Schema", messages, bare + one_chunk, keep_recent=0)
    _check(memory, fits_one, messages, bare + one_chunk)
    assert fits_one.pruned == len(others) and len(fits_one.messages) == 3
    assert fits_one.messages[2]["content"].endswith("saved:\n" + strongest)
    smallest = inject(pm, "P/Schema", messages, bare + entry_only, keep_recent=0)
    _check(memory, smallest, messages, bare + entry_only)
    assert "Context from when it was saved" not in smallest.messages[2]["content"]
    with pytest.raises(InvalidInput, match="budget"):
        inject(pm, "P/Schema", messages, bare + entry_only - 1, keep_recent=0)
    with pytest.raises(InvalidInput, match="budget"):
        inject(pm, "P/Schema", messages, 5)


def test_inject_bad_arguments(pm: PathMemory) -> None:
    pm.save("P/Schema", "x", context_tokens=0)
    for budget in (0, -1, True, "100", 1.5):
        with pytest.raises(InvalidInput):
            inject(pm, "P/Schema", [], budget)  # type: ignore[arg-type]
    with pytest.raises(NotFound):
        inject(pm, "P/Missing", [], 1000)
    result = inject(pm, "P/Schema", [], 1000)
    assert result.pruned == 0 and len(result.messages) == 1


def test_inject_negative_keep_recent_is_invalid_input(pm: PathMemory) -> None:
    pm.save("P/Schema", "x" * 50, context_tokens=0)
    with pytest.raises(InvalidInput):
        inject(pm, "P/Schema", [{"role": "user", "content": "hello there"}], 3, keep_recent=-1)


def test_inject_heading_is_not_found(pm: PathMemory) -> None:
    pm.save("H/Entry", "x", context_tokens=0)
    with pytest.raises(NotFound):
        inject(pm, "H", [], 1000)


# -- the command line -----------------------------------------------------------------


def test_cli_path_round_trip(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"

    def cli(*args: str) -> Any:
        return run_cli(db, *args, embedder="hashing")

    saved = cli("path", "save", "Halo/Goals/Multi", '{"goal": "windows", "n": 2}')
    assert saved.returncode == 0, saved.stderr
    assert "Halo/Goals/Multi" in saved.stdout and "version 1" in saved.stdout

    as_json = cli("path", "save", "--json", "--context-tokens", "0", "Halo/Bugs/Hang", '"hangs"')
    assert as_json.returncode == 0, as_json.stderr
    data = json.loads(as_json.stdout)
    assert (data["path"], data["content"], data["contextChunks"]) == ("Halo/Bugs/Hang", "hangs", [])

    bad = cli("path", "save", "Halo/Bad", "{not json")
    assert bad.returncode == 1
    assert bad.stderr.strip().startswith("error:")
    assert len(bad.stderr.strip().splitlines()) == 1
    assert "not valid JSON" in bad.stderr

    got = cli("path", "get", "--json", "Halo/Goals/Multi")
    assert got.returncode == 0, got.stderr
    entry = json.loads(got.stdout)
    assert entry["content"] == {"goal": "windows", "n": 2}
    assert entry["metadata"]["version"] == 1 and entry["metadata"]["accessed"]

    listed = cli("path", "ls")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.splitlines() == ["Halo/", "  Bugs/", "    Hang", "  Goals/", "    Multi"]

    queried = cli("path", "query", "--json", "Halo/Goals", "windows goal")
    assert queried.returncode == 0, queried.stderr
    ranked = json.loads(queried.stdout)
    assert [e["path"] for e in ranked] == ["Halo/Goals/Multi"]
    assert "score" in ranked[0]

    refused = cli("path", "rm", "Halo")
    assert refused.returncode == 1
    assert "recursive" in refused.stderr and refused.stderr.startswith("error:")

    removed = cli("--json", "path", "rm", "--recursive", "Halo")
    assert removed.returncode == 0, removed.stderr
    assert json.loads(removed.stdout) == {"path": "Halo", "deleted": 5}

    tools = cli("path", "tools")
    assert tools.returncode == 0, tools.stderr
    assert [t["function"]["name"] for t in json.loads(tools.stdout)] == NAMES

    empty = cli("path", "ls", "--json")
    assert empty.returncode == 0 and json.loads(empty.stdout) == []
