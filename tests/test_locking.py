"""Writers wait for the lock and never hold it for slow work; searches never
wait for writers and cost the same however long the embedding queue is."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from mnemotree import Memory, StorageError
from mnemotree.bench import writers
from mnemotree.model import Node
from mnemotree.store.sqlite import SQLiteStore
from mnemotree.tokens import TiktokenTokenizer


@contextmanager
def write_lock(db: Path) -> Iterator[sqlite3.Connection]:
    """Another connection (as another process would) holding the write lock."""
    blocker = sqlite3.connect(db, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    try:
        yield blocker
    finally:
        if blocker.in_transaction:
            blocker.execute("ROLLBACK")
        blocker.close()


def waiting_for_lock(thread: threading.Thread) -> bool:
    """Whether `thread` is inside the store's retry loop for the write lock."""
    frame = sys._current_frames().get(thread.ident or -1)
    while frame is not None:
        if frame.f_code.co_name == "begin_immediate":
            return True
        frame = frame.f_back
    return False


def wait_until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 60
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.005)


def test_a_write_loads_the_tokenizer_before_waiting_for_the_lock(db_path: Path) -> None:
    with Memory(db_path, embedder="hashing") as mem:
        mem.remember("the database exists")
    tokenizer = TiktokenTokenizer("o200k_base")  # not loaded yet (the shared one may be)
    assert tokenizer._encoding is None
    results: list[Node] = []
    with Memory(db_path, embedder="hashing", tokenizer=tokenizer) as mem:
        writer = threading.Thread(target=lambda: results.append(mem.remember("blocked at first")))
        with write_lock(db_path) as blocker:
            writer.start()
            wait_until(lambda: waiting_for_lock(writer), "the writer to wait for the lock")
            # Waiting for the lock, it has loaded the tokenizer already: that
            # load (0.3-0.9 s) never happens while it holds the lock.
            assert tokenizer._encoding is not None
            blocker.execute("COMMIT")
        writer.join()
        assert [n.text for n in results] == ["blocked at first"]
        assert mem.find(results[0].id) is not None


def test_a_writer_retries_until_the_deadline_then_names_the_file(db_path: Path) -> None:
    with Memory(db_path, embedder="hashing") as mem:
        root = mem.add("root")
    with (
        Memory(store=SQLiteStore(db_path, busy_timeout=0.3), embedder="hashing") as mem,
        write_lock(db_path),
        pytest.raises(StorageError) as info,
    ):
        mem.append_child(root.id, "refused")
    assert str(db_path) in str(info.value) and "another process" in str(info.value)
    assert "locked" in str(info.value)
    assert info.value.value == str(db_path)
    with Memory(db_path, embedder="hashing") as mem:
        assert mem.children(root.id) == []  # nothing half-written


def test_the_default_wait_for_the_lock_is_thirty_seconds(db_path: Path) -> None:
    store = SQLiteStore(db_path)
    try:
        assert store._busy == 30.0
        assert store._db.execute("PRAGMA busy_timeout").fetchone()[0] == 30_000
    finally:
        store.close()


def test_a_search_leaves_a_long_queue_alone_and_finds_pending_nodes_by_words(
    db_path: Path,
) -> None:
    with Memory(db_path, embedder="hashing") as mem:
        for i in range(200):
            mem.remember(f"routine note number {i} about the weekly sync")
        wanted = mem.remember("the zeppelin hangar key hangs behind the door")
        before = mem.pending_vectors()
        assert before > 200
        hits = mem.search("zeppelin hangar")
        assert hits[0].node.id == wanted.id
        assert hits[0].parts["keyword"] > 0 and hits[0].parts["semantic"] == 0.0
        after = mem.pending_vectors()
        assert before - after <= 16  # at most a query batch's worth
        assert mem.flush() == after  # the queue is left to flush (or the worker)
        assert mem.pending_vectors() == 0
        hits = mem.search("zeppelin hangar")
        assert hits[0].node.id == wanted.id and hits[0].parts["semantic"] > 0


