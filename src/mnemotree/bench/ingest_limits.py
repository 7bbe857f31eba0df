"""`mnemotree bench ingest-limits` (issue 27): what hostile uploads cost.

(a) Ingest time of 4 MB of one repeated paragraph against 4 MB of distinct
    text (target: a ratio of at most 2; repeats were once quadratic).
(b) Peak RSS growth while a ~1.5 MB DOCX bomb (about 1.5 GB of paragraphs
    inflated) is refused, measured in a fresh process from /proc/self/status
    (VmHWM, reset just before through /proc/self/clear_refs) — once with an
    honest zip directory, once with one that lies about the size (target:
    at most 100 MB).
(c) Latency of `/remember` on a served database (`mnemotree serve` in its own
    process, hashing embedder) while a large upload (default 50 MB of text)
    is parsed and written (target: at most 1 s), with the document's state at
    each sample: not yet listed (parsing) or listed incomplete (writing).
"""

from __future__ import annotations

import json
import os
import random
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from ..memory import Memory
from .scale import corpus
from .serve import _free_port, _wait
from .stats import percentiles

MB = 1_000_000
PARAGRAPH = (
    "The deployment checklist is read before every release. Each step is signed "
    "by the engineer on call, and the release notes name the migrations that run. "
) * 3 + "\n\n"
# Word's own skeleton parts, enough for python-docx to open the result.
_CONTENT_TYPES = (
    b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    b'<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    b'<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
    b'relationships+xml"/>'
    b'<Default Extension="xml" ContentType="application/xml"/>'
    b'<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-'
    b'officedocument.wordprocessingml.document.main+xml"/></Types>'
)
_RELS = (
    b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    b'<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    b'<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    b'relationships/officeDocument" Target="word/document.xml"/></Relationships>'
)
_DOC_HEAD = (
    b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w='
    b'"http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>'
)
# One paragraph of a million letters: runs of one byte deflate about 1,000:1.
_RUN = b"<w:p><w:r><w:t>" + b"a" * 1_000_000 + b"</w:t></w:r></w:p>"


def run(
    upload_mb: float, bomb_mb: int, text_mb: float, progress: Callable[[str], None]
) -> dict[str, Any]:
    text = text_ratio(int(text_mb * MB), progress)
    bomb = docx_bomb(bomb_mb * MB, progress)
    upload = upload_latency(int(upload_mb * MB), progress)
    return {
        "repetitive_text": text,
        "docx_bomb": bomb,
        "upload": upload,
        "targets_met": {
            "repetitive_ratio_at_most_2": text["ratio"] <= 2,
            "bomb_rss_growth_at_most_100_mb": all(
                b["rss_growth_mb"] is not None and b["rss_growth_mb"] <= 100
                for b in bomb["cases"].values()
            ),
            "remember_max_at_most_1_s": upload["remember_ms"]["max"] <= 1000,
        },
    }


# -- (a) repetitive against distinct text ------------------------------------------------


