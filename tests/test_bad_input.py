"""The bad-input corpus (`mnemotree bench bad-input`) as a test: every hostile
value ends in a clean error and writes nothing, through the facade and HTTP."""

from __future__ import annotations

import json
from pathlib import Path

from mnemotree import Memory
from mnemotree.bench import bad_input
from tests.cli_runner import run_cli


def test_every_bad_input_ends_in_a_clean_error_and_writes_nothing() -> None:
    figures = bad_input.run()
    assert figures["facade"]["examples"] == [] and figures["http"]["examples"] == []
    assert figures["facade"]["cases"] > 80 and figures["http"]["cases"] > 20


def test_the_corpus_catches_an_accepted_bad_value(tmp_path: Path) -> None:
    # The judge itself: a call that succeeds is a failure, not a pass.
    with Memory(tmp_path / "m.db", embedder="hashing") as memory:
        outcome = bad_input._facade_from([("fine", lambda: memory.add("ok"))], memory)
    assert outcome.failures == ["fine: accepted"]
    assert bad_input._problem(500, "{}") == "status 500"
    assert bad_input._problem(404, '{"detail": "x"}') is not None


def test_the_command_reports_no_failure(tmp_path: Path) -> None:
    ran = run_cli(tmp_path / "unused.db", "bench", "bad-input")
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout)["http"]["failures"] == 0
