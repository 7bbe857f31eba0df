"""Moving in from other tools: mem0's memories and ChatGPT's conversations,
generated here in the formats those tools write (see exchange.importers)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mnemotree import InvalidInput, Memory
from tests.cli_runner import run_cli


def mem0_export() -> dict[str, Any]:
    def memory(i: int, text: str, **ids: Any) -> dict[str, Any]:
        return {
            "id": f"5b2c6f0e-0000-4000-8000-00000000000{i}",
            "memory": text,
            "hash": f"{i:032x}",
            "metadata": {"origin": "onboarding"} if i == 1 else None,
            "categories": ["preferences"] if i == 1 else None,
            "created_at": f"2024-07-2{i}T01:23:45.123456-07:00",
            "updated_at": "2024-08-01T10:00:00+00:00" if i == 2 else None,
            "user_id": None,
            "agent_id": None,
            "run_id": None,
            **ids,
        }

    return {
        "results": [
            memory(1, "Prefers green tea over coffee", user_id="alice"),
            memory(2, "Works as a night-shift nurse in Porto", user_id="alice"),
            memory(3, "Allergic to penicillin", user_id="alice", run_id="r-17"),
            memory(4, "Answers in British English", agent_id="helper"),
            memory(5, "The team standup is at 09:30"),
            memory(6, "   "),
        ]
    }


def chatgpt_export() -> list[dict[str, Any]]:
    def node(
        key: str,
        parent: str | None,
        children: list[str],
        role: str | None,
        text: Any,
        at: float | None,
        kind: str = "text",
    ) -> dict[str, Any]:
        message: dict[str, Any] | None = (
            None
            if role is None
            else {
                "id": key,
                "author": {"role": role, "name": None, "metadata": {}},
                "create_time": at,
                "content": {"content_type": kind, "parts": text},
                "status": "finished_successfully",
                "metadata": {},
            }
        )
        return {"id": key, "message": message, "parent": parent, "children": children}

    start = 1_700_000_000.0
    mapping = {
        "root": node("root", None, ["sys"], None, None, None),
        "sys": node("sys", "root", ["u1"], "system", [""], None),
        "u1": node("u1", "sys", ["a1"], "user", ["How do I keep basil alive indoors?"], start + 1),
        "a1": node(
            "a1",
            "u1",
            ["u2-old", "u2"],
            "assistant",
            ["Give it six hours of sun and water when the top inch is dry."],
            start + 9,
        ),
        "u2-old": node("u2-old", "a1", [], "user", ["What about mint?"], start + 20),
        "u2": node("u2", "a1", ["img", "a2"][1:], "user", ["And rosemary?"], start + 30),
        "a2": node("a2", "u2", ["pic"], "assistant", ["Rosemary likes it drier."], start + 40),
        "pic": node(
            "pic",
            "a2",
            [],
            "user",
            [{"asset_pointer": "file-1"}],
            start + 50,
            kind="multimodal_text",
        ),
    }
    other = {
        "r": node("r", None, ["q"], None, None, None),
        "q": node("q", "r", ["a"], "user", ["Plan a 3-day trip to Lisbon"], start + 86_400),
        "a": node("a", "q", [], "assistant", ["Day 1: Alfama and the castle."], start + 86_460),
    }
    return [
        {
            "title": "Indoor herbs",
            "create_time": start,
            "update_time": start + 50,
            "mapping": mapping,
            "current_node": "pic",
            "id": "c-1",
        },
        {
            "title": "Lisbon trip",
            "create_time": start + 86_400,
            "update_time": start + 86_460,
            "mapping": other,
            "current_node": "a",
            "id": "c-2",
        },
    ]


def test_mem0_memories_keep_their_scopes_times_and_provenance(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db", embedder="hashing") as mem:
        report = mem.exchange.import_from("mem0", json.dumps(mem0_export()), file="mem0.json")
        assert (report.memories, report.skipped) == (5, 1)
        assert report.scopes == {"user:alice": 3, "agent:helper": 1, "default": 1}
        mine = {
            n.text: n
            for n in mem.store.iter_nodes()
            if n.scope == "user:alice" and n.context_type == "memory"
        }
        nurse = mine["Works as a night-shift nurse in Porto"]
        assert nurse.created_at.startswith("2024-07-22T08:23:45")  # -07:00 read as UTC
        assert nurse.updated_at.startswith("2024-08-01T10:00:00")
        tea = mine["Prefers green tea over coffee"]
        assert tea.metadata["mem0_id"].endswith("0001") and tea.metadata["categories"] == [
            "preferences"
        ]
        assert tea.metadata["mem0_metadata"] == {"origin": "onboarding"}
        assert mine["Allergic to penicillin"].metadata["run_id"] == "r-17"
        assert [h.node.text for h in mem.search("standup", scopes=["default"])] == [
            "The team standup is at 09:30"
        ]
        space = mem.get(tea.parent_id or "")
        assert space.context_type == "space"  # where remember() puts them too


def test_chatgpt_conversations_become_sessions_on_the_branch_last_seen(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db", embedder="hashing") as mem:
        report = mem.exchange.import_from(
            "openai-chat", json.dumps(chatgpt_export()), file="conversations.json", scope="me"
        )
        assert (report.sessions, report.messages, report.skipped) == (2, 6, 2)
        sessions = {s.text: s for s in mem.chat.sessions(scopes=["me"], status=None)}
        herbs = sessions["Indoor herbs"]
        assert herbs.metadata["status"] == "ended" and herbs.created_at.startswith("2023-11-14")
        said = [(m.context_name, m.text) for m in mem.chat.session_messages(herbs.id)]
        assert said == [
            ("user", "How do I keep basil alive indoors?"),
            ("assistant", "Give it six hours of sun and water when the top inch is dry."),
            ("user", "And rosemary?"),  # the edited question, not the abandoned one
            ("assistant", "Rosemary likes it drier."),
        ]
        times = [m.created_at for m in mem.chat.session_messages(herbs.id)]
        assert times == sorted(times) and times[0].startswith("2023-11-14T22:13:21")
        found = {h.node.text for h in mem.search("rosemary", scopes=["me"])}
        assert {"And rosemary?", "Rosemary likes it drier."} <= found


@pytest.mark.parametrize(
    ("source", "data", "words"),
    [
        ("openai-chat", mem0_export(), "conversations.json"),
        ("mem0", chatgpt_export(), "no text"),
        ("mem0", {"results": [{"memory": "x", "created_at": "last Tuesday"}]}, "not a time"),
        ("mem0", {"results": [{"memory": "x", "user_id": "a\nb"}]}, "user_id"),
    ],
)
def test_a_file_of_the_wrong_shape_imports_nothing(
    tmp_path: Path, source: str, data: Any, words: str
) -> None:
    with Memory(tmp_path / "m.db", embedder="hashing") as mem:
        good = {"memory": "kept only if all is", "user_id": "zed"}
        if source == "mem0" and isinstance(data, dict):
            data = {"results": [good, *data["results"]]}
        with pytest.raises(InvalidInput, match=words):
            mem.exchange.import_from(source, json.dumps(data), file="f.json")
        assert mem.stats().nodes == 0
        with pytest.raises(InvalidInput, match="not JSON"):
            mem.exchange.import_from(source, "{", file="f.json")


def test_the_cli_moves_in_from_mem0(tmp_path: Path) -> None:
    file = tmp_path / "mem0.json"
    file.write_text(json.dumps(mem0_export()), encoding="utf-8")
    done = run_cli(
        tmp_path / "m.db", "--json", "import", str(file), "--from", "mem0", embedder="hashing"
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["memories"] == 5
    both = run_cli(
        tmp_path / "m.db",
        "import",
        str(file),
        "--from",
        "mem0",
        "--format",
        "jsonl",
        embedder="hashing",
    )
    assert both.returncode != 0 and "--from" in both.stderr


def write_vault(folder: Path) -> None:
    (folder / "people").mkdir(parents=True)
    (folder / "Porto trip.md").write_text(
        "---\ntitle: Porto trip\ntags: [travel, 2024]\ncreated: 2024-03-02\naliases:\n"
        "  - Oporto\nmood: 'sunny'\nnot a field\n---\n"
        "# Plan\n\nFly out on Friday with [[Alice]].\n\n## Food\n\n"
        "Try the francesinha; see [[Restaurants|where to eat]] and [[Nowhere]].\n",
        encoding="utf-8",
    )
    (folder / "people" / "Alice.md").write_text(
        "Alice is a nurse who loves [[oporto#Food]].\n\n```\n# not a heading\n```\n",
        encoding="utf-8",
    )
    (folder / "Restaurants.md").write_text("---\ntitle: Restaurants\n---\n", encoding="utf-8")
    (folder / "image.png").write_bytes(b"\x89PNG")


def test_a_folder_of_notes_becomes_documents_linked_by_their_wiki_links(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    write_vault(vault)
    with Memory(tmp_path / "m.db", embedder="hashing") as mem:
        report = mem.exchange.import_notes(vault, scope="notes")
        assert (report.documents, report.relations, report.dangling) == (3, 3, 1)
        roots = {r.text: r for r in mem.roots() if r.scope == "notes"}
        assert set(roots) == {"Porto trip", "Alice", "Restaurants"}
        trip = roots["Porto trip"]
        front = trip.metadata["front_matter"]
        assert front["tags"] == ["travel", 2024] and front["aliases"] == ["Oporto"]
        assert front["mood"] == "sunny" and trip.metadata["front_matter_lines"] == ["not a field"]
        assert trip.created_at.startswith("2024-03-02") and trip.metadata["path"] == "Porto trip.md"
        assert roots["Alice"].metadata["path"] == "people/Alice.md"
        outline = [n.text for n in mem.store.subtree(trip.id)]
        assert outline[:3] == ["Porto trip", "Plan", "Fly out on Friday with [[Alice]]."]
        assert "Food" in outline
        ids = [n.id for n in mem.store.iter_nodes()]
        linked = {
            (mem.get(r.source_id).text[:12], mem.get(r.target_id).text)
            for r in mem.store.relations(ids)
        }
        assert linked == {
            ("Fly out on F", "Alice"),
            ("Try the fran", "Restaurants"),
            ("Alice is a n", "Porto trip"),  # by its alias, heading part dropped
        }
        alice = [n.text for n in mem.store.subtree(roots["Alice"].id)]
        assert "```\n# not a heading\n```" in alice  # fenced code stays text


def test_a_note_that_cannot_be_read_imports_nothing(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    write_vault(vault)
    (vault / "broken.md").write_bytes(b"\xff\xfe not utf-8 \xc3")
    with Memory(tmp_path / "m.db", embedder="hashing") as mem:
        with pytest.raises(InvalidInput, match=r"broken\.md"):
            mem.exchange.import_notes(vault)
        empty = tmp_path / "empty"
        empty.mkdir()
        with pytest.raises(InvalidInput, match=r"no \.md files"):
            mem.exchange.import_notes(empty)
        with pytest.raises(InvalidInput, match="not a folder"):
            mem.exchange.import_notes(vault / "Restaurants.md")
        assert mem.stats().nodes == 0


def test_the_cli_moves_in_a_folder_of_notes(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    write_vault(vault)
    done = run_cli(
        tmp_path / "m.db",
        "--json",
        "import",
        str(vault),
        "--from",
        "markdown",
        "--scope",
        "notes",
        embedder="hashing",
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert (report["documents"], report["relations"], report["scopes"]["notes"]) == (3, 3, 9)
