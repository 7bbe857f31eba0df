"""Bad files in an ingest batch, and the document commands of the real CLI.

A file that cannot be read is reported as failed with an error naming it,
leaves nothing in the database, and does not stop the rest of the batch.
"""

from __future__ import annotations

import io
import json
import os
import socket
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pypdf
import pytest

from mnemotree import Memory
from mnemotree.bench.pdfgen import Bookmark, write_pdf
from mnemotree.ingest.pipeline import FileResult, IngestReport
from tests.cli_runner import run_cli


@pytest.fixture
def memory(db_path: Path) -> Iterator[Memory]:
    with Memory(db_path, embedder="hashing") as m:
        yield m


GOOD_MD = "# Install\n\nRun the installer and accept the licence.\n\n# Usage\n\nCall the tool.\n"
PDF_PAGES = [
    ["Introduction", "This survey covers alpine meadows."],
    ["Methods", "Soil was sampled at ten sites."],
    ["Results", "Moss cover increased sharply."],
]
PDF_OUTLINE = [Bookmark("Introduction", 0), Bookmark("Methods", 1), Bookmark("Results", 2)]


def good_pdf() -> bytes:
    return write_pdf(PDF_PAGES, PDF_OUTLINE)


def encrypted_pdf() -> bytes:
    reader = pypdf.PdfReader(io.BytesIO(good_pdf()))
    writer = pypdf.PdfWriter()
    for page in reader.pages:
        writer.add_page(page)
    writer.encrypt("secret")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def truncated_pdf() -> bytes:
    data = good_pdf()
    return data[: len(data) // 2]


def result_for(report: IngestReport, path: Path) -> FileResult:
    wanted = str(path.absolute())
    [found] = [f for f in report.files if f.path in (wanted, str(path.resolve()))]
    return found


def assert_nothing_from(memory: Memory, path: Path) -> None:
    """No document (nor any node) in the database comes from `path`."""
    sources = {str(path.absolute()), str(path.resolve())}
    assert not any(d.source in sources for d in memory.docs.list())
    for node in memory.store.iter_nodes():
        assert node.context_value not in sources
        assert node.metadata.get("file_path") not in sources


def source_of(path: Path) -> str:
    """The key a path is reported under: resolved if it exists, else absolute."""
    try:
        return str(path.resolve() if path.exists() else path.absolute())
    except OSError:  # a name too long for the system cannot even be looked at
        return str(path.absolute())


def ingest_with_good_files(memory: Memory, folder: Path, bad: Path) -> IngestReport:
    """`bad` between two good files, in one batch; the good ones must go in."""
    first = folder / "first.md"
    first.write_text(GOOD_MD)
    last = folder / "last.pdf"
    last.write_bytes(good_pdf())
    report = memory.ingest([first, bad, last], scope="kb")
    assert [f.path for f in report.files] == [
        str(first.resolve()),
        source_of(bad),
        str(last.resolve()),
    ]
    assert (result_for(report, first).status, result_for(report, first).chunks) == ("added", 2)
    assert (result_for(report, last).status, result_for(report, last).chunks) == ("added", 3)
    assert sorted(d.source for d in memory.docs.list(["kb"])) == sorted(
        [str(first.resolve()), str(last.resolve())]
    )
    assert report.summary()["failed"] == 1
    return report


BAD_FILES: dict[str, tuple[str, Callable[[], bytes | None], str]] = {
    # case: (file name, its bytes (None: do not create it), words in the error)
    "zero bytes": ("empty.md", lambda: b"", "empty"),
    "binary garbage": ("garbage.md", lambda: bytes(range(256)) * 8, "binary"),
    "not utf-8": ("latin.txt", lambda: "caf\xe9 cr\xe8me".encode("latin-1"), "UTF-8"),
    "blank text": ("blank.txt", lambda: b" \n\t\n ", "empty"),
    "zero-byte pdf": ("empty.pdf", lambda: b"", "empty"),
    "encrypted pdf": ("locked.pdf", encrypted_pdf, "encrypted"),
    "truncated pdf": ("broken.pdf", truncated_pdf, "not a readable PDF"),
    "text named pdf": ("fake.pdf", lambda: b"just some text", "not a readable PDF"),
    "pdf without text": ("scan.pdf", lambda: write_pdf([[], []]), "no extractable text"),
    "garbage docx": ("report.docx", lambda: b"PK\x03\x04 not really a zip", "not a readable DOCX"),
    "unknown extension": ("notes.xyz", lambda: b"# hello\n\nworld", "unknown file type"),
    "missing file": ("missing.md", lambda: None, "no such file"),
}


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_a_bad_file_fails_alone_and_leaves_nothing(
    memory: Memory, tmp_path: Path, case: str
) -> None:
    name, make, words = BAD_FILES[case]
    bad = tmp_path / name
    data = make()
    if data is not None:
        bad.write_bytes(data)
    report = ingest_with_good_files(memory, tmp_path, bad)
    result = result_for(report, bad)
    assert (result.status, result.root_id, result.chunks, result.written) == (
        "failed",
        None,
        0,
        0,
    )
    assert result.error is not None
    assert name in result.error  # the error names the file
    assert words.lower() in result.error.lower()
    assert [f.path for f in report.failed] == [result.path]
    assert_nothing_from(memory, bad)


def test_an_unreadable_file_fails_alone(memory: Memory, tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root can read a file whatever its mode")
    bad = tmp_path / "secret.md"
    bad.write_text(GOOD_MD)
    bad.chmod(0)
    try:
        report = ingest_with_good_files(memory, tmp_path, bad)
    finally:
        bad.chmod(0o644)
    result = result_for(report, bad)
    assert result.status == "failed"
    assert result.error is not None and "secret.md" in result.error
    assert "cannot read" in result.error
    assert_nothing_from(memory, bad)


def test_a_file_that_cannot_be_opened_fails_alone(
    memory: Memory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A socket named .md: it exists but is not a regular file (reading a FIFO
    or device would block), so it is refused before any read."""
    monkeypatch.chdir(tmp_path)  # a short relative name: socket paths are limited to ~100 bytes
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind("socket.md")
        bad = tmp_path / "socket.md"
        report = ingest_with_good_files(memory, tmp_path, bad)
    result = result_for(report, bad)
    assert result.status == "failed"
    assert result.error is not None
    assert str(bad.resolve()) in result.error and "not a regular file" in result.error
    assert_nothing_from(memory, bad)


def test_a_file_that_breaks_keeps_its_last_good_version(memory: Memory, tmp_path: Path) -> None:
    path = tmp_path / "report.pdf"
    path.write_bytes(good_pdf())
    [added] = memory.ingest(path, scope="kb").files
    assert added.root_id is not None
    before = [(n.id, n.version, n.text) for n in memory.serialize(added.root_id)]
    path.write_bytes(truncated_pdf())
    [broken] = memory.ingest(path, scope="kb").files
    assert broken.status == "failed"
    assert broken.error is not None and "report.pdf" in broken.error
    assert [(n.id, n.version, n.text) for n in memory.serialize(added.root_id)] == before
    [info] = memory.docs.list()
    assert (info.root_id, info.chunks) == (added.root_id, 3)
    path.write_bytes(good_pdf())  # fixed again: same content as stored
    [fixed] = memory.ingest(path, scope="kb").files
    assert (fixed.status, fixed.written) == ("unchanged", 0)


def test_bad_bytes_fail_naming_their_file_name(memory: Memory) -> None:
    report = memory.ingest(b"", filename="notes.md", scope="kb")
    [result] = report.files
    assert (result.status, result.path) == ("failed", "notes.md")
    assert result.error is not None and "notes.md" in result.error
    unknown = memory.ingest(b"hello", filename="notes.bin", scope="kb")
    assert unknown.files[0].status == "failed"
    assert unknown.files[0].error is not None and "notes.bin" in unknown.files[0].error
    assert memory.docs.list() == [] and memory.roots() == []


def test_a_directory_skips_unknown_and_hidden_files(memory: Memory, tmp_path: Path) -> None:
    folder = tmp_path / "kb"
    (folder / ".cache").mkdir(parents=True)
    (folder / "guide.md").write_text(GOOD_MD)
    (folder / "photo.jpg").write_bytes(b"\xff\xd8\xff\xe0 not text")
    (folder / "Makefile").write_text("all:\n")
    (folder / ".draft.md").write_text(GOOD_MD)
    (folder / ".cache" / "old.md").write_text(GOOD_MD)
    report = memory.ingest(folder, scope="kb")
    assert [(Path(f.path).name, f.status) for f in report.files] == [("guide.md", "added")]
    again = memory.ingest([folder, folder / "guide.md"], scope="kb")  # named twice: read once
    assert [f.status for f in again.files] == ["unchanged"]


def test_a_nul_byte_deep_in_a_file_fails_naming_the_file(memory: Memory, tmp_path: Path) -> None:
    bad = tmp_path / "late-nul.md"
    bad.write_text("# Big\n\n" + "word " * 2000 + "\x00 tail\n")
    report = ingest_with_good_files(memory, tmp_path, bad)
    result = result_for(report, bad)
    assert result.status == "failed"
    assert_nothing_from(memory, bad)
    assert result.error is not None and "late-nul.md" in result.error


def test_a_path_too_long_for_the_system_fails_alone(memory: Memory, tmp_path: Path) -> None:
    bad = tmp_path / ("x" * 300 + ".md")
    report = ingest_with_good_files(memory, tmp_path, bad)
    result = result_for(report, bad)
    assert result.status == "failed"
    assert result.error is not None and bad.name in result.error


# -- the command line ------------------------------------------------------------------


def run(db: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`python -m mnemotree --db DB --embedder hashing ARGS...`."""
    return run_cli(db, *args, cwd=cwd, embedder="hashing")


def run_json(db: Path, *args: str, cwd: Path | None = None, code: int = 0) -> Any:
    proc = run(db, *args, "--json", cwd=cwd)
    assert proc.returncode == code, (args, proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr, proc.stderr
    return json.loads(proc.stdout)


def squash(text: str) -> str:
    """Without whitespace, so that rich's line wrapping cannot hide a name."""
    return "".join(text.split())


def test_cli_document_round_trip(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    folder = tmp_path / "kb"
    folder.mkdir()
    (folder / "guide.md").write_text(GOOD_MD)
    (folder / "report.pdf").write_bytes(good_pdf())
    (folder / "skip.txt").write_text("Not wanted.")
    guide, report = str((folder / "guide.md").resolve()), str((folder / "report.pdf").resolve())

    first = run(db, "ingest", str(folder), "--scope", "kb", "--exclude", "*.txt")
    assert first.returncode == 0, first.stderr
    assert "2 added, 0 changed, 0 unchanged, 0 failed; 5 chunks" in first.stdout

    again = run_json(db, "ingest", str(folder), "--scope", "kb", "--include", "*.md")
    assert again["summary"] == {
        "added": 0,
        "changed": 0,
        "unchanged": 1,
        "failed": 0,
        "pruned": 0,
        "chunks": 2,
        "written": 0,
    }
    assert [(f["path"], f["status"]) for f in again["files"]] == [(guide, "unchanged")]

    (folder / "bad.xyz").write_text("what am I?")
    failing = run(db, "ingest", str(folder / "bad.xyz"), str(folder / "skip.txt"), "--scope", "kb")
    assert failing.returncode == 1
    assert "Traceback" not in failing.stderr
    assert "bad.xyz" in squash(failing.stderr) and "unknownfiletype" in squash(failing.stderr)
    assert "1 added, 0 changed, 0 unchanged, 1 failed" in failing.stdout
    failed_json = run_json(db, "ingest", str(folder / "bad.xyz"), "--scope", "kb", code=1)
    assert failed_json["summary"]["failed"] == 1
    assert "bad.xyz" in failed_json["files"][0]["error"]

    docs = run_json(db, "docs")
    assert sorted((d["source"], d["scope"], d["document_type"], d["chunks"]) for d in docs) == [
        (guide, "kb", "md", 2),
        (report, "kb", "pdf", 3),
        (str((folder / "skip.txt").resolve()), "kb", "txt", 1),
    ]
    pdf_doc = next(d for d in docs if d["source"] == report)
    assert (pdf_doc["pages"], pdf_doc["title"]) == (3, "report")
    assert run_json(db, "docs", "--scope", "elsewhere") == []
    table = run(db, "docs")
    assert table.returncode == 0 and "kb: 3 files, 6 chunks" in table.stdout

    question = "How do I run the installer?"
    answer = run_json(db, "ask", question, "--scope", "kb", "--limit", "2")
    assert answer["answer"] is None
    assert answer["question"] == question
    headers = [s["header"] for s in answer["sources"]]
    # The guide's title is its first heading, "Install".
    assert "Install (guide.md) > Install" in headers and len(headers) <= 2
    assert "--- [Install (guide.md) > Install] ---\nRun the installer" in answer["system_prompt"]
    assert answer["rag_messages"][1]["content"].endswith("---\nQuestion: " + question)
    moss = run_json(db, "ask", "moss cover results", "--scope", "kb")
    moss_block = "--- [report.pdf > Results, p. 3] ---\nMoss cover increased sharply."
    assert moss_block in moss["system_prompt"]
    assert run_json(db, "ask", question, "--scope", "elsewhere")["sources"] == []
    with Memory(db, embedder="hashing") as memory:  # cited ids are real chunks
        for source in answer["sources"] + moss["sources"]:
            node = memory.get(source["id"])
            assert (node.context_type, node.text) == ("chunk", source["text"])

    # Removing a file and pruning the folder forgets it.
    (folder / "skip.txt").unlink()
    pruned = run(db, "ingest", str(folder), "--scope", "kb", "--exclude", "*.xyz", "--prune")
    assert pruned.returncode == 0, pruned.stderr
    assert "pruned" in pruned.stdout and "skip.txt" in squash(pruned.stdout)

    forgot = run_json(db, "forget-doc", "kb/guide.md", "--scope", "kb", cwd=tmp_path)
    assert forgot == {"forgotten": [guide]}
    assert [d["source"] for d in run_json(db, "docs")] == [report]
    nothing = run(db, "forget-doc", "kb/guide.md", cwd=tmp_path)
    assert nothing.returncode == 1
    assert "no ingested document" in nothing.stderr
    wrong_scope = run(db, "forget-doc", report, "--scope", "elsewhere")
    assert wrong_scope.returncode == 1
    folder_gone = run(db, "forget-doc", str(folder))
    assert folder_gone.returncode == 0, folder_gone.stderr
    assert "forgot" in folder_gone.stdout and "report.pdf" in squash(folder_gone.stdout)
    assert run_json(db, "docs") == []


def test_cli_ingest_needs_a_scope_and_a_path(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    (tmp_path / "guide.md").write_text(GOOD_MD)
    no_scope = run(db, "ingest", str(tmp_path / "guide.md"))
    assert no_scope.returncode == 2 and "--scope" in no_scope.stderr
    no_path = run(db, "ingest", "--scope", "kb")
    assert no_path.returncode == 2
    missing = run(db, "ingest", str(tmp_path / "nope.md"), "--scope", "kb")
    assert missing.returncode == 1
    assert "nope.md" in squash(missing.stderr) and "Traceback" not in missing.stderr
