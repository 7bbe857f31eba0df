"""The int8 query graph kept on disk, so that a new process loads it instead
of rewriting it and probing it against the full model (which costs each
start ~0.5 s of CPU and ~250 MB: the full model's float weights).

A cache entry is keyed by the model's published hash, the onnxruntime
version, the rewrite's variant (block size, version) and the machine (any
of them changing makes a new entry), and holds the choice made on this
machine: the int8 graph, already optimised by the runtime, with its size
and CRC-32 checked on every load, or the full model. An entry that does not
check out is deleted and never used; a cache that cannot be written (a
read-only home) only costs the next process the probe.

The check is a CRC, not a cryptographic hash: it guards against a damaged
or truncated file (the folder is the user's own, like pip's cache; whoever
can write it can write the code too) and costs a cold search ~13 ms of CPU
where reading the graph and hashing it with SHA-256 cost ~55 ms.
"""

from __future__ import annotations

import json
import logging
import mmap
import os
import platform
import tempfile
import zlib
from dataclasses import dataclass
from pathlib import Path

from ..config import ENV_CACHE, from_env

log = logging.getLogger(__name__)

INT8 = "int8 graph"
FULL = "full model"


@dataclass(frozen=True)
class Choice:
    """The query path chosen on this machine, and where the int8 graph is:
    its bytes (just made) or its checked file (kept)."""

    path: str  # INT8 or FULL
    graph: bytes | None = None
    file: Path | None = None


def cache_dir() -> Path:
    """`$MNEMOTREE_CACHE`, else mnemotree's folder in the user cache directory."""
    configured = from_env(ENV_CACHE)
    if configured:
        return Path(configured).expanduser()
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("mnemotree", appauthor=False))


def _entry(model_sha: str, runtime: str, variant: str) -> str:
    """The entry's path without its extension (the version's dots are no suffix)."""
    name = f"minilm-query-{model_sha[:16]}-ort{runtime}-{variant}-{platform.machine()}"
    return str(cache_dir() / name)


def _file(entry: str, extension: str) -> Path:
    return Path(entry + extension)


def load(model_sha: str, runtime: str, variant: str) -> Choice | None:
    """The choice kept for this model and runtime, or None (none kept, or
    one that does not check out: it is deleted)."""
    entry = _entry(model_sha, runtime, variant)
    meta = _file(entry, ".json")
    try:
        kept = json.loads(meta.read_text("utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        _discard(entry, f"unreadable ({exc})")
        return None
    if not isinstance(kept, dict) or kept.get("path") not in (INT8, FULL):
        _discard(entry, "not an entry of this version")
        return None
    if kept["path"] == FULL:
        return Choice(FULL)
    graph = _file(entry, ".onnx")
    try:
        found = _checksum(graph)
    except (OSError, ValueError) as exc:  # ValueError: an empty file cannot be mapped
        _discard(entry, f"graph unreadable ({exc})")
        return None
    if found != (kept.get("bytes"), kept.get("crc32")):
        _discard(entry, "graph does not match its size and CRC-32")
        return None
    return Choice(INT8, file=graph)


def _checksum(path: Path) -> tuple[int, int]:
    """A file's size and CRC-32, read through a map (no copy of the bytes)."""
    with path.open("rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
        return len(data), zlib.crc32(data)


def store(model_sha: str, runtime: str, variant: str, choice: Choice) -> None:
    """Keep `choice` for the next process (each file written whole, then renamed)."""
    entry = _entry(model_sha, runtime, variant)
    meta: dict[str, str | int] = {"path": choice.path}
    try:
        cache_dir().mkdir(parents=True, exist_ok=True)
        if choice.graph is not None:
            meta.update(bytes=len(choice.graph), crc32=zlib.crc32(choice.graph))
            _write(_file(entry, ".onnx"), choice.graph)
        _write(_file(entry, ".json"), json.dumps(meta).encode())
    except OSError as exc:
        log.info("the query graph could not be cached in %s: %s", cache_dir(), exc)


def _write(path: Path, data: bytes) -> None:
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    except OSError:
        Path(temporary).unlink(missing_ok=True)
        raise


def _discard(entry: str, why: str) -> None:
    log.warning("discarding the cached query graph %s: %s", entry, why)
    for extension in (".json", ".onnx"):
        try:
            _file(entry, extension).unlink(missing_ok=True)
        except OSError as exc:
            log.info("could not delete %s%s: %s", entry, extension, exc)
