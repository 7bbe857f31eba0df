"""The consolidation benchmarks run as commands and report their figures."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def _bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mnemotree", "bench", *args],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_bench_contradictions_scores_a_labelled_file(tmp_path: Path) -> None:
    pairs = tmp_path / "pairs.jsonl"
    rows = [
        {
            "a": "We use Postgres.",
            "b": "We no longer use Postgres.",
            "label": "contradiction",
            "kind": "negation",
        },
        {
            "a": "The API listens on port 8080.",
            "b": "The API listens on port 9090.",
            "label": "contradiction",
            "kind": "number",
        },
        {
            "a": "I have two cats.",
            "b": "I have 2 cats.",
            "label": "consistent",
            "kind": "same_number",
        },
    ]
    pairs.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "out.json"
    done = _bench(
        "contradictions", "--pairs", str(pairs), "--embedder", "hashing", "--json", str(out)
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["overall"]["pairs"] == 3
    assert result["detector_without_similarity_gate"]["recall"] == 1.0
    assert result["detector_without_similarity_gate"]["precision"] == 1.0
    assert set(result["flagged_by_kind"]) == {"negation", "number", "same_number"}


def test_the_shipped_pair_set_is_balanced_and_labelled() -> None:
    from mnemotree.bench.contradictions import load

    pairs = load()
    labels = [p["label"] for p in pairs]
    assert set(labels) == {"contradiction", "consistent"}
    assert 140 <= labels.count("contradiction") <= 160 and len(pairs) >= 280


def test_bench_consolidate_times_a_run(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    done = _bench("consolidate", "--n", "1000", "--embedder", "hashing", "--json", str(out))
    assert done.returncode == 0, done.stderr
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["n"] == 1000
    assert result["run"]["decay"] >= 1000  # every memory gets its factor on the first run
    assert result["run"].get("forget", 0) > 0  # a year of unused memories
