"""Python source read as document trees: symbols with signatures and line
ranges, citations by path and lines, imports linked between files, partial
reads of broken files, and re-reading that writes only changed symbols.

Real files under `tmp_path`, real SQLite (and Postgres) stores, the
standard `ast` as the parser under test.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mnemotree import Memory
from mnemotree.ingest import chunker
from mnemotree.ingest.imports import IMPORTS, module_of
from mnemotree.ingest.parsed import Section
from mnemotree.ingest.python_source import parse_python
from tests.cli_runner import run_cli

pytestmark = pytest.mark.both_stores

AUTH = textwrap.dedent(
    '''\
    """Logging users in."""

    from __future__ import annotations

    from .tokens import sign
    from . import storage

    RETRIES = 3


    # Why a class: the session keeps its clock.
    class Login(Base, metaclass=Meta):
        """A login attempt."""

        limit = 5

        @property
        def user(self) -> str:
            return self._user

        async def submit(self, password: str, *, remember: bool = False) -> bool:
            """Check the password and open a session."""
            # constant time: no timing oracle
            return sign(password) == storage.hash_of(self.user)


    def logout(session_id):
        storage.drop(session_id)
    '''
)
TOKENS = """import hashlib


def sign(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()
"""
STORAGE = """from app.auth import tokens


def hash_of(user):
    return tokens.sign(user)


def drop(session_id):
    pass
"""


def _sections(section: Section) -> list[Section]:
    return [section, *(s for child in section.children for s in _sections(child))]


def _project(root: Path) -> Path:
    package = root / "src" / "app" / "auth"
    package.mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "app"\n')  # the project's top
    (root / "src" / "app" / "__init__.py").write_text('"""The app."""\n')
    (package / "__init__.py").write_text("from .login import Login\n")
    (package / "login.py").write_text(AUTH)
    (package / "tokens.py").write_text(TOKENS)
    (package / "storage.py").write_text(STORAGE)
    return root


# -- parsing ----------------------------------------------------------------------------


def test_symbols_have_signatures_kinds_and_their_lines() -> None:
    parsed = parse_python(AUTH.encode(), "/x/login.py")
    lines = AUTH.split("\n")
    by_title = {s.title: s for s in _sections(parsed.root)}
    login = by_title["class Login(Base, metaclass=Meta)"]
    submit = by_title["async def submit(self, password: str, *, remember: bool=False) -> bool"]
    assert (login.element_type, submit.element_type) == ("class", "method")
    assert by_title["def logout(session_id)"].element_type == "function"

    def line(number: int | None) -> str:
        assert number is not None
        return lines[number - 1].strip()

    # The comment block above the class and the decorator are the symbol's.
    assert line(login.line_start) == "# Why a class: the session keeps its clock."
    assert line(by_title["def user(self) -> str"].line_start) == "@property"
    assert line(submit.line_end).startswith("return sign(password)")
    # A class's text is its own lines: its methods are its children.
    assert "limit = 5" in login.text and "def submit" not in login.text
    assert "constant time" in submit.text  # comments are searchable text
    # What a symbol says it does is shown under its title.
    assert (submit.summary, login.summary) == (
        "Check the password and open a session.",
        "A login attempt.",
    )
    # The module's text is what no symbol holds.
    assert "RETRIES = 3" in parsed.root.text and "class Login" not in parsed.root.text
    assert parsed.metadata["imports"] == [
        [0, "__future__", ["annotations"]],
        [1, "tokens", ["sign"]],
        [1, "", ["storage"]],
    ]


def test_definitions_under_if_and_try_blocks_are_symbols() -> None:
    source = textwrap.dedent(
        """\
        try:
            from fast import parse
        except ImportError:
            def parse(text):
                return text.split()

        class Store:
            if TYPE_CHECKING:
                def flush(self) -> None: ...

            def read(self):
                def inner():
                    return 1
                return inner()
        """
    )
    parsed = parse_python(source.encode(), "store.py")
    kinds = {s.title: s.element_type for s in _sections(parsed.root)[1:]}
    assert kinds == {
        "def parse(text)": "function",
        "class Store": "class",
        "def flush(self) -> None": "method",
        "def read(self)": "method",  # inner() stays in read's text
    }
    store = parsed.root.children[1]
    assert "except ImportError:" in parsed.root.text and "if TYPE_CHECKING:" in store.text


def test_a_file_that_does_not_parse_is_outlined_and_says_why() -> None:
    broken = textwrap.dedent(
        """\
        import os

        def good(x):
            return x

        class Half:
            def m(self):
                if (:
                    pass

        def after():
            return 1
        """
    )
    parsed = parse_python(broken.encode(), "broken.py")
    assert parsed.metadata["parse_error"].startswith("line 8: ")
    titles = [(s.title, s.line_start, s.line_end) for s in parsed.root.children]
    assert titles == [("def good(x)", 3, 4), ("class Half", 6, 9), ("def after()", 11, 12)]
    deep = ("x = " + "(" * 5000 + ")" * 5000 + "\n").encode()  # beyond the parser's nesting
    assert "parse_error" in parse_python(deep, "deep.py").metadata


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["def", "class"]),
            st.integers(min_value=0, max_value=40),  # body statements
            st.booleans(),  # a comment above
        ),
        min_size=1,
        max_size=8,
    )
)
def test_every_chunk_starts_on_the_line_it_cites(shapes: list[tuple[str, int, bool]]) -> None:
    source: list[str] = ["import os", ""]
    for number, (kind, body, commented) in enumerate(shapes):
        if commented:
            source.append(f"# about item {number}")
        if kind == "def":
            source.append(f"def item_{number}(a, b):")
            source += [
                f"    value_{i} = a + b * {i}  # step {i} of item {number}" for i in range(body)
            ]
            source.append("    return a")
        else:
            source.append(f"class Item{number}:")
            source.append(f"    field = {number}")
            for i in range(body // 8):
                source += [f"    def method_{i}(self):", f"        return self.field + {i}"]
        source.append("")
    text = "\n".join(source)
    ast.parse(text)
    parsed = parse_python(text.encode(), "gen.py")
    for section in _sections(parsed.root):
        for start, end in chunker.spans(section.text, 300, 40):
            first, last = section.lines_of(start, end)
            assert first is not None and last is not None and first <= last
            head = section.text[start:end].split("\n")[0]
            tail = section.text[start:end].split("\n")[-1]
            assert head in source[first - 1]
            assert tail in source[last - 1]


# -- ingesting --------------------------------------------------------------------------


def test_code_is_cited_by_path_and_lines(memory: Memory, tmp_path: Path) -> None:
    project = _project(tmp_path / "repo")
    report = memory.docs.ingest(project, scope="code")
    assert report.summary()["failed"] == 0 and report.summary()["added"] == 5
    answer = memory.docs.ask(
        "check the password and open a session", scopes=["code"], generate=False
    )
    headers = [s.header for s in answer.sources]
    assert "src/app/auth/login.py:21-24" in headers


def test_imports_become_relations_between_files(memory: Memory, tmp_path: Path) -> None:
    project = _project(tmp_path / "repo")
    memory.docs.ingest(project, scope="code")
    roots = {
        str(n.metadata["relative_path"]): n.id
        for n in memory.roots()
        if n.metadata.get("language") == "python"
    }
    name_of = {v: k for k, v in roots.items()}

    def imported(relative: str) -> set[str]:
        rows = memory.typed.relations(roots[relative])
        return {
            name_of[r.target_id]
            for r in rows
            if r.type == IMPORTS and r.source_id == roots[relative]
        }

    assert imported("src/app/auth/login.py") == {
        "src/app/auth/tokens.py",
        "src/app/auth/storage.py",
    }
    assert imported("src/app/auth/__init__.py") == {"src/app/auth/login.py"}
    assert imported("src/app/auth/storage.py") == {"src/app/auth/tokens.py"}  # absolute import
    assert imported("src/app/auth/tokens.py") == set()  # hashlib is not in the scope
    # An import removed is a relation removed.
    login = project / "src" / "app" / "auth" / "login.py"
    login.write_text(AUTH.replace("from .tokens import sign\n", ""))
    memory.docs.ingest(project, scope="code")
    assert imported("src/app/auth/login.py") == {"src/app/auth/storage.py"}


def test_changing_one_function_rewrites_only_its_nodes(memory: Memory, tmp_path: Path) -> None:
    project = _project(tmp_path / "repo")
    memory.docs.ingest(project, scope="code")
    login = project / "src" / "app" / "auth" / "login.py"
    root = next(n for n in memory.roots() if n.context_value == str(login))
    before = {n.id for n in memory.store.tree_nodes(root.id)}
    login.write_text(
        AUTH.replace("storage.drop(session_id)", "storage.drop(session_id)\n    return None")
    )
    result = memory.docs.ingest(login, scope="code").files[0]
    after = {n.id for n in memory.store.tree_nodes(root.id)}
    assert result.status == "changed"
    # logout's chunk is new, its section ends a line later, the document has
    # a new size and hash: nothing else is written.
    assert len(after - before) == 1 and len(before - after) == 1 and result.written == 3


def test_bad_files_with_code_extensions(memory: Memory, tmp_path: Path) -> None:
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "binary.py").write_bytes(b"\x7fELF\x00\x01\x02" * 100)
    (folder / "minified.py").write_text("x = [" + ", ".join(str(i) for i in range(200_000)) + "]\n")
    (folder / "broken.py").write_text("def ok():\n    return 1\n\ndef bad(:\n")
    report = memory.docs.ingest(folder, scope="code")
    failed = {Path(f.path).name: f.error for f in report.failed}
    assert list(failed) == ["binary.py"] and "binary data" in str(failed["binary.py"])
    broken = next(n for n in memory.roots() if n.context_value.endswith("broken.py"))
    assert broken.metadata["parse_error"].startswith("line 4")
    minified = next(f for f in report.files if f.path.endswith("minified.py"))
    assert minified.status == "added" and minified.chunks < 1000


def test_module_names_from_paths() -> None:
    assert module_of("src/pkg/sub/mod.py") == ("src", "pkg", "sub", "mod")
    assert module_of("pkg/__init__.py") == ("pkg",)
    assert module_of("mod.pyi") == ("mod",)


def test_generated_files_are_skipped_unless_asked_for(memory: Memory, tmp_path: Path) -> None:
    folder = tmp_path / "proj"
    (folder / "node_modules" / "dep").mkdir(parents=True)
    (folder / "api.py").write_text("def serve():\n    return 1\n")
    (folder / "api_pb2.py").write_text("DESCRIPTOR = None\n")
    (folder / "node_modules" / "dep" / "setup.py").write_text("x = 1\n")
    names = {Path(f.path).name for f in memory.docs.ingest(folder, scope="a").files}
    assert names == {"api.py"}
    names = {Path(f.path).name for f in memory.docs.ingest(folder, scope="b", generated=()).files}
    assert names == {"api.py", "api_pb2.py", "setup.py"}
    # A generated file named alone is read: the caller asked for it.
    alone = memory.docs.ingest(folder / "api_pb2.py", scope="c").files
    assert [f.status for f in alone] == ["added"]


def test_bench_code_counts_symbols_like_the_compiler() -> None:
    from mnemotree.bench.code import default_folder, run

    result = run(default_folder(), "mnemotree", embedder="hashing")
    assert result["failed"] == [] and result["files"] > 100
    # The compiler also counts definitions under if/try blocks, which ingest keeps in
    # the enclosing text: a few, never more than 2%.
    assert result["symbols"]["total"] <= result["reference"]["total"]
    assert result["symbols_found_share"] >= 0.98
    assert len(result["answers"]) == 10


def test_a_heading_is_folded_into_its_returned_chunk(memory: Memory, tmp_path: Path) -> None:
    memory.docs.ingest(_project(tmp_path / "repo"), scope="code")
    hits = memory.search("logout session_id", scopes=["code"], limit=10)
    returned = {h.node.id for h in hits}
    assert not any(
        h.node.context_type == "section" and h.node.id in {x.node.parent_id for x in hits}
        for h in hits
    )
    folded = [c for h in hits for c in h.covered if c.node.context_type == "section"]
    assert [c.node.text for c in folded] == ["def logout(session_id)"]
    assert all(c.node.id not in returned for c in folded)


def test_bench_code_refuses_an_unknown_question_set_or_folder(tmp_path: Path) -> None:
    unknown = run_cli(tmp_path / "m.db", "bench", "code", "--questions", "django")
    assert unknown.returncode == 1
    assert "no questions for 'django'" in unknown.stderr and "sqlite-utils" in unknown.stderr
    missing = run_cli(tmp_path / "m.db", "bench", "code", "--path", str(tmp_path / "nowhere"))
    assert missing.returncode != 0 and "nowhere" in missing.stderr


def test_a_symlink_loop_in_a_code_tree_is_walked_once(memory: Memory, tmp_path: Path) -> None:
    folder = tmp_path / "loop"
    (folder / "pkg").mkdir(parents=True)
    (folder / "pkg" / "mod.py").write_text("def f():\n    return 1\n")
    (folder / "pkg" / "again").symlink_to(folder, target_is_directory=True)  # pkg/again -> ..
    report = memory.docs.ingest(folder, scope="code")
    assert [Path(f.path).name for f in report.files] == ["mod.py"]
    assert report.summary()["failed"] == 0
