"""Periodic consolidation (the living-memory design: nightly or on demand): a daemon thread
that applies a consolidation every `every` seconds until stopped. The
server (and `mnemotree consolidate --every`) runs one; each applied run is
recorded like any other, so it can be listed and undone."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from ..errors import InvalidInput, MnemotreeError
from .plan import Run

log = logging.getLogger(__name__)


class Schedule:
    """Calls `consolidation.run(dry_run=False)` (one applied run) every `every` seconds."""

    def __init__(self, consolidate: Callable[[], Run | None], every: float) -> None:
        if isinstance(every, bool) or not isinstance(every, (int, float)) or every <= 0:
            raise InvalidInput(f"every must be a number of seconds > 0, got {every!r}", every)
        self.consolidate = consolidate
        self.every = float(every)
        self.runs: list[Run] = []
        self.errors: list[str] = []
        self.skipped = 0  # periods another process sharing the database was consolidating
        self._stop = threading.Event()
        self._ran = threading.Condition()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is not None:
            return
        self._thread = threading.Thread(
            target=self._loop, name="mnemotree-consolidate", daemon=True
        )
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.wait(self.every):
            failed = False
            try:
                run = self.consolidate()
            except MnemotreeError as exc:  # logged and kept; the next period tries again
                log.warning("scheduled consolidation failed: %s", exc)
                self.errors.append(str(exc))
                run, failed = None, True
            with self._ran:
                if run is not None:
                    self.runs.append(run)
                elif not failed:
                    self.skipped += 1
                self._ran.notify_all()

    def wait_for_runs(self, count: int, timeout: float) -> bool:
        """Block until `count` periods have passed (runs, errors or skipped), or `timeout`."""
        with self._ran:
            return self._ran.wait_for(
                lambda: len(self.runs) + len(self.errors) + self.skipped >= count, timeout
            )

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
