"""What the engine's main operations cost, for the one running it.

`operation(name)` times a search, a context, an ingest, a consolidation or an
LLM call. Each duration goes into an in-process histogram (read by a
server's `/metrics`; nothing leaves the process), and, when OpenTelemetry is
installed (the `otel` extra) and the application has configured a tracer
provider, into a span. Without a provider the OpenTelemetry API is a no-op:
nothing is recorded or sent unless the application asks for it; and spans
are made only in an application that has imported OpenTelemetry itself.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

# Seconds: the bucket bounds of every duration histogram (Prometheus' `le`).
DURATION_BUCKETS = (
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
)


@dataclass
class Histogram:
    """Counts of durations at or below each of `DURATION_BUCKETS`, their sum and count."""

    counts: list[int] = field(default_factory=lambda: [0] * len(DURATION_BUCKETS))
    total: float = 0.0
    count: int = 0

    def add(self, seconds: float) -> None:
        for i, bound in enumerate(DURATION_BUCKETS):
            if seconds <= bound:
                self.counts[i] += 1
        self.total += seconds
        self.count += 1


class Histograms:
    """Histograms by label, safe to add to from any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by: dict[str, Histogram] = {}

    def add(self, label: str, seconds: float) -> None:
        with self._lock:
            self._by.setdefault(label, Histogram()).add(seconds)

    def snapshot(self) -> dict[str, Histogram]:
        with self._lock:
            return {
                k: Histogram(list(h.counts), h.total, h.count) for k, h in sorted(self._by.items())
            }


DURATIONS = Histograms()  # of operations, by name: one per process


def operation_durations() -> dict[str, Histogram]:
    """How long each operation took in this process so far, by name."""
    return DURATIONS.snapshot()


@contextmanager
def operation(name: str, attributes: Mapping[str, Any] | None = None) -> Iterator[None]:
    """Time the work inside as operation `name` (a span too, if tracing is on)."""
    started = time.perf_counter()
    try:
        with _span(f"mnemotree.{name}", attributes or {}):
            yield
    finally:
        DURATIONS.add(name, time.perf_counter() - started)


@contextmanager
def _span(name: str, attributes: Mapping[str, Any]) -> Iterator[None]:
    tracer = _tracer()
    if tracer is None:
        yield
        return
    with tracer.start_as_current_span(name, attributes=dict(attributes)):
        yield


def _tracer() -> Any:
    """OpenTelemetry's tracer for mnemotree when the application uses
    OpenTelemetry (has imported its API), else None. Never imported here:
    it costs a process ~80 ms, and a process that does not trace has no use
    for it. The API hands out a no-op tracer until a provider is configured,
    and one that follows the provider after."""
    trace = sys.modules.get("opentelemetry.trace")
    return None if trace is None else trace.get_tracer("mnemotree")
