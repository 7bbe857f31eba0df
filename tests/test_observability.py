"""What a running engine tells its operator: one JSON log line per request
(never the key), Prometheus figures at /metrics (read back with
prometheus_client's own parser), and OpenTelemetry spans around search,
context, ingest, consolidation and LLM calls (the SDK's in-memory exporter)."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from prometheus_client.parser import text_string_to_metric_families

from mnemotree import LLMSettings, Memory, operation_durations
from mnemotree.llm.openai_compat import OpenAILLM
from tests.openai_server import Script, openai_server
from tests.server_helpers import Served, serving

KEYS = {"admin": "*", "kb": "kb"}


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    with serving(tmp_path / "m.db", KEYS) as s:
        yield s


def test_each_request_is_one_log_line_with_its_route_and_key_id(
    served: Served, caplog: pytest.LogCaptureFixture
) -> None:
    kb = served.keys["kb"]
    headers = {"authorization": f"Bearer {kb}"}
    with caplog.at_level(logging.INFO, logger="mnemotree.access"):
        made = httpx.post(
            f"{served.url}/remember", json={"text": "Deploys run on Fridays"}, headers=headers
        ).json()
        httpx.get(f"{served.url}/nodes/{made['id']}", headers=headers)
        httpx.get(f"{served.url}/nodes/{made['id']}")  # no key
        httpx.get(f"{served.url}/no/such/route/{made['id']}", headers=headers)
        lines = _lines(caplog, 4)
    key_id = next(k.id for k in served.memory.keys.list() if k.name == "kb")
    assert [(x["method"], x["route"], x["status"], x["key"]) for x in lines] == [
        ("POST", "/remember", 201, key_id),
        ("GET", "/nodes/{node_id}", 200, key_id),
        ("GET", "/nodes/{node_id}", 401, None),
        ("GET", "unmatched", 404, None),  # an unknown path is not a label of its own
    ]
    assert all(isinstance(x["ms"], float) and x["ms"] >= 0 for x in lines)
    assert kb not in caplog.text  # the key itself is never logged


def _lines(caplog: pytest.LogCaptureFixture, wanted: int) -> list[dict[str, object]]:
    """The request log's lines, once `wanted` are there (each is written just
    after its response is sent, on the server's thread)."""
    deadline = time.monotonic() + 10
    while True:
        found = [r.getMessage() for r in caplog.records if r.name == "mnemotree.access"]
        if len(found) >= wanted or time.monotonic() > deadline:
            return [json.loads(line) for line in found]
        time.sleep(0.01)


def test_metrics_are_prometheus_text_for_a_key_of_every_scope(served: Served) -> None:
    admin, kb = served.keys["admin"], served.keys["kb"]
    for _ in range(3):
        httpx.post(
            f"{served.url}/search",
            json={"query": "fridays"},
            headers={"authorization": f"Bearer {admin}"},
        )
    assert httpx.get(f"{served.url}/metrics").status_code == 401
    assert (
        httpx.get(f"{served.url}/metrics", headers={"authorization": f"Bearer {kb}"}).status_code
        == 403
    )
    answer = httpx.get(f"{served.url}/metrics", headers={"authorization": f"Bearer {admin}"})
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/plain")
    families = {f.name: f for f in text_string_to_metric_families(answer.text)}
    requests = {
        (s.labels["method"], s.labels["route"], s.labels["status"]): s.value
        for s in families["mnemotree_requests"].samples
    }
    assert requests[("POST", "/search", "200")] == 3
    assert requests[("GET", "/metrics", "401")] == 1
    latency = families["mnemotree_request_seconds"].samples
    counted = [s for s in latency if s.name.endswith("_count") and s.labels["route"] == "/search"]
    assert counted[0].value == 3
    searches = [
        s
        for s in families["mnemotree_operation_seconds"].samples
        if s.name.endswith("_count") and s.labels["operation"] == "search"
    ]
    assert searches and searches[0].value >= 3
    for gauge in ("mnemotree_nodes", "mnemotree_database_bytes", "mnemotree_vectors_pending"):
        assert families[gauge].type == "gauge" and families[gauge].samples[0].value >= 0
    assert families["mnemotree_database_bytes"].samples[0].value > 0


@pytest.fixture(scope="module")
def spans() -> InMemorySpanExporter:
    """A tracer provider for the whole process (OpenTelemetry allows one), its
    spans kept in memory."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    return exporter


def test_operations_are_spans_once_tracing_is_configured(
    spans: InMemorySpanExporter, tmp_path: Path
) -> None:
    spans.clear()
    notes = tmp_path / "notes.md"
    notes.write_text("# Runbook\n\nRestart the queue worker before the API.\n")
    with Memory(tmp_path / "m.db", embedder="hashing") as mem:
        mem.remember("Deploys run on Fridays")
        mem.search("when do we deploy", limit=3)
        mem.context("deploys", budget=200)
        mem.ingest(notes, scope="default")
        mem.consolidation.run(dry_run=True)
    script = Script(chat=["Fridays."])
    with openai_server(script) as url:
        llm = OpenAILLM(LLMSettings(model="local-chat", base_url=url, api_key="k"))
        llm.complete([{"role": "user", "content": "When do we deploy?"}])
    names = [s.name for s in spans.get_finished_spans()]
    for name in ("search", "context", "ingest", "consolidate", "llm"):
        assert f"mnemotree.{name}" in names, (name, names)
    llm_span = next(s for s in spans.get_finished_spans() if s.name == "mnemotree.llm")
    assert llm_span.attributes is not None
    assert llm_span.attributes["gen_ai.request.model"] == "local-chat"
    assert operation_durations()["search"].count >= 1
