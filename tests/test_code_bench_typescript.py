"""`bench code` on TypeScript: the symbols ingest makes sections of, counted
against the TypeScript compiler's own parse of the same files (the compiler
from the TypeScript client's dev dependencies), and a symbol's name read
from its title for the question answers."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from mnemotree import Memory
from mnemotree.bench.code import INCLUDE, KINDS, _name, _symbols
from mnemotree.bench.code_typescript import typescript_count
from tests.cli_runner import run_cli
from tests.node_tools import client_dependencies

# Every kind the two counts compare, and the constructs that are not symbols
# on either side: overload signatures, ambient declarations, abstract methods,
# a class field holding a function, two variables in one declaration,
# functions nested in functions, a namespace's members.
SOURCE = textwrap.dedent(
    """\
    import { db } from "./db";

    export function parse(text: string): number;
    export function parse(text: string, radix: number): number;
    export function parse(text: string, radix = 10): number {
      const inner = () => radix;
      function nested() { return inner(); }
      return parseInt(text, nested());
    }

    export default function main() { return parse("1"); }
    declare function external(x: number): void;
    export const handler = async (event: Event) => { await db.put(event); };
    const generic = <T,>(value: T): T => value;
    let a = 1, b = () => 2;
    const named = function named() { return 3; };

    export abstract class Store<T> extends Base implements Reader {
      private cache = new Map<string, T>();
      onChange = (key: string) => this.cache.delete(key);
      constructor(readonly name: string) { super(); }
      get size(): number { return this.cache.size; }
      set size(value: number) {}
      abstract read(key: string): T;
      load(key: string): T;
      load(key: string, fallback?: T): T | undefined { return this.cache.get(key) ?? fallback; }
      static async open(name: string): Promise<void> {}
    }

    class Plain {}
    interface Options { ttl: number; refresh(): void }
    export interface Reader { read(key: string): unknown }
    enum Level { Low, High }
    export const enum Mode { Fast = "fast" }
    type Key = string | number;
    export type Handler<T> = (value: T) => void;
    namespace Internal { export function hidden() {} }
    """
)


def test_ingest_finds_the_symbols_the_typescript_compiler_declares(tmp_path: Path) -> None:
    typescript = client_dependencies() / "typescript"
    folder = tmp_path / "project"
    (folder / "lib").mkdir(parents=True)
    (folder / "store.ts").write_text(SOURCE)
    (folder / "lib" / "view.tsx").write_text(
        "export function View(props: { name: string }) {\n  return <b>{props.name}</b>;\n}\n"
    )
    with Memory(tmp_path / "m.db", embedder="hashing") as memory:
        report = memory.docs.ingest(folder, scope="code", include=list(INCLUDE["typescript"]))
        ours = _symbols(memory, KINDS["typescript"])
    reference = typescript_count([Path(f.path) for f in report.files], typescript)
    assert len(report.files) == 2 and report.failed == []
    assert reference == ours
    # Counted by hand from SOURCE: parse, main, handler, generic, named, View;
    # constructor, get size, set size, load, open; Store, Plain.
    assert (ours["function"], ours["method"], ours["class"]) == (6, 5, 2)
    assert (ours["interface"], ours["enum"], ours["type"]) == (2, 2, 2)


def test_without_node_the_reference_is_missing_and_says_how(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # a folder without node
    missing = typescript_count([tmp_path / "a.ts"], None)
    assert set(missing) == {"missing"} and "--typescript" in missing["missing"]


def test_a_typescript_folder_that_is_not_the_compiler_is_refused(tmp_path: Path) -> None:
    done = run_cli(
        tmp_path / "m.db",
        "bench",
        "code",
        "--questions",
        "trpc-server",
        "--path",
        str(tmp_path),
        "--typescript",
        str(tmp_path),
        "--embedder",
        "hashing",
    )
    assert done.returncode == 1
    assert "no TypeScript package at" in done.stderr and str(tmp_path) in done.stderr


@pytest.mark.parametrize(
    ("title", "name"),
    [
        ("def convert(self, table: str)", "convert"),
        ("async def serve(app)", "serve"),
        ("class Database", "Database"),
        ("export async function login(req: Request): Promise<Result<User>>", "login"),
        ("export default function main()", "main"),
        ("function* walk(node: Node)", "walk"),
        ("export const getErrorShape = <TConfig>(opts: Options)", "getErrorShape"),
        ("export abstract class Store<T> extends Base", "Store"),
        ("export interface Reader", "Reader"),
        ("export type Handler<T> = (value: T) => void;", "Handler"),
        ("constructor(readonly name: string)", "constructor"),
        ("private static async open(name: string): Promise<void>", "open"),
        ("get size(): number", "size"),
        ("load<T>(key: string): T", "load"),
    ],
)
def test_a_symbol_is_named_from_its_title(title: str, name: str) -> None:
    assert _name(title) == name
