"""Scopes hold on every byte a response carries: node views, ancestry,
relations, history, contradictions and errors, over HTTP and MCP; a parent in
another scope needs that scope shared; what is out of reach reads as absent."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from mnemotree import NewNode
from mnemotree.bench import scope_leaks
from mnemotree.bench.scope_routes import ROUTES
from tests.cli_runner import run_cli
from tests.helpers import mixed_scopes
from tests.server_helpers import Served, serving

pytestmark = pytest.mark.both_stores  # every test using the memory fixtures runs on both

KEYS = {"a": "user:a", "b": "user:b", "ab": "user:a,user:b", "kb": "kb", "admin": "*"}


@pytest.fixture
def served(db_path: Path) -> Iterator[Served]:
    with serving(db_path, KEYS) as s:
        yield s


def test_the_campaign_finds_no_leak_over_every_route_and_tool() -> None:
    report = scope_leaks.run(1500, seed=3)
    assert report.requests == 1500
    assert len(report.by_route) == len(ROUTES)  # every route and tool was tried
    assert report.server_errors == []
    assert [leak.__dict__ for leak in report.leaks] == []
    # Both answers happened: allowed reads and refusals.
    assert report.statuses[200] > 300 and report.statuses[404] > 50


def test_a_legacy_parent_in_another_scope_is_never_shown(served: Served) -> None:
    m = served.memory
    m.keys.share_scope("user:b")  # as an older database may hold: shared once, then not
    parent = m.add("B-ONLY SECRET TEXT", scope="user:b")
    child = m.append_child(parent.id, "my own note", scope="user:a")
    m.typed.relate(child.id, parent.id, "related_to")
    m.keys.share_scope("user:b", shared=False)
    with served.as_("a") as http:
        seen = http.get(f"/nodes/{child.id}").json()
        assert seen["ancestors"] == [] and seen["parent_id"] is None and seen["root_id"] is None
        assert http.get(f"/nodes/{child.id}/relations").json() == []
        for route in (f"/nodes/{child.id}", f"/nodes/{child.id}/history"):
            assert "SECRET" not in http.get(route).text and parent.id not in http.get(route).text
    with served.as_("ab") as http:  # a key reaching both sees the whole chain
        assert [a["id"] for a in http.get(f"/nodes/{child.id}").json()["ancestors"]] == [parent.id]


def test_out_of_reach_reads_exactly_as_missing(served: Served) -> None:
    hidden = served.memory.add("other scope", scope="user:b")
    missing = hidden.id[:-1] + ("0" if hidden.id[-1] != "0" else "1")
    with served.as_("a") as http:
        for route in ("/nodes/{}", "/nodes/{}/children", "/nodes/{}/history"):
            there, absent = http.get(route.format(hidden.id)), http.get(route.format(missing))
            assert there.status_code == absent.status_code == 404
            assert there.json()["message"].replace(hidden.id, "X") == absent.json()[
                "message"
            ].replace(missing, "X")
            assert "user:b" not in there.text
        assert http.delete(f"/nodes/{hidden.id}").status_code == 404
    assert served.memory.find(hidden.id) is not None


def test_a_parent_in_another_scope_needs_that_scope_shared(served: Served) -> None:
    with served.as_("admin") as admin:
        kb = admin.post("/nodes", json={"text": "Handbook", "scope": "kb"}).json()
        refused = admin.post("/nodes", json={"text": "mine", "parent": kb["id"], "scope": "user:a"})
        assert refused.status_code == 409 and "shared" in refused.json()["message"]
        assert refused.json().keys() == {"error", "message", "value"}
    served.memory.keys.share_scope("kb")
    with served.as_("a") as http:
        made = http.post("/nodes", json={"text": "mine", "parent": kb["id"], "scope": "user:a"})
        assert made.status_code == 201
        shown = http.get(f"/nodes/{made.json()['id']}").json()
        assert [a["text"] for a in shown["ancestors"]] == ["Handbook"]  # shared: readable
        assert http.get(f"/nodes/{kb['id']}").status_code == 200
        # Readable is not writable: kb belongs to its own keys.
        assert http.patch(f"/nodes/{kb['id']}", json={"text": "defaced"}).status_code == 403
    with served.as_("kb") as http:  # deleting kb's node would delete user:a's note
        assert http.delete(f"/nodes/{kb['id']}").status_code == 403
    assert served.memory.get(kb["id"]).text == "Handbook"


def test_another_scopes_contradiction_is_absent(served: Served) -> None:
    m = served.memory
    m.typed.fact("office_city", "Berlin", scope="user:b")
    m.typed.fact("office_city", "Lisbon", scope="user:b", confidence=0.5)  # an open contradiction
    m.typed.fact("team_size", "4", scope="user:b")
    m.typed.fact("team_size", "5", scope="user:b")  # an update
    (row,) = m.consolidation.contradictions()
    (update,) = m.consolidation.updates()
    with served.as_("a") as http:
        assert http.get("/contradictions", params={"status": "all"}).json() == []
        assert http.get("/updates").json() == []
        answer = http.post(f"/contradictions/{row.id}/resolve", json={"resolution": "a_wins"})
        assert answer.status_code == 404 and "user:b" not in answer.text
        reverted = http.post(f"/updates/{update.id}/revert")
        assert reverted.status_code == 404 and "user:b" not in reverted.text
        missing = http.post("/updates/01NOSUCHROW/revert")
        assert missing.json()["message"] == reverted.json()["message"].replace(
            update.id, "01NOSUCHROW"
        )
    assert m.consolidation.contradiction(row.id).status == "open"
    assert m.consolidation.contradiction(update.id).resolution == "update"


def test_unknown_routes_and_methods_answer_in_the_documented_shape(served: Served) -> None:
    with served.as_("admin") as http:
        for answer in (http.get("/nope"), http.delete("/search"), http.get("/ui/missing.js")):
            assert answer.status_code in (404, 405)
            assert answer.json().keys() == {"error", "message", "value"}
            assert "/docs" in answer.json()["message"]


def test_scopes_are_shared_and_unshared_from_the_cli(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    assert run_cli(db, "scopes", "share", "kb").stdout.split() == ["kb"]
    root = run_cli(db, "--json", "add", "Handbook", "--scope", "kb")
    parent = json.loads(root.stdout)["id"]
    placed = run_cli(db, "add", "mine", "--parent", parent, "--scope", "user:a")
    assert placed.returncode == 0, placed.stderr
    assert json.loads(run_cli(db, "--json", "scopes", "unshare", "kb").stdout) == []
    refused = run_cli(db, "add", "more", "--parent", parent, "--scope", "user:a")
    assert refused.returncode == 1 and "scopes share kb" in refused.stderr


def test_a_revoked_key_is_refused_at_once_here_and_soon_from_another_process(
    served: Served, tmp_path: Path
) -> None:
    from mnemotree import Memory
    from mnemotree.keys import VERIFIED_FOR

    rows = {r.name: r.id for r in served.memory.keys.list()}
    with served.as_("a") as http:
        assert http.get("/roots").status_code == 200  # verified, and remembered
        served.memory.keys.revoke(rows["a"])
        assert http.get("/roots").status_code == 401
    with served.as_("b") as http:
        assert http.get("/roots").status_code == 200
        with Memory(served.memory.location, embedder="hashing") as other:  # the CLI, say
            other.keys.revoke(rows["b"])
        time.sleep(VERIFIED_FOR + 0.2)
        assert http.get("/roots").status_code == 401


def test_an_import_follows_the_scope_rule(tmp_path: Path) -> None:
    import io

    from mnemotree import InvalidOperation, Memory

    with Memory(tmp_path / "a.db", embedder="hashing") as source:
        source.keys.share_scope("kb")
        root = source.add("Handbook", scope="kb")
        source.append_child(root.id, "my note", scope="user:a")
        backup = io.StringIO()
        source.exchange.export_jsonl(backup)
    lines = backup.getvalue().splitlines()
    with Memory(tmp_path / "b.db", embedder="hashing") as target:
        target.add("already here", scope="user:a")
        # Added to a memory whose scopes do not share kb: refused, nothing added.
        with pytest.raises(InvalidOperation, match="scopes share kb"):
            target.exchange.import_jsonl(lines, merge=True)
        assert target.stats().nodes == 1
        target.keys.share_scope("kb")
        target.exchange.import_jsonl(lines, merge=True)
        assert target.stats().nodes == 3
    with Memory(tmp_path / "c.db", embedder="hashing") as restored:
        # A whole restore brings the rule's settings with the nodes.
        restored.exchange.import_jsonl(lines)
        assert restored.stats().nodes == 2 and "kb" in restored.keys.share_scope("kb")


def test_child_counts_count_only_what_the_key_reads(served: Served) -> None:
    m = served.memory
    with mixed_scopes(m, "user:a"):  # legacy: another scope's children under a's root
        root = m.add("A's notes", scope="user:a")
        m.append_child(root.id, "mine", scope="user:a")
        m.append_many(root.id, [NewNode("theirs", scope="user:b")] * 3)
    with served.as_("a") as http:
        [listed] = http.get("/roots", params={"counts": True}).json()
        assert listed["children"] == 1
    with served.as_("ab") as http:
        [listed] = http.get("/roots", params={"counts": True}).json()
        assert listed["children"] == 4
    assert m.child_counts([root.id]) == {root.id: 4}
    assert m.child_counts([root.id], scopes=["user:b"]) == {root.id: 3}
