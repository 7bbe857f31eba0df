"""Ingest under hostile input (issue 27): linear planning of repetitive text,
bounds on what one file may cost (DOCX bombs, part counts, PDF pages, HTML
and Markdown nesting, time), and large files written in short transactions
that never leave a half-written document looking complete."""

from __future__ import annotations

import hashlib
import io
import re
import sqlite3
import struct
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import docx
import pytest
from docx.table import _Cell
from hypothesis import given
from hypothesis import strategies as st

from mnemotree import Memory
from mnemotree.bench.pdfgen import write_pdf
from mnemotree.errors import InvalidInput, ParseError
from mnemotree.ingest import chunker, formats, plan
from mnemotree.ingest.formats import parse_html, parse_markdown
from mnemotree.ingest.limits import Budget, IngestLimits
from mnemotree.ingest.parsers import parse
from mnemotree.ingest.plan import CHUNK, document_id, owned, plan_document
from mnemotree.ingest.write import INGESTING, prepare, write
from mnemotree.ingest.zipcheck import check_zip
from tests.cli_runner import run_cli
from tests.helpers import Clock
from tests.server_helpers import serving

# -- helpers ---------------------------------------------------------------------------


def small_docx(paragraphs: int = 3) -> bytes:
    document = docx.Document()
    document.add_heading("Guide", level=1)
    for number in range(paragraphs):
        document.add_paragraph(f"Paragraph {number} of the guide.")
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def bomb_docx(inflated: int, extra_parts: int = 0) -> bytes:
    """A real DOCX whose document.xml is replaced by `inflated` bytes of
    repeated paragraphs (a zip bomb: a few hundred KB on disk), streamed
    through the compressor so the test never holds the inflated text."""
    source = zipfile.ZipFile(io.BytesIO(small_docx()))
    out = io.BytesIO()
    run = b"<w:p><w:r><w:t>" + b"a" * 200 + b"</w:t></w:r></w:p>"
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as bomb:
        for item in source.infolist():
            if item.filename != "word/document.xml":
                bomb.writestr(item, source.read(item))
                continue
            head = source.read(item).split(b"<w:body>")[0]
            with bomb.open("word/document.xml", "w", force_zip64=True) as part:
                part.write(head + b"<w:body>")
                block = run * (1024 * 1024 // len(run))
                for _ in range(inflated // len(block)):
                    part.write(block)
                part.write(b"<w:sectPr/></w:body></w:document>")
        for number in range(extra_parts):
            bomb.writestr(f"junk/part{number}.txt", b"x")
    return out.getvalue()


def lying_sizes(data: bytes, part: str, size: int) -> bytes:
    """`data` with `part`'s uncompressed size in the central directory set to
    `size`: a directory that lies about what the entry inflates to."""
    buffer = bytearray(data)
    at = buffer.find(b"PK\x01\x02")
    name = part.encode()
    while at >= 0:
        length = struct.unpack_from("<H", buffer, at + 28)[0]
        if bytes(buffer[at + 46 : at + 46 + length]) == name:
            struct.pack_into("<I", buffer, at + 24, size)
            return bytes(buffer)
        at = buffer.find(b"PK\x01\x02", at + 4)
    raise AssertionError(f"no {part} in the archive")


def rows(db: Path) -> list[tuple[Any, ...]]:
    """Every node row and history row of a database file, as stored."""
    with sqlite3.connect(db) as con:
        nodes = con.execute("SELECT * FROM nodes ORDER BY id").fetchall()
        versions = con.execute(
            "SELECT node_id, version, op, state FROM node_versions ORDER BY node_id, version"
        ).fetchall()
    return [*nodes, ("versions", *versions)]


def manual(sections: int, repeat: str = "") -> bytes:
    """A Markdown manual with `sections` sections of a few paragraphs."""
    parts = ["# Manual\n\nRead this first.\n"]
    for number in range(sections):
        parts.append(f"## Part {number}\n\n" + f"Step {number} {repeat}says hello. " * 40 + "\n")
    return "\n".join(parts).encode()


# -- linear planning ----------------------------------------------------------------------


def test_repeated_text_plans_with_a_linear_number_of_hashes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = plan._digest
    calls = 0

    def counting(*parts: object) -> str:
        nonlocal calls
        calls += 1
        return real(*parts)

    monkeypatch.setattr(plan, "_digest", counting)
    paragraph = "The quick brown fox jumps over the lazy dog. " * 40 + "\n\n"
    found = {}
    for copies in (50, 400):
        calls = 0
        parsed = parse((paragraph * copies).encode(), "fox.txt")
        planned = plan_document(
            parsed, scope="kb", source="fox.txt", filename="fox.txt", file_info={}
        )
        ids = [c.id for c in planned.children]
        assert len(ids) == len(set(ids)) and len(ids) >= copies // 2
        found[copies] = (calls, len(ids))
    # Each chunk hashes at most twice (its content, then its occurrence), plus the root.
    for calls_made, chunk_count in found.values():
        assert calls_made <= 2 * chunk_count + 1


def old_unique_ids(parsed_text: str) -> list[str]:
    """Chunk ids as the quadratic planner numbered repeats (ids must not change)."""
    root_id = document_id("kb", "fox.txt")
    issued = {root_id}
    out = []
    pieces = [parsed_text[a:b] for a, b in chunker.spans(parsed_text)]
    for text in pieces:
        key, repeat = plan._digest(root_id, "chunk", text), 1
        while key in issued:
            repeat += 1
            key = plan._digest(root_id, f"chunk#{repeat}", text)
        issued.add(key)
        out.append(key)
    return out


def test_ids_of_repeated_chunks_are_the_ones_ingest_always_gave() -> None:
    text = ("Same words again and again. " * 80 + "\n\n") * 30 + "A different ending."
    parsed = parse(text.encode(), "fox.txt")
    planned = plan_document(parsed, scope="kb", source="fox.txt", filename="fox.txt", file_info={})
    assert [c.id for c in planned.children] == old_unique_ids(parsed.root.text)


def test_too_many_nodes_is_refused_naming_the_limit() -> None:
    with pytest.raises(ParseError, match=r"max_nodes=10\b.*--limit max_nodes=N"):
        plan_document(
            parse(manual(20), "m.md"),
            scope="kb",
            source="m.md",
            filename="m.md",
            file_info={},
            budget=_budget("m.md", max_nodes=10),
        )


def _budget(name: str, **limits: Any) -> Budget:
    return Budget(name, IngestLimits(**limits))


# -- DOCX ------------------------------------------------------------------------------


def test_a_docx_bomb_is_refused_before_python_docx_reads_it(memory: Memory) -> None:
    bomb = bomb_docx(40 * 1024 * 1024)
    assert len(bomb) < 1024 * 1024
    limits = IngestLimits(max_unzipped_bytes=8 * 1024 * 1024)
    report = memory.ingest(bomb, scope="kb", filename="bomb.docx", limits=limits)
    [result] = report.files
    assert result.status == "failed" and isinstance(result.cause, ParseError)
    assert "max_unzipped_bytes=8,388,608" in (result.error or "")
    assert "--limit max_unzipped_bytes=N" in (result.error or "")
    assert result.cause.value > 8 * 1024 * 1024  # the size seen
    assert memory.docs.list() == []


def test_a_zip_directory_that_lies_about_sizes_is_caught_while_inflating(
    memory: Memory,
) -> None:
    liar = lying_sizes(bomb_docx(40 * 1024 * 1024), "word/document.xml", 1000)
    limits = IngestLimits(max_unzipped_bytes=8 * 1024 * 1024)
    [result] = memory.ingest(liar, scope="kb", filename="liar.docx", limits=limits).files
    assert result.status == "failed" and "max_unzipped_bytes" in (result.error or "")
    # Under a high enough limit it inflates fully, and the lie itself is named.
    roomy = IngestLimits(max_unzipped_bytes=64 * 1024 * 1024)
    [again] = memory.ingest(liar, scope="kb", filename="liar.docx", limits=roomy).files
    assert again.status == "failed" and "declares 1,000 bytes" in (again.error or "")


def test_raising_the_unzipped_limit_lets_a_large_docx_through(memory: Memory) -> None:
    large = bomb_docx(6 * 1024 * 1024)
    tight = IngestLimits(max_unzipped_bytes=4 * 1024 * 1024)
    assert memory.ingest(large, scope="kb", filename="big.docx", limits=tight).failed
    roomy = IngestLimits(max_unzipped_bytes=16 * 1024 * 1024, max_text_chars=10**8)
    [result] = memory.ingest(large, scope="kb", filename="big.docx", limits=roomy).files
    assert result.status == "added", result.error


def test_too_many_zip_parts_are_refused_from_the_directory(memory: Memory) -> None:
    crowded = bomb_docx(1024 * 1024, extra_parts=60)
    [result] = memory.ingest(
        crowded, scope="kb", filename="many.docx", limits=IngestLimits(max_zip_parts=50)
    ).files
    assert result.status == "failed" and "max_zip_parts=50" in (result.error or "")
    [ok] = memory.ingest(
        crowded, scope="kb", filename="many.docx", limits=IngestLimits(max_zip_parts=100)
    ).files
    assert ok.status == "added", ok.error


def test_parts_are_counted_in_a_zip64_directory_before_zipfile_reads_it() -> None:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:  # over 65,535 entries: a zip64 directory
        for number in range(66_000):
            archive.writestr(f"p{number}", b"")
    with pytest.raises(ParseError, match="65,001 or more zip parts") as caught:
        check_zip(out.getvalue(), _budget("many.docx", max_zip_parts=65_000))
    assert caught.value.value == 65_001  # counted in the directory, stopped past the limit


def test_docx_tables_with_huge_spans_and_long_vertical_merges_cost_their_text() -> None:
    document = docx.Document()
    table = document.add_table(rows=1500, cols=2)
    # Cells filled through their XML: python-docx's table.cell() walks the
    # table each time (a minute for 1,500 rows here).
    rows = table._tbl.tr_lst
    _Cell(rows[0].tc_lst[0], table).text = "merged"
    for row, tr in enumerate(rows):
        _Cell(tr.tc_lst[1], table).text = f"r{row}"
    # Then one cell merged down 1,500 rows (python-docx's row.cells recursed
    # once per row above) and one claiming a billion columns.
    for row, tr in enumerate(table._tbl.tr_lst):
        tr.tc_lst[0].get_or_add_tcPr().vMerge_val = "restart" if row == 0 else "continue"
    table._tbl.tr_lst[0].tc_lst[1].get_or_add_tcPr().grid_span = 10**9
    out = io.BytesIO()
    document.save(out)
    parsed = parse(out.getvalue(), "t.docx")
    lines = parsed.root.text.split("\n")
    assert lines[0] == "merged | r0" and lines[1499] == "merged | r1499"


# -- PDF, HTML, Markdown, text ----------------------------------------------------------------


def test_pdf_page_limit(memory: Memory) -> None:
    pdf = write_pdf([[f"Page {n} says something worth reading."] for n in range(5)])
    with pytest.raises(ParseError, match=r"5 pages is over the limit max_pdf_pages=3"):
        parse(pdf, "five.pdf", IngestLimits(max_pdf_pages=3))
    [ok] = memory.ingest(
        pdf, scope="kb", filename="five.pdf", limits=IngestLimits(max_pdf_pages=5)
    ).files
    assert ok.status == "added"


def test_pdf_text_is_counted_before_it_is_extracted() -> None:
    pdf = write_pdf([["x" * 80] * 40 for _ in range(3)])
    with pytest.raises(ParseError, match="max_text_chars=5,000") as caught:
        parse(pdf, "dense.pdf", IngestLimits(max_text_chars=5000))
    assert caught.value.value > 5000


def test_html_nesting_limit() -> None:
    deep = ("<div>" * 300 + "<p>deep text</p>" + "</div>" * 300).encode()
    with pytest.raises(ParseError, match=r"257 levels of nested elements .*max_depth=256"):
        parse_html(deep, "deep.html")
    parsed = parse_html(deep, "deep.html", IngestLimits(max_depth=400))
    assert parsed.root.text == "deep text"
    # Elements whose end tags HTML lets you leave out are not nesting.
    sloppy = ("<ul>" + "<li>item" * 1000 + "</ul>" + "<p>para" * 1000).encode()
    assert parse_html(sloppy, "sloppy.html").root.text.count("item") == 1000


def test_markdown_nesting_limit() -> None:
    quotes = ("> " * 300 + "deep\n").encode()
    with pytest.raises(ParseError, match=r"max_depth=256"):
        parse_markdown(quotes, "q.md")
    assert "deep" in parse_markdown(quotes, "q.md", IngestLimits(max_depth=300)).root.text
    lists = "".join("  " * level + "- item\n" for level in range(200)).encode()
    with pytest.raises(ParseError, match="levels of nesting"):
        parse_markdown(lists, "l.md", IngestLimits(max_depth=100))


@pytest.mark.parametrize(
    "body",
    ["<a" * 5000, "</" * 5000, "<!--x>" * 5000, "<![" * 5000, "<![CDATA[kept out]]>", "<?" * 5000],
)
def test_html_that_made_the_parser_quadratic_or_crash_reads_as_text(body: str) -> None:
    parsed = parse_html(f"<h1>Title</h1><p>before</p>{body}".encode(), "odd.html")
    assert parsed.title == "Title" and "before" in parsed.root.children[0].text
    assert "kept out" not in parsed.root.children[0].text


def test_text_limit_applies_to_plain_text() -> None:
    with pytest.raises(ParseError, match="max_text_chars=100") as caught:
        parse(b"word " * 100, "words.txt", IngestLimits(max_text_chars=100))
    assert caught.value.value == 500


def test_file_size_limit(memory: Memory, tmp_path: Path) -> None:
    path = tmp_path / "big.txt"
    path.write_bytes(b"word " * 1000)
    [result] = memory.ingest(path, scope="kb", limits=IngestLimits(max_file_bytes=1000)).files
    assert result.status == "failed" and "5,000 bytes is over the limit max_file_bytes" in (
        result.error or ""
    )


def test_time_budget_is_checked_between_sections() -> None:
    with pytest.raises(ParseError, match="seconds of parsing is over the limit max_seconds"):
        parse_markdown(manual(3000), "m.md", IngestLimits(max_seconds=1e-9))


_OLD_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_OLD_PAIR = re.compile(r"^([A-Za-z0-9_][\w .-]*?)\s*:\s*(.*)$")


@given(st.text(alphabet=" #\ta\f\u00a0b", max_size=14))
def test_atx_headings_read_as_the_old_regex_did(line: str) -> None:
    old = _OLD_ATX.match(line)
    expected = (len(old.group(1)), (old.group(2) or "").strip()) if old else None
    assert formats._heading(line) == expected


@given(st.text(alphabet=" :a_-.\t\u00a0é", max_size=12))
def test_front_matter_pairs_read_as_the_old_regex_did(line: str) -> None:
    old = _OLD_PAIR.match(line)
    assert formats._pair(line) == ((old.group(1), old.group(2)) if old else None)


def test_limits_parse_from_the_command_line_form() -> None:
    limits = IngestLimits.parse(["max_pdf_pages=20000", "max-seconds=1.5"])
    assert limits.max_pdf_pages == 20000 and limits.max_seconds == 1.5
    for bad in (["max_pages=1"], ["max_pdf_pages"], ["max_pdf_pages=lots"], ["max_depth=0"]):
        with pytest.raises(InvalidInput, match="limit"):
            IngestLimits.parse(bad)


def test_cli_limit_option(tmp_path: Path) -> None:
    pdf = tmp_path / "five.pdf"
    pdf.write_bytes(write_pdf([[f"Page {n} has words on it."] for n in range(5)]))
    db = tmp_path / "cli.db"
    refused = run_cli(db, "ingest", str(pdf), "--scope", "kb", "--limit", "max_pdf_pages=3")
    said = " ".join(refused.stderr.split())  # rich wraps at 80 columns
    assert refused.returncode == 1 and "max_pdf_pages=3" in said
    assert "--limit max_pdf_pages=N" in said
    raised = run_cli(db, "ingest", str(pdf), "--scope", "kb", "--limit", "max_pdf_pages=5")
    assert raised.returncode == 0, raised.stderr
    unknown = run_cli(db, "ingest", str(pdf), "--scope", "kb", "--limit", "pages=5")
    assert unknown.returncode != 0 and "max_pdf_pages" in unknown.stderr


# -- HTTP ------------------------------------------------------------------------------------


def test_an_uploaded_docx_bomb_is_answered_422_naming_the_limit(tmp_path: Path) -> None:
    bomb = bomb_docx(140 * 1024 * 1024)  # over the default 128 MiB
    with serving(tmp_path / "s.db", {"kb": "kb"}) as served, served.as_("kb") as http:
        response = http.post(
            "/documents", params={"filename": "bomb.docx", "scope": "kb"}, content=bomb
        )
        body = response.json()
        assert response.status_code == 422, body
        assert body["error"] == "ParseError" and "max_unzipped_bytes" in body["message"]
        assert isinstance(body["value"], int) and body["value"] > 128 * 1024 * 1024
        unknown = http.post(
            "/documents", params={"filename": "notes.xyz", "scope": "kb"}, content=b"text"
        )
        assert unknown.status_code == 400 and "unknown file type" in unknown.json()["message"]
        good = http.post(
            "/documents", params={"filename": "guide.docx", "scope": "kb"}, content=small_docx()
        )
        assert good.status_code == 201 and good.json()["summary"]["added"] == 1
        listed = http.get("/documents").json()
        assert [(d["source"], d["complete"]) for d in listed] == [("guide.docx", True)]


# -- batched writes ----------------------------------------------------------------------------


class Batches:
    """A `run_write` that counts the transactions it runs (and can stop)."""

    def __init__(self, stop_after: int | None = None) -> None:
        self.count = 0
        self.stop_after = stop_after

    def __call__(self, batch: Callable[[], Any]) -> Any:
        if self.stop_after is not None and self.count == self.stop_after:
            raise Crash("the process died here")
        self.count += 1
        return batch()


class Crash(Exception):
    pass


def single_transaction(memory: Memory, data: bytes, name: str) -> None:
    """The document written with every node in one batch."""
    info = {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    planned = plan_document(
        parse(data, name), scope="kb", source=name, filename=name, file_info=info
    )
    write(memory.store, prepare(memory._tree, planned, owned), batch_nodes=10**9)


@pytest.fixture
def twin_dbs(tmp_path: Path) -> Iterator[tuple[Memory, Memory]]:
    with (
        Memory(tmp_path / "a.db", embedder="hashing", clock=Clock()) as a,
        Memory(tmp_path / "b.db", embedder="hashing", clock=Clock()) as b,
    ):
        yield a, b


def test_batched_ingest_equals_the_single_transaction_result(
    twin_dbs: tuple[Memory, Memory],
) -> None:
    batched, single = twin_dbs
    small = IngestLimits(batch_nodes=7)
    for version in (manual(30), manual(22, repeat="again ") + manual(12)):
        runs = Batches()
        [result] = batched.ingest(
            version, scope="kb", filename="m.md", limits=small, run_write=runs
        ).files
        assert result.status in ("added", "changed") and runs.count == result.batches > 5
        single_transaction(single, version, "m.md")
        assert rows(batched.path) == rows(single.path)
    assert [d.complete for d in batched.docs.list()] == [True]


def test_other_writes_run_between_the_batches(memory: Memory) -> None:
    notes: list[Any] = []

    def between(batch: Callable[[], Any]) -> Any:
        done = batch()
        notes.append(memory.add(f"written between batches {len(notes)}", scope="kb").id)
        return done

    report = memory.ingest(
        manual(40),
        scope="kb",
        filename="m.md",
        limits=IngestLimits(batch_nodes=10),
        run_write=between,
    )
    assert report.files[0].status == "added" and len(notes) == report.files[0].batches
    assert len(memory.nodes(notes)) == len(notes)


def test_a_document_stopped_half_way_is_not_presented_as_complete(
    twin_dbs: tuple[Memory, Memory],
) -> None:
    crashed, clean = twin_dbs
    data = manual(30)
    with pytest.raises(Crash):
        crashed.ingest(
            data,
            scope="kb",
            filename="m.md",
            limits=IngestLimits(batch_nodes=5),
            run_write=Batches(stop_after=2),
        )
    [partial] = crashed.docs.list()
    assert partial.complete is False and 0 < partial.chunks < 31
    root = crashed.get(partial.root_id)
    assert INGESTING in root.metadata
    # The same file again is not "unchanged": it is finished, ids kept.
    [again] = crashed.ingest(data, scope="kb", filename="m.md").files
    assert again.status == "changed"
    [done] = crashed.docs.list()
    assert done.complete is True and done.chunks == 31
    clean.ingest(data, scope="kb", filename="m.md")
    ids = {n.id for n in crashed.store.subtree(partial.root_id)}
    assert ids == {n.id for n in clean.store.subtree(partial.root_id)}
    texts = sorted(
        n.text for n in crashed.store.subtree(partial.root_id) if n.context_type == CHUNK
    )
    assert texts == sorted(
        n.text for n in clean.store.subtree(partial.root_id) if n.context_type == CHUNK
    )


def test_a_second_ingest_of_a_document_being_written_is_refused(memory: Memory) -> None:
    seconds: list[Any] = []

    def meanwhile(batch: Callable[[], Any]) -> Any:
        if not seconds:
            seconds.extend(memory.ingest(manual(3), scope="kb", filename="m.md").files)
        return batch()

    [first] = memory.ingest(manual(3), scope="kb", filename="m.md", run_write=meanwhile).files
    assert first.status == "added"
    assert seconds[0].status == "failed" and "being ingested right now" in seconds[0].error
    [later] = memory.ingest(manual(3), scope="kb", filename="m.md").files
    assert later.status == "unchanged"


def test_a_document_deleted_between_batches_stops_the_ingest(memory: Memory) -> None:
    def deleting(batch: Callable[[], Any]) -> Any:
        done = batch()
        found = memory.docs.list()
        if found:
            memory.docs.forget(found[0].source)
        return done

    limits = IngestLimits(batch_nodes=5)
    [result] = memory.ingest(
        manual(20), scope="kb", filename="m.md", limits=limits, run_write=deleting
    ).files
    assert result.status == "failed" and "deleted or rewritten" in (result.error or "")
    assert memory.docs.list() == []


def test_the_memorys_own_database_is_never_read_as_a_document(tmp_path: Path) -> None:
    db = tmp_path / "notes.md"  # a name a parser would take
    with Memory(db, embedder="hashing") as memory:
        memory.remember("kept")
        for target in (db, tmp_path / "notes.md-wal", tmp_path / "." / "notes.md"):
            target.touch()
            [result] = memory.ingest(target, scope="kb").files
            assert result.status == "failed" and "own database" in (result.error or "")
        assert memory.docs.list() == []
        assert [h.node.text for h in memory.search("kept", record=False)] == ["kept"]
