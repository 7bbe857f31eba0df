"""End-to-end tests of the `mnemotree` command line, run as a real subprocess.

Contract: exit 0 ok; 1 user error (an `error: ...` message on stderr naming the
problem, database untouched); 2 usage error (click's default).

Loading the exact tokenizer costs about a second per process, so most tests
start from a copy of one small tree that is imported once per session (see
`notes`); every test still gets its own database file under `tmp_path`.
"""

from __future__ import annotations

import functools
import hashlib
import json
import random
import re
import shutil
import subprocess
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

import pytest

from tests.cli_runner import run_cli

T = TypeVar("T")
NODE_KEYS = {
    "id",
    "parent_id",
    "text",
    "token_count",
    "context_type",
    "context_name",
    "context_value",
    "scope",
    "version",
}
UNKNOWN = "01NOSUCHNODE00000000000000"
NOTES_MD = "# Alpha\n\na1\n\na2\n\na3\n\n# Beta\n\nb1\n\nb2\n"
NOTES_ORDER = ["notes.md", "Alpha", "a1", "a2", "a3", "Beta", "b1", "b2"]
# -- helpers -------------------------------------------------------------------


def run(
    db: Path, *args: str | bytes, input: str | bytes | None = None
) -> subprocess.CompletedProcess[str]:
    """`python -m mnemotree --db DB ARGS...`; stdout/stderr decoded as UTF-8."""
    return run_cli(db, *args, input=input)


def run_json(db: Path, *args: str, input: str | None = None) -> Any:
    """Run a command with `--json` after it; assert exit 0 and parse stdout."""
    proc = run(db, *args, "--json", input=input)
    assert proc.returncode == 0, (args, proc.stderr)
    return json.loads(proc.stdout)


def dump(db: Path) -> str:
    """Every node and every kept version, as the CLI sees them (JSONL export)."""
    proc = run(db, "export", "--format", "jsonl")
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def files(db: Path) -> dict[str, str]:
    """Digest of the database file and its WAL: what a failing command must not touch."""
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(db.parent.glob(db.name + "*"))
        if not p.name.endswith("-shm") and p.stat().st_size > 0  # an empty WAL holds nothing
    }


def squash(text: str) -> str:
    """`text` without whitespace, so that rich's line wrapping cannot hide a name."""
    return "".join(text.split())


class Bad(NamedTuple):
    """A command that must fail with exit 1 and a message naming every item of `naming`."""

    args: Sequence[str | bytes]
    naming: Sequence[str]
    input: str | bytes | None = None


def user_errors(db: Path, *cases: Bad) -> list[str]:
    """Run failing commands and check each; the database files must stay byte for byte.

    The commands run concurrently (they must not write anything) to keep the file fast.
    """
    before = files(db)
    procs = parallel(*(functools.partial(run, db, *c.args, input=c.input) for c in cases))
    messages = []
    for case, proc in zip(cases, procs, strict=True):
        assert proc.returncode == 1, (case.args, proc.returncode, proc.stdout, proc.stderr)
        assert "Traceback" not in proc.stderr, proc.stderr
        assert proc.stderr.startswith("error: "), (case.args, proc.stderr)
        assert proc.stdout == "", case.args
        for name in case.naming:
            assert squash(name) in squash(proc.stderr), (case.args, name, proc.stderr)
        messages.append(proc.stderr)
    assert files(db) == before, f"{[c.args for c in cases]!r} changed the database"
    return messages


def user_error(
    db: Path, *args: str | bytes, naming: Sequence[str], input: str | bytes | None = None
) -> str:
    """One failing command: exit 1, a message naming every item, database untouched."""
    return user_errors(db, Bad(args, naming, input))[0]


def parallel(*calls: Callable[[], Any]) -> list[Any]:
    """Run independent calls (subprocesses) concurrently; results in order."""
    with ThreadPoolExecutor(max_workers=4) as pool:
        return list(pool.map(lambda call: call(), calls))


def run_many(db: Path, *commands: Sequence[str]) -> list[Any]:
    """Read-only commands with `--json`, run concurrently; their parsed outputs in order."""
    return parallel(*(functools.partial(run_json, db, *args) for args in commands))


def tree(db: Path, root: str) -> list[dict[str, Any]]:
    nodes: list[dict[str, Any]] = run_json(db, "tree", root)
    return nodes


