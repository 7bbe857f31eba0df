from __future__ import annotations

import io
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mnemotree import AlreadyExists, InvalidInput, Memory
from tests.helpers import snapshot, texts
from tests.strategies import build, operation

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def nodes_of(mem: Memory) -> list[dict[str, object]]:
    return sorted((n.to_dict() for n in mem.store.iter_nodes()), key=lambda d: str(d["id"]))


@SETTINGS
@given(st.lists(operation, max_size=25))
def test_markdown_round_trip_is_exact(ops: list[tuple[str, int, str, str]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        with Memory(Path(tmp) / "a.db") as source:
            build(source, ops)
            document = source.exchange.export_markdown()
            expected = nodes_of(source)
            orders = {r.id: texts(source, r.id) for r in source.roots()}
        with Memory(Path(tmp) / "b.db") as target:
            target.exchange.import_markdown(document)
            assert nodes_of(target) == expected
            assert {r.id: texts(target, r.id) for r in target.roots()} == orders
            assert target.exchange.export_markdown() == document


@SETTINGS
@given(st.lists(operation, max_size=25))
def test_jsonl_round_trip_is_lossless(ops: list[tuple[str, int, str, str]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        with Memory(Path(tmp) / "a.db") as source:
            build(source, ops)
            buffer = io.StringIO()
            source.exchange.export_jsonl(buffer)
            expected = snapshot(source)
        with Memory(Path(tmp) / "b.db") as target:
            target.exchange.import_jsonl(buffer.getvalue().splitlines())
            assert snapshot(target) == expected
            again = io.StringIO()
            target.exchange.export_jsonl(again)
            assert again.getvalue() == buffer.getvalue()


def test_markdown_export_reads_as_a_document(mem: Memory) -> None:
    root = mem.add("Project Atlas")
    decisions = mem.append_child(root.id, "Decisions")
    mem.append_child(decisions.id, "We chose SQLite.")
    mem.append_child(root.id, "A loose note.")
    visible = [
        line
        for line in mem.exchange.export_markdown(root.id).splitlines()
        if not line.startswith("<!--")
    ]
    assert [line for line in visible if line] == [
        "# Project Atlas",
        "## Decisions",
        "We chose SQLite.",
        "A loose note.",
    ]


def test_plain_markdown_imports_as_an_outline(mem: Memory) -> None:
    document = (
        "# Guide\n\nIntro paragraph.\n\n## Install\n\nRun make.\nThen test.\n\n"
        "```\n# not a heading\n\ncode\n```\n\n## Use\n\nAsk.\n"
    )
    (top,) = mem.exchange.import_markdown(document, source="docs/guide.md", scope="kb")
    levels = [(d, n.text) for d, n in mem.serialize_with_depth(top.id)]
    assert levels == [
        (0, "guide.md"),
        (1, "Guide"),
        (2, "Intro paragraph."),
        (2, "Install"),
        (3, "Run make.\nThen test."),
        (3, "```\n# not a heading\n\ncode\n```"),
        (2, "Use"),
        (3, "Ask."),
    ]
    assert {n.scope for n in mem.serialize(top.id)} == {"kb"}


def test_importing_existing_ids_changes_nothing(mem: Memory) -> None:
    root = mem.add("root")
    mem.append_child(root.id, "child")
    document = mem.exchange.export_markdown()
    buffer = io.StringIO()
    mem.exchange.export_jsonl(buffer)
    before = snapshot(mem)
    with pytest.raises(AlreadyExists, match=root.id):
        mem.exchange.import_markdown(document)
    with pytest.raises(AlreadyExists):
        mem.exchange.import_jsonl(buffer.getvalue().splitlines())
    assert snapshot(mem) == before


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ([], "empty"),
        (["not json"], "not valid JSON"),
        (['{"type": "node"}'], "not a mnemotree JSONL export"),
        (
            ['{"type": "header", "format": "mnemotree-jsonl"}', '{"type": "node", "id": "x"}'],
            "malformed node record",
        ),
        (['{"type": "header", "format": "mnemotree-jsonl"}', "[1]"], "expected a JSON object"),
    ],
)
def test_broken_jsonl_is_rejected_with_its_line(
    mem: Memory, lines: list[str], message: str
) -> None:
    with pytest.raises(InvalidInput, match=message):
        mem.exchange.import_jsonl(lines, source="backup.jsonl")
    assert mem.stats().nodes == 0


def test_markdown_with_a_missing_parent_is_rejected(mem: Memory) -> None:
    document = (
        '<!-- mt {"id": "A", "parent_id": "GONE", "order_key": 1.0, '
        '"created_at": "2026-01-01T00:00:00+00:00", '
        '"updated_at": "2026-01-01T00:00:00+00:00"} -->\n'
        "orphan\n"
    )
    with pytest.raises(InvalidInput, match="parent GONE"):
        mem.exchange.import_markdown(document)
    assert mem.stats().nodes == 0


def test_an_empty_export_imports_as_nothing(tmp_path: Path) -> None:
    with Memory(tmp_path / "a.db") as empty:
        document = empty.exchange.export_markdown()
        buffer = io.StringIO()
        empty.exchange.export_jsonl(buffer)
    with Memory(tmp_path / "b.db") as target:
        assert target.exchange.import_markdown(document) == []
        assert target.exchange.import_jsonl(buffer.getvalue().splitlines()) == []
        assert target.stats().nodes == 0


def test_a_crlf_saved_export_still_round_trips(mem: Memory, tmp_path: Path) -> None:
    root = mem.add("Title")
    mem.append_child(root.id, "line one\nline two")
    document = mem.exchange.export_markdown().replace("\n", "\r\n")
    with Memory(tmp_path / "other.db") as target:
        target.exchange.import_markdown(document)
        assert nodes_of(target) == nodes_of(mem)


def test_reimporting_an_export_after_deleting_the_tree_keeps_history_usable(
    mem: Memory,
) -> None:
    root = mem.add("root")
    leaf = mem.append_child(root.id, "v1")
    mem.update(leaf.id, "v2")
    document = mem.exchange.export_markdown()
    buffer = io.StringIO()
    mem.exchange.export_jsonl(buffer)
    mem.delete(root.id)
    mem.exchange.import_markdown(document)
    assert mem.get(leaf.id).version == 3  # above the kept versions (1: update, 2: deletion)
    assert mem.update(leaf.id, "v3").version == 4
    mem.delete(root.id)
    mem.exchange.import_jsonl(buffer.getvalue().splitlines(), merge=True)  # the history is kept
    assert mem.get(leaf.id).text == "v2"
    assert mem.update(leaf.id, "v4").text == "v4"


def test_a_subtree_export_imports_as_a_new_root(mem: Memory, tmp_path: Path) -> None:
    root = mem.add("Book")
    chapter = mem.append_child(root.id, "Chapter")
    mem.append_child(chapter.id, "para")
    with Memory(tmp_path / "other.db") as target:
        (top,) = target.exchange.import_markdown(mem.exchange.export_markdown(chapter.id))
        assert top.id == chapter.id and top.parent_id is None and top.root_id == chapter.id
        assert texts(target, top.id) == ["Chapter", "para"]


MARKER = (
    '<!-- mt {{"id": "A", "parent_id": null, "order_key": {key}, "version": {version}, '
    '"created_at": "2026-01-01T00:00:00+00:00", "updated_at": "2026-01-01T00:00:00+00:00"'
    "{extra}}} -->\ntext\n"
)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"extra": ', "is_summary": "yes"'}, "is_summary must be true or false"),
        ({"key": "NaN"}, r'marker\["order_key"\] is not a finite number'),
        ({"key": '"1"'}, "order_key must be a number"),
        ({"version": "0"}, "version must be a positive integer"),
        ({"extra": ', "metadata": [1]'}, "metadata must be a JSON object"),
        ({"extra": ', "scope": " "'}, "scope is empty"),
        ({"extra": ', "created_at": "yesterday"'}, "created_at is not an ISO-8601 time"),
    ],
)
def test_bad_marker_fields_are_named(mem: Memory, fields: dict[str, str], message: str) -> None:
    values = {"key": "1.0", "version": "1", "extra": ""} | fields
    document = MARKER.format(**values)
    if "created_at" in values["extra"]:  # the override must replace the valid stamp
        document = document.replace('"created_at": "2026-01-01T00:00:00+00:00", ', "", 1)
    with pytest.raises(InvalidInput, match=message):
        mem.exchange.import_markdown(document)
    assert mem.stats().nodes == 0


