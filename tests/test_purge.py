"""Erasure: a purged memory leaves no byte of its text in the database file,
its WAL or any file beside it, and the rest of the memory still works.

Real SQLite files, the hashing embedder, a hand-moved clock.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mnemotree import InvalidInput, Memory, NotFound, Plan
from tests.cli_runner import run_cli
from tests.helpers import Clock
from tests.server_helpers import serving

SECRET = "SSN 078-05-1120 of Zebulon Quixtrel"


def copies(folder: Path, secret: str) -> dict[str, int]:
    """Occurrences of `secret` (as UTF-8) in every file of `folder`."""
    needle = secret.encode("utf-8")
    found = {}
    for path in folder.iterdir():
        if path.is_file():
            found[path.name] = path.read_bytes().count(needle)
    return {name: n for name, n in found.items() if n}


def filled(mem: Memory, clock: Clock) -> dict[str, str]:
    """The secret said in a chat, remembered, updated, summarised, saved to
    a path, searched for and consolidated; other memories beside it."""
    ids = {}
    keep = mem.remember("The office moved to Porto in March.")
    ids["keep"] = keep.id
    session = mem.chat.start_session("me", "Session 1")
    ids["message"] = mem.chat.add_message(session.id, "user", f"My {SECRET}, please keep it.").id
    mem.chat.add_message(session.id, "user", "I prefer tea to coffee.")
    mem.chat.capture(session.id)
    note = mem.remember(f"Zebulon Quixtrel: {SECRET} (draft)")
    ids["note"] = mem.update(note.id, f"Zebulon Quixtrel: {SECRET}").id
    doc = mem.add("Personnel file")
    kids = [mem.append_child(doc.id, f"Card: {SECRET}").id, mem.append_child(doc.id, "Badge 7").id]
    mem.add_summary(kids, f"Cards, including {SECRET}.")
    mem.paths().save("People/Zebulon", f"{SECRET}", context_tokens=50)
    mem.flush()
    mem.search(f"What is the {SECRET}?", record=True)
    mem.context(f"Tell me about Zebulon Quixtrel, {SECRET}")
    clock.advance(days=30)
    plan = mem.consolidation.run()
    assert isinstance(plan, Plan)
    mem.consolidation.apply(plan)
    return ids


def test_a_purged_secret_leaves_no_byte_in_any_file(tmp_path: Path, clock: Clock) -> None:
    folder = tmp_path / "db"
    with Memory(folder / "m.db", embedder="hashing", clock=clock) as mem:
        ids = filled(mem, clock)
        assert copies(folder, SECRET), "the test must first find the secret"
        plan = mem.purge(subject="Zebulon Quixtrel", dry_run=True)
        assert plan.dry_run and plan.node_ids and plan.nodes == 0
        assert mem.get(ids["note"]).text  # a dry run changes nothing
        db = mem.store._db  # type: ignore[attr-defined]
        before = db.execute("PRAGMA secure_delete").fetchone()[0]
        report = mem.purge(subject="Zebulon Quixtrel")
        # Zeroing freed space lasts the purge only: later writes do not pay for it.
        assert db.execute("PRAGMA secure_delete").fetchone()[0] == before
        assert report.nodes >= len(plan.node_ids) and report.versions >= 1
        assert report.compacted
        assert mem.get(ids["keep"]).text.startswith("The office")
        with pytest.raises(NotFound):
            mem.get(ids["message"])
        assert not [h for h in mem.search(SECRET, record=False) if SECRET in h.node.text]
        assert ids["keep"] in [h.node.id for h in mem.search("office Porto", record=False)]
        # While the database is open (a server keeps it so): the WAL too.
        assert copies(folder, SECRET) == {}
        assert copies(folder, "078-05-1120") == {}
    assert copies(folder, SECRET) == {}
    with Memory(folder / "m.db", embedder="hashing", clock=clock) as again:
        (audit,) = again.store._db.execute(  # type: ignore[attr-defined]
            "SELECT selector, nodes, key_id FROM purges"
        ).fetchall()
        assert audit[0] == "subject" and audit[1] == report.nodes


def test_a_purge_needs_one_selector_and_all_to_erase_everything(
    tmp_path: Path, clock: Clock
) -> None:
    with Memory(tmp_path / "m.db", embedder="hashing", clock=clock) as mem:
        only = mem.remember("the only memory", scope="team")
        with pytest.raises(InvalidInput, match="exactly one"):
            mem.purge()
        with pytest.raises(InvalidInput, match="exactly one"):
            mem.purge([only.id], scope="team")
        with pytest.raises(InvalidInput, match="every memory"):
            mem.purge(scope="team")
        with pytest.raises(NotFound):
            mem.purge(["01M8G2A7GMDMK964GZC7PMWNQY"])
        assert mem.purge(subject="nothing like this").node_ids == []
        assert mem.get(only.id).text == "the only memory"
        report = mem.purge(scope="team", everything=True)
        assert report.nodes == 2 and mem.stats().nodes == 0  # the note and its space


def test_the_cli_purges_with_a_dry_run_first_and_refuses_all_without_yes(
    tmp_path: Path,
) -> None:
    db = tmp_path / "m.db"
    with Memory(db, embedder="hashing") as mem:
        gone = mem.remember(f"Call Zebulon Quixtrel: {SECRET}")
        kept = mem.remember("Buy more tea")
    listed = run_cli(db, "purge", "--subject", "Zebulon Quixtrel", "--dry-run", embedder="hashing")
    assert listed.returncode == 0 and gone.id in listed.stdout and kept.id not in listed.stdout
    done = run_cli(db, "--json", "purge", "--subject", "Zebulon Quixtrel", embedder="hashing")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["nodes"] == 1
    nothing = run_cli(db, "purge", embedder="hashing")
    assert nothing.returncode != 0 and "exactly one" in nothing.stderr
    unconfirmed = run_cli(db, "purge", "--scope", "default", "--all", embedder="hashing")
    assert unconfirmed.returncode != 0 and "--yes" in unconfirmed.stderr
    assert copies(tmp_path, SECRET) == {}
    with Memory(db, embedder="hashing") as mem:
        assert mem.get(kept.id).text == "Buy more tea"


def test_over_http_a_key_erases_only_in_its_own_scopes(tmp_path: Path) -> None:
    with serving(tmp_path / "m.db", {"a": ["user:a"], "b": ["user:b"], "all": ["*"]}) as served:
        mine = served.memory.remember(f"Zebulon Quixtrel: {SECRET}", scope="user:a")
        theirs = served.memory.remember("Zebulon Quixtrel owes me a book", scope="user:b")
        with served.as_("a") as http:
            plan = http.post("/purge", json={"subject": "Zebulon Quixtrel"})
            assert plan.status_code == 200 and plan.json()["dry_run"]
            assert mine.id in plan.json()["node_ids"] and theirs.id not in plan.json()["node_ids"]
            assert (
                http.post("/purge", json={"scope": "user:b", "dry_run": False}).status_code == 404
            )
            assert http.post("/purge", json={"ids": [theirs.id]}).status_code == 404
            done = http.post("/purge", json={"subject": "Zebulon Quixtrel", "dry_run": False})
            assert done.status_code == 200, done.text
            assert done.json()["nodes"] == 1
        with served.as_("all") as http:
            left = http.post("/purge", json={"subject": "Zebulon Quixtrel"}).json()["node_ids"]
            assert left == [theirs.id]
        key_a = next(k for k in served.memory.keys.list() if k.name == "a")
        audit = served.memory.store._db.execute(  # type: ignore[attr-defined]
            "SELECT key_id, selector, nodes FROM purges"
        ).fetchall()
        assert audit == [(key_a.id, "subject", 1)]


def test_no_answer_carrying_memory_text_may_be_cached(tmp_path: Path) -> None:
    # A browser's or proxy's cache is a copy a purge cannot reach.
    with serving(tmp_path / "m.db", {"all": ["*"]}) as served:
        note = served.memory.remember(f"Zebulon Quixtrel: {SECRET}")
        with served.as_("all") as http:
            for answer in (
                http.get(f"/nodes/{note.id}"),
                http.post("/search", json={"query": "Zebulon Quixtrel"}),
                http.get("/nodes/01M8G2A7GMDMK964GZC7PMWNQY"),  # errors too
            ):
                assert answer.headers["cache-control"] == "no-store", answer.url
            page = http.get("/ui/app.js")
            assert page.status_code == 200 and page.headers.get("cache-control") != "no-store"


def test_a_query_erases_what_a_search_finds_after_a_dry_run(tmp_path: Path, clock: Clock) -> None:
    with Memory(tmp_path / "m.db", embedder="hashing", clock=clock) as mem:
        card = mem.remember(f"Zebulon Quixtrel paid with {SECRET}", scope="me")
        tea = mem.remember("Buy more green tea on Friday", scope="me")
        other = mem.remember(f"Zebulon Quixtrel paid with {SECRET}", scope="them")
        plan = mem.purge(query="How did Zebulon Quixtrel pay?", scopes=["me"], dry_run=True)
        assert card.id in plan.node_ids and tea.id not in plan.node_ids
        assert other.id not in plan.node_ids  # another scope
        report = mem.purge(query="How did Zebulon Quixtrel pay?", scopes=["me"])
        assert report.selector == "query" and report.node_ids == plan.node_ids
        assert mem.get(tea.id) and mem.get(other.id)
        with pytest.raises(NotFound):
            mem.get(card.id)
        with pytest.raises(InvalidInput, match="exactly one"):
            mem.purge(query="x", subject="y")
