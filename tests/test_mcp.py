"""The MCP server over stdio, driven by the official MCP client (`mcp.Client`)
launching `python -m mnemotree mcp` on a real SQLite file."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from mnemotree import Memory
from tests.cli_runner import ENV

pytestmark = pytest.mark.both_stores  # every test using the memory fixtures runs on both

PATH_TOOLS = {"saveMemory", "queryMemory", "queryMemoryHeading", "listMemory", "deleteMemory"}


def params(db: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "mnemotree", "--db", str(db), "--embedder", "hashing", "mcp"],
        env=ENV,
    )


def payload(result: Any) -> Any:
    """A tool result's structured content (the SDK wraps lists and strings as 'result')."""
    assert not result.is_error, result.content
    data = result.structured_content
    return data["result"] if set(data) == {"result"} else data


def test_tools_are_listed_with_hints_and_descriptions(db_path: Path) -> None:
    async def main() -> list[Any]:
        async with Client(params(db_path)) as client:
            return list((await client.list_tools()).tools)

    tools = {t.name: t for t in asyncio.run(main())}
    assert {"remember", "search", "context", "ask", "ingest"} | PATH_TOOLS <= set(tools)
    for name in ("search", "context", "ask", "queryMemory", "queryMemoryHeading", "listMemory"):
        assert tools[name].annotations.read_only_hint is True, name
    assert tools["deleteMemory"].annotations.destructive_hint is True
    assert tools["remember"].annotations.read_only_hint is False
    assert all(len(t.description or "") > 30 for t in tools.values())
    assert set(tools["saveMemory"].input_schema["properties"]) == {
        "path",
        "content",
        "contextTokens",
        "scope",
    }


def test_an_agent_remembers_searches_builds_a_context_and_uses_paths(
    tmp_path: Path, db_path: Path
) -> None:
    db = db_path
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "deploys.md").write_text("# Deploys\n\nNo deploys after 3pm on Fridays.\n")

    async def main() -> dict[str, Any]:
        async with Client(params(db)) as client:
            out: dict[str, Any] = {}
            out["first"] = payload(
                await client.call_tool(
                    "remember", {"text": "Alice lives in Berlin", "scope": "team"}
                )
            )
            out["second"] = payload(
                await client.call_tool(
                    "remember", {"text": "Alice moved to Munich", "scope": "team"}
                )
            )
            out["search"] = payload(
                await client.call_tool(
                    "search", {"query": "where does Alice live", "scopes": ["team"]}
                )
            )
            out["context"] = payload(
                await client.call_tool(
                    "context", {"query": "Alice", "budget": 200, "scopes": ["team"]}
                )
            )
            out["ingest"] = payload(
                await client.call_tool("ingest", {"path": str(notes), "scope": "kb"})
            )
            out["ask"] = payload(
                await client.call_tool(
                    "ask", {"question": "when are deploys frozen?", "scopes": ["kb"]}
                )
            )
            out["save"] = payload(
                await client.call_tool(
                    "saveMemory",
                    {"path": "Project/Goals", "content": {"ship": "v1"}, "contextTokens": 0},
                )
            )
            out["query"] = payload(await client.call_tool("queryMemory", {"path": "Project/Goals"}))
            out["list"] = payload(await client.call_tool("listMemory", {}))
            out["delete"] = payload(
                await client.call_tool("deleteMemory", {"path": "Project/Goals"})
            )
            out["gone"] = payload(await client.call_tool("queryMemory", {"path": "Project/Goals"}))
            out["bad"] = await client.call_tool("remember", {"text": "   "})
            return out

    out = asyncio.run(main())
    assert out["first"]["contradicts"] == [] and out["first"]["updates"] == []
    # A move said later is an update: the newer statement supersedes, nothing waits.
    (found,) = out["second"]["updates"]
    assert out["second"]["contradicts"] == []
    assert found["a_id"] == out["first"]["id"] and "Munich" in found["reason"]
    assert [h["id"] for h in out["search"]] == [out["second"]["id"]]  # never the stale one
    context = out["context"]["text"]
    assert "Munich" in context and "Berlin" not in context
    assert out["second"]["id"] in out["context"]["refs"].values()
    assert out["ingest"]["summary"]["added"] == 1
    assert "3pm" in out["ask"]["system_prompt"]
    assert out["save"]["status"] == "SUCCESS" and out["query"]["content"] == {"ship": "v1"}
    assert out["list"]["tree"] == {"Project": {"Goals": {"ship": "v1"}}}
    assert out["delete"]["status"] == "SUCCESS" and out["gone"]["status"] == "NOT_FOUND"
    assert out["bad"].is_error and "empty" in json.dumps([c.text for c in out["bad"].content])
    with Memory(db, embedder="hashing") as memory:  # what the agent wrote is really there
        assert {h.node.text for h in memory.search("Alice", scopes=["team"])} == {
            "Alice moved to Munich"
        }
        assert {
            h.node.text for h in memory.search("Alice", scopes=["team"], include_expired=True)
        } == {"Alice lives in Berlin", "Alice moved to Munich"}


