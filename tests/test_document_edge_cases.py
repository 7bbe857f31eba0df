"""Document ingestion at its edges: repeated headings, damaged files, moved
documents, notes added under documents, links, odd arguments, odd outlines."""

from __future__ import annotations

import io
import os
import zipfile
from pathlib import Path

import docx
import pytest

from mnemotree import InvalidInput, InvalidOperation, Memory
from mnemotree.bench.pdfgen import Bookmark, write_pdf
from mnemotree.ingest.write import prepare
from mnemotree.model import NewNode
from mnemotree.treesync import Planned


def titles(memory: Memory, node_id: str) -> list[tuple[str, str]]:
    """(context_type, text) of every node under `node_id`, in reading order."""
    out = []
    for child in memory.children(node_id):
        out.append((child.context_type, child.text))
        out.extend(titles(memory, child.id))
    return out


def test_repeated_headings_get_their_own_ids(memory: Memory, tmp_path: Path) -> None:
    # The second "Notes" must not take the id of the "2" section under the first.
    path = tmp_path / "notes.md"
    path.write_text("# Notes\n\nfirst\n\n## 2\n\ntwo\n\n# Notes\n\nsecond\n\n# Notes\n\nfirst\n")
    [result] = memory.ingest(path, scope="kb").files
    assert result.status == "added", result.error
    assert [t for _, t in titles(memory, result.root_id or "")] == [
        "Notes",
        "first",
        "2",
        "two",
        "Notes",
        "second",
        "Notes",
        "first",
    ]
    path.write_text("# Notes\n\nfirst\n\n## 2\n\ntwo!\n\n# Notes\n\nsecond\n\n# Notes\n\nfirst\n")
    [again] = memory.ingest(path, scope="kb").files
    assert (again.status, again.written) == ("changed", 2)  # the new chunk and the root


def test_a_plan_repeating_an_id_is_refused(memory: Memory) -> None:
    twins = [Planned("a", NewNode("1")), Planned("a", NewNode("2"))]
    plan = Planned("doc:x", NewNode("Doc"), twins)
    with pytest.raises(InvalidOperation, match="twice"):
        prepare(memory._tree, plan, lambda _: True)
    assert memory.find("doc:x") is None


def damaged_docx() -> bytes:
    """A real DOCX whose main part's compressed bytes are scrambled."""
    document = docx.Document()
    document.add_heading("Plan", 1)
    document.add_paragraph("Ship the widget. " * 200)
    buffer = io.BytesIO()
    document.save(buffer)
    data = bytearray(buffer.getvalue())
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as archive:
        info = archive.getinfo("word/document.xml")
    start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    for i in range(start + 10, start + min(info.compress_size, 400)):
        data[i] ^= 0x5A
    return bytes(data)


