"""Citations name the right file, page and section: PDF bookmarks whose
titles are not printed (two on one page, with or without a height on the
page), and every document hit and prompt source carrying its source. Real
PDFs from `bench.pdfgen`, real Memory files."""

from __future__ import annotations

from pathlib import Path

from mnemotree import Memory
from mnemotree.bench.pdfgen import Bookmark, write_pdf
from tests.document_helpers import by_title, ingest_one, squash
from tests.project_store import MANUAL_OUTLINE, MANUAL_PAGES

# No page prints its bookmark's title: the outline is the only structure.
PAGES, OUTLINE = MANUAL_PAGES, MANUAL_OUTLINE
PAGE_TOP = b"/XYZ 0 792 0"  # where pdfgen points every bookmark: the top of its page


def pointing(data: bytes, title: str, height: int) -> bytes:
    """The PDF with bookmark `title` pointing `height` points up its page
    (pdfgen points at the top; the same length keeps the xref offsets)."""
    at = data.index(PAGE_TOP, data.index(b"(" + title.encode() + b")"))
    moved = b"/XYZ 0 %d 0" % height
    assert len(moved) == len(PAGE_TOP)
    return data[:at] + moved + data[at + len(PAGE_TOP) :]


def sections(memory: Memory, root_id: str) -> dict[str, tuple[str, int | None, int | None]]:
    """Each section's own text (its chunks') and pages, by title."""
    out = {}
    for title, node in by_title(memory, root_id, "section").items():
        chunks = [c for c in memory.children(node.id) if c.context_type == "chunk"]
        text = squash(" ".join(c.text for c in chunks))
        out[title] = (text, node.metadata.get("page_start"), node.metadata.get("page_end"))
    return out


def test_two_untitled_bookmarks_on_one_page_shift_no_later_section(
    memory: Memory, tmp_path: Path
) -> None:
    path = tmp_path / "manual.pdf"
    path.write_bytes(write_pdf(PAGES, OUTLINE))
    found = sections(memory, ingest_one(memory, path))
    # Each later section keeps its own page (they were each one page off).
    assert found["3 Incidents"] == (
        "Report incidents within one hour to the shift supervisor. "
        "Keep the incident log book current.",
        3,
        3,
    )
    assert found["4 Fire safety"][1:] == (4, 4)
    assert found["4 Fire safety"][0].startswith("Fire exits stay clear")
    # Nothing says where on page 2 "2.2 Wiring" starts: the page is filed
    # under "2 Equipment", which surely holds it, and neither subsection.
    assert found["2 Equipment"][0].startswith("Every tool is checked")
    assert found["2.1 Tools"][0] == found["2.2 Wiring"][0] == ""
    assert found["2.2 Wiring"][1:] == (2, 2)

    answer = memory.ask("Report incidents within one hour", scopes=["kb"])
    [source] = [s for s in answer.sources if "Report incidents" in s.text]
    assert (source.page_start, source.section) == (3, ["3 Incidents"])
    assert source.header == "manual.pdf > 3 Incidents, p. 3"


def test_a_bookmark_pointing_down_its_page_starts_there(memory: Memory, tmp_path: Path) -> None:
    # "2.2 Wiring" points between the two paragraphs of page 2.
    path = tmp_path / "manual.pdf"
    path.write_bytes(pointing(write_pdf(PAGES, OUTLINE), "2.2 Wiring", 745))
    found = sections(memory, ingest_one(memory, path))
    assert found["2.1 Tools"][0] == "Every tool is checked before use and logged in the tool book."
    assert found["2.2 Wiring"] == (
        "Wires are colour coded by voltage; red wires carry mains power.",
        2,
        2,
    )
    # "2 Equipment" and "2.1 Tools" both start at the top: the text is the child's.
    assert found["2 Equipment"][0] == ""
    assert found["3 Incidents"][0].startswith("Report incidents") and found["3 Incidents"][1] == 3


def test_a_chapter_and_its_first_section_on_one_page_file_under_the_section(
    memory: Memory, tmp_path: Path
) -> None:
    pages = [["Chapter opening words."], ["Section text on its own page."]]
    outline = [Bookmark("Chapter", 0, [Bookmark("First section", 0)]), Bookmark("Next", 1)]
    path = tmp_path / "book.pdf"
    path.write_bytes(write_pdf(pages, outline))
    found = sections(memory, ingest_one(memory, path))
    assert found["First section"] == ("Chapter opening words.", 1, 1)
    assert found["Chapter"][0] == ""
    assert found["Next"] == ("Section text on its own page.", 2, 2)


def test_every_document_hit_names_its_file_page_and_section(memory: Memory, tmp_path: Path) -> None:
    path = tmp_path / "manual.pdf"
    path.write_bytes(write_pdf(PAGES, OUTLINE))
    ingest_one(memory, path)
    (tmp_path / "guide.md").write_text(
        "# Guide\n\n## Install\n\n### Linux\n\nUse apt to install.\n"
    )
    ingest_one(memory, tmp_path / "guide.md")
    note = memory.add("Install notes live in the wiki.", scope="kb")
    [found] = memory.search("notes in the wiki", scopes=["kb"], record=False)
    assert found.node.id == note.id and found.citation() is None  # a memory: no source
    assert "source" not in found.to_dict()
    hits = memory.search("install incidents", scopes=["kb"], record=False)
    [linux] = [h.citation() for h in hits if h.node.text == "Use apt to install."]
    assert linux is not None
    assert (linux.file, linux.section, linux.page_start) == ("guide.md", ("Install", "Linux"), None)
    assert linux.breadcrumb() == "guide.md > Install > Linux"
    [report] = [h.citation() for h in hits if h.node.text.startswith("Report incidents")]
    assert report is not None
    assert (report.file, report.section, report.pages) == ("manual.pdf", ("3 Incidents",), "p. 3")
    shown = next(h.to_dict() for h in hits if h.node.text.startswith("Report"))
    assert shown["source"] == {
        "file": "manual.pdf",
        "path": str(path.resolve()),
        "title": report.title,
        "section": ["3 Incidents"],
        "page_start": 3,
        "page_end": 3,
        "line_start": None,
        "line_end": None,
    }
    assert report.title == "manual"  # the PDF has no title of its own: its file's stem
