"""A background thread that embeds queued nodes, so writes never wait for the model.

It opens its own connection to the same file (SQLite in WAL mode lets it read
while the caller writes) and polls the small `vector_queue` table. Processes
sharing a database take turns, a batch at a time, so each node is embedded
once whichever process wrote it. A search
embeds at most a few waiting nodes in its query's batch, so without a worker
(or a `flush`) a long queue only shrinks that slowly; meanwhile its nodes are
found by their words. The server (`mnemotree serve`) runs one.
Failures (a locked database, an endpoint down) are retried with back-off and
reported to whoever waits; stopping interrupts a long queue between batches.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from ..errors import InvalidOperation, MnemotreeError

log = logging.getLogger(__name__)

POLL_SECONDS = 0.2
MAX_BACKOFF_SECONDS = 30.0


class EmbeddingWorker:
    """Runs `flush(stop)` whenever `pending()` reports work, until stopped."""

    def __init__(
        self, pending: Callable[[], int], flush: Callable[[Callable[[], bool]], int | None]
    ) -> None:
        """`flush` returns how many it embedded, or None when another process
        sharing the database is embedding the queue (this one waits a poll)."""
        self._pending = pending
        self._flush = flush
        self._stop = threading.Event()
        self._wake = threading.Event()
        # Nudges are numbered; the worker reports the latest number it saw with an
        # empty queue, so a waiter never mistakes an older empty queue for its own.
        self._changed = threading.Condition()
        self._asked = 0
        self._seen_empty = -1
        self._failures = 0
        self.error: MnemotreeError | None = None  # the latest failure
        self._stopped = False
        self.embedded = 0
        self._thread = threading.Thread(target=self._run, name="mnemotree-embed", daemon=True)

    def start(self) -> EmbeddingWorker:
        self._thread.start()
        return self

    def nudge(self) -> int:
        """New work was written: look now instead of at the next poll."""
        with self._changed:
            self._asked += 1
            asked = self._asked
        self._wake.set()
        return asked

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until the queue is seen empty after this call (or the timeout
        passes); a failure meanwhile is raised rather than waited out."""
        with self._changed:
            failures = self._failures
        asked = self.nudge()
        with self._changed:
            done = self._changed.wait_for(
                lambda: self._seen_empty >= asked or self._stopped or self._failures > failures,
                timeout,
            )
            failed = self._failures > failures and self._seen_empty < asked
        if failed:
            raise InvalidOperation(
                f"embedding in the background failed (it will retry): {self.error}", self.error
            )
        if self._stopped and self._seen_empty < asked:
            raise InvalidOperation("the embedding worker has stopped", None)
        return done

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join()

    def _run(self) -> None:
        try:
            self._loop()
        finally:  # whatever ended the thread, waiters must not hang
            with self._changed:
                self._stopped = True
                self._changed.notify_all()

    def _loop(self) -> None:
        backoff = POLL_SECONDS
        while not self._stop.is_set():
            with self._changed:
                asked = self._asked
            try:
                if self._pending():
                    done = self._flush(self._stop.is_set)
                    backoff = POLL_SECONDS
                    if done is not None:
                        self.embedded += done
                        continue  # look again at once: more may have arrived
                    self._wake.wait(POLL_SECONDS)  # another process is embedding them
                    self._wake.clear()
                    continue
            except MnemotreeError as exc:
                # Locks pass and endpoints come back: retry, more slowly each time.
                log.warning("background embedding failed, retrying in %.1f s: %s", backoff, exc)
                with self._changed:
                    self.error = exc
                    self._failures += 1
                    self._changed.notify_all()
                self._wake.wait(backoff)
                self._wake.clear()
                backoff = min(MAX_BACKOFF_SECONDS, backoff * 2)
                continue
            with self._changed:
                self._seen_empty = asked
                self._changed.notify_all()
            self._wake.wait(POLL_SECONDS)
            self._wake.clear()
