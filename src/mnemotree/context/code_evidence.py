"""What the code says about an open file: the files it imports, the files
that import it (its callers) and, among those, its tests, read from the
`imports` links between ingested code files."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..ingest.imports import IMPORTS
from ..ingest.plan import DOCUMENT
from ..store import Store
from .signals import file_parts

IMPORTED = "imported"
CALLER = "caller"
TEST = "test"
MAX_NEIGHBOURS = 20  # linked files read per open file, each way
_TEST_FILE = re.compile(
    r"(^|/)(tests?|__tests__|spec)/|(^|/)test_[^/]+$|_test\.[a-z]+$|\.(test|spec)\.[a-z]+$"
)


def is_test(path: str) -> bool:
    """Whether a path names a test file (tests/…, test_x.py, x_test.go, x.test.ts)."""
    return bool(_TEST_FILE.search(path.replace("\\", "/")))


def linked_files(store: Store, path: str, scopes: Sequence[str] | None) -> dict[str, str]:
    """The ingested files the open file at `path` imports (`imported`), and
    those importing it (`caller`, or `test` for a test file), by their path
    below the project; empty when the file was not ingested."""
    name = file_parts(path)[0]
    if not name:
        return {}
    wanted = path.replace("\\", "/").strip("/")
    documents = [
        d
        for d in store.roots_named(DOCUMENT, [name], scopes)
        if _same_file(str(d.metadata.get("relative_path") or ""), wanted)
    ]
    if not documents:
        return {}
    document = min(documents, key=lambda d: (-len(str(d.metadata["relative_path"])), d.id))
    links = [r for r in store.relations([document.id]) if r.type == IMPORTS]
    out_ids = [r.target_id for r in links if r.source_id == document.id][:MAX_NEIGHBOURS]
    in_ids = [r.source_id for r in links if r.target_id == document.id][:MAX_NEIGHBOURS]
    paths = {
        n.id: str(n.metadata.get("relative_path") or "")
        for n in store.get_many([*out_ids, *in_ids])
        if scopes is None or n.scope in scopes
    }
    found: dict[str, str] = {}
    for node_id in in_ids:
        if paths.get(node_id):
            found[paths[node_id]] = TEST if is_test(paths[node_id]) else CALLER
    for node_id in out_ids:
        if paths.get(node_id):
            found[paths[node_id]] = IMPORTED
    return found


def _same_file(relative: str, wanted: str) -> bool:
    """A document's path below its project and a file signal name one file
    when one ends with the other at a folder boundary."""
    if not relative:
        return False
    return relative == wanted or relative.endswith("/" + wanted) or wanted.endswith("/" + relative)
