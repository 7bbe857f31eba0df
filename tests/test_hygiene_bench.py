"""The hygiene benchmark: its labelled store is consistent, its scoring
counts what it says, and the command runs end to end on a small slice."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from mnemotree.bench import hygiene_data
from mnemotree.bench.hygiene_data import Entry, Probe, World
from mnemotree.bench.hygiene_measure import detection
from mnemotree.bench.hygiene_serving import _matched
from mnemotree.bench.hygiene_world import Built
from mnemotree.store import ContradictionRow

WORLD = hygiene_data.load()


def test_the_shipped_store_is_labelled_consistently() -> None:
    assert hygiene_data.check(WORLD) == []
    found = WORLD.by_id()
    assert len(WORLD.entries) >= 300
    assert set(hygiene_data.OPS) <= {e.op for e in WORLD.entries}  # every type
    assert all(old in found for old in WORLD.superseded())
    for probe in WORLD.probes:
        assert all(i in found for i in (*probe.current, *probe.stale)), probe.id
    counts = hygiene_data.counts(WORLD)
    assert counts["trivia"] >= 50 and counts["planted_changes"] >= 30
    assert counts["paraphrases"] >= 20 and counts["documents"] >= 1
    days = [e.day for e in WORLD.entries]
    assert days == sorted(days) and days[-1] - days[0] >= 330  # written over a year


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=1, max_value=len(WORLD.entries)))
def test_any_slice_of_the_store_is_consistent(count: int) -> None:
    sliced = WORLD.sliced(count)
    assert len(sliced.entries) == count
    assert hygiene_data.check(sliced) == []


def _row(a: str, b: str, status: str, resolution: str | None = None) -> ContradictionRow:
    return ContradictionRow(f"c{a}{b}", a, b, "k", "r", "s", "t", status, resolution, "", None)


def test_detection_scores_planted_changes_and_false_flags() -> None:
    entries = (
        Entry("old", 0, "remember", "Marco works as a nurse."),
        Entry("plants", 1, "remember", "The office plants need watering.", label="trivia"),
        Entry(
            "new",
            2,
            "remember",
            "Marco now works at Finch Labs.",
            supersedes=("old",),
            change="job",
            about=("plants",),
        ),
        Entry("v1", 3, "fact", "", fields={"key": "k8s", "value": "1.27"}),
        Entry("v2", 4, "fact", "", supersedes=("v1",), change="version"),
    )
    world = World(entries, (Probe("p", "Where does Marco work?", ("new",), ("old",)),), (), ())
    built = Built(
        node_of={e.id: e.id.upper() for e in entries},
        label_of={e.id.upper(): e.id for e in entries},
    )
    rows = [_row("OLD", "NEW", "resolved", "update"), _row("PLANTS", "NEW", "open")]
    report = detection(rows, built, world, examples=5)
    assert report["update"] == {"pairs": 1, "true": 1, "false": 0}
    assert report["flagged"]["recall"] == 0.5  # one of the two planted changes
    assert report["flagged"]["precision"] == 0.5  # the plants are no change
    assert report["false_positives_by_kind"] == {"hard_negative": 1}
    assert report["updates_backwards"] == 0
    backwards = detection([_row("NEW", "OLD", "resolved", "update")], built, world, 5)
    assert backwards["updates_backwards"] == 1


def test_content_is_what_an_item_shares_with_its_memory() -> None:
    said = "decision: We chose SQLite for storage. [01JQZ8M3X2]"
    assert _matched(said, ["We chose SQLite for storage."]) == ["We chose SQLite for storage."]
    assert _matched("contradiction with [01JQZ8M3X2] [01JQZ8M3X3]", ["We chose SQLite."]) == []


def test_bench_hygiene_runs_on_a_slice(tmp_path: Path) -> None:
    out = tmp_path / "hygiene.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mnemotree",
            "bench",
            "hygiene",
            "--embedder",
            "hashing",
            "--slice",
            "120",
            "--months",
            "1",
            "--json",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["store"]["memories"] == 120
    assert result["llm"] == "none (offline)"
    assert set(result["detection_on_write"]["flagged"]) >= {"precision", "recall", "planted"}
    [horizon] = result["horizons"]
    assert horizon["months"] == 1
    serving = horizon["serving"]
    assert serving["probes"] == len(WORLD.sliced(120).probes) > 0
    for surface in ("any", "search_top5", "ask", "context_8k"):
        shown = serving["stale_served"][surface]
        assert 0 <= shown["count"] <= shown["of"] == serving["probes"]
    assert 0 < serving["context"]["content_share"] <= 1
    forgetting = horizon["forgetting"]
    assert forgetting["false_forgetting"]["of"] > 0 and forgetting["trivia_archived"]["of"] > 0
    assert {"wrong_merges", "paraphrases_merged"} <= set(horizon["merges"])
    assert set(result["figures"]) >= {"detection_on_write", "1_months", "targets"}
