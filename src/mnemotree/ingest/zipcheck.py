"""Checks on a zip archive (a DOCX) before anything inflates it.

A zip bomb is a small archive that inflates to gigabytes. python-docx reads
every part into memory, so the archive is checked first, in constant
memory: the number of entries is counted in the central directory itself
(zipfile would build an object per entry before we could count them), the
declared sizes are summed, and then every part is actually inflated and its
bytes counted, in bounded pieces, so that a directory that lies about sizes
is caught too.
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib

from ..errors import ParseError
from .limits import Budget

_EOCD = b"PK\x05\x06"  # end of central directory
_ZIP64_LOCATOR = b"PK\x06\x07"
_ZIP64_EOCD = b"PK\x06\x06"
_CENTRAL = b"PK\x01\x02"
_LOCAL = b"PK\x03\x04"
_PIECE = 1024 * 1024  # bytes inflated at a time


def check_zip(data: bytes, budget: Budget) -> None:
    """Refuse an archive over max_zip_parts entries or max_unzipped_bytes
    inflated; ParseError for one that is not a zip or lies about its sizes."""
    most = budget.limits.max_zip_parts
    budget.at_most("max_zip_parts", _entries(data, budget.name, most), "or more zip parts")
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            parts = archive.infolist()
            budget.at_most("max_zip_parts", len(parts), "zip parts")
            declared = sum(p.file_size for p in parts)
            budget.at_most("max_unzipped_bytes", declared, "bytes unzipped (declared)")
            total = 0
            for part in parts:
                total += _inflated(data, part, budget, total)
                budget.check_time()
    except zipfile.BadZipFile as exc:
        raise ParseError(
            f"{budget.name} is not a readable DOCX file ({exc})", budget.name
        ) from None


def _entries(data: bytes, name: str, stop: int) -> int:
    """Entries in the central directory, counted by walking its headers as
    zipfile does (at most `stop` + 1: past the limit the count is moot)."""
    at = data.rfind(_EOCD, max(0, len(data) - 65_557))  # the record and a comment at most
    if at < 0 or at + 22 > len(data):
        raise ParseError(f"{name} is not a readable DOCX file (not a zip archive)", name)
    (size,) = struct.unpack_from("<I", data, at + 12)
    end = at
    if data[at - 20 : at - 16] == _ZIP64_LOCATOR and data[at - 76 : at - 72] == _ZIP64_EOCD:
        (size,) = struct.unpack_from("<Q", data, at - 76 + 40)
        end = at - 76  # zipfile reads the zip64 record just before its locator
    position, count = max(0, end - size), 0
    while count <= stop and position + 46 <= end and data[position : position + 4] == _CENTRAL:
        names, extra, comment = struct.unpack_from("<HHH", data, position + 28)
        position += 46 + names + extra + comment
        count += 1
    return count


def _inflated(data: bytes, part: zipfile.ZipInfo, budget: Budget, before: int) -> int:
    """Bytes `part` really inflates to, stopping once `before` plus them is
    over max_unzipped_bytes; ParseError if that differs from what it declares."""
    name = budget.name
    if part.flag_bits & 0x1:
        raise ParseError(f"{name} is encrypted; decrypt it first", name)
    start = part.header_offset
    if data[start : start + 4] != _LOCAL:
        raise ParseError(f"{name} is not a readable DOCX file (damaged zip entry)", name)
    names, extra = struct.unpack_from("<HH", data, start + 26)
    begin = start + 30 + names + extra
    raw = memoryview(data)[begin : begin + part.compress_size]
    if part.compress_type == zipfile.ZIP_STORED:
        size = len(raw)
    elif part.compress_type == zipfile.ZIP_DEFLATED:
        size = _deflated_size(raw, budget, before)
    else:
        raise ParseError(
            f"{name} uses zip compression method {part.compress_type}; "
            "DOCX files are stored or deflated",
            part.compress_type,
        )
    budget.at_most("max_unzipped_bytes", before + size, "bytes unzipped")
    if size != part.file_size:
        raise ParseError(
            f"{name}: part {part.filename} declares {part.file_size:,} bytes but inflates to "
            f"{size:,}; the archive is damaged or built to mislead (a zip bomb)",
            size,
        )
    return size


def _deflated_size(raw: memoryview, budget: Budget, before: int) -> int:
    """Inflate `raw` in pieces, counting the bytes, never holding more than a piece."""
    inflate = zlib.decompressobj(-15)  # raw deflate, as zip stores it
    size = 0
    try:
        for at in range(0, len(raw), _PIECE):
            pending = raw[at : at + _PIECE].tobytes()
            while pending:
                size += len(inflate.decompress(pending, _PIECE))
                pending = inflate.unconsumed_tail
                budget.at_most("max_unzipped_bytes", before + size, "bytes unzipped")
        size += len(inflate.flush())
    except zlib.error as exc:
        raise ParseError(
            f"{budget.name} is not a readable DOCX file ({exc})", budget.name
        ) from None
    return size
