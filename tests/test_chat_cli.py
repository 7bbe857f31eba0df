"""Chat from the command line: `session ...`, capture, the memory log, prune,
the `chat` REPL driven through stdin, and `ask`/the REPL with an LLM set by
MNEMOTREE_LLM_* against the local OpenAI-compatible server. The real CLI in a
subprocess on a real SQLite file; no mocks.

Contract: exit 0 ok; 1 user error (one `error: ...` line on stderr naming the
problem, database untouched); 2 usage error (click's)."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mnemotree import Memory
from mnemotree.llm import LLMSettings
from mnemotree.llm.openai_compat import OpenAILLM
from mnemotree.model import Node
from tests.cli_runner import ENV
from tests.openai_server import Reply, Script, openai_server

# Nothing inherited may configure a model: each test says which it wants.
BASE_ENV = {k: v for k, v in ENV.items() if not k.startswith("MNEMOTREE_LLM")}
ULID = r"[0-9A-Z]{26}"
FACT = "Alice prefers green tea"
QUESTION = "What tea does Alice prefer?"


def mnemo(
    db: Path,
    *args: str,
    input: str | None = None,
    llm: str = "offline",
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """`python -m mnemotree --db DB --embedder hashing --llm LLM ARGS...` with
    `env` added to the test environment; output decoded as UTF-8."""
    stdin: dict[str, Any] = (
        {"stdin": subprocess.DEVNULL} if input is None else {"input": input.encode("utf-8")}
    )
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "mnemotree",
            "--db",
            str(db),
            "--embedder",
            "hashing",
            "--llm",
            llm,
            *args,
        ],
        capture_output=True,
        env={**BASE_ENV, **(env or {})},
        timeout=120,
        check=False,
        **stdin,
    )
    return subprocess.CompletedProcess(
        proc.args,
        proc.returncode,
        proc.stdout.decode("utf-8", "replace"),
        proc.stderr.decode("utf-8", "replace"),
    )


def ok(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 0, (proc.args, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.stdout


def as_json(proc: subprocess.CompletedProcess[str]) -> Any:
    return json.loads(ok(proc))


def files(db: Path) -> dict[str, str]:
    """Digest of the database and its WAL: what a failing command must not touch."""
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(db.parent.glob(db.name + "*"))
        if not p.name.endswith("-shm") and p.stat().st_size > 0
    }


def user_error(db: Path, *args: str, naming: list[str], input: str | None = None) -> str:
    """Exit 1, one `error:` line naming every item, nothing written."""
    before = files(db)
    proc = mnemo(db, *args, input=input)
    assert proc.returncode == 1, (args, proc.stdout, proc.stderr)
    assert proc.stderr.startswith("error: ") and proc.stderr.count("\n") == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    for name in naming:
        assert name in proc.stderr, (name, proc.stderr)
    assert files(db) == before, f"{args!r} changed the database"
    return proc.stderr


def llm_env(url: str) -> dict[str, str]:
    return {
        "MNEMOTREE_LLM_MODEL": "local-chat",
        "MNEMOTREE_LLM_BASE_URL": url,
        "MNEMOTREE_LLM_API_KEY": "test-key",
        "MNEMOTREE_LLM_RETRIES": "0",  # one request per answer, no back-off
        "NO_PROXY": "127.0.0.1,localhost",
    }


def offline(db: Path) -> Memory:
    """The same database from Python, as the CLI opens it (real clock, no model)."""
    return Memory(db, embedder="hashing", llm="offline", chat_background=False)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "chat.db"


@pytest.fixture
def with_fact(db: Path) -> Path:
    """A database holding one fact in the default scope."""
    with offline(db) as memory:
        memory.remember(FACT)
    return db


def messages_of(db: Path, session: str) -> list[Node]:
    with offline(db) as memory:
        return memory.chat.session_messages(session)


# -- sessions ------------------------------------------------------------------------


def test_session_new_add_show_and_messages_round_trip(db: Path) -> None:
    made = as_json(
        mnemo(
            db,
            "session",
            "new",
            "--scope",
            "user:1",
            "--title",
            "Planning",
            "--max-recent",
            "4",
            "--chunk-size",
            "2",
            "--json",
        )
    )
    sid = made["id"]
    assert (made["text"], made["scope"], made["context_type"]) == (
        "Planning",
        "user:1",
        "chat_session",
    )
    assert made["metadata"]["window"] == {"max_recent": 4, "chunk_size": 2, "max_chunks": 5}
    first = ok(mnemo(db, "session", "add", sid, "user", "We hiked near Sintra on Saturday."))
    assert re.fullmatch(rf"message {ULID}  \(turn 1, \d+ tokens\)\n", first), first
    piped = as_json(
        mnemo(
            db,
            "session",
            "add",
            sid,
            "assistant",
            "-",
            "--json",
            input="Sounds lovely.\nWhere next?",
        )
    )
    assert (piped["text"], piped["metadata"]["turn"]) == ("Sounds lovely.\nWhere next?", 2)
    carol = as_json(
        mnemo(db, "session", "add", sid, "user", "Porto, I think.", "--name", "Carol", "--json")
    )
    assert (carol["context_name"], carol["context_value"]) == ("Carol", "user")
    ok(mnemo(db, "session", "add", sid, "assistant", "Porto has great food."))
    ok(mnemo(db, "session", "add", sid, "user", "Then Porto it is."))  # 5 > 4: turns 1-2 summarised

    info = as_json(mnemo(db, "session", "show", sid, "--json"))
    assert (info["turns"], info["summaries"], info["recent"], info["status"]) == (5, 1, 3, "active")
    assert info["window"]["max_recent"] == 4 and info["milestones"] == []
    shown = ok(mnemo(db, "session", "show", sid))
    assert shown.startswith(f"Planning {sid}  scope user:1 · active · 5 turns · 1 summaries")
    assert "turns 1-2: " in shown and "  3 Carol: Porto, I think.\n" in shown

    whole = as_json(mnemo(db, "session", "messages", sid, "--json"))
    assert whole[0]["role"] == "assistant" and whole[0]["content"] is None
    call = whole[0]["tool_calls"][0]
    assert call["function"]["name"] == "recall_summary"
    assert json.loads(call["function"]["arguments"])["turns"] == "turns 1-2"
    assert whole[1]["role"] == "tool" and whole[1]["tool_call_id"] == call["id"]
    assert whole[2:] == [
        {"role": "user", "content": "Porto, I think.", "name": "Carol"},
        {"role": "assistant", "content": "Porto has great food."},
        {"role": "user", "content": "Then Porto it is."},
    ]
    text = ok(mnemo(db, "session", "messages", sid))
    assert text.startswith("assistant → recall_summary ")
    assert "Carol: Porto, I think.\nassistant: Porto has great food.\n" in text
    assert as_json(mnemo(db, "session", "messages", sid, "--budget", "0", "--json")) == []
    fitted = as_json(mnemo(db, "session", "messages", sid, "--budget", "30", "--json"))
    assert 0 < len(fitted) < len(whole) and fitted == whole[len(whole) - len(fitted) :]

    listed = as_json(mnemo(db, "session", "list", "--scope", "user:1", "--json"))
    assert [(s["id"], s["turns"], s["status"]) for s in listed] == [(sid, 5, "active")]
    nothing = mnemo(db, "session", "list", "--scope", "user:2")
    assert ok(nothing) == "" and "no sessions" in nothing.stderr


def test_session_errors_are_one_line_and_write_nothing(db: Path) -> None:
    sid = as_json(mnemo(db, "session", "new", "--json"))["id"]
    user_error(db, "session", "show", "NOPE", naming=["no chat session with id 'NOPE'"])
    user_error(db, "session", "add", "NOPE", "user", "hi", naming=["'NOPE'"])
    user_error(db, "session", "add", sid, "user", "   ", naming=["empty"])
    user_error(db, "session", "messages", sid, "--budget", "-1", naming=["budget", "-1"])
    user_error(
        db,
        "session",
        "new",
        "--max-recent",
        "2",
        "--chunk-size",
        "3",
        naming=["chunk_size (3) cannot exceed max_recent (2)"],
    )
    user_error(db, "session", "milestone", sid, " ", naming=["milestone needs some text"])
    usage = mnemo(db, "session", "add", sid, "robot", "hi")
    assert usage.returncode == 2 and "robot" in usage.stderr


def test_status_milestones_and_an_ended_session(db: Path) -> None:
    sid = as_json(mnemo(db, "session", "new", "--title", "Ops", "--json"))["id"]
    ok(mnemo(db, "session", "add", sid, "user", "We moved the database to the new host."))
    ok(mnemo(db, "session", "add", sid, "assistant", "Done, and the backups run nightly."))
    assert ok(mnemo(db, "session", "milestone", sid, "Migrated")) == "milestone at turn 2\n"
    assert ok(mnemo(db, "session", "status", sid, "paused")) == f"paused {sid}\n"
    paused = as_json(mnemo(db, "session", "list", "--status", "paused", "--json"))
    assert [s["id"] for s in paused] == [sid]
    assert paused[0]["milestones"][0]["text"] == "Migrated"
    assert paused[0]["milestones"][0]["turn"] == 2
    assert as_json(mnemo(db, "session", "list", "--status", "active", "--json")) == []
    ok(mnemo(db, "session", "add", sid, "user", "Still here."))  # paused takes messages
    ended = as_json(mnemo(db, "session", "status", sid, "ended", "--json"))
    assert ended["metadata"]["status"] == "ended"
    user_error(db, "session", "add", sid, "user", "Hello?", naming=[sid, "has ended"])
    user_error(db, "chat", "--session", sid, input="hello\n", naming=[sid, "has ended"])
    bad = mnemo(db, "session", "status", sid, "done")
    assert bad.returncode == 2 and "done" in bad.stderr
    assert len(messages_of(db, sid)) == 3


def test_the_daily_log_prints_the_days_messages_as_markdown(db: Path) -> None:
    sid = as_json(mnemo(db, "session", "new", "--title", "Standup", "--scope", "team", "--json"))[
        "id"
    ]
    said = as_json(mnemo(db, "session", "add", sid, "user", "I fixed the login bug.", "--json"))
    ok(mnemo(db, "session", "add", sid, "assistant", "Great work.", "--name", "Bot"))
    day = said["created_at"][:10]
    text = ok(mnemo(db, "session", "log", "--scope", "team", "--day", day))
    assert text.startswith(f"# {day} (team)\n\n## Standup ({sid})\n\n- ")
    assert "**user**: I fixed the login bug.\n" in text and "**Bot**: Great work.\n" in text
    assert len(re.findall(r"^- \d\d:\d\d \*\*", text, re.M)) == 2
    data = as_json(mnemo(db, "session", "log", "--scope", "team", "--day", day, "--json"))
    assert data == {"scope": "team", "markdown": text}
    today = ok(mnemo(db, "session", "log", "--scope", "team"))  # default: today, UTC
    assert re.match(r"# \d{4}-\d\d-\d\d \(team\)\n", today)
    assert ok(mnemo(db, "session", "log", "--day", day)) == f"# {day} (default)\n"
    assert ok(mnemo(db, "session", "log", "--scope", "team", "--day", "1999-01-01")) == (
        "# 1999-01-01 (team)\n"
    )
    user_error(
        db,
        "session",
        "log",
        "--day",
        "2026-02-30",
        naming=["day must be YYYY-MM-DD", "'2026-02-30'"],
    )


# -- capture -------------------------------------------------------------------------


def test_capture_captured_promote_dismiss_and_the_memory_log(db: Path) -> None:
    sid = as_json(mnemo(db, "session", "new", "--scope", "proj", "--json"))["id"]
    for text in [
        "We decided to use PostgreSQL for billing.",
        "Maybe we have to cache the search results in Redis.",  # hedged: waits
        "Perhaps we could move the standup to Tuesdays.",
    ]:
        ok(mnemo(db, "session", "add", sid, "user", text))
    assert ok(mnemo(db, "captured", "--status", "all", "--json")) == "[]\n"  # not due yet
    report = ok(mnemo(db, "capture", sid))
    assert report.startswith("found 3, new 3, promoted 1, pending 2\n"), report
    assert re.search(rf"^{ULID}  promoted  decision 0\.\d\d  We decided", report, re.M)
    pending = as_json(mnemo(db, "captured", "--json"))
    assert {r["status"] for r in pending} == {"pending"} and len(pending) == 2
    assert all(r["session_id"] == sid and r["scope"] == "proj" for r in pending)
    assert all(r["fields"] == {} for r in pending)  # an object: nothing carried by these
    promoted = as_json(mnemo(db, "captured", "--status", "promoted", "--scope", "proj", "--json"))
    assert len(promoted) == 1 and promoted[0]["memory_id"]
    assert as_json(mnemo(db, "captured", "--scope", "elsewhere", "--json")) == []

    first, second = pending[0]["id"], pending[1]["id"]
    made = ok(mnemo(db, "promote", first))
    assert re.fullmatch(rf"promoted {ULID}  \(\d+ tokens, scope proj\)\n", made), made
    user_error(db, "promote", first, naming=[first, "already promoted"])
    assert as_json(mnemo(db, "dismiss", second, "--json")) == {"dismissed": second}
    user_error(db, "dismiss", second, naming=[second, "already dismissed"])
    user_error(db, "promote", second, naming=[second, "already dismissed"])
    user_error(db, "promote", "NOPE", naming=["no captured fact with id 'NOPE'"])
    user_error(db, "capture", "NOPE", naming=["no chat session with id 'NOPE'"])
    none_left = mnemo(db, "captured")
    assert ok(none_left) == "" and "no pending captured facts" in none_left.stderr
    rows = as_json(mnemo(db, "captured", "--status", "all", "--json"))
    assert sorted(r["status"] for r in rows) == ["dismissed", "promoted", "promoted"]
    again = as_json(mnemo(db, "capture", sid, "--json"))
    assert again == {"session": sid, "found": 0, "new": 0, "promoted": [], "pending": []}

    log = ok(mnemo(db, "memory-log", "--scope", "proj"))
    assert re.match(r"# Memory log \(proj\)\n\n## \d{4}-\d\d-\d\d \d\d:\d\d UTC\n\n- ", log)
    assert "- We decided to use PostgreSQL for billing. (decision, 0." in log
    assert "Maybe we have to cache the search results in Redis" in log
    data = as_json(mnemo(db, "memory-log", "--scope", "proj", "--json"))
    assert data == {"scope": "proj", "markdown": log}
    assert ok(mnemo(db, "memory-log")) == "# Memory log (default)\n"


# -- prune ---------------------------------------------------------------------------


def summarised_session(db: Path, scope: str = "default") -> Node:
    """Four messages with max_recent 2 and chunk 1: summaries of turns 1 and 2,
    turns 3-4 unsummarised; and a note in the scope's memory log."""
    with offline(db) as memory:
        session = memory.chat.start_session(scope, "Retention", max_recent=2, chunk_size=1)
        for i in range(4):
            memory.chat.add_message(session.id, "user", f"Message number {i + 1} about tea.")
        memory.chat.note("Tea is served at four.", scope=scope)
        return session


