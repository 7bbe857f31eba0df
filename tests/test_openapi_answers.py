"""The answers /openapi.json declares are the answers the server sends.

A real server (127.0.0.1, real keys, real SQLite) is called on every route
the TypeScript client uses, and on the other routes whose answers are
declared, with realistic data chosen to bring out the keys only some answers
have (a document's source, a summary's folded hits, a contradiction's pair,
counts); and with an error of each kind (no key, a missing node, a value out
of bounds, a scope out of reach). Each answer is validated against the
schema the served document declares for that route and status ($refs
resolved, JSON Schema 2020-12; an integer must be a JSON integer). The
declared models are closed, so a key a handler adds, drops or retypes fails
here, as does a status the document does not declare.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, get_args

import httpx
import jsonschema
import pytest
from fastapi.routing import APIRoute
from pydantic import TypeAdapter

from mnemotree.server import routes_memory, routes_work
from mnemotree.server.answers import Declared
from tests.server_helpers import Served, serving
from tests.ts_generator import load_generator

KEYS = {"team": "team", "admin": "*"}
MISSING = "01NOSUCHNODE0000000000000"
JSON = "application/json"
GUIDE = (
    b"# Field guide\n\n## Install\n\nRun the installer on Linux with make install.\n\n"
    b"## Usage\n\nOpen the dashboard and pick a project.\n"
)
# The routes the TypeScript client calls (its type generator lists them): each
# declares its answer.
CLIENT_ROUTES = load_generator().ROUTES


def _json_integer(_: object, instance: object) -> bool:
    # JSON Schema counts 2.0 as an integer; a field that turned into a float
    # must not pass for an int.
    return isinstance(instance, int) and not isinstance(instance, bool)


Strict = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine("integer", _json_integer),
)


class Contract:
    """The served document, and the checks of answers against it."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.spec = spec

    def schema(self, method: str, path: str, status: int) -> dict[str, Any]:
        """The declared schema of that route's answer with that status:
        exactly that status (a 4XX range does not count: each error a
        route is known to answer is declared by its own status)."""
        responses = self.spec["paths"][path][method]["responses"]
        assert str(status) in responses, (
            f"{method.upper()} {path} answered {status}, which the document does not declare"
        )
        declared: dict[str, Any] = responses[str(status)]["content"][JSON]["schema"]
        return declared

    def check(self, answer: httpx.Response, method: str, path: str, status: int) -> Any:
        """The answer's JSON, after checking its status and its shape."""
        assert answer.status_code == status, answer.text[:500]
        assert answer.headers["content-type"].startswith(JSON)
        body = answer.json()
        # The components travel with the schema, so its $refs resolve.
        schema = {**self.schema(method, path, status), "components": self.spec["components"]}
        problems = [
            f"{'/'.join(str(p) for p in e.absolute_path) or '(the answer)'}: {e.message}"
            for e in Strict(schema).iter_errors(body)
        ]
        assert not problems, (
            f"{method.upper()} {path} {status} does not match the document:\n"
            + "\n".join(problems[:20])
        )
        return body


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with serving(tmp_path_factory.mktemp("answers") / "m.db", KEYS) as s:
        yield s


@pytest.fixture(scope="module")
def contract(served: Served) -> Contract:
    with served.client() as http:
        return Contract(http.get("/openapi.json").json())


@pytest.fixture(scope="module")
def team(served: Served) -> Iterator[httpx.Client]:
    with served.as_("team") as http:
        yield http


@pytest.fixture(scope="module")
def handbook(served: Served) -> str:
    """A node of a shared scope: every key reads it, only its own keys change it."""
    served.memory.keys.share_scope("handbook")
    return served.memory.add("Handbook: deploys run on Fridays", scope="handbook").id


@pytest.fixture(scope="module")
def anonymous(served: Served) -> Iterator[httpx.Client]:
    with served.client() as http:
        yield http


# -- the document ------------------------------------------------------------------


def test_the_clients_routes_declare_their_answers_and_every_error_is_the_servers_shape(
    contract: Contract,
) -> None:
    spec = contract.spec
    for method, path in CLIENT_ROUTES:
        responses = spec["paths"][path][method]["responses"]
        [success] = [code for code in responses if code.startswith("2")]
        schema = responses[success]["content"][JSON]["schema"]
        named = schema.get("$ref") or schema.get("items", {}).get("$ref")
        assert named, f"{method.upper()} {path} declares its answer as {schema}"
    errors = 0
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            for code, response in operation["responses"].items():
                if code.startswith(("4", "5")):
                    errors += 1
                    declared = response["content"][JSON]["schema"]
                    assert declared == {"$ref": "#/components/schemas/ErrorOut"}, (method, path)
    assert errors > 100
    # FastAPI's default 422 shape is never sent: it is declared nowhere.
    assert "HTTPValidationError" not in json.dumps(spec)
    assert spec["components"]["schemas"]["ErrorOut"]["required"] == ["error", "message", "value"]
    for schema in spec["components"]["schemas"].values():
        Strict.check_schema(schema)  # each is a well-formed JSON Schema