def texts(db: Path, root: str) -> list[str]:
    """Texts in reading order (`tree ROOT`)."""
    return [n["text"] for n in tree(db, root)]


def shape(nodes: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """The tree structure: (depth, id, parent_id, text) in reading order."""
    return [(n["depth"], n["id"], n["parent_id"], n["text"]) for n in nodes]


class Notes(NamedTuple):
    """A database holding notes.md > Alpha (a1 a2 a3), Beta (b1 b2)."""

    db: Path
    nodes: list[dict[str, Any]]  # `tree ROOT --json` of the untouched tree
    dump: str  # `export --format jsonl` of the untouched tree

    @property
    def ids(self) -> dict[str, str]:
        return {n["text"]: n["id"] for n in self.nodes}

    @property
    def root(self) -> str:
        return str(self.nodes[0]["id"])

    def node(self, text: str) -> dict[str, Any]:
        return next(n for n in self.nodes if n["text"] == text)


@pytest.fixture(scope="session")
def notes_template(tmp_path_factory: pytest.TempPathFactory) -> Notes:
    folder = tmp_path_factory.mktemp("template")
    source = folder / "notes.md"
    source.write_text(NOTES_MD, encoding="utf-8")
    db = folder / "m.db"
    tops = run_json(db, "import", str(source), "--format", "markdown")
    assert [t["text"] for t in tops] == ["notes.md"]
    nodes = tree(db, tops[0]["id"])
    assert [(n["depth"], n["text"]) for n in nodes] == [
        (0, "notes.md"),
        (1, "Alpha"),
        (2, "a1"),
        (2, "a2"),
        (2, "a3"),
        (1, "Beta"),
        (2, "b1"),
        (2, "b2"),
    ]
    return Notes(db, nodes, dump(db))


@pytest.fixture
def notes(notes_template: Notes, tmp_path: Path) -> Notes:
    """A fresh copy of the template database in tmp_path (importing it costs a tokenizer load)."""
    for path in notes_template.db.parent.glob(notes_template.db.name + "*"):
        if not path.name.endswith("-shm"):
            shutil.copyfile(path, tmp_path / path.name)
    return notes_template._replace(db=tmp_path / notes_template.db.name)


# -- init, stats, --json -----------------------------------------------------------


def test_init_creates_the_database_and_reports_empty_stats(tmp_path: Path) -> None:
    db = tmp_path / "nested" / "m.db"
    proc = run(db, "init")
    assert proc.returncode == 0, proc.stderr
    assert "ready" in proc.stdout
    assert squash(str(db)) in squash(proc.stdout)
    assert db.is_file()
    info = run_json(db, "init")
    assert info["database"] == str(db)
    counts = {k: info[k] for k in ("nodes", "roots", "summaries", "tokens", "versions")}
    assert counts == {"nodes": 0, "roots": 0, "summaries": 0, "tokens": 0, "versions": 0}
    assert run_json(db, "stats") == info
    assert run_json(db, "tree") == []


def test_json_flag_is_global_or_per_command_and_stats_count(notes: Notes) -> None:
    db, a2 = notes.db, notes.ids["a2"]
    commands = (["show", a2], ["tree", notes.root], ["stats"])
    procs = parallel(
        *(functools.partial(run, db, "--json", *args) for args in commands),
        *(functools.partial(run, db, *args, "--json") for args in commands),
        functools.partial(run, db, "stats"),
    )
    assert [p.returncode for p in procs] == [0] * len(procs), [p.stderr for p in procs]
    outputs = [json.loads(p.stdout) for p in procs[:-1]]
    assert outputs[: len(commands)] == outputs[len(commands) :]  # global == per command
    shown, nodes, stats = outputs[: len(commands)]
    assert shown.keys() >= NODE_KEYS
    assert (shown["id"], shown["parent_id"], shown["text"]) == (a2, notes.ids["Alpha"], "a2")
    assert isinstance(nodes, list) and all(n.keys() >= NODE_KEYS for n in nodes)
    assert [n["text"] for n in nodes] == NOTES_ORDER
    assert (stats["nodes"], stats["roots"], stats["summaries"], stats["versions"]) == (8, 1, 0, 0)
    assert stats["tokens"] == sum(n["token_count"] for n in nodes) > 0
    assert re.search(r"^nodes\s+8\s*$", procs[-1].stdout, re.MULTILINE), procs[-1].stdout


# -- add, show, tree ---------------------------------------------------------------


def test_add_roots_and_children_with_context_scope_and_stdin(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    proc = run(db, "--json", "add", "Project Atlas", "--scope", "team")
    assert proc.returncode == 0, proc.stderr
    root = json.loads(proc.stdout)
    assert root.keys() >= NODE_KEYS
    assert (root["parent_id"], root["text"], root["scope"], root["version"]) == (
        None,
        "Project Atlas",
        "team",
        1,
    )
    assert (root["context_type"], root["context_name"], root["context_value"]) == ("", "", "")
    assert root["token_count"] > 0

    child = run_json(
        db,
        "add",
        "We chose SQLite for storage because it is one file.",
        "--parent",
        root["id"],
        "--type",
        "message",
        "--name",
        "chat",
        "--value",
        "user",
    )
    assert child["parent_id"] == root["id"]
    assert (child["context_type"], child["context_name"], child["context_value"]) == (
        "message",
        "chat",
        "user",
    )
    assert child["scope"] == "team"  # inherited from the parent
    assert child["version"] == 1
    assert child["token_count"] > root["token_count"]

    note_text = "Line one\n  line two: café ✓"
    proc = run(db, "add", "-", "--parent", root["id"], "--scope", "private", input=note_text)
    assert proc.returncode == 1 and "scopes share team" in proc.stderr  # team's text would show
    assert run(db, "scopes", "share", "team").returncode == 0
    proc = run(db, "add", "-", "--parent", root["id"], "--scope", "private", input=note_text)
    assert proc.returncode == 0, proc.stderr
    verb, note_id, *_ = proc.stdout.split()
    assert verb == "added"

    roots, nodes = run_many(db, ["tree"], ["tree", root["id"]])
    assert [(n["id"], n["depth"]) for n in roots] == [(root["id"], 0)]
    assert [(n["depth"], n["id"]) for n in nodes] == [
        (0, root["id"]),
        (1, child["id"]),
        (1, note_id),
    ]
    note = nodes[2]
    assert (note["text"], note["scope"], note["parent_id"]) == (note_text, "private", root["id"])

    shown = run(db, "show", child["id"])
    assert shown.returncode == 0, shown.stderr
    assert "We chose SQLite for storage" in shown.stdout
    assert child["id"] in shown.stdout and "message" in shown.stdout


# -- insert ------------------------------------------------------------------------


def test_insert_between_adjacent_siblings(notes: Notes) -> None:
    db, ids = notes.db, notes.ids
    node = run_json(db, "insert", "a1½", "--after", ids["a1"], "--before", ids["a2"])
    assert node.keys() >= NODE_KEYS
    assert (node["parent_id"], node["text"], node["scope"], node["version"]) == (
        ids["Alpha"],
        "a1½",
        "default",
        1,
    )
    expected = ["notes.md", "Alpha", "a1", "a1½", "a2", "a3", "Beta", "b1", "b2"]
    assert texts(db, notes.root) == expected
    document = run(db, "serialize", ids["Alpha"])
    assert document.returncode == 0, document.stderr
    assert document.stdout.split() == ["Alpha", "a1", "a1½", "a2", "a3"]


def test_insert_rejects_other_parents_distant_siblings_and_itself(notes: Notes) -> None:
    db, ids = notes.db, notes.ids
    a1, a3, b1 = ids["a1"], ids["a3"], ids["b1"]
    user_errors(
        db,
        Bad(["insert", "x", "--after", a3, "--before", b1], [a3, b1, "parent"]),
        Bad(["insert", "x", "--after", a1, "--before", a3], [a1, a3, "adjacent"]),
        Bad(["insert", "x", "--after", a1, "--before", a1], [a1, "itself"]),
    )
    assert dump(db) == notes.dump


# -- update, history, restore --------------------------------------------------------


def test_update_bumps_version_recounts_tokens_and_restore_brings_text_back(
    notes: Notes,
) -> None:
    db, a1, original = notes.db, notes.ids["a1"], notes.node("a1")
    total = sum(n["token_count"] for n in notes.nodes)
    new_text = "a1 rewritten: we moved the storage layer from flat files to SQLite with WAL."
    updated = run_json(db, "update", a1, new_text)
    assert (updated["id"], updated["text"], updated["version"]) == (a1, new_text, 2)
    assert updated["token_count"] > original["token_count"]
    tokens = run_json(db, "stats")["tokens"]
    assert tokens == total - original["token_count"] + updated["token_count"]

    run(db, "scopes", "share", "default")  # a1's parent: its children may take other scopes
    fields = run_json(db, "update", a1, "--name", "chat", "--scope", "team")
    assert (fields["text"], fields["version"], fields["context_name"], fields["scope"]) == (
        new_text,
        3,
        "chat",
        "team",
    )
    assert fields["token_count"] == updated["token_count"]

    history = run_json(db, "history", a1)
    assert [(v["version"], v["op"], v["node"]["text"]) for v in history] == [
        (1, "update", "a1"),
        (2, "update", new_text),
        (3, "current", new_text),
    ]

    restored = run_json(db, "restore", a1, "1")
    assert (restored["text"], restored["version"], restored["token_count"]) == (
        "a1",
        4,
        original["token_count"],
    )
    assert (restored["scope"], restored["context_name"]) == ("default", "")
    shown, history = run_many(db, ["show", a1], ["history", a1])
    assert shown == restored
    assert [(v["version"], v["op"]) for v in history] == [
        (1, "update"),
        (2, "update"),
        (3, "update"),
        (4, "current"),
    ]
    user_error(db, "restore", a1, "99", naming=[a1, "99"])


# -- delete, restore -----------------------------------------------------------------


def test_delete_cascades_and_restore_revives_the_subtree(notes: Notes) -> None:
    db, ids = notes.db, notes.ids
    assert run_json(db, "delete", ids["Alpha"]) == {"deleted": ids["Alpha"], "nodes": 4}
    after, stats, history = run_many(db, ["tree", notes.root], ["stats"], ["history", ids["a2"]])
    assert [n["text"] for n in after] == ["notes.md", "Beta", "b1", "b2"]
    assert stats["nodes"] == 4
    assert [(v["version"], v["op"], v["node"]["text"]) for v in history] == [(1, "delete", "a2")]
    user_error(db, "show", ids["a2"], naming=[ids["a2"]])

    restored = run_json(db, "restore", ids["Alpha"], "1")
    assert (restored["id"], restored["text"], restored["parent_id"]) == (
        ids["Alpha"],
        "Alpha",
        notes.root,
    )
    assert shape(tree(db, notes.root)) == shape(notes.nodes)


# -- move ----------------------------------------------------------------------------


def test_move_reorders_and_reparents(notes: Notes) -> None:
    db, ids = notes.db, notes.ids

    moved = run_json(db, "move", ids["a1"], "--after", ids["a3"])
    assert (moved["parent_id"], moved["version"]) == (ids["Alpha"], 2)
    assert texts(db, ids["Alpha"]) == ["Alpha", "a2", "a3", "a1"]
    run_json(db, "move", ids["a1"], "--before", ids["a2"])
    moved = run_json(db, "move", ids["b2"], "--parent", ids["Alpha"])
    assert (moved["parent_id"], moved["version"]) == (ids["Alpha"], 2)
    assert texts(db, notes.root) == ["notes.md", "Alpha", "a1", "a2", "a3", "b2", "Beta", "b1"]

    alpha, a1 = ids["Alpha"], ids["a1"]
    user_errors(
        db,
        Bad(["move", alpha, "--parent", a1], [alpha, a1, "descendant"]),
        Bad(["move", a1], ["target"]),
        Bad(["move", a1, "--after", a1], [a1, "itself"]),
    )


# -- summarize, serialize, stale -----------------------------------------------------


def test_summarize_then_serialize_modes_and_stale(notes: Notes) -> None:
    db, ids, root = notes.db, notes.ids, notes.root
    summary = run_json(db, "summarize", ids["a1"], ids["a2"], "--text", "-", input="A1 and A2")
    assert (summary["text"], summary["parent_id"], summary["is_summary"]) == (
        "A1 and A2",
        ids["Alpha"],
        True,
    )

    nodes, default, include, skip, collapse, stale = run_many(
        db,
        ["tree", root],
        ["serialize", root],
        ["serialize", root, "--mode", "include"],
        ["serialize", root, "--mode", "skip"],
        ["serialize", root, "--mode", "collapse"],
        ["stale"],
    )
    parents = {n["text"]: n["parent_id"] for n in nodes}
    assert (parents["a1"], parents["a2"], parents["a3"]) == (
        summary["id"],
        summary["id"],
        ids["Alpha"],
    )
    order = ["notes.md", "Alpha", "A1 and A2", "a1", "a2", "a3", "Beta", "b1", "b2"]
    assert [n["text"] for n in include] == order
    assert default == include
    assert [n["text"] for n in skip] == [t for t in order if t != "A1 and A2"]
    assert [n["text"] for n in collapse] == [t for t in order if t not in ("a1", "a2")]
    assert stale == []

    run_json(db, "update", ids["a2"], "a2, revised")
    stale, stats = run_many(db, ["stale"], ["stats"])
    assert [n["id"] for n in stale] == [summary["id"]]
    assert (stats["summaries"], stats["stale_summaries"]) == (1, 1)


def test_summarize_rejects_gaps_parents_with_children_and_roots(notes: Notes) -> None:
    db, ids, root = notes.db, notes.ids, notes.root
    a1, a2, a3, b1, alpha = ids["a1"], ids["a2"], ids["a3"], ids["b1"], ids["Alpha"]
    user_errors(
        db,
        Bad(["summarize", a1, a3, "--text", "s"], [a2, "contiguous"]),
        Bad(["summarize", alpha, "--text", "s"], [alpha, "children"]),
        Bad(["summarize", a3, b1, "--text", "s"], [a3, "parent"]),
        Bad(["summarize", root, "--text", "s"], [root, "root"]),
    )
    assert dump(db) == notes.dump


# -- expand --------------------------------------------------------------------------


def test_expand_stays_within_budget_in_reading_order(notes: Notes) -> None:
    db, ids, root = notes.db, notes.ids, notes.root
    order = [n["id"] for n in notes.nodes]
    tokens = {n["id"]: n["token_count"] for n in notes.nodes}
    parent = {n["id"]: n["parent_id"] for n in notes.nodes}
    top = tokens[root] + tokens[ids["Alpha"]] + tokens[ids["Beta"]]
    budgets = [sum(tokens.values()), top, top + tokens[ids["a1"]], sum(tokens.values()) - 1, 0]
    results = run_many(db, *(["expand", root, "--budget", str(b)] for b in budgets))
    chosen = []
    for budget, nodes in zip(budgets, results, strict=True):
        assert sum(n["token_count"] for n in nodes) <= budget
        ids_ = [n["id"] for n in nodes]
        assert ids_ == [i for i in order if i in ids_]  # reading order
        assert all(parent[i] in ids_ for i in ids_ if i != root)  # no orphans
        chosen.append(ids_)
    everything, level_one, plus_a1, all_but_one, nothing = chosen
    assert everything == order
    assert level_one == [root, ids["Alpha"], ids["Beta"]]  # breadth first
    assert plus_a1 == [root, ids["Alpha"], ids["a1"], ids["Beta"]]
    assert [n["depth"] for n in results[2]] == [0, 1, 2, 1]
    assert len(all_but_one) == len(order) - 1
    assert nothing == []
    user_error(db, "expand", root, "--budget", "-5", naming=["-5", "budget"])


# -- export, import ------------------------------------------------------------------


def test_export_import_round_trips_jsonl_and_markdown(notes: Notes, tmp_path: Path) -> None:
    db, ids = notes.db, notes.ids
    run_json(db, "update", ids["a1"], "--type", "message", "--name", "chat", "--value", "user")
    run(db, "scopes", "share", "default")
    run_json(db, "update", ids["b1"], "--scope", "team")
    run_json(db, "summarize", ids["a2"], ids["a3"], "--text", "A2 and A3")
    second = run_json(db, "add", "Second root\n\nwith two paragraphs", "--scope", "private")
    roots = [notes.root, second["id"]]
    files_out = {fmt: tmp_path / f"export.{fmt}" for fmt in ("jsonl", "markdown")}
    trees, *exports = parallel(
        functools.partial(run_many, db, *(["tree", r] for r in roots)),
        functools.partial(run, db, "export"),  # JSONL to stdout by default
        functools.partial(run, db, "export", "--format", "markdown"),
        *(
            functools.partial(run, db, "export", "--format", fmt, "--out", str(path))
            for fmt, path in files_out.items()
        ),
    )
    assert [p.returncode for p in exports] == [0, 0, 0, 0], [p.stderr for p in exports]
    jsonl, markdown, *to_files = exports
    assert [p.stdout for p in to_files] == ["", ""]
    assert files_out["jsonl"].read_text(encoding="utf-8") == jsonl.stdout
    assert files_out["markdown"].read_text(encoding="utf-8") == markdown.stdout
    records = [json.loads(line) for line in jsonl.stdout.splitlines()]
    assert records[0]["type"] == "header"
    at = records[0]["tables"]["nodes"]["columns"].index("id")
    assert sorted(r["values"][at] for r in records[1:] if r["table"] == "nodes") == sorted(
        n["id"] for nodes in trees for n in nodes
    )
    assert "# notes.md" in markdown.stdout and "A2 and A3" in markdown.stdout

    copies = {fmt: tmp_path / f"from-{fmt}.db" for fmt in files_out}
    for copy in copies.values():  # b1 sits in 'team' under a node of 'default'
        assert run(copy, "scopes", "share", "default").returncode == 0
    imported = parallel(
        *(
            functools.partial(run_json, copies[fmt], "import", str(path), "--format", fmt)
            for fmt, path in files_out.items()
        )
    )
    assert [[t["id"] for t in tops] for tops in imported] == [roots, roots]
    jsonl_trees, markdown_trees, history = parallel(
        functools.partial(run_many, copies["jsonl"], *(["tree", r] for r in roots)),
        functools.partial(run_many, copies["markdown"], *(["tree", r] for r in roots)),
        functools.partial(dump, copies["jsonl"]),
    )
    assert jsonl_trees == trees
    assert markdown_trees == trees
    assert history == jsonl.stdout  # the JSONL copy has the history too


def test_import_rejects_non_jsonl_existing_ids_and_missing_files(
    notes: Notes, tmp_path: Path
) -> None:
    db = notes.db
    plain = tmp_path / "plain.txt"
    plain.write_text("hello world\nthis is not JSON\n", encoding="utf-8")
    backup = tmp_path / "backup.jsonl"
    backup.write_text(notes.dump, encoding="utf-8")
    missing = tmp_path / "missing.jsonl"
    _, clash, _ = user_errors(
        db,
        Bad(["import", str(plain), "--format", "jsonl"], [str(plain), "JSON"]),
        Bad(["import", str(backup), "--format", "jsonl"], ["already holds memories", "--merge"]),
        Bad(["import", str(missing)], [str(missing)]),
    )
    assert "newdbpath" in squash(clash) or "--db" in clash, clash
    assert dump(db) == notes.dump


# -- bad input -----------------------------------------------------------------------


def test_unknown_ids_are_user_errors(notes: Notes) -> None:
    db, a1 = notes.db, notes.ids["a1"]
    commands: list[list[str]] = [
        ["show", UNKNOWN],
        ["update", UNKNOWN, "new text"],
        ["delete", UNKNOWN],
        ["insert", "x", "--after", UNKNOWN, "--before", a1],
        ["summarize", a1, UNKNOWN, "--text", "s"],
        ["restore", UNKNOWN, "1"],
        ["history", UNKNOWN],
        ["move", UNKNOWN, "--parent", a1],
        ["add", "x", "--parent", UNKNOWN],
        ["serialize", UNKNOWN],
    ]
    user_errors(db, *(Bad(args, [UNKNOWN]) for args in commands))
    assert dump(db) == notes.dump


def test_empty_and_blank_text_is_rejected(notes: Notes) -> None:
    db, a1, a2 = notes.db, notes.ids["a1"], notes.ids["a2"]
    user_errors(
        db,
        Bad(["add", ""], ["empty"]),
        Bad(["add", " \t\n "], ["empty"]),
        Bad(["add", "-", "--parent", a1], ["empty"], "  \n"),
        Bad(["insert", "   ", "--after", a1, "--before", a2], ["empty"]),
        Bad(["update", a1, "  "], ["empty"]),
        Bad(["summarize", a1, "--text", " "], ["empty"]),
    )
    assert dump(db) == notes.dump


def test_update_with_empty_text_names_the_empty_text(notes: Notes) -> None:
    user_error(notes.db, "update", notes.ids["a1"], "", naming=["empty"])


def test_invalid_utf8_is_rejected(notes: Notes) -> None:
    db, a1, a2 = notes.db, notes.ids["a1"], notes.ids["a2"]
    user_errors(
        db,
        Bad(["add", "-"], ["standard input", "UTF-8"], b"\xff\xfe"),
        Bad(["add", "-", "--parent", a1], ["UTF-8"], b"ok \xe9"),
        Bad(["add", b"caf\xe9"], ["text", "UTF-8"]),
        Bad(["update", a1, b"caf\xe9"], ["text", "UTF-8"]),
        Bad(["insert", b"caf\xe9", "--after", a1, "--before", a2], ["text", "UTF-8"]),
        Bad(["add", "x", "--scope", b"caf\xe9"], ["scope", "UTF-8"]),
    )
    assert dump(db) == notes.dump


def test_invalid_utf8_node_id_is_a_user_error(notes: Notes) -> None:
    user_errors(
        notes.db,
        Bad(["show", b"caf\xe9"], ["caf"]),
        Bad(["add", "x", "--parent", b"caf\xe9"], ["caf"]),
    )


def test_db_that_is_not_sqlite_is_rejected_and_left_alone(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    junk = random.Random(2024).randbytes(4096)
    db.write_bytes(junk)
    user_errors(
        db, *(Bad(args, [str(db), "SQLite"]) for args in (["init"], ["add", "hello"], ["tree"]))
    )
    assert db.read_bytes() == junk
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.db"]


def test_usage_errors_exit_2(notes: Notes) -> None:
    db, root, a1 = notes.db, notes.root, notes.ids["a1"]
    cases = [
        (["add"], "TEXT"),
        (["serialize", root, "--mode", "sideways"], "--mode"),
        (["expand", root], "--budget"),
        (["insert", "x", "--after", a1], "--before"),
        (["restore", a1, "latest"], "VERSION"),
    ]
    before = files(db)
    procs = parallel(*(functools.partial(run, db, *args) for args, _ in cases))
    for (args, problem), proc in zip(cases, procs, strict=True):
        assert proc.returncode == 2, (args, proc.stderr)
        assert "Usage:" in proc.stderr and problem in proc.stderr, (args, proc.stderr)
        assert proc.stdout == ""
    assert files(db) == before


def test_error_message_is_a_single_line(notes: Notes) -> None:
    a1, a3 = notes.ids["a1"], notes.ids["a3"]
    message = user_error(notes.db, "insert", "x", "--after", a1, "--before", a3, naming=[a1, a3])
    assert message.count("\n") == 1 and message.endswith("\n"), message


def test_a_failed_export_leaves_an_existing_file_alone(notes: Notes, tmp_path: Path) -> None:
    backup = tmp_path / "backup.md"
    backup.write_text("precious\n")
    user_error(
        notes.db,
        "export",
        "--format",
        "markdown",
        "--root",
        "NOPE",
        "--out",
        str(backup),
        naming=["NOPE"],
    )
    assert backup.read_text() == "precious\n"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("backup")) == [
        "backup.md"
    ]
    missing = tmp_path / "no" / "such" / "dir" / "out.jsonl"
    user_error(notes.db, "export", "--out", str(missing), naming=[str(missing)])


def test_documents_print_the_text_exactly(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    text = "col1\tcol2 :smile: [bold]not markup[/bold]"
    node = run_json(db, "add", text)
    proc = run(db, "serialize", node["id"])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == text + "\n\n"


def test_stats_show_the_stores_setup_warnings(capsys: pytest.CaptureFixture[str]) -> None:
    from mnemotree.cli import render
    from mnemotree.store.records import StoreStats

    fixed = "set shared_buffers to at least 396 MB"
    render.stats(StoreStats("db", 11, 1, 1, 0, 0, 0, 0, 0, 0, (fixed,)), "o200k_base", True)
    shown = capsys.readouterr()
    assert "nodes" in shown.out and f"warning: {fixed}" in shown.err
