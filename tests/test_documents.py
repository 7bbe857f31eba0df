"""Document ingestion through the `Memory` facade: re-indexing, pruning,
scopes, globs and cited RAG prompts (parsing is in test_document_parsing).

Every file is real (PDFs from `bench.pdfgen`, DOCX from python-docx) and every
database a real SQLite file under `tmp_path`; the hashing embedder keeps
search offline and deterministic.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from mnemotree import InvalidInput, Memory
from tests.document_helpers import (
    GUIDE_MD,
    by_title,
    ingest_one,
    shape,
    subtree,
    write_report,
)

pytestmark = pytest.mark.both_stores  # every test using the memory fixtures runs on both

# -- re-indexing ------------------------------------------------------------------------

MANUAL_MD = """\
# Install

Run the installer and accept the licence.

## Offline

Copy the bundle first.

# Usage

Call the tool with a file.

# Faq

Ask on the forum.
"""


def leaf_ids(memory: Memory, root_id: str) -> dict[str, tuple[str, int, str]]:
    """Section title → (chunk id, version, text) of its single chunk."""
    return {t: (n.id, n.version, n.text) for t, n in by_title(memory, root_id, "chunk").items()}


def test_reingest_writes_only_the_changed_section(memory: Memory, tmp_path: Path) -> None:
    path = tmp_path / "manual.md"
    path.write_text(MANUAL_MD)
    first = memory.ingest(path, scope="kb")
    assert [(f.status, f.chunks) for f in first.files] == [("added", 4)]
    root_id = first.files[0].root_id
    assert root_id is not None
    before = leaf_ids(memory, root_id)
    section_ids = {n.id for n in subtree(memory, root_id) if n.context_type == "section"}

    path.write_text(MANUAL_MD.replace("a file.", "a file and two flags."))
    second = memory.ingest(path, scope="kb")
    [result] = second.files
    assert (result.status, result.root_id, result.chunks) == ("changed", root_id, 4)
    assert result.removed == 1
    assert result.written == 2  # the new chunk, and the document's file details
    after = leaf_ids(memory, root_id)
    assert {t for t in before if before[t][0] != after[t][0]} == {"Usage"}
    for title in ("Install", "Offline", "Faq"):
        assert after[title] == before[title]  # same id, same version, same text
        assert after[title][1] == 1
    assert after["Usage"][2] == "Call the tool with a file and two flags."
    assert {n.id for n in subtree(memory, root_id) if n.context_type == "section"} == section_ids

    old_id = before["Usage"][0]
    assert memory.find(old_id) is None
    history = memory.history(old_id)
    assert history[-1].op == "delete"
    assert history[-1].node.text == "Call the tool with a file."
    assert memory.get(root_id).metadata["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()

    third = memory.ingest(path, scope="kb")
    assert [(f.status, f.written, f.removed, f.chunks) for f in third.files] == [
        ("unchanged", 0, 0, 4)
    ]
    assert third.summary()["written"] == 0
    assert leaf_ids(memory, root_id) == after


def test_touching_a_file_is_not_a_change(memory: Memory, tmp_path: Path) -> None:
    path = tmp_path / "manual.md"
    path.write_text(MANUAL_MD)
    root_id = ingest_one(memory, path)
    before = [(n.id, n.version, n.text) for n in subtree(memory, root_id)]
    stat = path.stat()
    later = stat.st_mtime_ns + 7_000_000_000
    os.utime(path, ns=(stat.st_atime_ns, later))
    touched = memory.ingest(path, scope="kb")
    assert [(f.status, f.written) for f in touched.files] == [("unchanged", 0)]
    assert memory.get(root_id).metadata["mtime_ns"] == later  # noted for the next run
    assert [(n.id, n.version, n.text) for n in subtree(memory, root_id)] == before
    again = memory.ingest(path, scope="kb")
    assert [f.status for f in again.files] == ["unchanged"]


def test_reverting_a_change_brings_back_the_deleted_chunk_id(
    memory: Memory, tmp_path: Path
) -> None:
    path = tmp_path / "manual.md"
    path.write_text(MANUAL_MD)
    root_id = ingest_one(memory, path)
    original = leaf_ids(memory, root_id)
    path.write_text(MANUAL_MD.replace("Ask on the forum.", "Ask on the mailing list."))
    assert [f.status for f in memory.ingest(path, scope="kb").files] == ["changed"]
    changed = leaf_ids(memory, root_id)
    assert changed["Faq"][0] != original["Faq"][0]

    path.write_text(MANUAL_MD)
    report = memory.ingest(path, scope="kb")
    assert [(f.status, f.error) for f in report.files] == [("changed", None)]
    reverted = leaf_ids(memory, root_id)
    assert reverted["Faq"][0] == original["Faq"][0]
    assert reverted["Faq"][2] == "Ask on the forum."
    assert reverted["Faq"][1] == 2  # a new version after the delete
    assert [v.op for v in memory.history(original["Faq"][0])] == ["delete", "current"]
    assert memory.find(changed["Faq"][0]) is None
    assert {t: v for t, v in reverted.items() if t != "Faq"} == {
        t: v for t, v in original.items() if t != "Faq"
    }


def test_forgotten_document_can_be_ingested_again(memory: Memory, tmp_path: Path) -> None:
    path = tmp_path / "manual.md"
    path.write_text(MANUAL_MD)
    root_id = ingest_one(memory, path)
    ids = [n.id for n in subtree(memory, root_id)]
    assert memory.docs.forget(path) == [str(path.resolve())]
    assert memory.docs.list() == []
    assert all(memory.find(i) is None for i in ids)
    assert memory.history(root_id)[-1].op == "delete"
    assert memory.docs.forget(path) == []

    again = memory.ingest(path, scope="kb")
    assert [(f.status, f.root_id, f.chunks) for f in again.files] == [("added", root_id, 4)]
    assert [n.id for n in subtree(memory, root_id)] == ids


def test_bytes_are_ingested_under_their_file_name(memory: Memory) -> None:
    data = b"# Notes\n\nRemember the milk.\n"
    report = memory.ingest(data, filename="notes.md", scope="kb")
    [result] = report.files
    assert (result.status, result.path) == ("added", "notes.md")
    assert result.root_id is not None
    root = memory.get(result.root_id)
    assert (root.context_value, root.context_name, root.text) == ("notes.md", "notes.md", "Notes")
    assert root.metadata["size"] == len(data)
    # The single `# Notes` is the title: its text hangs under the document itself.
    assert shape(memory, root.id) == [("chunk", "Remember the milk.", [])]
    # Any bytes-like object, as a caller may hold one: beyond the annotation.
    same = memory.ingest(bytearray(data), filename="notes.md", scope="kb")  # type: ignore[arg-type]
    assert [f.status for f in same.files] == ["unchanged"]
    edited = memory.ingest(data + b"\nAnd eggs.\n", filename="notes.md", scope="kb")
    assert [f.status for f in edited.files] == ["changed"]
    assert [d.source for d in memory.docs.list()] == ["notes.md"]
    assert memory.docs.forget("notes.md") == ["notes.md"]


def test_bytes_need_a_file_name_and_paths_refuse_one(memory: Memory, tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="filename"):
        memory.ingest(b"# Notes\n\nhello", scope="kb")
    with pytest.raises(InvalidInput, match="filename"):
        memory.ingest(b"# Notes\n\nhello", filename="  ", scope="kb")
    path = tmp_path / "notes.md"
    path.write_text("hello")
    with pytest.raises(InvalidInput, match="filename"):
        memory.ingest(path, filename="other.md", scope="kb")
    assert memory.docs.list() == [] and memory.roots() == []


# -- prune -----------------------------------------------------------------------------


def test_prune_forgets_documents_whose_files_are_gone(memory: Memory, tmp_path: Path) -> None:
    folder = tmp_path / "kb"
    (folder / "sub").mkdir(parents=True)
    for name in ("a.md", "b.md", "sub/c.md"):
        (folder / name).write_text(f"# {name}\n\nText of {name}.\n")
    elsewhere = tmp_path / "loose.md"
    elsewhere.write_text("# Loose\n\nNot in the folder.\n")
    memory.ingest(folder, scope="kb")
    memory.ingest(folder, scope="other")
    memory.ingest(elsewhere, scope="kb")
    assert len(memory.docs.list(["kb"])) == 4

    (folder / "b.md").unlink()
    (folder / "sub" / "c.md").unlink()
    elsewhere.unlink()
    kept = memory.ingest(folder, scope="kb")
    assert kept.pruned == []
    assert {f.status for f in kept.files} == {"unchanged"}
    assert len(memory.docs.list(["kb"])) == 4

    gone = memory.ingest(folder, scope="kb", prune=True)
    resolved = folder.resolve()
    assert sorted(gone.pruned) == [str(resolved / "b.md"), str(resolved / "sub" / "c.md")]
    assert gone.summary()["pruned"] == 2
    remaining = sorted(d.source for d in memory.docs.list(["kb"]))
    assert remaining == [str(resolved / "a.md"), str(elsewhere.resolve())]  # outside: kept
    assert len(memory.docs.list(["other"])) == 3  # another scope is not pruned
    assert not any(n.context_value.endswith("b.md") for n in memory.roots() if n.scope == "kb")


# -- scopes ----------------------------------------------------------------------------


def test_every_node_of_a_document_has_its_scope(memory: Memory, tmp_path: Path) -> None:
    guide = tmp_path / "guide.md"
    guide.write_text(GUIDE_MD)
    secret = tmp_path / "secret.md"
    secret.write_text("# Vault\n\nThe vault kit install code is 4711.\n")
    guide_id = ingest_one(memory, guide, scope="kb")
    secret_id = ingest_one(memory, secret, scope="private")
    report_id = ingest_one(memory, write_report(tmp_path), scope="kb")
    kb_ids = {n.id for r in (guide_id, report_id) for n in subtree(memory, r)}
    private_ids = {n.id for n in subtree(memory, secret_id)}
    assert {n.scope for r in (guide_id, report_id) for n in subtree(memory, r)} == {"kb"}
    assert {n.scope for n in subtree(memory, secret_id)} == {"private"}

    for query in ("install the kit", "vault code", "moss cover results"):
        assert memory.search(query, scopes=["nobody"], record=False) == []
        in_kb = memory.search(query, scopes=["kb"], limit=50, record=False)
        assert {h.node.id for h in in_kb} <= kb_ids
        assert all(a.scope == "kb" for h in in_kb for a in h.ancestry)
        in_private = memory.search(query, scopes=["private"], limit=50, record=False)
        assert {h.node.id for h in in_private} <= private_ids
    assert memory.search("vault code", scopes=["private"], record=False)

    answer = memory.ask("vault kit install code", scopes=["kb"], limit=10)
    assert answer.sources
    assert {s.node_id for s in answer.sources} <= kb_ids
    assert {s.file for s in answer.sources} <= {"guide.md", "report.pdf"}
    assert "4711" not in answer.system_prompt
    private = memory.ask("vault kit install code", scopes=["private"], limit=10)
    assert {s.file for s in private.sources} == {"secret.md"}
    assert [d.source for d in memory.docs.list(["private"])] == [str(secret.resolve())]


def test_same_file_in_two_scopes_is_two_documents(memory: Memory, tmp_path: Path) -> None:
    path = tmp_path / "manual.md"
    path.write_text(MANUAL_MD)
    kb = ingest_one(memory, path, scope="kb")
    team = ingest_one(memory, path, scope="team")
    assert kb != team
    assert not {n.id for n in subtree(memory, kb)} & {n.id for n in subtree(memory, team)}
    assert memory.docs.forget(path, scopes=["kb"]) == [str(path.resolve())]
    assert [(d.scope, d.root_id) for d in memory.docs.list()] == [("team", team)]


# -- globs -----------------------------------------------------------------------------


def test_include_and_exclude_globs_pick_files_in_a_directory(db_path: Path, tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    for name in (
        "a.md",
        "b.txt",
        "drafts/c.md",
        "drafts/d.html",
        ".hidden.md",
        ".git/x.md",
        "image.png",
        "data.csv",
    ):
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# {name}\n\nContent of {name}.\n")

    def picked(**globs: list[str]) -> list[str]:
        with Memory(db_path, embedder="hashing") as m:
            scope = "s" + str(len(m.docs.list()))
            report = m.ingest(folder, scope=scope, **globs)  # type: ignore[arg-type]
        assert report.failed == []  # unknown types and hidden files are skipped silently
        assert {f.status for f in report.files} <= {"added"}
        return sorted(Path(f.path).relative_to(folder.resolve()).as_posix() for f in report.files)

    assert picked() == ["a.md", "b.txt", "drafts/c.md", "drafts/d.html"]
    assert picked(include=["*.md"]) == ["a.md", "drafts/c.md"]
    assert picked(exclude=["drafts/*"]) == ["a.md", "b.txt"]
    assert picked(include=["*.md"], exclude=["drafts/*"]) == ["a.md"]
    assert picked(include=["drafts/*", "b.txt"], exclude=["*.html"]) == ["b.txt", "drafts/c.md"]
    assert picked(include=["*.pdf"]) == []


# -- citations -------------------------------------------------------------------------


def test_ask_cites_pdf_pages_and_markdown_sections(memory: Memory, tmp_path: Path) -> None:
    guide = tmp_path / "guide.md"
    guide.write_text(GUIDE_MD)
    ingest_one(memory, guide)
    report_id = ingest_one(memory, write_report(tmp_path))
    memory.remember("The kit was bought in March.", scope="kb")
    question = "Download the kit: moss cover, cores monthly, kit bought?"
    answer = memory.ask(question, scopes=["kb"], limit=10)

    assert answer.answer is None
    prompt = answer.system_prompt
    # Each source is headed by its file, sections and pages.
    assert "--- [report.pdf > Results, p. 3] ---\nMoss cover increased sharply." in prompt
    assert "--- [report.pdf > Methods > Sampling, pp. 2-3] ---\nCores were taken monthly." in prompt
    assert "--- [Field Guide (guide.md) > Install] ---\nDownload the kit." in prompt
    assert "## Relevant documents" in prompt
    assert "## Memory\n- The kit was bought in March." in prompt
    assert prompt.index("## Memory") < prompt.index("## Relevant documents")

    headers = {s.header: s for s in answer.sources}
    results = headers["report.pdf > Results, p. 3"]
    assert (results.file, results.page_start, results.page_end) == ("report.pdf", 3, 3)
    assert results.section == ["Results"]
    sampling = headers["report.pdf > Methods > Sampling, pp. 2-3"]
    assert (sampling.page_start, sampling.page_end, sampling.section) == (
        2,
        3,
        ["Methods", "Sampling"],
    )
    install = headers["Field Guide (guide.md) > Install"]
    assert (install.page_start, install.page_end, install.section) == (None, None, ["Install"])
    for source in answer.sources:  # only chunks are evidence, never headings or titles
        node = memory.get(source.node_id)
        assert node.context_type == "chunk"
        assert node.text == source.text
        assert f"--- [{source.header}] ---\n{source.text}" in prompt
    assert report_id in {a.id for s in answer.sources for a in memory.ancestors(s.node_id)}
    assert [m.node.text for m in answer.memories] == ["The kit was bought in March."]

    system, user = answer.rag_messages
    assert system["role"] == "system" and user["role"] == "user"
    assert user["content"].endswith("---\nQuestion: " + question)
    assert "--- [report.pdf > Results, p. 3] ---" in user["content"]
    assert "--- [memory] ---\n- The kit was bought in March." in user["content"]
    assert "--- [report.pdf" not in system["content"]


def test_ask_limits_sources_and_cites_titles_for_top_level_text(
    memory: Memory, tmp_path: Path
) -> None:
    guide = tmp_path / "guide.md"
    guide.write_text(GUIDE_MD)
    ingest_one(memory, guide)
    answer = memory.ask("read this first", scopes=["kb"], limit=1)
    assert len(answer.sources) == 1
    [source] = answer.sources
    assert source.header == "Field Guide (guide.md)"  # no section: the document itself
    assert source.section == []
    assert "--- [Field Guide (guide.md)] ---\nRead this first." in answer.system_prompt
    assert answer.to_dict()["sources"][0]["id"] == source.node_id


def test_a_heading_word_finds_the_chunks_under_it(memory: Memory, tmp_path: Path) -> None:
    guide = tmp_path / "guide.md"
    guide.write_text(
        "# Guide\n\nWelcome.\n\n## Troubleshooting\n\nRestart the daemon and read its log.\n"
        "\n## Colours\n\nThe palette has twelve shades.\n"
    )
    memory.ingest(guide, scope="kb")
    hits = memory.search("troubleshooting", scopes=["kb"], record=False)
    chunk = next(h for h in hits if h.node.context_type == "chunk")
    # The chunk never says "troubleshooting": its heading (name) and breadcrumb do.
    assert chunk.node.text == "Restart the daemon and read its log."
    assert chunk.parts["keyword"] > 0.0
    assert [a.text for a in chunk.ancestry] == ["Troubleshooting", "Guide"]