def test_declaring_an_answer_leaves_what_is_sent_untouched() -> None:
    """`Declared` changes the document only: the annotated type checks and
    serializes an answer exactly as the plain dict (or list) it wraps, so
    nothing is filtered, coerced or spelt differently."""
    answer = {"id": "x", "score": 1e-06, "big": 1e16, "extra": [1, "two", None], "é": "ü"}
    routes = [
        r
        for r in (*routes_memory.router.routes, *routes_work.router.routes)
        if isinstance(r, APIRoute)
        and any(isinstance(m, Declared) for m in getattr(r.response_model, "__metadata__", ()))
    ]
    assert len(routes) >= 16
    for route in routes:
        plain = get_args(route.response_model)[0]
        declared, bare = TypeAdapter(route.response_model), TypeAdapter(plain)
        schema = {k: v for k, v in declared.core_schema.items() if k != "metadata"}
        assert schema == bare.core_schema, route.path
        value = answer if plain == dict[str, Any] else [answer, answer]
        assert declared.validate_python(value) == value
        assert declared.dump_json(value) == bare.dump_json(value), route.path
    # json.dumps would spell it 1e-06: the answer still goes through pydantic.
    assert b'"score":1e-6' in TypeAdapter(dict[str, Any]).dump_json(answer)


# -- the client's routes -----------------------------------------------------------


def test_health(contract: Contract, anonymous: httpx.Client) -> None:
    health = contract.check(anonymous.get("/health"), "get", "/health", 200)
    assert health["status"] == "ok" and health["auth"] is True
    # The one error that is not JSON: a host this loopback server does not
    # answer to, refused before any route.
    refused = anonymous.get("/health", headers={"host": "rebound.example"})
    assert (refused.status_code, refused.text) == (400, "Invalid host header")
    assert refused.headers["content-type"].startswith("text/plain")
    for method, path in CLIENT_ROUTES:
        responses = contract.spec["paths"][path][method]["responses"]
        assert "text/plain" in responses.get("400", responses["4XX"])["content"], path


def test_remember_and_facts(contract: Contract, team: httpx.Client, served: Served) -> None:
    body = {"text": "Alice lives in Berlin @people", "type": "fact", "tags": ["people"]}
    made = contract.check(team.post("/remember", json=body), "post", "/remember", 201)
    assert made["scope"] == "team" and "people" in made["tags"]
    fact = {"key": "alice.city", "value": "Berlin", "confidence": 0.9}
    contract.check(team.post("/facts", json=fact), "post", "/facts", 201)
    fact["value"] = {"city": "Munich", "since": 2025}
    contract.check(team.post("/facts", json=fact), "post", "/facts", 201)

    with served.client() as nobody:
        contract.check(nobody.post("/remember", json=body), "post", "/remember", 401)
        contract.check(nobody.post("/facts", json=fact), "post", "/facts", 401)
    out_of_reach = {**body, "scope": "elsewhere"}
    contract.check(team.post("/remember", json=out_of_reach), "post", "/remember", 403)
    contract.check(
        team.post("/remember", json={**body, "under": MISSING}), "post", "/remember", 404
    )
    contract.check(team.post("/remember", json={**body, "importance": 2}), "post", "/remember", 422)
    contract.check(team.post("/remember", json={"text": ""}), "post", "/remember", 400)
    contract.check(
        team.post("/facts", json={"key": "k", "value": 1, "confidence": -1}), "post", "/facts", 422
    )
    # A memory under a node of another scope that is not shared.
    with served.as_("admin") as admin:
        other = contract.check(
            admin.post("/nodes", json={"text": "Elsewhere log", "scope": "elsewhere"}),
            "post",
            "/nodes",
            201,
        )
        inside = {**body, "under": other["id"], "scope": "team"}
        contract.check(admin.post("/remember", json=inside), "post", "/remember", 409)