def test_an_agent_purges_what_the_user_asks_it_to_forget(tmp_path: Path, db_path: Path) -> None:
    db = db_path
    with Memory(db, embedder="hashing") as memory:
        gone = memory.remember("Zebulon Quixtrel's card is 4111 1111 1111 1111")
        kept = memory.remember("Buy more green tea")

    async def main() -> tuple[Any, Any, bool]:
        async with Client(params(db)) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            plan = payload(await client.call_tool("purge", {"subject": "Zebulon Quixtrel"}))
            done = payload(
                await client.call_tool("purge", {"subject": "Zebulon Quixtrel", "dry_run": False})
            )
            hints = tools["purge"].annotations
            return plan, done, hints is not None and bool(hints.destructive_hint)

    plan, done, destructive = asyncio.run(main())
    assert destructive and plan["dry_run"] and plan["node_ids"] == [gone.id]
    assert done["nodes"] == 1 and not done["dry_run"]
    with Memory(db, embedder="hashing") as memory:
        assert [n.id for n in memory.store.iter_nodes() if "tea" in n.text] == [kept.id]
        assert all("4111" not in n.text for n in memory.store.iter_nodes())
    if isinstance(db, Path):  # a file: not even its free pages hold it
        assert b"4111 1111" not in db.read_bytes()


def test_an_argument_a_tool_does_not_take_is_refused_not_ignored(
    tmp_path: Path, db_path: Path
) -> None:
    """`scope` to search (which takes `scopes`) once searched every scope, and
    `scopes` to remember wrote to the default scope: now each is an error."""
    db = db_path
    with Memory(db, embedder="hashing") as memory:
        memory.remember("green tea in the knowledge base", scope="kb")
        memory.remember("green tea somewhere else", scope="other")

    async def main() -> tuple[Any, Any]:
        async with Client(params(db)) as client:
            search = await client.call_tool("search", {"query": "green tea", "scope": "kb"})
            remember = await client.call_tool("remember", {"text": "new", "scopes": ["kb"]})
            return search, remember

    search, remember = asyncio.run(main())
    assert search.is_error and "did you mean 'scopes'" in search.content[0].text
    assert remember.is_error and "did you mean 'scope'" in remember.content[0].text
    with Memory(db, embedder="hashing") as memory:
        assert not [n for n in memory.store.iter_nodes() if n.text == "new"]


def test_an_agent_corrects_and_deletes_memories(db_path: Path) -> None:
    """`update` replaces a memory's text and keeps the old one in history;
    `delete` removes it (restorable); an unknown id is a tool error."""
    with Memory(db_path, embedder="hashing") as memory:
        typo = memory.remember("Alice's birthday is on 12 Mai")
        wrong = memory.remember("The office wifi password is hunter2")

    async def main() -> tuple[Any, Any, Any, Any]:
        async with Client(params(db_path)) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            fixed = payload(
                await client.call_tool(
                    "update", {"id": typo.id, "text": "Alice's birthday is on 12 May"}
                )
            )
            gone = payload(await client.call_tool("delete", {"id": wrong.id}))
            missing = await client.call_tool("delete", {"id": "01NOSUCHMEMORY00000000000"})
            return tools, fixed, gone, missing

    tools, fixed, gone, missing = asyncio.run(main())
    assert tools["update"].annotations.read_only_hint is False
    assert tools["delete"].annotations.destructive_hint is True
    assert fixed["id"] == typo.id and fixed["text"] == "Alice's birthday is on 12 May"
    assert gone == {"deleted": 1}
    assert missing.is_error and "01NOSUCHMEMORY00000000000" in missing.content[0].text
    with Memory(db_path, embedder="hashing") as memory:
        first = memory.history(typo.id)[0]
        assert first.node.text == "Alice's birthday is on 12 Mai"
        assert [h.node.id for h in memory.search("wifi password", min_relevance=0)] == []
