"""Schemathesis against the served /openapi.json: every operation, fed inputs
generated from its schema (valid and invalid), never answers with a 5xx.

A real server on 127.0.0.1 with a key for every scope, so that each route is
reached past authentication. Only server errors count: 4xx answers to bad
input are the point. The cases are drawn with Hypothesis from schemathesis's
strategies (its pytest plugin does not run under pytest 9).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode

from tests.server_helpers import serving

EXAMPLES = 20  # per operation and mode: enough to hit each error path, quick enough for CI


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    db = Path(tmp_path_factory.mktemp("fuzz")) / "m.db"
    with serving(db, {"admin": "*"}) as served:
        memory = served.memory
        first = memory.remember("Alice lives in Berlin", scope="kb")
        memory.remember("Alice moved to Munich", scope="kb")
        memory.paths("kb").save("Project/Goals", {"ship": "v1"})
        memory.chat.start_session("kb", "standup")
        memory.update(first.id, "Alice lives in Berlin, near the park")
        yield served.url, served.keys["admin"]


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
def test_no_operation_answers_with_a_server_error(
    live: tuple[str, str], mode: GenerationMode
) -> None:
    url, key = live
    schema = schemathesis.openapi.from_url(f"{url}/openapi.json")
    headers = {"Authorization": f"Bearer {key}"}
    failures: list[str] = []
    operations = [result.ok() for result in schema.get_all_operations()]  # type: ignore[union-attr]
    assert len(operations) >= 30  # the whole API, not an empty spec

    for operation in operations:

        @given(case=operation.as_strategy(mode))
        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
            derandomize=True,
        )
        def check(case: Any) -> None:
            response = case.call(base_url=url, headers=headers)
            if response.status_code >= 500:
                failures.append(
                    f"{case.operation.label} -> {response.status_code}: "
                    f"{case.as_curl_command()} :: {response.text[:300]}"
                )

        try:
            check()
        except Unsatisfiable:  # no invalid input exists (GET /health): nothing to send
            assert mode is GenerationMode.NEGATIVE
    assert failures == []
