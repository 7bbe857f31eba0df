"""A small PDF writer: pages of Helvetica text and an optional outline.

Tests and the document benchmark need real PDFs with and without bookmarks;
no PDF library we may ship writes outlines, so this writes the file format
directly (PDF 1.4, one uncompressed content stream per page).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Bookmark:
    """An outline entry pointing at a page (0-based), with nested entries."""

    title: str
    page: int
    children: list[Bookmark] = field(default_factory=list)


def _escape(text: str) -> bytes:
    raw = text.encode("latin-1", "replace")
    return raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")


def _content(lines: list[str]) -> bytes:
    out = [b"BT /F1 11 Tf 14 TL 72 760 Td"]
    for line in lines:
        out.append(b"(" + _escape(line) + b") Tj T*")
    out.append(b"ET")
    return b"\n".join(out)


def write_pdf(pages: list[list[str]], outline: list[Bookmark] | None = None) -> bytes:
    """A PDF whose page i shows the lines `pages[i]` (at most ~50 lines a page)."""
    pdf = _Objects()
    catalog, tree, font = pdf.reserve(), pdf.reserve(), pdf.reserve()
    page_ids = []
    for lines in pages:
        page, stream = pdf.reserve(), pdf.reserve()
        body = _content(lines)
        pdf.set(stream, b"<< /Length %d >>\nstream\n%s\nendstream" % (len(body), body))
        pdf.set(
            page,
            b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] "
            b"/Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>" % (tree, font, stream),
        )
        page_ids.append(page)
    kids = b" ".join(b"%d 0 R" % p for p in page_ids)
    pdf.set(tree, b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, len(page_ids)))
    pdf.set(
        font, b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
    )
    extra = b""
    if outline:
        root = pdf.reserve()
        first, last, count = pdf.bookmarks(outline, root, page_ids)
        pdf.set(
            root,
            b"<< /Type /Outlines /First %d 0 R /Last %d 0 R /Count %d >>" % (first, last, count),
        )
        extra = b" /Outlines %d 0 R /PageMode /UseOutlines" % root
    pdf.set(catalog, b"<< /Type /Catalog /Pages %d 0 R%s >>" % (tree, extra))
    return pdf.file(catalog)


class _Objects:
    """A PDF's numbered objects (numbers start at 1), written out with their xref."""

    def __init__(self) -> None:
        self.objects: list[bytes] = []

    def reserve(self) -> int:
        self.objects.append(b"")
        return len(self.objects)

    def set(self, number: int, body: bytes) -> None:
        self.objects[number - 1] = body

    def bookmarks(
        self, items: list[Bookmark], parent: int, page_ids: list[int]
    ) -> tuple[int, int, int]:
        """Write `items` under `parent`; returns (first, last, visible count)."""
        ids = [self.reserve() for _ in items]
        total = 0
        for i, (item, own) in enumerate(zip(items, ids, strict=True)):
            links = [b"/Title (%s) /Parent %d 0 R" % (_escape(item.title), parent)]
            links.append(b"/Dest [%d 0 R /XYZ 0 792 0]" % page_ids[item.page])
            if i:
                links.append(b"/Prev %d 0 R" % ids[i - 1])
            if i + 1 < len(ids):
                links.append(b"/Next %d 0 R" % ids[i + 1])
            if item.children:
                first, last, count = self.bookmarks(item.children, own, page_ids)
                links.append(b"/First %d 0 R /Last %d 0 R /Count %d" % (first, last, count))
                total += count
            self.set(own, b"<< " + b" ".join(links) + b" >>")
            total += 1
        return ids[0], ids[-1], total

    def file(self, catalog: int) -> bytes:
        out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
        offsets = []
        for number, body in enumerate(self.objects, start=1):
            offsets.append(len(out))
            out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
        xref = len(out)
        size = len(self.objects) + 1
        out += b"xref\n0 %d\n0000000000 65535 f \n" % size
        out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
        out += b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
            size,
            catalog,
            xref,
        )
        return bytes(out)
