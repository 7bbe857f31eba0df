"""The HTTP API (issue 9): a real server on 127.0.0.1, real keys, real SQLite.

Covers the auth matrix (no key, unknown, wrong scope, right scope, revoked),
each route family, errors mapped to statuses with their messages, the body
limit and uploads with hostile file names.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.server_helpers import Served, serving

pytestmark = pytest.mark.both_stores  # every test using the memory fixtures runs on both

KEYS = {"kb": "kb,user:42", "other": "elsewhere", "admin": "*"}


@pytest.fixture
def served(db_path: Path) -> Iterator[Served]:
    with serving(db_path, KEYS, max_body=64 * 1024) as s:
        yield s


def test_health_needs_no_key_and_the_openapi_names_the_routes(served: Served) -> None:
    with served.client() as http:
        assert http.get("/health").json()["status"] == "ok"
        spec = http.get("/openapi.json").json()
    routes = (
        "/search",
        "/remember",
        "/context/assemble",
        "/context/predict",
        "/consolidate",
        "/contradictions",
        "/contradictions/{contradiction_id}/resolve",
        "/paths/{path}",
        "/updates",
        "/updates/{update_id}/revert",
        "/sessions",
        "/documents",
        "/ask",
        "/nodes/{node_id}",
    )
    for path in routes:
        assert path in spec["paths"], path


def test_the_auth_matrix(served: Served) -> None:
    body = {"text": "Deploys run on Fridays", "scope": "kb"}
    with served.client() as anonymous:
        missing = anonymous.post("/remember", json=body)
    assert missing.status_code == 401 and "no API key" in missing.json()["message"]
    assert missing.headers["www-authenticate"] == "Bearer"
    with served.client("mt_aaaaaaaaaaaa_" + "x" * 43) as forged:
        assert forged.post("/remember", json=body).status_code == 401
    with served.client("not-a-key") as garbage:
        assert garbage.post("/search", json={"query": "x"}).status_code == 401
    with served.as_("other") as outsider:
        denied = outsider.post("/remember", json=body)
        assert denied.status_code == 403 and "'kb'" in denied.json()["message"]
        assert outsider.post("/search", json={"query": "x", "scopes": ["kb"]}).status_code == 403
    with served.as_("kb") as insider:
        made = insider.post("/remember", json=body)
        assert made.status_code == 201 and made.json()["scope"] == "kb"
    key_id = served.keys["kb"].split("_")[1]
    used = {k.id: k.last_used_at for k in served.memory.keys.list()}
    assert used[key_id] is not None  # its last use is kept (at most once a minute)
    assert used[served.keys["admin"].split("_")[1]] is None  # not used yet
    with served.as_("admin") as admin:
        assert admin.get(f"/nodes/{made.json()['id']}").status_code == 200
    served.memory.keys.revoke(key_id)
    with served.as_("kb") as revoked:
        gone = revoked.post("/search", json={"query": "Fridays"})
    assert gone.status_code == 401 and "revoked" in gone.json()["message"]
    assert served.memory.stats().nodes == 2  # the space and the one memory: nothing else written


def test_reads_stay_within_the_keys_scopes(served: Served) -> None:
    with served.as_("admin") as admin:
        secret = admin.post(
            "/remember", json={"text": "Zorblax launch codes", "scope": "elsewhere"}
        )
        admin.post("/remember", json={"text": "Zorblax release notes", "scope": "kb"})
    with served.as_("kb") as http:
        hits = http.post("/search", json={"query": "Zorblax"}).json()
        assert [h["scope"] for h in hits] == ["kb"]
        node = http.get(f"/nodes/{secret.json()['id']}")
        assert node.status_code == 404 and "elsewhere" not in node.text  # reads as absent
        assert {r["scope"] for r in http.get("/roots").json()} == {"kb"}
        assert http.get("/roots", params={"scopes": "elsewhere"}).status_code == 403
    with served.as_("kb") as http:  # a key of two scopes must name where to write
        unnamed = http.post("/remember", json={"text": "where does this go"})
    assert unnamed.status_code == 400 and "name the scope" in unnamed.json()["message"]
    with served.as_("other") as single:  # a key of one scope writes there by default
        assert single.post("/remember", json={"text": "x y z"}).json()["scope"] == "elsewhere"


def test_tree_operations(served: Served) -> None:
    with served.as_("kb") as http:
        root = http.post("/nodes", json={"text": "Project Atlas", "scope": "kb"}).json()
        child = http.post("/nodes", json={"text": "We chose SQLite", "parent": root["id"]}).json()
        assert child["scope"] == "kb" and child["parent_id"] == root["id"]
        other = http.post("/nodes", json={"text": "Second", "parent": root["id"]}).json()
        changed = http.patch(f"/nodes/{child['id']}", json={"text": "We chose SQLite (WAL)"})
        assert changed.json()["version"] == 2
        history = http.get(f"/nodes/{child['id']}/history").json()
        assert history[0]["node"]["text"] == "We chose SQLite"
        http.post(f"/nodes/{other['id']}/move", json={"before": child["id"]})
        kids = [c["text"] for c in http.get(f"/nodes/{root['id']}/children").json()]
        assert kids == ["Second", "We chose SQLite (WAL)"]
        shown = http.get(f"/nodes/{child['id']}").json()
        assert [a["id"] for a in shown["ancestors"]] == [root["id"]]
        assert http.delete(f"/nodes/{root['id']}").json() == {"deleted": 3}
        missing = http.get(f"/nodes/{root['id']}")
        assert missing.status_code == 404 and root["id"] in missing.json()["message"]


def test_typed_memories_paths_and_path_updates(served: Served) -> None:
    with served.as_("kb") as http:
        old = http.post("/facts", json={"key": "db", "value": "MySQL", "scope": "kb"})
        assert old.status_code == 201
        new = http.post("/facts", json={"key": "db", "value": "Postgres", "scope": "kb"}).json()
        # The newer value is an update: only it is valid now, both with include_expired.
        typed = http.get("/memories", params={"type": "fact", "scopes": "kb"}).json()
        assert [m["id"] for m in typed] == [new["id"]]
        every = {"type": "fact", "scopes": "kb", "include_expired": "true"}
        assert len(http.get("/memories", params=every).json()) == 2
        hits = http.post("/search", json={"query": "db", "scopes": ["kb"]}).json()
        assert [h["id"] for h in hits] == [new["id"]]
        back = {"query": "db", "scopes": ["kb"], "filters": {"valid_at": old.json()["created_at"]}}
        assert [h["id"] for h in http.post("/search", json=back).json()] == [old.json()["id"]]
        both = {"query": "db", "scopes": ["kb"], "filters": {"include_expired": True}}
        assert len(http.post("/search", json=both).json()) == 2
        bad = {"query": "db", "filters": {"valid_at": "2026-13-45"}}
        assert http.post("/search", json=bad).status_code == 400
        # A less certain value is a question for a person, not an update.
        http.post("/facts", json={"key": "db", "value": "SQLite", "scope": "kb", "confidence": 0.5})
        (open_row,) = http.get("/contradictions").json()
        assert (open_row["a_text"], open_row["b_text"]) == ("db: Postgres", "db: SQLite")
        saved = http.put(
            "/paths/project/editor",
            params={"scope": "kb"},
            json={"content": {"name": "vim"}, "context_tokens": 0},
        )
        assert saved.status_code == 200 and saved.json()["content"] == {"name": "vim"}
        http.put(
            "/paths/project/editor",
            params={"scope": "kb"},
            json={"content": {"name": "emacs"}, "context_tokens": 0},
        )
        got = http.get("/paths/project/editor", params={"scope": "kb"}).json()
        assert got["content"] == {"name": "emacs"} and got["metadata"]["version"] == 2
        listed = http.get("/paths", params={"scope": "kb", "prefix": "project"}).json()
        assert [e["path"] for e in listed] == ["project", "project/editor"]  # heading, entry
        updates = http.get("/updates", params={"scopes": "kb"}).json()
        assert sorted(u["kind"] for u in updates) == ["path_update", "same_key"]
        update = next(u for u in updates if u["kind"] == "path_update")
        done = http.post(f"/updates/{update['id']}/revert")
        assert done.status_code == 200 and done.json()["resolution"] == "both_valid"
        again = http.post(f"/updates/{update['id']}/revert")
        assert again.status_code == 409 and "not an automatic update" in again.json()["message"]
        assert http.get("/paths/project/editor", params={"scope": "kb"}).json()["content"] == {
            "name": "vim"
        }
        refused = http.post(
            f"/contradictions/{open_row['id']}/resolve", json={"resolution": "c_wins"}
        )
        assert refused.status_code == 400 and "a_wins" in refused.json()["message"]
        assert (
            http.post("/contradictions/nope/resolve", json={"resolution": "a_wins"}).status_code
            == 404
        )
        assert http.post("/updates/nope/revert").status_code == 404
        assert http.delete("/paths/project/editor", params={"scope": "kb"}).json() == {"deleted": 1}
        assert http.get("/paths/project/editor", params={"scope": "kb"}).status_code == 404
    with served.as_("other") as outsider:  # another scope's rows are out of reach
        denied = outsider.post(
            f"/contradictions/{open_row['id']}/resolve", json={"resolution": "a_wins"}
        )
        assert denied.status_code == 404 and "kb" not in denied.text
        fact_update = next(u for u in updates if u["kind"] == "same_key")
        hidden = outsider.post(f"/updates/{fact_update['id']}/revert")
        assert hidden.status_code == 404 and "kb" not in hidden.text
        assert outsider.get("/updates").json() == []


def test_sessions_documents_ask_and_contexts(served: Served) -> None:
    with served.as_("kb") as http:
        session = http.post("/sessions", json={"scope": "kb", "title": "Planning"}).json()
        for role, text in (("user", "Hotfixes need two approvals"), ("assistant", "Noted.")):
            made = http.post(
                f"/sessions/{session['id']}/messages", json={"role": role, "content": text}
            )
            assert made.status_code == 201
        assert len(http.get(f"/sessions/{session['id']}/messages").json()) == 2
        assert [s["id"] for s in http.get("/sessions").json()] == [session["id"]]
        bad_role = http.post(
            f"/sessions/{session['id']}/messages", json={"role": "wizard", "content": "x"}
        )
        assert bad_role.status_code == 400
        doc = "# Deploys\n\nNo deploys after 3pm on Fridays.\n"
        uploaded = http.post(
            "/documents", params={"filename": "deploys.md", "scope": "kb"}, content=doc.encode()
        )
        assert uploaded.status_code == 201 and uploaded.json()["summary"]["added"] == 1
        again = http.post(
            "/documents", params={"filename": "deploys.md", "scope": "kb"}, content=doc.encode()
        )
        assert again.json()["summary"]["unchanged"] == 1
        assert [d["source"] for d in http.get("/documents").json()] == ["deploys.md"]
        answer = http.post("/ask", json={"question": "when are deploys frozen?"}).json()
        assert "3pm" in answer["system_prompt"] and answer["answer"] is None  # no LLM here
        ctx = http.post("/context/assemble", json={"query": "deploys", "budget": 200}).json()
        assert ctx["token_count"] <= 200 and [t["name"] for t in ctx["tiers"]]
        signals = {"activity": "debugging", "error": "deploy"}
        predicted = http.post("/context/predict", json={"signals": signals})
        assert predicted.status_code == 200
        nothing = http.post("/context/predict", json={"signals": {}})
        assert nothing.status_code == 400 and "signal" in nothing.json()["message"]


@pytest.mark.parametrize(
    "filename", ["../escape.md", "a/b.md", "..", ".hidden", "x" * 300, "back\\slash.md"]
)
def test_uploads_with_hostile_names_write_nothing(served: Served, filename: str) -> None:
    with served.as_("kb") as http:
        response = http.post(
            "/documents", params={"filename": filename, "scope": "kb"}, content=b"# hi\n"
        )
    assert response.status_code == 400 and "plain file name" in response.json()["message"]
    assert served.memory.docs.list() == []


def test_consolidation_needs_an_every_scope_key(served: Served) -> None:
    with served.as_("kb") as http:
        http.post("/remember", json={"text": "We use Postgres for billing", "scope": "kb"})
        assert http.post("/consolidate", json={}).status_code == 403
    with served.as_("admin") as admin:
        plan = admin.post("/consolidate", json={"dry_run": True}).json()
        assert plan["summary"] and plan["actions"]
        bad = admin.post("/consolidate", json={"steps": ["nap"]})
        assert bad.status_code == 400 and "nap" in bad.json()["message"]


def test_bad_bodies_get_4xx_with_a_message(served: Served) -> None:
    with served.as_("kb") as http:
        broken = http.post(
            "/search", content=b"{not json", headers={"content-type": "application/json"}
        )
        assert broken.status_code == 422 and "JSON" in broken.json()["message"]
        wrong = http.post("/search", json={"query": 5, "limit": "many"})
        assert wrong.status_code == 422 and "limit" in wrong.json()["message"]
        extra = http.post("/search", json={"query": "x", "colour": "red"})
        assert extra.status_code == 422 and "colour" in extra.json()["message"]
        huge = http.post("/remember", json={"text": "x" * 100_000, "scope": "kb"})
        assert huge.status_code == 413 and "limit" in huge.json()["message"]
        empty = http.post("/remember", json={"text": "   ", "scope": "kb"})
        assert empty.status_code == 400
    assert served.memory.stats().nodes == 0


def test_bench_serve_reports_a_load_without_errors(tmp_path: Path) -> None:
    from tests.cli_runner import run_cli

    ran = run_cli(
        tmp_path / "unused.db",
        "bench",
        "serve",
        "--clients",
        "3",
        "--seconds",
        "1",
        "--n",
        "200",
        "--embedder",
        "hashing",
    )
    assert ran.returncode == 0, ran.stderr
    figures = json.loads(ran.stdout)
    assert figures["errors"] == {} and figures["requests"] > 0
    assert set(figures["by_kind"]) <= {"search", "remember", "context"}


def test_the_server_applies_scheduled_consolidations(tmp_path: Path) -> None:
    with serving(tmp_path / "m.db", KEYS, consolidate_every=0.05) as served:
        with served.as_("kb") as http:
            http.post("/remember", json={"text": "Alice lives in Berlin", "scope": "kb"})
        deadline = time.monotonic() + 60
        while not served.memory.consolidation.runs() and time.monotonic() < deadline:
            time.sleep(0.05)
        (run,) = (
            served.memory.consolidation.runs()
        )  # decay factors stored once; later runs change nothing
    assert run.summary == {"decay": 1}


def test_reads_are_answered_while_the_writer_is_busy(served: Served) -> None:
    """A long write (an ingest, a consolidation) does not hold up searches:
    reads run on their own threads and connections, seeing the last commit."""
    with served.as_("kb") as http:
        note = {"text": "The queue worker restarts nightly", "scope": "kb"}
        assert http.post("/remember", json=note).is_success
        release = threading.Event()
        gateway = served.app.state.gateway
        busy = threading.Thread(target=gateway.run, args=(lambda: release.wait(60),))
        busy.start()  # the writer thread now waits on `release`
        try:
            found = http.post("/search", json={"query": "queue worker"})
            tree = http.get("/roots")
            assert not release.is_set() and busy.is_alive()  # answered while the writer waits
        finally:
            release.set()
            busy.join()
        assert found.status_code == 200 and found.json()[0]["text"].startswith("The queue")
        assert tree.status_code == 200
        queued = http.post("/remember", json={"text": "Backups run at 2am", "scope": "kb"})
        assert queued.status_code == 201  # the writer took its queue up again


def test_concurrent_clients_read_and_write_without_errors(served: Served) -> None:
    """Eight clients at once, each writing and reading its own memories: every
    request succeeds and each client reads back what it wrote."""
    failures: list[str] = []

    def client(number: int) -> None:
        with served.as_("kb") as http:
            for step in range(12):
                text = f"client {number} note {step} about topic{number}x{step}"
                made = http.post("/remember", json={"text": text, "scope": "kb"})
                found = http.post("/search", json={"query": f"topic{number}x{step}", "limit": 3})
                context = http.post("/context/assemble", json={"query": text, "budget": 400})
                for answer in (made, found, context):
                    if not answer.is_success:
                        failures.append(f"{answer.request.url.path}: {answer.status_code}")
                if found.is_success and text not in [h["text"] for h in found.json()]:
                    failures.append(f"client {number} did not read back {text!r}")

    threads = [threading.Thread(target=client, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    # Every note says "client ... note ... about": listed with the floor off,
    # since the words of all of them tell none apart (they are no evidence).
    notes = served.memory.search("client note about", scopes=["kb"], limit=200, min_relevance=0)
    assert len(notes) >= 96


def test_several_worker_processes_serve_one_database(tmp_path: Path) -> None:
    import socket
    import subprocess
    import sys

    import httpx

    from mnemotree import Memory
    from tests.cli_runner import ENV

    db = tmp_path / "m.db"
    with Memory(db, embedder="hashing") as memory:
        key = memory.keys.create("kb")[1]
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [
        sys.executable,
        "-m",
        "mnemotree",
        "--db",
        str(db),
        "--embedder",
        "hashing",
        "serve",
        "--port",
        str(port),
        "--workers",
        "2",
        "--consolidate-every",  # each worker schedules it; one runs it at a time
        "3600",
    ]
    server = subprocess.Popen(command, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        url, headers = f"http://127.0.0.1:{port}", {"authorization": f"Bearer {key}"}
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.2)
        with httpx.Client(base_url=url, headers=headers, timeout=30) as http:
            for i in range(20):  # spread over both workers by the kernel
                made = http.post("/remember", json={"text": f"Deploy window number {i} is Friday"})
                assert made.status_code == 201, made.text
            hits = http.post("/search", json={"query": "deploy window", "limit": 50}).json()
            assert len(hits) == 20
        with Memory(db, embedder="hashing") as memory:  # one worker embeds them, once
            while memory.pending_vectors() and time.monotonic() < deadline:
                time.sleep(0.1)
            assert memory.pending_vectors() == 0
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert (tmp_path / "m.db.embedding.lock").exists()