def test_prune_dry_run_then_messages_then_summaries(db: Path) -> None:
    session = summarised_session(db)
    other = summarised_session(db, "other")
    nothing = as_json(mnemo(db, "prune", "--json"))  # all of it is minutes old
    assert nothing == {
        "messages": 0,
        "summaries": 0,
        "log_sections": 0,
        "dry_run": False,
        "ids": {"messages": [], "summaries": [], "log_sections": []},
    }
    before = files(db)
    dry = as_json(mnemo(db, "prune", "--messages-days", "0", "--dry-run", "--json"))
    assert (dry["messages"], dry["summaries"], dry["dry_run"]) == (4, 0, True)
    assert files(db) == before
    text = ok(mnemo(db, "prune", "--messages-days", "0", "--dry-run"))
    assert text == "would prune 4 messages, 0 summaries, 0 memory-log sections\n"
    assert files(db) == before

    done = ok(mnemo(db, "prune", "--messages-days", "0", "--scope", "default"))
    assert done == "pruned 2 messages, 0 summaries, 0 memory-log sections\n"
    assert [m.metadata["turn"] for m in messages_of(db, session.id)] == [3, 4]
    assert len(messages_of(db, other.id)) == 4  # another scope: untouched
    info = as_json(mnemo(db, "session", "show", session.id, "--json"))
    assert (info["turns"], info["summaries"], info["recent"]) == (4, 2, 2)

    gone = as_json(mnemo(db, "prune", "--summaries-days", "0", "--json"))
    # The other scope's two summarised messages go with their summaries, and count.
    assert (gone["messages"], gone["summaries"], gone["log_sections"]) == (2, 4, 2)
    assert [m.metadata["turn"] for m in messages_of(db, other.id)] == [3, 4]
    info = as_json(mnemo(db, "session", "show", session.id, "--json"))
    assert (info["turns"], info["summaries"], info["recent"]) == (4, 0, 2)
    assert ok(mnemo(db, "memory-log")) == "# Memory log (default)\n"
    added = as_json(mnemo(db, "session", "add", session.id, "user", "And now?", "--json"))
    assert added["metadata"]["turn"] == 5
    with offline(db) as memory:  # what went is in history
        pruned = gone["ids"]["summaries"][0]
        assert memory.history(pruned)[-1].op == "delete"


