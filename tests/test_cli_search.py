from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from mnemotree import Memory
from mnemotree.bench.locomo import evaluate, load
from mnemotree.retrieval.query import without_terms
from tests.helpers import CountingEmbedder


def mnemotree(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mnemotree", "--db", str(db), *args],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=300,
    )


def as_json(proc: subprocess.CompletedProcess[str]) -> Any:
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_remember_search_and_reindex(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    tea = as_json(
        mnemotree(db, "remember", "Alice prefers green tea", "--scope", "user:1", "--json")
    )
    as_json(mnemotree(db, "remember", "The deploy runs on Fridays", "--scope", "kb", "--json"))
    hits = as_json(mnemotree(db, "search", "green tea", "--explain", "--json"))
    assert hits[0]["id"] == tea["id"] and hits[0]["scope"] == "user:1"
    assert set(hits[0]["parts"]) == {
        "semantic",
        "keyword",
        "match",
        "name",
        "speaker",
        "neighbours",
        "time",
        "parent",
        "recency",
        "importance",
        "access",
        "usage",
    }
    assert hits[0]["ancestry"][0]["text"] == "Memories (user:1)"
    assert as_json(mnemotree(db, "search", "green tea", "--scope", "kb", "--json")) == []
    text = mnemotree(db, "search", "green tea")
    assert text.returncode == 0 and "Alice prefers green tea" in text.stdout
    empty = mnemotree(db, "search", "   ")
    assert empty.returncode == 1 and "query is empty" in empty.stderr
    bad = mnemotree(db, "search", "tea", "--weight", "semantic")
    assert bad.returncode == 1 and "NAME=NUMBER" in bad.stderr
    later = as_json(mnemotree(db, "search", "green tea", "--since", "2999-01-01", "--json"))
    assert later == []
    bad_time = mnemotree(db, "search", "tea", "--until", "soon")
    assert bad_time.returncode == 1 and "until must be an ISO-8601 time" in bad_time.stderr
    done = as_json(mnemotree(db, "reindex", "--json"))
    assert done["embedded"] == 0 and done["embedder"].startswith("all-MiniLM-L6-v2")
    assert done["graph_rows"] == 0  # a few memories are searched exactly, without a graph


def _conversation(sample_id: str) -> dict[str, Any]:
    """A tiny conversation in LoCoMo's format, written by the test."""
    return {
        "sample_id": sample_id,
        "conversation": {
            "speaker_a": "Ann",
            "speaker_b": "Ben",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a grey cat named Pixel."},
                {"speaker": "Ben", "dia_id": "D1:2", "text": "Lovely! I started pottery classes."},
            ],
            "session_2_date_time": "10:00 am on 20 May, 2023",
            "session_2": [
                {
                    "speaker": "Ben",
                    "dia_id": "D2:1",
                    "text": "My pottery teacher praised my bowl.",
                    "blip_caption": "a photo of a blue ceramic bowl",
                },
                {"speaker": "Ann", "dia_id": "D2:2", "text": "Pixel knocked a vase off the shelf."},
            ],
        },
        "qa": [
            {
                "question": "What is the name of Ann's cat?",
                "answer": "Pixel",
                "evidence": ["D1:1"],
                "category": 4,
            },
            {
                "question": "What did Ben make in pottery class?",
                "answer": "a bowl",
                "evidence": ["D2:1; D1:2"],
                "category": 1,
            },
            {
                "question": "What did Ann's dog break?",
                "answer": "n/a",
                "evidence": ["D2:2"],
                "category": 5,
            },
        ],
        "observation": {"never": "read"},
    }