def test_search(contract: Contract, team: httpx.Client, served: Served) -> None:
    memory = served.memory
    memory.remember("Alice lives in Munich now", scope="team", type="fact", valid_from="2025-01-01")
    memory.ingest(GUIDE, scope="team", filename="guide.md")
    kitchen = memory.add("Kitchen log", scope="team")
    dough, oven = memory.append_many(kitchen.id, ["bread dough rises overnight", "bread at 230"])
    memory.add_summary([dough.id, oven.id], "bread: rise overnight, bake at 230")

    def search(body: dict[str, Any], status: int = 200, http: httpx.Client = team) -> Any:
        return contract.check(http.post("/search", json=body), "post", "/search", status)

    hits = search({"query": "where does Alice live", "explain": True})
    assert hits and all("parts" in h for h in hits)
    assert any(h["valid_to"] is None and h["valid_from"] for h in hits)
    documents = search({"query": "run the installer on Linux", "min_relevance": 0})
    assert any("source" in h for h in documents)
    folded = search({"query": "bread", "filters": {"roots": [kitchen.id]}})
    assert any(h.get("covered") for h in folded)
    assert search({"query": "nothing like this at all zzqx"}) == []

    with served.client() as nobody:
        search({"query": "Alice"}, 401, nobody)
    search({"query": "Alice", "scopes": ["elsewhere"]}, 403)
    search({"query": "Alice", "limit": 0}, 422)
    search({"query": "Alice", "filters": {"since": "not a time"}}, 400)


def test_context(contract: Contract, team: httpx.Client, served: Served) -> None:
    memory = served.memory
    redis = memory.remember("The cache is Redis", scope="team", type="fact", tags=["infra"])
    memcached = memory.remember("The cache is Memcached", scope="team", type="fact")
    memory.typed.relate(redis.id, memcached.id, "contradicts")
    memory.ingest(GUIDE, scope="team", filename="guide.md")

    def assemble(body: dict[str, Any], status: int = 200, http: httpx.Client = team) -> Any:
        answer = http.post("/context/assemble", json=body)
        return contract.check(answer, "post", "/context/assemble", status)

    context = assemble({"query": "which cache, and how to install", "budget": 2000})
    items = [i for tier in context["tiers"] for i in tier["items"]]
    assert any("statements" in i for i in items)  # the contradiction's pair
    assert any("source" in i for i in items)  # a document's chunk
    assert any(i["reason"] == "topics" and "type" not in i for i in items)
    assert set(context["refs"].values()) >= {redis.id, memcached.id}
    assemble({"budget": 50, "signals": {"file": "src/cache.py"}, "activity": "debugging"})

    with served.client() as nobody:
        assemble({"query": "cache"}, 401, nobody)
    assemble({"query": "cache", "scopes": ["elsewhere"]}, 403)
    assemble({"query": "cache", "budget": 0}, 422)
    assemble({"query": "cache", "activity": "juggling"}, 400)


def test_ask(contract: Contract, team: httpx.Client, served: Served) -> None:
    served.memory.ingest(GUIDE, scope="team", filename="guide.md")

    def ask(body: dict[str, Any], status: int = 200, http: httpx.Client = team) -> Any:
        return contract.check(http.post("/ask", json=body), "post", "/ask", status)

    answer = ask({"question": "How do I run the installer on Linux?"})
    assert answer["sources"] and answer["rag_messages"][0]["role"] == "system"
    ask({"question": "How do I run the installer?", "generate": False, "limit": 1})

    with served.client() as nobody:
        ask({"question": "x"}, 401, nobody)
    ask({"question": "x", "scopes": ["elsewhere"]}, 403)
    ask({"question": "x", "limit": 0}, 422)
    ask({"question": " "}, 400)


