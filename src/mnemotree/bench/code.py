"""Code as memory: ingest a Python or TypeScript project, count the symbols
found against the language's own tooling (Python's `symtable`, the
TypeScript compiler's parser), and ask questions by description whose answer
is a known function (top 3).

The questions (`data/code_questions.json`) were written before the first
run: for this package's source and the sqlite-utils 3.38 sdist by the
session that built the benchmark, for the @trpc/server 10.45.2 npm
package's TypeScript by a reviewer who read only that source."""

from __future__ import annotations

import json
import re
import symtable
import tempfile
import time
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

from ..ingest.plan import CHUNK, SECTION
from ..memory import Memory
from ..model import Node
from .code_typescript import KINDS as TS_KINDS
from .code_typescript import typescript_count
from .stats import percentiles

SCOPE = "code"
TOP = 3
SYMBOL_KINDS = ("class", "function", "method")
# What each language's files are called and which section kinds its symbols are.
INCLUDE = {"python": ("*.py",), "typescript": ("*.ts", "*.tsx")}
KINDS = {"python": SYMBOL_KINDS, "typescript": TS_KINDS}


def questions(project: str) -> list[dict[str, Any]]:
    return shipped("code_questions.json", project, "questions")


def language(project: str) -> str:
    """The language a shipped question set's project is written in."""
    languages: dict[str, str] = _data("code_questions.json").get("_languages", {})
    return languages.get(project, "python")


def shipped(name: str, project: str, what: str) -> list[dict[str, Any]]:
    """A project's entries in one of the shipped data files (KeyError naming the known ones)."""
    data = _data(name)
    if project not in data or project.startswith("_"):
        known = [k for k in data if not k.startswith("_")]
        raise KeyError(f"no {what} for {project!r}; known: {', '.join(known)}")
    found: list[dict[str, Any]] = data[project]
    return found


def _data(name: str) -> dict[str, Any]:
    read: dict[str, Any] = json.loads(
        resources.files("mnemotree.bench").joinpath(f"data/{name}").read_text("utf-8")
    )
    return read


def default_folder() -> Path:
    """This package's own source."""
    return Path(str(resources.files("mnemotree")))


def run(
    folder: Path,
    project: str,
    embedder: str = "minilm",
    progress: Callable[[str], None] = lambda _: None,
    typescript: Path | None = None,
) -> dict[str, Any]:
    """`typescript`: the TypeScript compiler's package folder, for the
    reference count of a TypeScript project (else Node.js resolves it)."""
    asked = questions(project)
    written_in = language(project)
    with (
        tempfile.TemporaryDirectory() as tmp,
        Memory(Path(tmp) / "code.db", embedder=embedder) as m,
    ):
        started = time.perf_counter()
        report = m.docs.ingest(folder, scope=SCOPE, include=list(INCLUDE[written_in]))
        ingest_s = time.perf_counter() - started
        progress(f"read {len(report.files)} files in {ingest_s:.1f} s; embedding…")
        started = time.perf_counter()
        m.flush()
        embed_s = time.perf_counter() - started
        symbols = _symbols(m, KINDS[written_in])
        m.search("warm up", scopes=[SCOPE], record=False)  # loads the query model: not timed
        answers, timings = [], []
        for item in asked:
            started = time.perf_counter()
            hits = m.search(item["q"], scopes=[SCOPE], limit=TOP, record=False)
            timings.append((time.perf_counter() - started) * 1000)
            named = [_where(h.node) for h in hits]
            rank = next((i + 1 for i, w in enumerate(named) if _expected(w, item["expect"])), None)
            answers.append({"q": item["q"], "rank": rank, "top": named})
    files = [Path(f.path) for f in report.files]
    if written_in == "typescript":
        reference = typescript_count(files, typescript)
    else:
        reference = compiler_count(files)
    found_top3 = sum(1 for a in answers if a["rank"] is not None)
    return {
        "project": project,
        "language": written_in,
        "folder": str(folder),
        "embedder": embedder,
        "files": len(report.files),
        "failed": [f.error for f in report.failed],
        "files_per_s": round(len(report.files) / ingest_s, 1) if ingest_s else None,
        "files_per_s_with_vectors": round(len(report.files) / (ingest_s + embed_s), 1),
        "symbols": symbols,
        "reference": reference,
        "symbols_found_share": round(symbols["total"] / reference["total"], 3)
        if reference.get("total")
        else None,
        "questions": len(answers),
        "found_in_top3": found_top3,
        "target_met": found_top3 >= 8 * len(answers) / 10,
        "search_ms": percentiles(timings),
        "answers": answers,
    }


def _symbols(m: Memory, kinds: tuple[str, ...]) -> dict[str, int]:
    """The symbols of `kinds` the ingest made sections of."""
    counts = dict.fromkeys(kinds, 0)
    for root in m.roots():
        for node in m.store.tree_nodes(root.id):
            kind = node.metadata.get("element_type")
            if node.context_type == SECTION and kind in counts:
                counts[str(kind)] += 1
    return {**counts, "total": sum(counts.values())}


def compiler_count(files: list[Path]) -> dict[str, int]:
    """What the compiler's own symbol tables (`symtable`) hold: classes with
    their methods (nested classes too) and module-level functions; functions
    nested in functions, lambdas and comprehensions are left out, as ingest
    keeps them in their function's text."""
    counts = dict.fromkeys(SYMBOL_KINDS, 0)
    for file in files:
        try:
            table = symtable.symtable(file.read_text("utf-8"), str(file), "exec")
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue  # the compiler cannot read it: no reference count
        _count(table, counts)
    return {**counts, "total": sum(counts.values())}


_ANONYMOUS = frozenset({"lambda", "listcomp", "setcomp", "dictcomp", "genexpr"})


def _count(table: symtable.SymbolTable, counts: dict[str, int]) -> None:
    for child in table.get_children():
        if child.get_name() in _ANONYMOUS or child.get_name().startswith("<"):
            continue
        if child.get_type() == "class":
            counts["class"] += 1
            _count(child, counts)
        elif child.get_type() == "function":
            counts["method" if table.get_type() == "class" else "function"] += 1


def _where(node: Node) -> str:
    """A hit as "path::innermost symbol" (path below the folder read)."""
    meta = node.metadata
    path = str(meta.get("relative_path", meta.get("file_path", "")))
    listed = meta.get("section_path")
    titles = [str(t) for t in listed] if isinstance(listed, list) else []
    if node.context_type == SECTION:
        titles = [*titles[:-1], node.text] if titles else [node.text]
    elif node.context_type != CHUNK:
        titles = []
    name = _name(titles[-1]) if titles else ""
    return f"{path}::{name}"


# A symbol's name in its title, its first line: `def f(`, `class C`, `export
# async function f(`, `export const f = (`, a method `private async run(`.
_DECLARED = re.compile(
    r"(?:(?:export|default|declare|abstract|async)\s+)*"
    r"(?:def|class|function\*?|interface|enum|type|const|let|var)\s+([\w$]+)"
)
_METHOD = re.compile(
    r"(?:(?:public|private|protected|static|readonly|override|async|get|set)\s+)*\*?([\w$]+)\s*[<(]"
)


def _name(title: str) -> str:
    found = _DECLARED.match(title) or _METHOD.match(title)
    return found.group(1) if found else title


def _expected(where: str, expect: list[str]) -> bool:
    path, _, name = where.partition("::")
    for wanted in expect:
        wanted_path, _, wanted_name = wanted.partition("::")
        if name == wanted_name and (path == wanted_path or path.endswith("/" + wanted_path)):
            return True
    return False
