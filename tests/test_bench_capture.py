"""`mnemotree bench capture`: the labelled chats load and check, and a run
matches what capture kept against the labels as documented."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mnemotree.bench.capture import run
from mnemotree.bench.capture_data import KEEP_TYPES, load
from tests.cli_runner import run_cli


def test_the_shipped_chats_load_with_both_splits_and_every_type() -> None:
    chats = load()
    assert len(chats) >= 20
    assert {c.split for c in chats} == {"dev", "test"}
    assert all(20 <= len(c.messages) <= 60 for c in chats)
    assert {k.type for c in chats for k in c.keep} == set(KEEP_TYPES)
    assert all(len(c.skip) >= 4 for c in chats)


def _chat(**changes: object) -> dict[str, object]:
    chat: dict[str, object] = {
        "id": "plan-01",
        "split": "dev",
        "domain": "work planning",
        "date": "2026-03-02",
        "team": "Atlas team",
        "speakers": {"Dana": "user", "Priya": "user"},
        "messages": [
            {"speaker": "Dana", "text": "morning! quick one on the rollout"},
            {"speaker": "Priya", "text": "I'll write the rollout checklist by Wednesday"},
            {"speaker": "Dana", "text": "maybe we should try Redis for the cache"},
            {"speaker": "Priya", "text": "We chose PostgreSQL for the billing service."},
            {"speaker": "Dana", "text": "great, thanks"},
        ],
        "keep": [
            {
                "message": 1,
                "type": "action",
                "text": "Priya will write the rollout checklist by Wednesday.",
                "owner": "Priya",
                "due": "2026-03-04",
            },
            {
                "message": 3,
                "type": "decision",
                "text": "The Atlas team chose PostgreSQL for the billing service.",
                "summary_key": True,
            },
            {"message": 4, "type": "fact", "text": "Dana runs the weekly rollout review."},
        ],
        "skip": [{"message": 2, "kind": "hedge", "text": "maybe we should try Redis"}],
    }
    chat.update(changes)
    return chat


def _folder(tmp_path: Path, *chats: dict[str, object]) -> Path:
    lines = "\n".join(json.dumps(c) for c in chats)
    (tmp_path / "capture_chats_mine.jsonl").write_text(lines + "\n", encoding="utf-8")
    return tmp_path


def test_a_malformed_chat_is_refused_naming_it_and_the_fault(tmp_path: Path) -> None:
    bad = _chat(keep=[{"message": 9, "type": "wish", "text": "x"}])
    with pytest.raises(ValueError, match=r"plan-01 keep at message 9: no such message") as e:
        load(_folder(tmp_path, bad))
    assert "type 'wish'" in str(e.value)
    refused = run_cli(tmp_path / "m.db", "bench", "capture", "--data", str(tmp_path))
    assert refused.returncode == 1 and "plan-01" in refused.stderr


def test_a_run_matches_captures_to_labels_and_reports_splits_apart(tmp_path: Path) -> None:
    held_out = _chat(id="plan-02", split="test")
    chats = load(_folder(tmp_path, _chat(), held_out))
    report = run(chats, "minilm")
    dev = report["dev"]
    # The action and the decision are kept; the third label was never said.
    assert dev["labelled"] == 3 and dev["recall"] == pytest.approx(2 / 3, abs=1e-3)
    assert dev["recall_by_type"]["action"] == 1.0 and dev["actions_whole"] == 1.0
    assert dev["false_captures_by_kind"] == {}  # the hedge waited, unpromoted, unmatched
    assert dev["precision_memories"] == 1.0
    assert report["test"]["chats"] == 1 and report["all"]["chats"] == 2
    assert [m["chat"] for m in report["misses"]] == ["plan-01"]  # held-out chats are not shown
