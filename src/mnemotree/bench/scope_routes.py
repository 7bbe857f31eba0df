"""Random requests for the scope-leak campaign: one maker per HTTP route and
MCP tool. Each draws ids, scopes and words from the world (readable or not),
so that both allowed and refused requests are tried."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..memory import Memory
from . import scope_world as sw


@dataclass
class Ctx:
    client: Any  # a Starlette TestClient over the app
    keys: dict[str, str]
    world: sw.World
    memory: Memory
    rng: random.Random


@dataclass
class Call:
    """One HTTP request, or an MCP tool call when `tool` is set."""

    method: str
    url: str
    params: dict[str, Any] = field(default_factory=dict)
    body: Any = None
    content: bytes | None = None
    tool: str | None = None

    def shown(self) -> str:
        """Everything the caller sent, to tell echoes from leaks."""
        sent = self.content.decode("utf-8", "replace") if self.content else ""
        return " ".join([self.url, json.dumps(self.params), json.dumps(self.body), sent])

    def send(self, ctx: Ctx, key: str) -> tuple[int, str]:
        headers = {"authorization": f"Bearer {ctx.keys[key]}"}
        if self.tool is not None:
            headers["accept"] = "application/json, text/event-stream"
            rpc = {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": self.tool, "arguments": self.body},
            }
            response = ctx.client.post("/mcp", json=rpc, headers=headers)
        else:
            response = ctx.client.request(
                self.method,
                self.url,
                params=self.params,
                json=self.body,
                content=self.content,
                headers=headers,
            )
        return response.status_code, response.text

    def after(self, ctx: Ctx, status: int, body: str) -> None:
        """Remember ids a successful write made, to draw later requests from."""
        if status in (200, 201) and self.method != "GET" and self.tool is None:
            try:
                made = json.loads(body)
            except ValueError:
                return
            if isinstance(made, dict) and isinstance(made.get("id"), str):
                ctx.world.nodes.append(made["id"])


Maker = Callable[[Ctx, str], Call]


def _scope(ctx: Ctx, key: str) -> str:
    """Mostly a scope the key may write, sometimes any scope (to be refused)."""
    reach = sw.KEYS[key]
    own = list(sw.SCOPES.values()) if reach == "*" else reach.split(",")
    return ctx.rng.choice(own if ctx.rng.random() < 0.8 else list(sw.SCOPES.values()))


def _scopes(ctx: Ctx, key: str) -> list[str] | None:
    roll = ctx.rng.random()
    if roll < 0.4:
        return None
    return sorted({_scope(ctx, key) for _ in range(ctx.rng.randint(1, 2))})


def _node(ctx: Ctx) -> str:
    pool = ctx.world.tempting if ctx.rng.random() < 0.5 else ctx.world.nodes
    return ctx.rng.choice(pool)


def _query(ctx: Ctx) -> str:
    return " ".join(ctx.rng.sample(sw.WORDS, ctx.rng.randint(1, 3)))


def _scope_of_node(ctx: Ctx, node_id: str) -> str:
    found = ctx.memory.find(node_id)
    return found.scope if found is not None else "scope-alpha"


def _text_for(ctx: Ctx, node_id: str) -> str:
    return sw.sentence(ctx.rng, _scope_of_node(ctx, node_id))


# -- HTTP routes ---------------------------------------------------------------------


def health(ctx: Ctx, key: str) -> Call:
    return Call("GET", "/health")


def search(ctx: Ctx, key: str) -> Call:
    body = {
        "query": _query(ctx),
        "scopes": _scopes(ctx, key),
        "limit": 20,
        "explain": ctx.rng.random() < 0.3,
    }
    return Call("POST", "/search", body=body)


def remember(ctx: Ctx, key: str) -> Call:
    scope = _scope(ctx, key)
    body: dict[str, Any] = {
        "text": sw.sentence(ctx.rng, scope),
        "scope": scope,
        "type": ctx.rng.choice([None, "fact", "decision"]),
    }
    if ctx.rng.random() < 0.3:
        body["under"] = _node(ctx)
    return Call("POST", "/remember", body=body)


def fact(ctx: Ctx, key: str) -> Call:
    scope = _scope(ctx, key)
    value = f"{ctx.rng.choice(['Berlin', 'Porto', 'Oslo'])} {sw.token(ctx.rng, scope)}"
    return Call("POST", "/facts", body={"key": "office_city", "value": value, "scope": scope})


def memories(ctx: Ctx, key: str) -> Call:
    return Call("GET", "/memories", params={"scopes": _scopes(ctx, key) or []})


def roots(ctx: Ctx, key: str) -> Call:
    return Call("GET", "/roots", params={"scopes": _scopes(ctx, key) or [], "counts": True})


def add_node(ctx: Ctx, key: str) -> Call:
    parent = _node(ctx) if ctx.rng.random() < 0.6 else None
    scope = _scope(ctx, key)
    return Call(
        "POST",
        "/nodes",
        body={"text": sw.sentence(ctx.rng, scope), "parent": parent, "scope": scope},
    )


def get_node(ctx: Ctx, key: str) -> Call:
    return Call("GET", f"/nodes/{_node(ctx)}")


def children(ctx: Ctx, key: str) -> Call:
    return Call("GET", f"/nodes/{_node(ctx)}/children", params={"counts": True})


def history(ctx: Ctx, key: str) -> Call:
    return Call("GET", f"/nodes/{_node(ctx)}/history")


def relations(ctx: Ctx, key: str) -> Call:
    return Call("GET", f"/nodes/{_node(ctx)}/relations")


def update(ctx: Ctx, key: str) -> Call:
    node = _node(ctx)
    return Call("PATCH", f"/nodes/{node}", body={"text": _text_for(ctx, node)})


def move(ctx: Ctx, key: str) -> Call:
    return Call("POST", f"/nodes/{_node(ctx)}/move", body={"parent": _node(ctx)})


def delete(ctx: Ctx, key: str) -> Call:
    return Call("DELETE", f"/nodes/{_node(ctx)}")


def paths(ctx: Ctx, key: str) -> Call:
    return Call("GET", "/paths", params={"scope": _scope(ctx, key), "prefix": "Proj"})


def get_path(ctx: Ctx, key: str) -> Call:
    return Call(
        "GET", f"/paths/{ctx.rng.choice(ctx.world.paths)}", params={"scope": _scope(ctx, key)}
    )


def save_path(ctx: Ctx, key: str) -> Call:
    scope = _scope(ctx, key)
    return Call(
        "PUT",
        f"/paths/{ctx.rng.choice(ctx.world.paths)}",
        params={"scope": scope},
        body={"content": {"note": sw.sentence(ctx.rng, scope)}},
    )


def delete_path(ctx: Ctx, key: str) -> Call:
    return Call(
        "DELETE", f"/paths/{ctx.rng.choice(ctx.world.paths)}", params={"scope": _scope(ctx, key)}
    )


def start_session(ctx: Ctx, key: str) -> Call:
    scope = _scope(ctx, key)
    return Call("POST", "/sessions", body={"scope": scope, "title": sw.sentence(ctx.rng, scope)})


def sessions(ctx: Ctx, key: str) -> Call:
    return Call("GET", "/sessions", params={"scopes": _scopes(ctx, key) or []})


def add_message(ctx: Ctx, key: str) -> Call:
    session = ctx.rng.choice(ctx.world.sessions)
    return Call(
        "POST",
        f"/sessions/{session}/messages",
        body={"role": "user", "content": _text_for(ctx, session)},
    )


def messages(ctx: Ctx, key: str) -> Call:
    return Call("GET", f"/sessions/{ctx.rng.choice(ctx.world.sessions)}/messages")


def upload(ctx: Ctx, key: str) -> Call:
    scope = _scope(ctx, key)
    text = f"# Notes {sw.token(ctx.rng, scope)}\n\n{sw.sentence(ctx.rng, scope)}\n"
    return Call(
        "POST", "/documents", params={"filename": "notes.md", "scope": scope}, content=text.encode()
    )


def documents(ctx: Ctx, key: str) -> Call:
    return Call("GET", "/documents", params={"scopes": _scopes(ctx, key) or []})


def ask(ctx: Ctx, key: str) -> Call:
    return Call("POST", "/ask", body={"question": _query(ctx), "scopes": _scopes(ctx, key)})


def assemble(ctx: Ctx, key: str) -> Call:
    body = {
        "query": _query(ctx),
        "budget": ctx.rng.choice([300, 2000]),
        "scopes": _scopes(ctx, key),
        "signals": {"file": "src/app.py"},
    }
    return Call("POST", "/context/assemble", body=body)


def predict(ctx: Ctx, key: str) -> Call:
    body = {"signals": {"file": "src/app.py", "branch": "main"}, "scopes": _scopes(ctx, key)}
    return Call("POST", "/context/predict", body=body)


def consolidate(ctx: Ctx, key: str) -> Call:
    return Call("POST", "/consolidate", body={"dry_run": True})


def contradictions(ctx: Ctx, key: str) -> Call:
    return Call(
        "GET", "/contradictions", params={"status": "all", "scopes": _scopes(ctx, key) or []}
    )


def resolve(ctx: Ctx, key: str) -> Call:
    found = ctx.rng.choice(ctx.world.contradictions)
    return Call(
        "POST",
        f"/contradictions/{found}/resolve",
        body={"resolution": ctx.rng.choice(["a_wins", "b_wins", "both_valid"])},
    )


# -- MCP tools -----------------------------------------------------------------------


def _tool(name: str, arguments: dict[str, Any]) -> Call:
    return Call(
        "POST", "/mcp", body={k: v for k, v in arguments.items() if v is not None}, tool=name
    )


def mcp_remember(ctx: Ctx, key: str) -> Call:
    scope = _scope(ctx, key)
    return _tool("remember", {"text": sw.sentence(ctx.rng, scope), "scope": scope})


def mcp_search(ctx: Ctx, key: str) -> Call:
    return _tool("search", {"query": _query(ctx), "scopes": _scopes(ctx, key)})


def mcp_context(ctx: Ctx, key: str) -> Call:
    return _tool("context", {"query": _query(ctx), "budget": 1000, "scopes": _scopes(ctx, key)})


def mcp_ask(ctx: Ctx, key: str) -> Call:
    return _tool("ask", {"question": _query(ctx), "scopes": _scopes(ctx, key)})


def mcp_update(ctx: Ctx, key: str) -> Call:
    node = _node(ctx)
    return _tool("update", {"id": node, "text": _text_for(ctx, node)})


def mcp_delete(ctx: Ctx, key: str) -> Call:
    return _tool("delete", {"id": _node(ctx)})


def mcp_ingest(ctx: Ctx, key: str) -> Call:
    return _tool("ingest", {"path": "/nonexistent/notes.md", "scope": _scope(ctx, key)})


def mcp_paths(ctx: Ctx, key: str) -> Call:
    scope, path = _scope(ctx, key), ctx.rng.choice(ctx.world.paths)
    name = ctx.rng.choice(
        ["saveMemory", "queryMemory", "queryMemoryHeading", "listMemory", "deleteMemory"]
    )
    arguments: dict[str, Any] = {"scope": scope}
    if name == "listMemory":
        arguments["rootPath"] = "Proj"
    else:
        arguments["path"] = path
    if name == "saveMemory":
        arguments["content"] = {"note": sw.sentence(ctx.rng, scope)}
    return _tool(name, arguments)


ROUTES: list[tuple[str, Maker]] = [
    (f.__name__, f)
    for f in (
        health,
        search,
        remember,
        fact,
        memories,
        roots,
        add_node,
        get_node,
        children,
        history,
        relations,
        update,
        move,
        delete,
        paths,
        get_path,
        save_path,
        delete_path,
        start_session,
        sessions,
        add_message,
        messages,
        upload,
        documents,
        ask,
        assemble,
        predict,
        consolidate,
        contradictions,
        resolve,
        mcp_remember,
        mcp_search,
        mcp_context,
        mcp_ask,
        mcp_update,
        mcp_delete,
        mcp_ingest,
        mcp_paths,
    )
]