def distinct_text(size: int) -> str:
    """`size` characters of distinct sentences in paragraphs."""
    parts: list[str] = []
    length = 0
    for number, sentence in enumerate(corpus(size // 40 + 100, seed=27)):
        piece = sentence + (".\n\n" if number % 6 == 5 else ". ")
        parts.append(piece)
        length += len(piece)
        if length >= size:
            break
    return "".join(parts)[:size]


def repetitive_text(size: int) -> str:
    return (PARAGRAPH * (size // len(PARAGRAPH) + 1))[:size]


def text_ratio(size: int, progress: Callable[[str], None]) -> dict[str, Any]:
    seconds: dict[str, float] = {}
    chunks: dict[str, int] = {}
    for name, text in (("distinct", distinct_text(size)), ("repetitive", repetitive_text(size))):
        with (
            tempfile.TemporaryDirectory() as tmp,
            Memory(Path(tmp) / "text.db", embedder="hashing") as memory,
        ):
            memory.tokenizer.count("warm up")  # load the tokenizer outside the timing
            started = time.perf_counter()
            report = memory.ingest(text.encode(), scope="bench", filename=f"{name}.txt")
            seconds[name] = round(time.perf_counter() - started, 3)
        if report.failed:
            raise RuntimeError(f"ingesting {name} text failed: {report.failed[0].error}")
        chunks[name] = report.summary()["chunks"]
        progress(f"{size / MB:.1f} MB {name} text: {seconds[name]:.2f} s, {chunks[name]} chunks")
    ratio = round(seconds["repetitive"] / seconds["distinct"], 2)
    return {"bytes": size, "seconds": seconds, "chunks": chunks, "ratio": ratio}


# -- (b) a DOCX bomb ----------------------------------------------------------------------


def write_bomb(path: Path, inflated: int) -> int:
    """A DOCX at `path` whose document.xml inflates to about `inflated` bytes of
    paragraphs, streamed through the compressor; returns its size on disk."""
    block = _RUN * 4
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("[Content_Types].xml", _CONTENT_TYPES)
        archive.writestr("_rels/.rels", _RELS)
        with archive.open("word/document.xml", "w", force_zip64=True) as part:
            part.write(_DOC_HEAD)
            for _ in range(max(1, inflated // len(block))):
                part.write(block)
            part.write(b"</w:body></w:document>")
    return path.stat().st_size


def lie_about_sizes(path: Path, target: Path) -> None:
    """`path` copied to `target` with the central directory claiming that
    word/document.xml inflates to 1 KB (a zip64 entry keeps its real size in
    an extra field, so that is rewritten)."""
    data = bytearray(path.read_bytes())
    at = data.find(b"PK\x01\x02")
    while at >= 0:
        names, extra = struct.unpack_from("<HH", data, at + 28)
        if data[at + 46 : at + 46 + names] == b"word/document.xml":
            if struct.unpack_from("<I", data, at + 24)[0] == 0xFFFFFFFF:
                _lie_in_zip64_extra(data, at + 46 + names, extra)
            else:
                struct.pack_into("<I", data, at + 24, 1024)
        at = data.find(b"PK\x01\x02", at + 46)
    target.write_bytes(bytes(data))


def _lie_in_zip64_extra(data: bytearray, start: int, length: int) -> None:
    at = start
    while at + 4 <= start + length:
        tag, size = struct.unpack_from("<HH", data, at)
        if tag == 1:  # zip64: the uncompressed size comes first
            struct.pack_into("<Q", data, at + 4, 1024)
            return
        at += 4 + size


def docx_bomb(inflated: int, progress: Callable[[str], None]) -> dict[str, Any]:
    cases: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        honest = Path(tmp) / "bomb.docx"
        size = write_bomb(honest, inflated)
        progress(f"DOCX bomb: {size / MB:.2f} MB on disk, {inflated / MB:,.0f} MB inflated")
        liar = Path(tmp) / "liar.docx"
        lie_about_sizes(honest, liar)
        for name, path in (("honest_directory", honest), ("lying_directory", liar)):
            cases[name] = _reject_in_child(path)
            progress(
                f"  {name}: peak RSS growth {cases[name]['rss_growth_mb']} MB; "
                f"{cases[name]['error']}"
            )
    return {"bytes_on_disk": size, "inflated_bytes": inflated, "cases": cases}


_CHILD = """
import json, sys
from mnemotree.bench.ingest_limits import measure_rejection
print(json.dumps(measure_rejection(sys.argv[1])))
"""


def _reject_in_child(path: Path) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(path)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if done.returncode != 0:
        return {"status": "crashed", "error": done.stderr[-500:], "rss_growth_mb": None}
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def measure_rejection(path: str) -> dict[str, Any]:
    """In this (fresh) process: ingest the file at `path` and report the peak
    RSS growth while it is refused."""
    import docx  # noqa: F401  (loaded before the baseline, as a server has it)

    data = Path(path).read_bytes()
    with (
        tempfile.TemporaryDirectory() as tmp,
        Memory(Path(tmp) / "bomb.db", embedder="hashing") as memory,
    ):
        memory.tokenizer.count("warm up")
        reset = _reset_peak()
        before = _status_kb("VmRSS") if reset else _status_kb("VmHWM")
        report = memory.ingest(data, scope="bench", filename="bomb.docx")
        peak = _status_kb("VmHWM")
    [result] = report.files
    return {
        "status": result.status,
        "error": result.error,
        "rss_before_mb": round(before / 1024, 1),
        "rss_peak_mb": round(peak / 1024, 1),
        "rss_growth_mb": round(max(0, peak - before) / 1024, 1),
        "peak_reset": reset,
    }


def _reset_peak() -> bool:
    """Reset VmHWM to the current RSS (Linux >= 4.0); False where not allowed."""
    try:
        with open("/proc/self/clear_refs", "w") as handle:
            handle.write("5")
        return True
    except OSError:
        return False


def _status_kb(field: str) -> int:
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/self/status")


# -- (c) /remember beside a large upload ----------------------------------------------------


def upload_latency(size: int, progress: Callable[[str], None]) -> dict[str, Any]:
    body = distinct_text(size).encode()
    with tempfile.TemporaryDirectory() as tmp:
        port = _free_port()
        env = {**os.environ, "MNEMOTREE_EMBEDDER": "hashing"}
        command = [
            sys.executable,
            "-m",
            "mnemotree",
            "--db",
            str(Path(tmp) / "serve.db"),
            "serve",
            "--no-auth",
            "--port",
            str(port),
        ]
        server = subprocess.Popen(
            command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        try:
            url = f"http://127.0.0.1:{port}"
            _wait(url, server)
            with httpx.Client(base_url=url, timeout=600) as http:
                idle = [_remember(http, n)[0] for n in range(20)]
                progress(f"uploading {len(body) / MB:.1f} MB while remembering…")
                found = _during_upload(url, http, body)
        finally:
            server.terminate()
            server.wait(timeout=60)
    samples = found["samples"]
    every = [ms for ms, _ in samples]
    by_phase = {phase: [ms for ms, p in samples if p == phase] for phase in ("parsing", "writing")}
    result = {
        "upload_bytes": len(body),
        "upload_status": found["status"],
        "upload_seconds": found["seconds"],
        "upload_summary": found["summary"],
        "remember_idle_ms": percentiles(idle),
        "remember_ms": {**percentiles(every), "max": round(max(every), 1), "count": len(every)},
        "remember_ms_by_phase": {
            phase: {**percentiles(v), "max": round(max(v), 1), "count": len(v)}
            for phase, v in by_phase.items()
            if v
        },
        "remember_errors": found["errors"],
    }
    progress(
        f"upload {found['status']} in {found['seconds']:.1f} s; /remember during it: "
        f"p50 {result['remember_ms']['p50']:.0f} ms, max {result['remember_ms']['max']:.0f} "
        f"ms over {len(every)}"
    )
    return result


def _remember(http: httpx.Client, number: int) -> tuple[float, int]:
    text = f"Remember note {number}: the staging database restarts at {number % 24}:00."
    started = time.perf_counter()
    response = http.post("/remember", json={"text": text, "scope": "notes"})
    return (time.perf_counter() - started) * 1000, response.status_code


def _during_upload(url: str, http: httpx.Client, body: bytes) -> dict[str, Any]:
    outcome: dict[str, Any] = {}

    def upload() -> None:
        started = time.perf_counter()
        with httpx.Client(base_url=url, timeout=3600) as uploader:
            response = uploader.post(
                "/documents", params={"filename": "large.txt", "scope": "bench"}, content=body
            )
        outcome["seconds"] = round(time.perf_counter() - started, 2)
        outcome["status"] = response.status_code
        outcome["summary"] = response.json().get("summary", response.json())

    thread = threading.Thread(target=upload)
    thread.start()
    samples: list[tuple[float, str]] = []
    errors = 0
    rng = random.Random(27)
    number = 100
    while thread.is_alive():
        listed = http.get("/documents").json()
        phase = "writing" if any(not d.get("complete", True) for d in listed) else "parsing"
        ms, status = _remember(http, number)
        number += 1
        if not thread.is_alive() and phase == "parsing":
            break  # it finished meanwhile: this sample is after the upload
        samples.append((ms, phase))
        errors += status >= 300
        time.sleep(rng.uniform(0.05, 0.15))
    thread.join()
    return {**outcome, "samples": samples, "errors": errors}