def test_bench_locomo_on_a_generated_file(tmp_path: Path) -> None:
    data = tmp_path / "tiny.json"
    data.write_text(json.dumps([_conversation("c1"), _conversation("c2")]))
    out = tmp_path / "result.json"
    proc = mnemotree(
        tmp_path / "unused.db", "bench", "locomo", "--data", str(data), "--json", str(out)
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text())
    assert result["overall"]["n"] == 4  # two answerable questions per conversation
    assert result["by_category"]["5"]["n"] == 2
    assert result["overall"]["recall@20"] == 1.0  # four turns per conversation: all retrieved
    assert 0 < result["overall"]["recall@1"] <= 1
    assert set(result["baseline_fts5"]["overall"]) >= {"recall@10", "ndcg@10", "n"}
    assert result["latency_ms"]["p50"] > 0
    assert "R@10" in proc.stdout
    missing = mnemotree(
        tmp_path / "unused.db", "bench", "locomo", "--data", str(tmp_path / "no.json")
    )
    assert missing.returncode == 1 and "no LoCoMo file" in missing.stderr


def test_bench_scale_reports_every_figure(tmp_path: Path) -> None:
    out = tmp_path / "scale.json"
    proc = mnemotree(
        tmp_path / "unused.db",
        "bench",
        "scale",
        "--n",
        "300",
        "--embedder",
        "hashing",
        "--queries",
        "20",
        "--json",
        str(out),
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text())
    assert result["n"] == 300 and result["embedder"] == "hashing"
    for key in ("search_ms", "baseline_fts5_ms", "baseline_numpy_exact_ms"):
        assert 0 < result[key]["p50"] <= result[key]["p95"]
    assert result["write_per_s_vectors_pending"] > result["write_per_s_vectors_done"] > 0
    assert result["peak_rss_mb"] > 0
    assert json.loads(proc.stdout) == result


def test_the_embedder_is_chosen_by_option_or_environment(tmp_path: Path) -> None:
    import os

    from tests.openai_server import Script, openai_server

    db = tmp_path / "m.db"
    script = Script(dimensions=16)
    with openai_server(script) as url:
        env = {**os.environ, "MNEMOTREE_EMBED_BASE_URL": url, "MNEMOTREE_EMBEDDER": "openai"}
        for text in ("Alice prefers green tea", "The deploy runs on Fridays"):
            proc = subprocess.run(
                [sys.executable, "-m", "mnemotree", "--db", str(db), "remember", text],
                capture_output=True,
                text=True,
                env=env,
                timeout=120,
            )
            assert proc.returncode == 0, proc.stderr
        proc = subprocess.run(
            [sys.executable, "-m", "mnemotree", "--db", str(db), "search", "green tea", "--json"],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        hits = as_json(proc)
    assert hits[0]["text"] == "Alice prefers green tea"
    assert any(
        r["input"] == ["Alice prefers green tea"] or "green tea" in r["input"]
        for r in script.requests
    )
    bad = mnemotree(db, "--embedder", "nope", "search", "tea")
    assert bad.returncode == 1 and "nope" in bad.stderr and "minilm" in bad.stderr


def test_bench_locomo_embeds_a_question_asked_twice_each_time(tmp_path: Path) -> None:
    """The baselines embed every question, so the default's timing includes
    its embedding too, even for a question another conversation asked."""
    data = [_conversation("c1"), _conversation("c2")]  # the same questions in both
    embedder = CountingEmbedder()
    clock = [datetime(2023, 1, 1, tzinfo=timezone.utc)]
    with Memory(tmp_path / "m.db", clock=lambda: clock[0], embedder=embedder) as memory:
        loaded = load(memory, clock, data)
        memory.flush()
        embedder.texts.clear()
        evaluate(memory, data, loaded)

    # Per ask, the default search and the dense baseline embed the question
    # once each (FTS5 and RRF never): twice per conversation, in two of them.
    # With the engine's cached vector reused, the second ask would add one fewer.
    # The default embeds it without the speakers it names (their name part
    # credits them), the baseline as asked.
    def asks(question: str) -> int:
        meaning = without_terms(question, frozenset({"ann", "ben"}))
        return embedder.texts[question] + (embedder.texts[meaning] if meaning != question else 0)

    assert {asks(q["question"]) for q in data[0]["qa"]} == {4}