def test_a_damaged_docx_fails_alone(memory: Memory, tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n\nalpha\n")
    (tmp_path / "b.docx").write_bytes(damaged_docx())
    (tmp_path / "c.md").write_text("# C\n\ngamma\n")
    report = memory.ingest(tmp_path, scope="kb")
    assert [(Path(f.path).name, f.status) for f in report.files] == [
        ("a.md", "added"),
        ("b.docx", "failed"),
        ("c.md", "added"),
    ]
    assert "b.docx" in (report.files[1].error or "")


def test_a_document_moved_under_a_space_stays_there_when_its_file_changes(
    memory: Memory, tmp_path: Path
) -> None:
    path = tmp_path / "a.md"
    path.write_text("# A\n\nalpha\n\n## B\n\nbeta\n")
    root_id = memory.ingest(path, scope="kb").files[0].root_id or ""
    space = memory.add("Projects", scope="kb")
    memory.move(root_id, parent=space.id)
    path.write_text("# A\n\nalpha changed\n\n## B\n\nbeta\n")
    assert memory.ingest(path, scope="kb").files[0].status == "changed"
    moved = memory.get(root_id)
    assert moved.parent_id == space.id
    assert {n.root_id for n in memory.store.subtree(root_id)} == {space.id}
    assert [t for _, t in titles(memory, root_id)] == ["alpha changed", "B", "beta"]


def test_notes_added_under_a_document_survive_a_reingest(memory: Memory, tmp_path: Path) -> None:
    path = tmp_path / "a.md"
    path.write_text("# A\n\nalpha\n\n## B\n\nbeta\n")
    root_id = memory.ingest(path, scope="kb").files[0].root_id or ""
    note = memory.append_child(root_id, "my note: beta matters for Q3")
    path.write_text("# A\n\nalpha\n\n## B\n\nbeta changed\n")
    assert memory.ingest(path, scope="kb").files[0].status == "changed"
    assert memory.get(note.id).parent_id == root_id
    keys = [c.order_key for c in memory.children(root_id)]
    assert len(set(keys)) == len(keys)  # sibling keys stay unique
    assert memory.children(root_id)[-1].id == note.id  # after the document's own nodes


def test_a_link_and_its_target_are_forgotten_separately(memory: Memory, tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "real.md").write_text("# Real\n\nreal text\n")
    os.symlink(folder / "real.md", folder / "alias.md")
    report = memory.ingest(folder, scope="kb")
    assert sorted(Path(f.path).name for f in report.files) == ["alias.md", "real.md"]
    assert [f.status for f in memory.ingest(folder / "alias.md", scope="kb").files] == ["unchanged"]
    assert memory.docs.forget(folder / "alias.md") == [str(folder / "alias.md")]
    assert [Path(d.source).name for d in memory.docs.list()] == ["real.md"]


@pytest.mark.parametrize("source", [123, None, [None], "", [""]])
def test_odd_sources_are_typed_errors(memory: Memory, source: object) -> None:
    with pytest.raises(InvalidInput):
        memory.ingest(source, scope="kb")  # type: ignore[arg-type]


def test_a_glob_given_as_one_string_is_one_glob(memory: Memory, tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n\nalpha\n")
    (tmp_path / "b.txt").write_text("beta")
    report = memory.ingest(tmp_path, scope="kb", exclude="*.txt")
    assert [Path(f.path).name for f in report.files] == ["a.md"]
    with pytest.raises(InvalidInput, match="include"):
        memory.ingest(tmp_path, scope="kb", include=[3])  # type: ignore[list-item]


def test_errors_name_the_whole_path(memory: Memory, tmp_path: Path) -> None:
    for folder in ("one", "two"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "README.md").write_text("")
    report = memory.ingest(tmp_path, scope="kb")
    errors = sorted(f.error or "" for f in report.failed)
    assert len(errors) == 2
    assert str(tmp_path / "one" / "README.md") in errors[0]
    assert str(tmp_path / "two" / "README.md") in errors[1]


def test_a_file_that_became_a_folder_is_pruned(memory: Memory, tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "guide.md").write_text("# Guide\n\ntext\n")
    memory.ingest(folder, scope="kb")
    (folder / "guide.md").unlink()
    (folder / "guide.md").mkdir()
    (folder / "guide.md" / "part1.md").write_text("# Part\n\nmore\n")
    report = memory.ingest(folder, scope="kb", prune=True)
    assert report.pruned == [str(folder / "guide.md")]
    assert [Path(d.source).name for d in memory.docs.list()] == ["part1.md"]


def test_scopes_and_names_with_separator_characters_stay_apart(memory: Memory) -> None:
    # A scope can no longer hold a control character, so ("t\x1fb", "c.md") and
    # ("t", "b\x1fc.md") cannot meet; names still may hold one.
    with pytest.raises(InvalidInput, match="control character"):
        memory.ingest(b"# C\n\nfrom t-b\n", filename="c.md", scope="t\x1fb")
    memory.ingest(b"# C\n\nfrom t-b\n", filename="c.md", scope="t|b")
    [other] = memory.ingest(b"# C\n\nfrom t\n", filename="b\x1fc.md", scope="t").files
    assert other.status == "added"
    assert sorted(d.scope for d in memory.docs.list()) == ["t", "t|b"]


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("script.html", b"<html><body><script>var x = 1;</script></body></html>"),
        ("front.md", b"---\ntitle: Only front matter\n---\n"),
        ("heading.md", b"# Just a heading\n"),
    ],
)
def test_a_file_without_text_is_refused(memory: Memory, name: str, data: bytes) -> None:
    [result] = memory.ingest(data, filename=name, scope="kb").files
    assert result.status == "failed"
    assert result.error == f"{name} has no text to index"
    assert memory.docs.list() == []


def test_a_fifo_is_refused_without_reading(memory: Memory, tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.md")
    [result] = memory.ingest(tmp_path / "pipe.md", scope="kb").files
    assert result.status == "failed" and "not a regular file" in (result.error or "")


@pytest.mark.parametrize("limit", [0, -1, 1001, True])
def test_ask_names_a_bad_limit(memory: Memory, limit: int) -> None:
    with pytest.raises(InvalidInput, match=f"got {limit!r}"):
        memory.ask("anything", limit=limit)


def test_pdf_bookmarks_whose_titles_are_numbered_or_missing(memory: Memory) -> None:
    pages = [
        ["Alpha", "alpha body"],  # "Hidden" shares this page but is never printed
        [
            "Introduction",
            "We explain our Methods later.",
            "intro body",
            "2. Methods",
            "methods body",
        ],
    ]
    outline = [
        Bookmark("Alpha", 0),
        Bookmark("Hidden", 0),
        Bookmark("Introduction", 1),
        Bookmark("Methods", 1),
    ]
    [result] = memory.ingest(write_pdf(pages, outline), filename="r.pdf", scope="kb").files
    sections = {
        c.text: " ".join(g.text for g in memory.children(c.id)).split()
        for c in memory.children(result.root_id or "")
    }
    assert sections["Alpha"] == ["alpha", "body"]
    assert sections["Hidden"] == []
    assert sections["Introduction"] == "We explain our Methods later. intro body".split()
    assert sections["Methods"] == ["methods", "body"]


def test_html_blocks_inside_a_heading_are_part_of_it(memory: Memory) -> None:
    data = b"<h1>Doc</h1><p>intro</p><h2><div>Setup</div></h2><p>install it</p>"
    [result] = memory.ingest(data, filename="p.html", scope="kb").files
    assert titles(memory, result.root_id or "") == [
        ("chunk", "intro"),
        ("section", "Setup"),
        ("chunk", "install it"),
    ]


def test_markdown_fences_setext_and_front_matter_lists(memory: Memory) -> None:
    data = (
        b"---\ntitle:\n  - Part one\n  - Part two\n---\n"
        b"```\ncode\n```python\n# not a heading\n```\n\n"
        b"A heading over\ntwo lines\n===\n\nafter\n"
    )
    [result] = memory.ingest(data, filename="m.md", scope="kb").files
    root = memory.get(result.root_id or "")
    assert root.text == "Part one, Part two"
    assert titles(memory, root.id) == [
        ("chunk", "```\ncode\n```python\n# not a heading\n```"),
        ("section", "A heading over two lines"),
        ("chunk", "after"),
    ]