def test_a_marker_without_an_id_is_rejected(mem: Memory) -> None:
    with pytest.raises(InvalidInput, match='no "id"'):
        mem.exchange.import_markdown('<!-- mt {"order_key": 1.0} -->\ntext\n')


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            '{"type": "header", "format": "mnemotree-jsonl", "format_version": "x"}',
            "format_version must be an integer",
        ),
        (
            '{"type": "version", "node_id": "A", "version": 1, "op": "update", '
            '"change_id": "C", "recorded_at": "2026-01-01T00:00:00+00:00", "node": "oops"}',
            "a node must be a JSON object",
        ),
    ],
)
def test_bad_jsonl_fields_are_named(mem: Memory, line: str, message: str) -> None:
    header = '{"type": "header", "format": "mnemotree-jsonl", "format_version": 1}'
    lines = [line] if line.startswith('{"type": "header"') else [header, line]
    with pytest.raises(InvalidInput, match=message):
        mem.exchange.import_jsonl(lines)
    assert mem.stats().nodes == 0


def test_plain_markdown_import_refuses_a_blank_scope(mem: Memory) -> None:
    with pytest.raises(InvalidInput, match="scope is empty"):
        mem.exchange.import_markdown("# Title\n\ntext\n", scope=" ")
    assert mem.stats().nodes == 0
