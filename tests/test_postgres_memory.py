"""The engine over the Postgres store, as over SQLite: a `Memory` given a
`PostgresStore` remembers, supersedes, searches, builds contexts, keeps
history and erases, on a real PostgreSQL started by pgserver."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mnemotree import Memory
from mnemotree.store.postgres import PostgresStore
from tests.conftest import PostgresServer


def test_a_memory_runs_on_postgres(postgres: PostgresServer) -> None:
    store = PostgresStore(postgres.new_database())
    with Memory(store=store, embedder="hashing", llm="offline") as mem:
        tea = mem.remember("Alice prefers green tea", scope="u1")
        mem.remember("Bob takes his coffee black", scope="u2")
        mem.typed.fact("office_city", "Lisbon", scope="u1")
        berlin = mem.typed.fact("office_city", "Berlin", scope="u1")
        hits = mem.search("green tea", scopes=["u1"], record=False)
        assert [h.node.id for h in hits][:1] == [tea.id]
        assert mem.search("coffee", scopes=["u1"], record=False) == []  # scopes hold
        (update,) = mem.consolidation.updates(scopes=["u1"])
        assert update.b_id == berlin.id  # the newer value superseded the older
        assert "Alice prefers green tea" in mem.context("Alice", scopes=["u1"], budget=300).text
        root = mem.add("Doc")
        entry = mem.append_child(root.id, "one")
        mem.update(entry.id, "two")
        assert [v.node.text for v in mem.history(entry.id)] == ["one", "two"]
        assert mem.purge(subject="green tea").nodes == 1
        assert mem.search("green tea", scopes=["u1"], record=False) == []


def test_a_postgres_address_selects_the_store_in_code_and_on_the_command_line(
    postgres: PostgresServer,
) -> None:
    import subprocess
    import sys

    from tests.cli_runner import ENV, run_cli

    uri = postgres.new_database()
    with Memory(uri, embedder="hashing", llm="offline") as mem:
        assert type(mem.store) is PostgresStore
        mem.remember("The deploy runs on Fridays", scope="ops")

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return run_cli(uri, *args, embedder="hashing")

    added = cli("remember", "Backups are kept thirty days", "--scope", "ops")
    assert added.returncode == 0, added.stderr
    found = cli("--json", "search", "deploy Fridays", "--scope", "ops")
    assert found.returncode == 0, found.stderr
    assert "The deploy runs on Fridays" in found.stdout
    env_only = subprocess.run(
        [sys.executable, "-m", "mnemotree", "--embedder", "hashing", "search", "backups"],
        capture_output=True,
        text=True,
        env={**ENV, "MNEMOTREE_DB": uri, "MNEMOTREE_LLM": "offline"},
        timeout=120,
    )
    assert "Backups are kept thirty days" in env_only.stdout, env_only.stderr


def test_two_memories_on_one_database_see_each_others_writes(postgres: PostgresServer) -> None:
    """Two servers on one database: what one writes, the other finds (the
    database answers vector searches), and their writers take turns."""
    uri = postgres.new_database()
    with (
        Memory(uri, embedder="hashing", llm="offline") as one,
        Memory(uri, embedder="hashing", llm="offline") as other,
    ):
        one.remember("The staging database moved to Frankfurt", scope="ops")
        assert other.search("staging database", scopes=["ops"], record=False) != []
        one.flush()
        other.search("warm up", scopes=["ops"], record=False)  # its index is loaded now
        moved = one.remember("The billing job runs nightly", scope="ops")
        one.flush()
        hits = other.search("billing job nightly", scopes=["ops"], record=False)
        assert hits[0].node.id == moved.id and hits[0].parts["semantic"] > 0
        one.delete(moved.id)
        assert other.search("billing job nightly", scopes=["ops"], record=False) == []
        with one.store.transaction():  # one writer at a time, across both
            assert not other.store.try_write(lambda: None)


def _tables(lines: list[str]) -> dict[str, list[str]]:
    """A backup's rows per table, sorted (each store lists rows in its own order)."""
    import json

    out: dict[str, list[str]] = {}
    for line in lines[1:]:
        record = json.loads(line)
        out.setdefault(record["table"], []).append(json.dumps(record["values"]))
    return {name: sorted(rows) for name, rows in out.items()}


