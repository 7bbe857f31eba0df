"""The readers/writer lock the vector index is shared under."""

from __future__ import annotations

import threading

from mnemotree.retrieval.shared_lock import SharedLock


def test_readers_share_it_and_a_writer_holds_it_alone() -> None:
    lock = SharedLock()
    inside = threading.Barrier(3, timeout=30)  # three readers in at once, or it times out
    done: list[str] = []

    def reader() -> None:
        with lock.shared():
            inside.wait()
            done.append("read")

    readers = [threading.Thread(target=reader) for _ in range(3)]
    for thread in readers:
        thread.start()
    for thread in readers:
        thread.join()
    assert done == ["read"] * 3

    writing = threading.Event()
    finish = threading.Event()
    seen_inside: list[bool] = []

    def writer() -> None:
        with lock.exclusive():
            writing.set()
            finish.wait(30)

    def late_reader() -> None:
        with lock.shared():
            seen_inside.append(finish.is_set())  # only after the writer let go

    held = threading.Thread(target=writer)
    held.start()
    assert writing.wait(30)
    late = threading.Thread(target=late_reader)
    late.start()
    late.join(0.2)
    assert late.is_alive()  # kept out while the writer holds it
    finish.set()
    held.join()
    late.join(30)
    assert seen_inside == [True]


def test_a_waiting_writer_keeps_new_readers_out() -> None:
    lock = SharedLock()
    order: list[str] = []
    first_in, release_first = threading.Event(), threading.Event()

    def first_reader() -> None:
        with lock.shared():
            first_in.set()
            release_first.wait(30)
        order.append("first reader out")

    def writer() -> None:
        with lock.exclusive():
            order.append("writer")

    def second_reader() -> None:
        with lock.shared():
            order.append("second reader")

    one = threading.Thread(target=first_reader)
    one.start()
    assert first_in.wait(30)
    waiting = threading.Thread(target=writer)
    waiting.start()
    while not lock._writers_waiting:  # the writer is queued behind the first reader
        threading.Event().wait(0.005)
    two = threading.Thread(target=second_reader)
    two.start()
    two.join(0.2)
    assert two.is_alive() and order == []  # the writer goes first: no starvation
    release_first.set()
    for thread in (one, waiting, two):
        thread.join(30)
    assert order.index("writer") < order.index("second reader")
