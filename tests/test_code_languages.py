"""TypeScript, JavaScript, Go, Rust and Java read as document trees through
the real tree-sitter grammars from PyPI (the `code` extra): symbols, kinds,
signatures as titles, lines, imports, partial reads, and relative imports
linked between script files."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mnemotree import Memory
from mnemotree.ingest.imports import IMPORTS
from mnemotree.ingest.parsed import Section
from mnemotree.ingest.parsers import parse

pytestmark = pytest.mark.both_stores

LOGIN_TS = textwrap.dedent(
    """\
    import { z } from "zod";
    import { db } from "../db";
    import { sign } from "./tokens";

    // Validate the login form before it reaches the database.
    export async function login(req: Request): Promise<Result<User>> {
      const body = z.object({ user: z.string() }).parse(req.body);
      return ok(await db.find(body.user));
    }

    export const logout = async (id: string) => {
      await db.drop(id);
    };

    export class Session extends Base {
      /** Renews the session token. */
      renew(user: string): string {
        return sign(user);
      }
    }

    interface Options { ttl: number }
    """
)


def _kinds(section: Section) -> list[tuple[str, str, int | None, int | None]]:
    found = [(section.element_type, section.title, section.line_start, section.line_end)]
    for child in section.children:
        found += _kinds(child)
    return found


def test_typescript_symbols_with_signatures_lines_and_imports() -> None:
    parsed = parse(LOGIN_TS.encode(), "/repo/src/auth/login.ts")
    assert parsed.doc_type == "typescript" and "parse_error" not in parsed.metadata
    assert _kinds(parsed.root)[1:] == [
        ("function", "async function login(req: Request): Promise<Result<User>>", 5, 9),
        ("function", "const logout = async (id: string)", 11, 13),
        ("class", "class Session extends Base", 15, 20),
        ("method", "renew(user: string): string", 16, 19),
        ("interface", "interface Options", 22, 22),
    ]
    login = parsed.root.children[0]
    assert login.summary == "Validate the login form before it reaches the database."
    assert parsed.root.children[2].children[0].summary == "Renews the session token."
    assert login.text.startswith("// Validate the login form")  # its comment is its text
    assert "renew(" not in parsed.root.children[2].text  # the method is the class's child
    assert [i[1] for i in parsed.metadata["imports"]] == ["zod", "../db", "./tokens"]


def test_go_rust_and_java_symbols() -> None:
    go = (
        'package main\n\nimport (\n\t"fmt"\n)\n\n// Server serves.\ntype Server struct{}\n\n'
        'func (s *Server) Start() error {\n\tfmt.Println("up")\n\treturn nil\n}\n'
    )
    rust = (
        "use crate::store::Db;\n\n/// A thing.\npub struct Thing { a: i32 }\n\n"
        "impl Thing {\n    pub fn new() -> Self { Thing { a: 1 } }\n}\n"
    )
    java = (
        "import java.util.List;\n\npublic class Box {\n    public Box() {}\n"
        "    public int get() { return 1; }\n}\n"
    )
    assert _kinds(parse(go.encode(), "main.go").root)[1:] == [
        ("type", "type Server struct", 7, 8),
        ("method", "func (s *Server) Start() error", 10, 13),
    ]
    assert _kinds(parse(rust.encode(), "lib.rs").root)[1:] == [
        ("struct", "pub struct Thing", 3, 4),
        ("impl", "impl Thing", 6, 8),
        ("method", "pub fn new() -> Self", 7, 7),
    ]
    assert _kinds(parse(java.encode(), "Box.java").root)[1:] == [
        ("class", "public class Box", 3, 6),
        ("method", "public Box()", 4, 4),
        ("method", "public int get()", 5, 5),
    ]
    assert parse(go.encode(), "main.go").metadata["imports"] == [[0, "fmt", []]]


def test_a_script_with_syntax_errors_is_read_in_part() -> None:
    broken = "function ok() { return 1 }\nfunction broken( { return\n"
    parsed = parse(broken.encode(), "bad.js")
    assert parsed.metadata["parse_error"] == "syntax error at line 2; read in part"
    assert ("function", "function ok()", 1, 1) in _kinds(parsed.root)
    assert "function broken(" in parsed.root.text  # what could not be read stays as text


def test_relative_imports_link_script_files(memory: Memory, tmp_path: Path) -> None:
    root = tmp_path / "web"
    (root / "src" / "auth").mkdir(parents=True)
    (root / "src" / "db").mkdir()
    (root / "package.json").write_text('{"name": "web"}\n')
    (root / "src" / "auth" / "login.ts").write_text(LOGIN_TS)
    (root / "src" / "auth" / "tokens.ts").write_text("export const sign = (u: string) => u;\n")
    (root / "src" / "db" / "index.ts").write_text("export const db = { find() {}, drop() {} };\n")
    report = memory.docs.ingest(root, scope="web")
    assert report.summary()["failed"] == 0
    roots = {str(n.metadata["relative_path"]): n.id for n in memory.roots()}
    name_of = {v: k for k, v in roots.items()}
    login = roots["src/auth/login.ts"]
    linked = {
        name_of[r.target_id]
        for r in memory.typed.relations(login)
        if r.type == IMPORTS and r.source_id == login
    }
    assert linked == {"src/auth/tokens.ts", "src/db/index.ts"}  # "zod" is a package
    answer = memory.docs.ask("renew the session token", scopes=["web"], generate=False)
    assert "src/auth/login.ts:16-19" in [s.header for s in answer.sources]


def test_without_the_code_extra_a_script_fails_naming_it(tmp_path: Path) -> None:
    # A process where tree-sitter cannot be imported, as after a plain install.
    (tmp_path / "a.ts").write_text("export const a = 1;\n")
    (tmp_path / "b.py").write_text("B = 2\n")
    script = textwrap.dedent(
        f"""
        import sys
        sys.modules["tree_sitter"] = None
        from mnemotree import Memory
        with Memory({str(tmp_path / "m.db")!r}, embedder="hashing") as m:
            report = m.docs.ingest({str(tmp_path)!r}, scope="s")
        print(report.summary()["added"], [f.error for f in report.failed])
        """
    )
    ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    added, _, errors = ran.stdout.partition(" ")
    assert added == "1"  # the Python file
    assert "a.ts: reading typescript needs tree_sitter: pip install 'mnemotree[code]'" in errors
