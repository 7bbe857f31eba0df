"""MCP over streamable HTTP at /mcp in the served app, driven by the official
client (`mcp.Client` over `streamable_http_client`), with real API keys: each
call reaches only its key's scopes."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

from tests.server_helpers import Served, serving
from tests.test_mcp import payload

pytestmark = pytest.mark.both_stores  # every test using the memory fixtures runs on both

KEYS = {"kb": "kb", "both": "kb,team", "admin": "*"}


@pytest.fixture
def served(db_path: Path) -> Iterator[Served]:
    with serving(db_path, KEYS) as s:
        yield s


def call(served: Served, key: str | None, tool: str, arguments: dict[str, Any]) -> Any:
    """One tool call over HTTP with `key` (the raw result: it may be an error)."""

    async def main() -> Any:
        headers = {"authorization": f"Bearer {key}"} if key else {}
        http = create_mcp_http_client(headers=headers)
        async with http, Client(streamable_http_client(f"{served.url}/mcp", http_client=http)) as c:
            return await c.call_tool(tool, arguments)

    return asyncio.run(main())


def test_tools_over_http_stay_within_the_keys_scopes(served: Served, tmp_path: Path) -> None:
    kb, both = served.keys["kb"], served.keys["both"]
    made = payload(call(served, kb, "remember", {"text": "Deploys run on Fridays"}))
    assert made["scope"] == "kb"  # the key's only scope is the default
    payload(call(served, both, "remember", {"text": "Team lunch is on Fridays", "scope": "team"}))
    refused = call(served, kb, "remember", {"text": "x", "scope": "team"})
    assert refused.is_error and "team" in refused.content[0].text

    seen = payload(call(served, kb, "search", {"query": "Fridays"}))
    assert [h["text"] for h in seen] == ["Deploys run on Fridays"]  # not the team's lunch
    assert len(payload(call(served, both, "search", {"query": "Fridays"}))) == 2
    assert call(served, kb, "search", {"query": "Fridays", "scopes": ["team"]}).is_error
    built = payload(call(served, kb, "context", {"query": "when do we deploy", "budget": 300}))
    text = built["text"]
    assert "Deploys run on Fridays" in text and "lunch" not in text
    assert all(served.memory.get(i).scope == "kb" for i in built["refs"].values())

    saved = payload(call(served, kb, "saveMemory", {"path": "Ops/Deploy", "content": "Fri"}))
    assert saved["status"] == "SUCCESS"
    assert served.memory.paths("kb").get("Ops/Deploy").content == "Fri"
    assert call(served, kb, "queryMemory", {"path": "Ops/Deploy", "scope": "team"}).is_error


def test_ingest_over_http_needs_a_key_for_every_scope(served: Served, tmp_path: Path) -> None:
    notes = tmp_path / "notes.md"
    notes.write_text("# Runbook\n\nRestart the queue worker first.\n")
    refused = call(served, served.keys["kb"], "ingest", {"path": str(notes)})
    assert refused.is_error and "every scope" in refused.content[0].text
    assert not served.memory.docs.list()
    report = payload(call(served, served.keys["admin"], "ingest", {"path": str(notes)}))
    assert report["summary"]["added"] == 1 and served.memory.docs.list()


def test_mcp_over_http_refuses_requests_without_a_live_key(served: Served) -> None:
    with httpx.Client(base_url=served.url) as http:
        answer = http.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert answer.status_code == 401 and answer.headers["www-authenticate"] == "Bearer"
    with pytest.raises(Exception) as failed:  # an ExceptionGroup (a builtin from 3.11)
        call(served, "mt_aaaaaaaaaaaa_" + "x" * 43, "search", {"query": "x"})
    assert failed.group_contains(MCPError, match="error response", depth=2)


def test_a_loopback_server_refuses_foreign_host_names(served: Served) -> None:
    """DNS rebinding: a page on evil.example resolving to 127.0.0.1 is refused."""
    with httpx.Client(base_url=served.url, headers={"host": "evil.example"}) as http:
        assert http.get("/health").status_code == 400


def test_update_and_delete_over_http_reach_only_the_keys_own_memories(served: Served) -> None:
    kb, both = served.keys["kb"], served.keys["both"]
    ours = payload(call(served, kb, "remember", {"text": "Deploys run on Fridays"}))
    theirs = payload(call(served, both, "remember", {"text": "Lunch at noon", "scope": "team"}))
    # Another scope's memory is not there for this key, for either tool.
    for tool, arguments in (("update", {"text": "Lunch at one"}), ("delete", {})):
        refused = call(served, kb, tool, {"id": theirs["id"], **arguments})
        assert refused.is_error and theirs["id"] in refused.content[0].text
    assert served.memory.get(theirs["id"]).text == "Lunch at noon"
    fixed = payload(call(served, kb, "update", {"id": ours["id"], "text": "Deploys run Thursdays"}))
    assert fixed["text"] == "Deploys run Thursdays"
    assert payload(call(served, both, "delete", {"id": theirs["id"]})) == {"deleted": 1}