def test_prune_refuses_bad_days(db: Path) -> None:
    summarised_session(db)
    user_error(
        db,
        "prune",
        "--messages-days",
        "-1",
        naming=["messages_days must be a number of days >= 0", "-1"],
    )
    user_error(db, "prune", "--admin-days", "nan", naming=["admin_days", "nan"])
    usage = mnemo(db, "prune", "--summaries-days", "soon")
    assert usage.returncode == 2 and "soon" in usage.stderr


def test_prune_keeping_forever_prunes_nothing(db: Path) -> None:
    summarised_session(db)
    report = as_json(
        mnemo(db, "prune", "--messages-days", "inf", "--summaries-days", "1e6", "--json")
    )
    assert (report["messages"], report["summaries"]) == (0, 0)


# -- the chat REPL, offline ------------------------------------------------------------


def test_the_repl_answers_from_memory_and_runs_slash_commands(with_fact: Path) -> None:
    db = with_fact
    script = (
        "\n".join(
            [
                QUESTION,
                "/search green tea",
                "/search",
                "/remember The office closes at 6pm on Fridays",
                "/memory",
                "/frobnicate now",
                "/ask When does the office close?",
                "/docs",
                "/forget",
                "/memory",
                "/help",
                "/quit",
                "This line comes after /quit and is never read.",
            ]
        )
        + "\n"
    )
    proc = mnemo(db, "chat", "--scope", "default", "--title", "Tea talk", input=script)
    out = ok(proc)
    sid = re.search(rf"session ({ULID}) \(default\); no model: retrieval-only", proc.stderr)
    assert sid, proc.stderr
    # The plain question: answered from memory, naming the stored fact.
    assert out.startswith(f"from memory:\n  - {FACT}\n"), out
    assert re.search(rf"^ 1\. {FACT}\n", out, re.M)  # /search
    assert "usage: /search QUERY" in proc.stderr
    assert re.search(rf"^remembered {ULID}\n", out, re.M)
    assert re.search(
        r"# Memory log \(default\)\n\n## [-\d]{10} \d\d:\d\d UTC\n\n"
        r"- The office closes at 6pm on Fridays\n",
        out,
    )
    assert "unknown command /frobnicate; /help lists them" in proc.stderr
    assert "from memory:\n  - The office closes at 6pm on Fridays\n" in out  # /ask
    assert "no documents; add some with" in out
    assert "cleared the memory log of default (1 sections)\n# Memory log (default)\n" in out
    assert "/remember NOTE" in out and "/quit" in out  # /help
    assert f"session {sid[1]} kept; continue with --session {sid[1]}" in proc.stderr
    # Only the plain question is a message (no model: no assistant reply).
    kept = messages_of(db, sid[1])
    assert [(m.context_value, m.text) for m in kept] == [("user", QUESTION)]
    with offline(db) as memory:
        assert memory.chat.session(sid[1]).text == "Tea talk"
        assert [h.node.text for h in memory.search("office closes Fridays")][:1] == [
            "The office closes at 6pm on Fridays"
        ]  # the note outlives the cleared log

    # Continuing the session; --see limits where answers come from.
    again = mnemo(db, "chat", "--session", sid[1], "--see", "elsewhere", input=f"{QUESTION}\n")
    assert ok(again) == "nothing in memory about that\n"
    assert [m.metadata["turn"] for m in messages_of(db, sid[1])] == [1, 2]
    user_error(db, "chat", "--session", "NOPE", input="hi\n", naming=["'NOPE'"])