def test_a_backup_moves_between_sqlite_and_postgres_row_for_row(
    postgres: PostgresServer, tmp_path: Path
) -> None:
    import io

    with Memory(tmp_path / "a.db", embedder="hashing", llm="offline") as source:
        tea = source.remember("Alice prefers green tea", scope="u1")
        source.typed.fact("office_city", "Lisbon", scope="u1")
        source.typed.fact("office_city", "Berlin", scope="u1")
        source.update(tea.id, text="Alice prefers green tea, no sugar")
        summary_root = source.add("Log")
        kids = source.append_many(summary_root.id, ["one", "two"])
        source.add_summary([k.id for k in kids], "one and two")
        source.search("tea", record=True)
        out = io.StringIO()
        source.exchange.export_jsonl(out, include_keys=True)
    written = out.getvalue().splitlines()
    with Memory(postgres.new_database(), embedder="hashing", llm="offline") as target:
        target.exchange.import_jsonl(written)
        again = io.StringIO()
        target.exchange.export_jsonl(again, include_keys=True)
        assert [h.node.id for h in target.search("green tea", scopes=["u1"], record=False)][:1] == [
            tea.id
        ]
    assert _tables(again.getvalue().splitlines()) == _tables(written)
    with Memory(tmp_path / "b.db", embedder="hashing", llm="offline") as back:
        back.exchange.import_jsonl(again.getvalue().splitlines())
        final = io.StringIO()
        back.exchange.export_jsonl(final, include_keys=True)
    assert _tables(final.getvalue().splitlines()) == _tables(written)


def test_migrate_moves_a_memory_to_postgres_and_back(
    postgres: PostgresServer, tmp_path: Path
) -> None:
    import json
    import subprocess
    import sys

    from mnemotree import InvalidInput
    from tests.cli_runner import ENV

    with Memory(tmp_path / "a.db", embedder="hashing", llm="offline") as source:
        tea = source.remember("Alice prefers green tea", scope="u1")
        source.flush()
        uri = postgres.new_database()
        seen: list[tuple[int, int]] = []
        rows = source.migrate_to(uri, lambda done, total: seen.append((done, total)))
        assert rows > 0 and seen[-1] == (rows, rows)
        with pytest.raises(InvalidInput, match="already holds memories"):
            source.migrate_to(uri)  # not empty any more: refused, nothing written
    with Memory(uri, embedder="hashing", llm="offline") as moved:
        assert moved.pending_vectors() == 0  # the vectors came along
        hits = moved.search("green tea", scopes=["u1"], record=False)
        assert hits[0].node.id == tea.id and hits[0].parts["semantic"] > 0
    back = tmp_path / "b.db"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mnemotree",
            "--db",
            uri,
            "--embedder",
            "hashing",
            "--json",
            "migrate",
            "--to",
            str(back),
        ],
        capture_output=True,
        text=True,
        env={**ENV, "MNEMOTREE_LLM": "offline"},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["rows"] == rows
    with Memory(back, embedder="hashing", llm="offline") as again:
        assert again.get(tea.id).text == "Alice prefers green tea"


class Stop(Exception):
    """Stands for a migration cut short (Ctrl-C, a lost connection)."""


@pytest.mark.parametrize("direction", ["to_postgres", "to_sqlite"])
def test_a_stopped_migration_resumes_where_it_stopped(
    postgres: PostgresServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, direction: str
) -> None:
    """Chunks are committed as they go: a run stopped after some of them leaves
    them in, the next run copies only the rest, and the result is the source
    row for row (a summary written after the children it covers included)."""
    import io

    from mnemotree import InvalidInput
    from mnemotree.exchange import migration

    monkeypatch.setattr(migration, "CHUNK", 4)
    here, there = (
        (str(tmp_path / "a.db"), postgres.new_database())
        if direction == "to_postgres"
        else (postgres.new_database(), str(tmp_path / "b.db"))
    )
    with Memory(here, embedder="hashing", llm="offline") as source:
        root = source.add("Log", scope="team")
        kids = source.append_many(root.id, [f"entry {i} about tea" for i in range(9)])
        source.add_summary([k.id for k in kids[:3]], "entries 0 to 2")  # a parent after them
        source.typed.fact("office_city", "Lisbon", scope="team")
        source.typed.fact("office_city", "Berlin", scope="team")
        source.flush()
        calls = 0

        def stop_after_three(done: int, total: int) -> None:
            nonlocal calls
            calls += 1
            if calls == 3:
                raise Stop

        with pytest.raises(Stop):
            source.migrate_to(there, stop_after_three)
        first = 3 * migration.CHUNK
        seen: list[tuple[int, int]] = []
        rest = source.migrate_to(there, lambda done, total: seen.append((done, total)))
        assert seen[-1][0] == seen[-1][1] == first + rest  # resumed, not restarted
        with pytest.raises(InvalidInput, match="already holds memories"):
            source.migrate_to(there)
        wanted = io.StringIO()
        source.exchange.export_jsonl(wanted, include_keys=True, include_vectors=True)
    with Memory(there, embedder="hashing", llm="offline") as moved:
        got = io.StringIO()
        moved.exchange.export_jsonl(got, include_keys=True, include_vectors=True)
        assert moved.pending_vectors() == 0
        assert moved.search("tea", scopes=["team"], record=False)
    assert _tables(got.getvalue().splitlines()) == _tables(wanted.getvalue().splitlines())


