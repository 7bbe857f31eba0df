"""Figures the benchmarks report."""

from __future__ import annotations

import statistics


def percentiles(samples: list[float]) -> dict[str, float]:
    """p50 and p95 of timings in milliseconds (nearest rank for p95)."""
    ordered = sorted(samples)
    return {
        "p50": round(statistics.median(ordered), 3),
        "p95": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))], 3),
    }