# -- with an LLM (the local server) ----------------------------------------------------


def test_the_repl_with_an_llm_prints_and_stores_its_replies(with_fact: Path) -> None:
    db = with_fact
    nothing = json.dumps({"memories": []})  # the capture on leaving
    script = Script(chat=["Alice likes green tea.", "  You are welcome.\n", nothing])
    with openai_server(script) as url:
        proc = mnemo(db, "chat", input=f"{QUESTION}\nThanks!\n", llm="openai", env=llm_env(url))
    out = ok(proc)
    assert "openai:local-chat@127.0.0.1:" in proc.stderr
    assert out == "assistant: Alice likes green tea.\nassistant: You are welcome.\n"
    first, second = [r["messages"] for r in answers(script)]
    assert {r["model"] for r in script.chat_requests()} == {"local-chat"}
    assert first[0]["role"] == "system" and f"## Memory\n- {FACT}" in first[0]["content"]
    assert first[1:] == [{"role": "user", "content": QUESTION}]
    assert second[1:] == [  # the earlier turns are the history
        {"role": "user", "content": QUESTION},
        {"role": "assistant", "content": "Alice likes green tea."},
        {"role": "user", "content": "Thanks!"},
    ]
    sid = re.search(rf"session ({ULID})", proc.stderr)
    assert sid
    kept = messages_of(db, sid[1])
    assert [(m.context_value, m.text, m.metadata["turn"]) for m in kept] == [
        ("user", QUESTION, 1),
        ("assistant", "Alice likes green tea.", 2),
        ("user", "Thanks!", 3),
        ("assistant", "You are welcome.", 4),
    ]


