"""Document parsing through the `Memory` facade: the section tree each format
becomes, and chunking (with property tests of the chunker)."""

from __future__ import annotations

import hashlib
import itertools
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mnemotree import InvalidInput, Memory
from mnemotree.bench.pdfgen import Bookmark, write_pdf
from mnemotree.ingest import chunker
from tests.document_helpers import (
    GUIDE_MD,
    by_title,
    chunks,
    ingest_one,
    shape,
    squash,
    write_plan_docx,
    write_report,
)

# -- section trees per format ----------------------------------------------------------


def test_markdown_sections_nest_by_heading_level(memory: Memory, tmp_path: Path) -> None:
    path = tmp_path / "guide.md"
    path.write_text(GUIDE_MD, encoding="utf-8")
    root_id = ingest_one(memory, path)

    root = memory.get(root_id)
    assert (root.context_type, root.text, root.context_name) == (
        "document",
        "Field Guide",
        "guide.md",
    )
    assert root.context_value == str(path.resolve())
    assert root.parent_id is None
    meta = root.metadata
    assert meta["front_matter"] == {
        "title": "Field Guide",
        "tags": ["birds", "hiking"],
        "version": "2",
    }
    assert meta["document_type"] == "md"
    assert meta["file_path"] == str(path.resolve())
    assert meta["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert meta["size"] == path.stat().st_size
    assert meta["mtime_ns"] == path.stat().st_mtime_ns
    assert meta["parser"]

    code = "Download the kit.\n\n```bash\n# not a heading\npip install kit\n```"
    assert shape(memory, root_id) == [
        ("chunk", "Read this first.", []),
        (
            "section",
            "Install",
            [
                ("chunk", code, []),
                ("section", "Linux", [("chunk", "Use apt.", [])]),
                ("section", "Windows", [("chunk", "Use the installer.", [])]),
            ],
        ),
        ("section", "Usage", [("chunk", "Run it with care.", [])]),
    ]

    sections = by_title(memory, root_id, "section")
    assert "not a heading" not in sections  # a heading inside fenced code is code
    linux = sections["Linux"]
    assert linux.metadata["section_path"] == ["Install", "Linux"]
    assert linux.metadata["section_level"] == 2
    assert linux.metadata["element_type"] == "heading"
    assert sections["Windows"].metadata["section_level"] == 2  # setext "---" is level 2
    assert sections["Install"].metadata["section_level"] == 1

    leaves = by_title(memory, root_id, "chunk")
    apt = leaves["Linux"]
    assert apt.context_name == "Linux"
    assert {k: apt.metadata[k] for k in ("name", "section_path", "section_level")} == {
        "name": "Linux",
        "section_path": ["Install", "Linux"],
        "section_level": 2,
    }
    assert apt.metadata["element_type"] == "section"
    assert apt.metadata["document_type"] == "md"
    assert apt.metadata["file_path"] == str(path.resolve())
    assert "page_start" not in apt.metadata
    intro = next(c for c in memory.children(root_id) if c.context_type == "chunk")
    assert intro.metadata["section_path"] == []
    assert intro.metadata["section_level"] == 0
    assert intro.metadata["name"] == "Field Guide"


def test_markdown_title_comes_from_front_matter_then_h1_then_file_name(
    memory: Memory, tmp_path: Path
) -> None:
    (tmp_path / "a.md").write_text("intro\n\n# First Heading\n\nbody\n\n# Second\n\nmore\n")
    (tmp_path / "b.md").write_text("just text, ## not a heading\n\n####### seven hashes\n")
    (tmp_path / "c.md").write_text("~~~\n# inside tilde fence\n```\n~~~\n\nSetext\n======\n\nx\n")
    a = memory.get(ingest_one(memory, tmp_path / "a.md"))
    b = memory.get(ingest_one(memory, tmp_path / "b.md"))
    c = memory.get(ingest_one(memory, tmp_path / "c.md"))
    assert a.text == "First Heading"
    assert "front_matter" not in a.metadata
    assert b.text == "b"
    assert shape(memory, b.id) == [
        ("chunk", "just text, ## not a heading\n\n####### seven hashes", [])
    ]
    assert c.text == "Setext"
    assert shape(memory, c.id) == [
        ("chunk", "~~~\n# inside tilde fence\n```\n~~~", []),
        ("section", "Setext", [("chunk", "x", [])]),
    ]


def test_html_sections_follow_h1_to_h6(memory: Memory, tmp_path: Path) -> None:
    path = tmp_path / "manual.htm"
    path.write_text(
        "<!doctype html><html><head><title>Field  Manual</title><style>h1 {color: red}</style>"
        "</head><body><p>Preface text.</p>"
        "<h1>Setup</h1><p>Unpack the <b>kit</b> &amp; check it.</p>"
        "<h2>Cables</h2><ul><li>red</li><li>blue</li></ul>"
        "<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>"
        "<script>var hidden = 1;</script>"
        "<h1>Care</h1><p>Keep dry.</p></body></html>",
        encoding="utf-8",
    )
    root_id = ingest_one(memory, path)
    root = memory.get(root_id)
    assert root.text == "Field Manual"
    assert root.metadata["document_type"] == "html"
    assert shape(memory, root_id) == [
        ("chunk", "Preface text.", []),
        (
            "section",
            "Setup",
            [
                ("chunk", "Unpack the kit & check it.", []),
                ("section", "Cables", [("chunk", "red\n\nblue\n\na | b\n\n1 | 2", [])]),
            ],
        ),
        ("section", "Care", [("chunk", "Keep dry.", [])]),
    ]
    cables = by_title(memory, root_id, "chunk")["Cables"]
    assert cables.metadata["section_path"] == ["Setup", "Cables"]
    assert cables.metadata["section_level"] == 2


def test_html_heading_inside_noscript_is_not_a_section(memory: Memory) -> None:
    data = b"<noscript><h2>Please enable JavaScript</h2></noscript><h1>Real</h1><p>Text.</p>"
    report = memory.ingest(data, filename="page.html", scope="kb")
    root_id = report.files[0].root_id
    assert root_id is not None
    # "Real" is the page's only top heading and its title: its text is the document's.
    assert memory.get(root_id).text == "Real"
    assert shape(memory, root_id) == [("chunk", "Text.", [])]


def test_html_body_is_read_when_head_is_not_closed(memory: Memory) -> None:
    data = (
        b"<!doctype html><html><head><meta charset=utf-8><title>Doc</title>"
        b"<body><h1>Real</h1><p>Body text.</p></body></html>"
    )
    report = memory.ingest(data, filename="page.html", scope="kb")
    root_id = report.files[0].root_id
    assert root_id is not None
    assert shape(memory, root_id) == [("section", "Real", [("chunk", "Body text.", [])])]


def test_text_file_is_one_chunk_under_the_document(memory: Memory, tmp_path: Path) -> None:
    path = tmp_path / "notes.text"
    path.write_bytes(b"\xef\xbb\xbfFirst line.\r\nSecond line.\r\n\r\nLast paragraph.\r\n")
    root_id = ingest_one(memory, path)
    root = memory.get(root_id)
    assert (root.text, root.metadata["document_type"]) == ("notes", "txt")
    assert shape(memory, root_id) == [("chunk", "First line.\nSecond line.\n\nLast paragraph.", [])]
    [leaf] = chunks(memory, root_id)
    assert leaf.metadata["section_path"] == []
    assert leaf.metadata["name"] == "notes"


def test_docx_heading_styles_make_sections(memory: Memory, tmp_path: Path) -> None:
    path = write_plan_docx(tmp_path)
    root_id = ingest_one(memory, path)
    root = memory.get(root_id)
    assert root.text == "Quarterly Plan"  # the Title style, not a section
    assert root.metadata["document_type"] == "docx"
    assert shape(memory, root_id) == [
        ("chunk", "Opening words.", []),
        (
            "section",
            "Goals",
            [
                ("chunk", "Grow revenue.", []),
                (
                    "section",
                    "Stretch",
                    [
                        ("chunk", "Expand abroad.\n\nregion | target\nEU | 10", []),
                        ("section", "Details", [("chunk", "Deep detail.", [])]),
                    ],
                ),
            ],
        ),
        ("section", "Risks", [("chunk", "Supply chain.", [])]),
    ]
    detail = by_title(memory, root_id, "chunk")["Details"]
    assert detail.metadata["section_path"] == ["Goals", "Stretch", "Details"]
    assert detail.metadata["section_level"] == 3
    assert detail.metadata["document_type"] == "docx"


def test_pdf_outline_gives_nested_sections_with_page_ranges(memory: Memory, tmp_path: Path) -> None:
    path = write_report(tmp_path)
    root_id = ingest_one(memory, path)
    root = memory.get(root_id)
    assert root.text == "report"  # no /Title in the file: the file name
    assert (root.metadata["document_type"], root.metadata["pages"]) == ("pdf", 3)
    # Each bookmark's title line is the section, not part of its text.
    assert shape(memory, root_id, flat=True) == [
        ("section", "Introduction", [("chunk", "This survey covers alpine meadows.", [])]),
        (
            "section",
            "Methods",
            [
                ("chunk", "Soil was sampled at ten sites.", []),
                (
                    "section",
                    "Sampling",
                    [("chunk", "Cores were taken monthly. The cores were frozen at once.", [])],
                ),
            ],
        ),
        ("section", "Results", [("chunk", "Moss cover increased sharply.", [])]),
    ]
    sections = by_title(memory, root_id, "section")
    pages = {t: (n.metadata["page_start"], n.metadata["page_end"]) for t, n in sections.items()}
    assert pages == {
        "Introduction": (1, 1),
        "Methods": (2, 2),
        "Sampling": (2, 3),
        "Results": (3, 3),
    }
    assert sections["Sampling"].metadata["section_path"] == ["Methods", "Sampling"]
    assert sections["Sampling"].metadata["section_level"] == 2
    for title, leaf in by_title(memory, root_id, "chunk").items():
        low, high = pages[title]
        assert low <= leaf.metadata["page_start"] <= leaf.metadata["page_end"] <= high
        assert leaf.metadata["document_type"] == "pdf"
    sampling = by_title(memory, root_id, "chunk")["Sampling"]
    assert (sampling.metadata["page_start"], sampling.metadata["page_end"]) == (2, 3)
    [info] = memory.docs.list()
    assert (info.pages, info.chunks, info.document_type) == (3, 4, "pdf")


def test_long_pdf_section_is_split_with_pages_per_chunk(memory: Memory, tmp_path: Path) -> None:
    lines = [f"Line {i} of the long methods section has several words in it." for i in range(45)]
    pages = [
        ["Intro", "A short introduction."],
        ["Methods", *lines],
        [*lines[:30], "Results", "It worked."],
    ]
    path = tmp_path / "long.pdf"
    path.write_bytes(
        write_pdf(pages, [Bookmark("Intro", 0), Bookmark("Methods", 1), Bookmark("Results", 2)])
    )
    root_id = ingest_one(memory, path)
    methods = by_title(memory, root_id, "section")["Methods"]
    assert (methods.metadata["page_start"], methods.metadata["page_end"]) == (2, 3)
    parts = [c for c in memory.children(methods.id) if c.context_type == "chunk"]
    assert len(parts) >= 3
    assert [p.metadata["name"] for p in parts] == [
        f"Methods (part {n})" for n in range(1, len(parts) + 1)
    ]
    spans = [(p.metadata["page_start"], p.metadata["page_end"]) for p in parts]
    assert all(2 <= first <= last <= 3 for first, last in spans)
    assert spans[0][0] == 2 and spans[-1][1] == 3
    assert spans == sorted(spans)
    assert all(len(p.text) <= chunker.MAX_CHARS for p in parts)
    assert "Line 0 of" in parts[0].text and "Line 29 of" in parts[-1].text


def test_pdf_without_outline_is_one_chunk_per_page_with_text(
    memory: Memory, tmp_path: Path
) -> None:
    def page(n: int) -> list[str]:
        return [f"Page {n} talks about topic {n} in some detail, line {i}." for i in range(6)]

    path = tmp_path / "plain.pdf"
    path.write_bytes(write_pdf([page(1), [], page(3), page(4)]))
    root_id = ingest_one(memory, path)
    children = memory.children(root_id)
    assert [c.context_type for c in children] == ["chunk", "chunk", "chunk"]
    assert [c.context_name for c in children] == ["Page 1", "Page 3", "Page 4"]
    for node, number in zip(children, (1, 3, 4), strict=True):
        meta = node.metadata
        assert meta["element_type"] == "page"
        assert (meta["page_start"], meta["page_end"]) == (number, number)
        assert meta["section_path"] == []
        assert squash(node.text) == " ".join(page(number))
    assert memory.get(root_id).metadata["pages"] == 4


def test_short_pdfs_are_a_single_chunk(memory: Memory, tmp_path: Path) -> None:
    one_page = tmp_path / "one.pdf"  # one page, well over 500 characters
    one_page.write_bytes(
        write_pdf([[f"A long line number {i} of the only page." for i in range(30)]])
    )
    few_words = tmp_path / "few.pdf"  # three pages, under 500 characters in all
    few_words.write_bytes(write_pdf([["first page"], ["second page"], ["third page"]]))
    one = ingest_one(memory, one_page)
    few = ingest_one(memory, few_words)
    [single] = memory.children(one)
    assert single.context_type == "chunk"
    assert len(single.text) > 500
    assert (single.metadata["page_start"], single.metadata["page_end"]) == (1, 1)
    [joined] = memory.children(few)
    assert squash(joined.text) == "first page second page third page"
    assert (joined.metadata["page_start"], joined.metadata["page_end"]) == (1, 3)
    assert joined.metadata["element_type"] == "section"


# -- chunking --------------------------------------------------------------------------


def test_long_section_becomes_overlapping_parts(memory: Memory, tmp_path: Path) -> None:
    sentences = [
        f"The quick brown fox number {i} jumps over the lazy dog near the river bank."
        for i in range(70)
    ]
    path = tmp_path / "long.md"
    path.write_text("# Big\n\n" + " ".join(sentences) + "\n\n# Small\n\nTiny.\n")
    root_id = ingest_one(memory, path)
    big, small = (s for s in memory.children(root_id))
    parts = memory.children(big.id)
    assert len(parts) >= 3
    assert all(0 < len(p.text) <= 2000 for p in parts)
    assert [p.metadata["name"] for p in parts] == [
        f"Big (part {n})" for n in range(1, len(parts) + 1)
    ]
    assert {p.context_name for p in parts} == {"Big"}
    assert all(p.metadata["section_path"] == ["Big"] for p in parts)
    for before, after in itertools.pairwise(parts):
        assert after.text[:60] in before.text  # the next part starts inside this one
    assert all(any(s in p.text for p in parts) for s in sentences)
    assert parts[0].text.startswith(sentences[0])
    assert parts[-1].text.endswith(sentences[-1])
    [tiny] = memory.children(small.id)
    assert tiny.metadata["name"] == "Small"
    assert len({p.id for p in parts}) == len(parts)


pieces_of_text = st.lists(
    st.sampled_from(["word", "longerword", " ", "  ", ". ", "! ", "? ", "\n", "\n\n", "\t", "x"]),
    max_size=150,
).map("".join)
any_text = pieces_of_text | st.text(max_size=300)
CHUNK_SETTINGS = settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@st.composite
def windows(draw: st.DrawFn) -> tuple[int, int]:
    max_chars = draw(st.integers(min_value=2, max_value=120))
    overlap = draw(st.integers(min_value=0, max_value=max_chars // 2 - 1))
    return max_chars, overlap


@CHUNK_SETTINGS
@given(text=any_text, window=windows())
def test_chunker_pieces_fit_cover_the_text_and_move_forward(
    text: str, window: tuple[int, int]
) -> None:
    max_chars, overlap = window
    spans = chunker.spans(text, max_chars, overlap)
    pieces = chunker.split(text, max_chars, overlap)
    assert pieces == [text[a:b] for a, b in spans]
    for piece in pieces:
        assert 0 < len(piece) <= max_chars
        assert piece == piece.strip()
    for (start, end), (next_start, next_end) in itertools.pairwise(spans):
        assert start <= next_start and end <= next_end  # never backwards
        assert end - next_start <= overlap  # never more overlap than asked
    covered = set().union(*(range(a, b) for a, b in spans)) if spans else set()
    first, last = len(text) - len(text.lstrip()), len(text.rstrip())
    missing = [i for i in range(first, last) if not text[i].isspace() and i not in covered]
    assert missing == []
    if not text.strip():
        assert spans == []
    elif last - first <= max_chars:
        assert pieces == [text.strip()]


@CHUNK_SETTINGS
@given(words=st.lists(st.from_regex(r"[a-z]{1,12}", fullmatch=True), min_size=1, max_size=300))
def test_chunker_overlap_starts_at_a_word(words: list[str]) -> None:
    text = " ".join(words)
    spans = chunker.spans(text, 80, 20)
    for (_, end), (start, _) in itertools.pairwise(spans):
        assert start == 0 or text[start - 1] == " "  # a word start, never mid-word
        assert end - start <= 20
        assert start <= end  # consecutive pieces touch or overlap: nothing skipped


def test_chunker_prefers_sentence_ends_then_blank_lines_then_newlines() -> None:
    sentence = "alpha beta gamma delta. epsilon\nzeta eta theta iota kappa lambda"
    assert chunker.split(sentence, 40, 0)[0] == "alpha beta gamma delta."
    paragraph = "alpha beta gamma delta\n\nepsilon zeta\neta theta iota kappa lambda"
    assert chunker.split(paragraph, 40, 0)[0] == "alpha beta gamma delta"
    line = "alpha beta gamma delta epsilon\nzeta eta theta iota kappa lambda"
    assert chunker.split(line, 40, 0)[0] == "alpha beta gamma delta epsilon"
    # A break in the front half is not taken: no tiny chunks.
    early = "one. two three four five six seven eight nine ten eleven"
    assert chunker.split(early, 40, 0)[0] == "one. two three four five six seven"
    assert chunker.split("", 40, 0) == [] and chunker.split(" \n ", 40, 0) == []
    assert chunker.split("x" * 100, 40, 0) == ["x" * 40, "x" * 40, "x" * 20]


@pytest.mark.parametrize(("max_chars", "overlap"), [(1, 0), (10, 5), (10, -1), (0, 0)])
def test_chunker_refuses_bad_windows(max_chars: int, overlap: int) -> None:
    with pytest.raises(InvalidInput, match="max_chars"):
        chunker.spans("some text here", max_chars, overlap)


@pytest.mark.parametrize(
    ("text", "max_chars", "overlap"),
    [
        ("aaa \n\na", 4, 1),  # [(0, 3), (2, 3), (6, 7)]: 'a' again, inside 'aaa'
        ("word   word word", 10, 4),  # [(0, 4), (7, 11), (7, 16)]: 'word' inside 'word word'
        # The default window: the second piece is the last 199 characters of the first.
        ("word " * 380 + "end. " + "\n" * 1900 + "tail words here", 2000, 200),
    ],
)
def test_each_chunk_adds_text_beyond_its_neighbours(
    text: str, max_chars: int, overlap: int
) -> None:
    spans = chunker.spans(text, max_chars, overlap)
    for (start, end), (next_start, next_end) in itertools.pairwise(spans):
        assert start < next_start and end < next_end, spans