def test_an_unfinished_migration_of_another_database_is_not_resumed(
    postgres: PostgresServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mnemotree import InvalidInput
    from mnemotree.exchange import migration

    monkeypatch.setattr(migration, "CHUNK", 2)
    uri = postgres.new_database()
    with Memory(tmp_path / "a.db", embedder="hashing", llm="offline") as one:
        root = one.add("Log")
        one.append_many(root.id, [f"line {i}" for i in range(6)])

        def stop(done: int, total: int) -> None:
            raise Stop

        with pytest.raises(Stop):
            one.migrate_to(uri, stop)
    with Memory(tmp_path / "b.db", embedder="hashing", llm="offline") as other:
        other.add("Something else")
        with pytest.raises(InvalidInput, match="unfinished migration of another database"):
            other.migrate_to(uri)


def test_scheduled_consolidation_skips_a_period_another_process_is_consolidating(
    postgres: PostgresServer,
) -> None:
    uri = postgres.new_database()
    other = PostgresStore(uri)
    with Memory(uri, embedder="hashing", llm="offline") as mem:
        mem.remember("Alice prefers green tea", scope="u1")
        with other.alone("consolidation") as theirs:
            assert theirs
            schedule = mem.consolidation.schedule(0.05)
            try:
                assert schedule.wait_for_runs(2, timeout=30)
                assert schedule.runs == [] and schedule.skipped >= 2
            finally:
                schedule.stop()
        schedule = mem.consolidation.schedule(0.05)
        try:
            assert schedule.wait_for_runs(1, timeout=30)
            assert schedule.runs and not schedule.errors  # free again: it runs
        finally:
            schedule.stop()
    other.close()


def _serve(uri: str, *extra: str) -> tuple[Any, str]:
    """A `mnemotree serve` process on `uri`; returns it and its address once it answers."""
    import socket
    import subprocess
    import sys
    import time

    import httpx

    from tests.cli_runner import ENV

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [sys.executable, "-m", "mnemotree", "--db", uri, "--embedder", "hashing"]
    process = subprocess.Popen(
        [*command, "serve", "--port", str(port), *extra],
        env={**ENV, "MNEMOTREE_LLM": "offline"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url, deadline = f"http://127.0.0.1:{port}", time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                return process, url
        except httpx.TransportError:
            time.sleep(0.2)
    process.kill()
    said = process.stderr.read().decode() if process.stderr else ""
    raise AssertionError(f"the server did not start: {said}")


def test_two_servers_on_one_database_serve_every_acknowledged_write(
    postgres: PostgresServer,
) -> None:
    """Two `serve` processes, concurrent clients writing through either: every
    write one acknowledges is read at once through the other, found by a
    search on both, and embedded once."""
    import time
    from concurrent.futures import ThreadPoolExecutor

    import httpx

    uri = postgres.new_database(migrated=True)
    with Memory(uri, embedder="hashing", llm="offline") as mem:
        key = mem.keys.create("team")[1]
    servers = [_serve(uri, "--consolidate-every", "1"), _serve(uri, "--consolidate-every", "1")]
    headers = {"authorization": f"Bearer {key}"}
    try:
        clients = [httpx.Client(base_url=u, headers=headers, timeout=60) for _, u in servers]

        def write(i: int) -> tuple[int, str]:
            made = clients[i % 2].post(
                "/remember", json={"text": f"Release {i} ships on day {i}", "scope": "team"}
            )
            assert made.status_code == 201, made.text
            return i, made.json()["id"]

        with ThreadPoolExecutor(8) as pool:
            written = list(pool.map(write, range(60)))
        for i, node_id in written:
            other = clients[(i + 1) % 2].get(f"/nodes/{node_id}")
            assert other.status_code == 200 and other.json()["text"].startswith(f"Release {i} ")
        for client in clients:
            hits = client.post("/search", json={"query": "release ships", "limit": 100}).json()
            assert {h["id"] for h in hits} >= {node_id for _, node_id in written}
        with Memory(uri, embedder="hashing", llm="offline") as mem:
            deadline = time.monotonic() + 60
            while mem.pending_vectors() and time.monotonic() < deadline:
                time.sleep(0.1)
            assert mem.pending_vectors() == 0  # the servers embedded every write
    finally:
        for process, _ in servers:
            process.terminate()
            process.wait(timeout=30)
    with Memory(uri, embedder="hashing", llm="offline") as mem:
        versions = [len(mem.history(node_id)) for _, node_id in written]
        assert versions == [1] * len(written)  # no write was applied twice


def test_stats_warn_when_the_vector_index_outgrows_shared_buffers(
    postgres: PostgresServer,
) -> None:
    from mnemotree.store.postgres.store import buffers_warning

    uri = postgres.new_database()
    with Memory(uri, embedder="hashing", llm="offline") as mem:
        mem.remember("The deploy runs on Fridays")
        mem.flush()
        assert mem.stats().warnings == ()  # a few rows: the index fits
        store = mem.store
        assert isinstance(store, PostgresStore)
        _, buffer_bytes, index_bytes = store.buffers_and_vector_index()
        assert 0 < index_bytes < buffer_bytes  # the index is found, and measured
    warning = buffers_warning("128MB", 128 * 2**20, 197 * 2**20 + 5)
    assert "(197 MB) is larger than the server's shared_buffers (128MB)" in warning
    assert "shared_buffers = '396MB'" in warning  # twice the index, rounded up
    assert buffers_warning("1GB", 2**30, 197 * 2**20) == ""
    from tests.cli_runner import run_cli

    shown = run_cli(uri, "--json", "stats", embedder="hashing")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["warnings"] == []


def test_common_terms_are_counted_from_the_planner_statistics(postgres: PostgresServer) -> None:
    # After ANALYZE, a term among the text index's most common elements is
    # estimated from its share of rows (times the rows there are now); any
    # other is still counted.
    import psycopg

    from mnemotree import NewNode

    def counts(terms: list[str], cap: int | None = None) -> dict[str, int]:
        store = PostgresStore(uri)  # a store with no counts kept yet
        try:
            return store.term_documents(terms, cap=cap)
        finally:
            store.close()

    uri = postgres.new_database()
    terms = ["weather", "rain", "quiet", "absent", "the"]
    with Memory(uri, embedder="hashing", llm="offline") as mem:
        with psycopg.connect(uri, autocommit=True) as conn:
            # No automatic ANALYZE between the steps below: the statistics
            # must be the ones taken here.
            conn.execute("ALTER TABLE nodes SET (autovacuum_enabled = false)")
        root = mem.add("Log")
        weather = [f"weather report {i} {'rain' if i < 200 else 'sun'}" for i in range(400)]
        mem.append_many(root.id, [NewNode(t) for t in weather])
        before = counts(terms)  # no statistics yet: counted
        # A row's words hold its neighbours' too: the first sunny one has rain.
        assert (before["weather"], before["rain"]) == (400, 201)
        with psycopg.connect(uri, autocommit=True) as conn:
            conn.execute("ANALYZE nodes")
        # Rows the statistics have not seen: counts would stay at 401 and 201.
        mem.append_many(root.id, [NewNode(f"quiet day {i}") for i in range(200)])
        found = counts(terms)
        assert 560 <= found["weather"] <= 620  # its share (~401/401) of ~601 rows
        assert 280 <= found["rain"] <= 320  # its share (~201/401) of ~601 rows
        # Unknown to the statistics: counted (the neighbour of the first
        # new row holds its text too).
        assert 200 <= found["quiet"] <= 201
        assert found["absent"] == 0
        assert found["the"] == 0  # a stop word has no lexeme to count
        assert counts(["weather", "quiet"], cap=50) == {"weather": 50, "quiet": 50}


def test_a_rows_word_total_counts_the_words_its_text_index_holds(
    postgres: PostgresServer,
) -> None:
    # BM25's document length: text, name, neighbours' text and breadcrumb,
    # split at spaces, line breaks and tabs however many of them there are.
    import psycopg

    from mnemotree import NewNode

    uri = postgres.new_database()
    texts = ["  two\twords  ", "line one\nline two\r\nthree  spaces   here", "one"]
    with Memory(uri, embedder="hashing", llm="offline") as mem:
        root = mem.add("Notes")
        nodes = mem.append_many(root.id, [NewNode(t, context_name="Ana") for t in texts])
    with psycopg.connect(uri) as conn:
        for n in nodes:
            ((total, indexed),) = conn.execute(
                "SELECT word_total, concat_ws(' ', text, context_name, neighbours, path) "
                "FROM nodes WHERE id = %s",
                (n.id,),
            ).fetchall()
            assert total == len(indexed.split()), indexed