def test_the_repl_falls_back_to_retrieval_when_the_model_fails(with_fact: Path) -> None:
    db = with_fact
    script = Script(chat=[Reply(status=500)])
    with openai_server(script) as url:
        proc = mnemo(db, "chat", input=f"{QUESTION}\n", llm="openai", env=llm_env(url))
    out = ok(proc)
    assert "the model failed (chat request to local-chat at" in " ".join(proc.stderr.split())
    assert "HTTP 500" in proc.stderr
    assert out == f"from memory:\n  - {FACT}\n"
    assert len(answers(script)) == 1
    sid = re.search(rf"session ({ULID})", proc.stderr)
    assert sid
    assert [m.text for m in messages_of(db, sid[1])] == [QUESTION]  # no assistant reply


def test_llm_offline_wins_over_the_environment(with_fact: Path) -> None:
    script = Script(chat=["never sent"])
    with openai_server(script) as url:
        proc = mnemo(with_fact, "chat", input=f"{QUESTION}\n", env=llm_env(url))  # --llm offline
        asked = mnemo(with_fact, "ask", QUESTION, env=llm_env(url))
    assert ok(proc) == f"from memory:\n  - {FACT}\n"
    assert "no model: retrieval-only answers" in proc.stderr
    assert ok(asked).startswith("You are a helpful assistant")
    assert script.requests == []