def test_nodes(contract: Contract, team: httpx.Client, served: Served, handbook: str) -> None:
    def call(method: str, path: str, status: int, http: httpx.Client = team, **kw: Any) -> Any:
        url = path.replace("{node_id}", kw.pop("node_id", ""))
        return contract.check(http.request(method, url, **kw), method, path, status)

    project = call("post", "/nodes", 201, json={"text": "Project log", "metadata": {"n": 1}})
    child = call(
        "post",
        "/nodes",
        201,
        json={"text": "Kick-off held", "parent": project["id"], "context_type": "event"},
    )
    call("post", "/nodes", 201, json={"text": "Retro planned", "parent": project["id"]})
    read = call("get", "/nodes/{node_id}", 200, node_id=child["id"])
    assert [a["id"] for a in read["ancestors"]] == [project["id"]]
    listed = call("get", "/nodes/{node_id}/children", 200, node_id=project["id"])
    assert [n["text"] for n in listed] == ["Kick-off held", "Retro planned"]
    counted = call(
        "get",
        "/nodes/{node_id}/children",
        200,
        node_id=project["id"],
        params={"counts": True, "offset": 1, "limit": 5},
    )
    assert counted[0]["children"] == 0
    fixed = call(
        "patch", "/nodes/{node_id}", 200, node_id=child["id"], json={"text": "Kick-off on Monday"}
    )
    assert fixed["version"] == 2
    assert call("delete", "/nodes/{node_id}", 200, node_id=project["id"]) == {"deleted": 3}

    # Under a scope shared once and no longer: the parent and root are out of
    # reach, so they are null.
    memory = served.memory
    memory.keys.share_scope("legacy")
    legacy = memory.add("Legacy space", scope="legacy")
    under = call("post", "/nodes", 201, json={"text": "Kept", "parent": legacy.id, "scope": "team"})
    memory.keys.share_scope("legacy", shared=False)
    orphan = call("get", "/nodes/{node_id}", 200, node_id=under["id"])
    assert (orphan["parent_id"], orphan["root_id"], orphan["ancestors"]) == (None, None, [])

    for method, path in CLIENT_ROUTES:
        if "{node_id}" in path:
            call(
                method,
                path,
                404,
                node_id=MISSING,
                json={"text": "x"} if method == "patch" else None,
            )
    with served.client() as nobody:
        call("get", "/nodes/{node_id}", 401, nobody, node_id=child["id"])
        call("post", "/nodes", 401, nobody, json={"text": "x"})
    call("post", "/nodes", 403, json={"text": "x", "scope": "elsewhere"})
    assert call("get", "/nodes/{node_id}", 200, node_id=handbook)["scope"] == "handbook"
    call("patch", "/nodes/{node_id}", 403, node_id=handbook, json={"text": "x"})
    call("delete", "/nodes/{node_id}", 403, node_id=handbook)
    call("post", "/nodes", 404, json={"text": "x", "parent": MISSING})
    call("post", "/nodes", 422, json={"text": "x", "colour": "red"})
    call("patch", "/nodes/{node_id}", 422, node_id=child["id"], json={"text": 5})
    call("get", "/nodes/{node_id}/children", 422, node_id=project["id"], params={"offset": -1})


def test_purge(contract: Contract, team: httpx.Client, served: Served, handbook: str) -> None:
    def purge(body: dict[str, Any], status: int = 200, http: httpx.Client = team) -> Any:
        return contract.check(http.post("/purge", json=body), "post", "/purge", status)

    made = team.post("/remember", json={"text": "My card number is 4111 1111"}).json()
    plan = purge({"ids": [made["id"]]})
    assert plan["dry_run"] is True and plan["node_ids"] == [made["id"]]
    gone = purge({"ids": [made["id"]], "dry_run": False})
    assert gone["nodes"] == 1 and gone["compacted"] is True
    assert purge({"subject": "no such words here"})["selector"] == "subject"

    with served.client() as nobody:
        purge({"ids": [made["id"]]}, 401, nobody)
    purge({"ids": [handbook]}, 403)
    purge({"scope": "elsewhere"}, 404)  # out of reach: as if it did not exist
    purge({"ids": [MISSING]}, 404)
    purge({"ids": "one"}, 422)
    purge({}, 400)


# -- other routes whose answers are declared ---------------------------------------


def test_roots_move_history_and_session_messages(
    contract: Contract, team: httpx.Client, served: Served
) -> None:
    first = team.post("/nodes", json={"text": "First space"}).json()
    second = team.post("/nodes", json={"text": "Second space"}).json()
    note = team.post("/nodes", json={"text": "A note", "parent": first["id"]}).json()
    roots = contract.check(team.get("/roots", params={"counts": True}), "get", "/roots", 200)
    assert {first["id"], second["id"]} <= {r["id"] for r in roots}
    path = "/nodes/{node_id}/move"
    url = f"/nodes/{note['id']}/move"
    moved = contract.check(team.post(url, json={"parent": second["id"]}), "post", path, 200)
    assert moved["parent_id"] == second["id"]
    contract.check(team.post(url, json={"parent": note["id"]}), "post", path, 409)
    history = contract.check(
        team.get(f"/nodes/{note['id']}/history"), "get", "/nodes/{node_id}/history", 200
    )
    assert [v["op"] for v in history][-1] == "current"

    session = team.post("/sessions", json={"title": "standup"}).json()
    path = "/sessions/{session_id}/messages"
    url = f"/sessions/{session['id']}/messages"
    said = {"role": "user", "content": "The deploy is on Friday", "name": "Ana"}
    contract.check(team.post(url, json=said), "post", path, 201)
    assert contract.check(team.get(url), "get", path, 200)[0]["text"] == said["content"]
    contract.check(team.get(f"/sessions/{MISSING}/messages"), "get", path, 404)