def test_a_short_queue_rides_in_the_query_batch_even_when_it_cannot_be_stored(
    db_path: Path,
) -> None:
    with Memory(db_path, embedder="hashing") as mem:
        wanted = mem.remember("the zeppelin hangar key hangs behind the door")
        assert mem.pending_vectors() == 2  # the memory and its scope's space
        with write_lock(db_path):
            hits = mem.search("zeppelin hangar")
            # Scored by meaning in this search, though the vectors wait to be stored.
            assert hits[0].node.id == wanted.id and hits[0].parts["semantic"] > 0
            assert mem.pending_vectors() == 2
        mem.search("zeppelin hangar key")
        assert mem.pending_vectors() == 2  # a search never writes them
    with Memory(db_path, embedder="hashing") as mem:  # closing stored what it made
        assert mem.pending_vectors() == 0


def test_a_search_beside_a_held_write_lock_answers_and_records_later(db_path: Path) -> None:
    with Memory(db_path, embedder="hashing") as mem:
        wanted = mem.remember("the zeppelin hangar key hangs behind the door")
        mem.flush()
        with write_lock(db_path):
            hits = mem.search("zeppelin hangar")  # no wait for the lock, no error
            assert hits[0].node.id == wanted.id
            assert mem.store.access_times([wanted.id]) == {}  # not yet: the lock is taken
        mem.remember("another memory")  # the next write carries the buffered access
        assert len(mem.store.access_times([wanted.id])[wanted.id]) == 1
        with write_lock(db_path):
            mem.search("zeppelin hangar")
    with Memory(db_path, embedder="hashing") as mem:  # closing wrote the second one
        assert len(mem.store.access_times([wanted.id])[wanted.id]) == 2


def test_try_write_does_nothing_while_another_connection_writes(db_path: Path) -> None:
    store = SQLiteStore(db_path)
    try:
        with write_lock(db_path):
            assert store.try_write(lambda: store.set_setting("k", "v")) is False
        assert store.get_setting("k") is None
        assert store.try_write(lambda: store.set_setting("k", "v")) is True
        assert store.get_setting("k") == "v"
    finally:
        store.close()


def test_writer_processes_beside_a_searcher_lose_nothing_and_never_see_the_lock() -> None:
    result = writers.run(seconds=3, n=50, embedder="hashing", writers=3, cli_writers=1)
    writes = result["writes"]
    assert writes["acknowledged"] > 0 and writes["by_role"]["cli"]["count"] >= 1
    assert writes["lost"] == 0 and writes["found"] == writes["acknowledged"]
    assert writes["locked"] == 0 and writes["errors"] == {}
    assert writes["attempted"] == writes["acknowledged"]
    assert result["searches"]["count"] > 0 and result["searches"]["errors"] == {}
    assert result["integrity"] == {"sqlite": "ok", "fts": "ok"}


@pytest.mark.slow
def test_killed_writers_leave_a_sound_file_with_every_acknowledged_write() -> None:
    result = writers.run_kill(trials=4, n=50, embedder="hashing")
    assert result["kinds"] == {kind: 1 for kind in writers.KINDS}
    assert result["acknowledged"] > 0
    assert result["failures"] == [] and result["lost"] == 0
    assert result["integrity"] == {"sqlite": "ok", "fts": "ok"}


def test_opening_a_second_store_keeps_the_first_ones_locks(db_path: Path) -> None:
    """Closing any descriptor of a file drops every POSIX lock the process
    holds on it. If opening a second store (a second Memory, the server's
    embedding worker) closed one, another process's last-connection check
    succeeded and it reset the WAL under this process's feet (the file was
    corrupted beside writer processes)."""
    first = SQLiteStore(db_path)
    second = SQLiteStore(db_path)
    try:
        first.set_setting("written", "1")  # a commit: the WAL file exists
        wal = Path(f"{db_path}-wal")
        assert wal.exists()
        closing = (  # another process reads, then closes its connection
            "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
            "c.execute('SELECT 1 FROM settings').fetchall(); c.close()"
        )
        subprocess.run([sys.executable, "-c", closing, str(db_path)], check=True)
        # The other process was not the last connection: the WAL stayed.
        assert wal.exists()
        assert second.get_setting("written") == "1"
    finally:
        second.close()
        first.close()