def test_the_repl_with_an_llm_keeps_working_after_a_summary(with_fact: Path) -> None:
    db = with_fact
    with offline(db) as memory:
        session = memory.chat.start_session(max_recent=2, chunk_size=1)
        for text in ["Hello there.", "We talked about tea.", "And about coffee."]:
            memory.chat.add_message(session.id, "user", text)
        assert memory.children(session.id)[0].is_summary
    script = Script(chat=["Green tea."])
    with openai_server(script) as url:
        proc = mnemo(
            db,
            "chat",
            "--session",
            session.id,
            input=f"{QUESTION}\n",
            llm="openai",
            env=llm_env(url),
        )
    assert "error" not in proc.stderr, proc.stderr
    assert ok(proc) == "assistant: Green tea.\n"
    assert [m.text for m in messages_of(db, session.id)][-2:] == [QUESTION, "Green tea."]


def test_ask_with_an_llm_prints_the_answer_or_why_there_is_none(with_fact: Path) -> None:
    db = with_fact
    script = Script(chat=["Green tea, says memory.", Reply(status=500), "Green tea."])
    with openai_server(script) as url:
        answered = mnemo(db, "ask", QUESTION, llm="openai", env=llm_env(url))
        failed = mnemo(db, "ask", QUESTION, llm="openai", env=llm_env(url))
        data = as_json(mnemo(db, "ask", QUESTION, "--json", llm="openai", env=llm_env(url)))
    assert ok(answered).startswith("Green tea, says memory.\n\nYou are a helpful assistant")
    assert f"## Memory\n- {FACT}" in answered.stdout
    out = ok(failed)
    assert out.startswith("You are a helpful assistant") and "Green tea" not in out
    assert "no answer: chat request to local-chat at" in " ".join(failed.stderr.split())
    assert (data["answer"], data["error"]) == ("Green tea.", None)
    assert data["memories"][0]["text"] == FACT
    sent = script.chat_requests()
    assert len(sent) == 3
    assert sent[0]["messages"] == [
        {"role": "system", "content": data["system_prompt"]},
        {"role": "user", "content": QUESTION},
    ]


# -- Memory.ask with a scripted LLM (Python) --------------------------------------------


@pytest.fixture
def server() -> Iterator[tuple[Script, str]]:
    script = Script()
    with openai_server(script) as url:
        yield script, url


def llm_memory(db: Path, url: str) -> Memory:
    llm = OpenAILLM(LLMSettings("local-chat", base_url=url, retries=0))
    return Memory(db, embedder="hashing", llm=llm, chat_background=False)


def test_ask_sends_the_memory_prompt_and_history_and_returns_the_answer(
    with_fact: Path, server: tuple[Script, str]
) -> None:
    script, url = server
    script.chat += ["  Alice prefers green tea.\n", Reply(status=500)]
    history = [
        {"role": "user", "content": "Hi, I have a question about Alice."},
        {"role": "assistant", "content": "Sure, go ahead."},
    ]
    with llm_memory(with_fact, url) as memory:
        answer = memory.ask(QUESTION, history=history)
        assert (answer.answer, answer.error) == ("Alice prefers green tea.", None)
        assert answer.memories[0].node.text == FACT
        (sent,) = script.chat_requests()
        assert sent["model"] == "local-chat"
        assert sent["messages"] == [
            {"role": "system", "content": answer.system_prompt},
            *history,
            {"role": "user", "content": QUESTION},
        ]
        assert answer.system_prompt.startswith("You are a helpful assistant with a long-term")
        assert f"## Memory\n- {FACT}" in answer.system_prompt

        failed = memory.ask(QUESTION)
        assert failed.answer is None and failed.error
        assert "failed after 1 tries" in failed.error and "HTTP 500" in failed.error
        assert failed.memories[0].node.text == FACT  # retrieval still answered
        assert failed.to_dict()["error"] == failed.error

        quiet = memory.ask(QUESTION, generate=False)
        assert (quiet.answer, quiet.error) == (None, None)
        assert len(script.chat_requests()) == 2  # generate=False sent nothing

        script.chat.append("I do not know.")
        elsewhere = memory.ask(QUESTION, scopes=["nobody"])
        assert elsewhere.answer == "I do not know." and elsewhere.memories == []
        assert "## Memory" not in script.chat_requests()[-1]["messages"][0]["content"]


def test_ask_offline_never_answers_and_never_fails(with_fact: Path) -> None:
    with offline(with_fact) as memory:
        answer = memory.ask(QUESTION, history=[{"role": "user", "content": "hi"}])
    assert (answer.answer, answer.error) == (None, None)
    assert answer.memories[0].node.text == FACT


def test_ask_takes_a_session_message_list_with_summaries_as_history(
    with_fact: Path, server: tuple[Script, str]
) -> None:
    script, url = server
    script.chat.append("Green tea.")
    with offline(with_fact) as memory:  # summarised without the model
        session = memory.chat.start_session(max_recent=2, chunk_size=1)
        for text in ["Hello there.", "We talked about tea.", "And about coffee."]:
            memory.chat.add_message(session.id, "user", text)
        history = memory.chat.build_message_list(session.id)
    assert history[0]["content"] is None  # the summary's tool call
    with llm_memory(with_fact, url) as memory:
        answer = memory.ask(QUESTION, history=history)
    assert answer.answer == "Green tea."
    assert len(script.chat_requests()) == 1


def answers(script: Script) -> list[dict[str, Any]]:
    """The requests for answers (captures ask for JSON)."""
    return [r for r in script.chat_requests() if "response_format" not in r]
