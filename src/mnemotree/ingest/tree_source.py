"""TypeScript, JavaScript, Go, Rust and Java source as document trees, read
with tree-sitter (the `code` extra): classes, interfaces, functions, methods,
impl blocks and types become sections titled by their first line, with their
code and comments as text and their lines kept for citations; the module's
own lines (imports, constants) are the document's text. tree-sitter reads a
file with syntax errors in part: what it could not read stays in the text
around it, and the document says so."""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ..errors import MissingExtra
from .formats import decode
from .limits import DEFAULT_LIMITS, Budget, IngestLimits
from .parsed import ParsedDocument, Section
from .source_lines import SourceLines, cut_title, file_title, first_paragraph
from .tree_shape import tree_bound, tree_shape


@dataclass(frozen=True)
class Grammar:
    """A tree-sitter language: the wheel that carries it and its files."""

    module: str  # the PyPI wheel's module, e.g. tree_sitter_go
    function: str  # what returns the language in it
    extensions: tuple[str, ...]


GRAMMARS = {
    "typescript": Grammar("tree_sitter_typescript", "language_typescript", (".ts", ".mts", ".cts")),
    "tsx": Grammar("tree_sitter_typescript", "language_tsx", (".tsx",)),
    "javascript": Grammar("tree_sitter_javascript", "language", (".js", ".mjs", ".cjs", ".jsx")),
    "go": Grammar("tree_sitter_go", "language", (".go",)),
    "rust": Grammar("tree_sitter_rust", "language", (".rs",)),
    "java": Grammar("tree_sitter_java", "language", (".java",)),
}
# Node types that are symbols, and their kind (a function inside a class or
# impl block is a method).
SYMBOLS = {
    "function_declaration": "function",
    "generator_function_declaration": "function",
    "function_item": "function",
    "method_definition": "method",
    "method_declaration": "method",
    "constructor_declaration": "method",
    "class_declaration": "class",
    "abstract_class_declaration": "class",
    "interface_declaration": "interface",
    "enum_declaration": "enum",
    "type_alias_declaration": "type",
    "type_declaration": "type",
    "struct_item": "struct",
    "enum_item": "enum",
    "trait_item": "trait",
    "impl_item": "impl",
    "mod_item": "module",
}
# Symbols whose body holds members that are symbols themselves.
CONTAINERS = frozenset({"class", "interface", "trait", "impl", "module", "enum"})
# Statements that wrap a declaration: `export function f`, `export default class`.
_WRAPPERS = frozenset({"export_statement", "ambient_declaration"})
# A variable holding a function is one: `const handler = async (e) => {...}`.
_FUNCTION_VALUES = frozenset({"arrow_function", "function_expression", "function"})
_IMPORTS = frozenset({"import_statement", "import_declaration", "use_declaration", "import_spec"})


def parser_for(language: str) -> Callable[[bytes, str, IngestLimits], ParsedDocument]:
    """The parse function of one language of `GRAMMARS`."""

    def parse(data: bytes, name: str, limits: IngestLimits = DEFAULT_LIMITS) -> ParsedDocument:
        return parse_source(data, name, language, limits)

    return parse


def _parser(language: str) -> Any:
    grammar = GRAMMARS[language]
    try:
        import tree_sitter

        module = importlib.import_module(grammar.module)
    except ImportError as exc:
        raise MissingExtra(
            f"reading {language} needs {exc.name}: pip install 'mnemotree[code]'", "code"
        ) from None
    return tree_sitter.Parser(tree_sitter.Language(getattr(module, grammar.function)()))


def parse_source(
    data: bytes, name: str, language: str, limits: IngestLimits = DEFAULT_LIMITS
) -> ParsedDocument:
    budget = Budget(name, limits)
    text = decode(data, name, budget)
    tree = _parser(language).parse(text.encode("utf-8"))
    lines = text.split("\n")
    title = file_title(name)
    symbols = _Symbols(lines, budget)
    root = symbols.root_section(title)
    symbols.fill(root, tree.root_node, 1, len(lines), in_container=False)
    metadata: dict[str, Any] = {
        "language": language,
        "imports": _imports(tree.root_node),
        "bound": tree_bound(tree.root_node),
    }
    if tree.root_node.has_error:
        first = next(_errors(tree.root_node), None)
        where = f"line {first.start_point[0] + 1}" if first is not None else "somewhere"
        metadata["parse_error"] = f"syntax error at {where}; read in part"
    return ParsedDocument(title, language, root, metadata)


class _Symbols(SourceLines):
    def __init__(self, lines: list[str], budget: Budget) -> None:
        super().__init__(lines)
        self.budget = budget

    def fill(self, section: Section, body: Any, first: int, last: int, in_container: bool) -> None:
        found = list(_defined(body))
        extents = [(_start(node, wrapper), node.end_point[0] + 1) for node, wrapper in found]
        section.text, section.line_marks = self.text(first, last, extents)
        for (node, wrapper), (start, end) in zip(found, extents, strict=True):
            self.budget.check_time()
            kind = _kind(node, in_container)
            child = Section(
                self._title(node), section.level + 1, element_type=kind, line_start=start
            )
            child.line_end = end
            child.summary = first_paragraph(_comment(self.text(start, node.start_point[0], ())[0]))
            if kind in ("function", "method"):
                child.shape = tree_shape(node, wrapper)
            section.children.append(child)
            members = node.child_by_field_name("body")
            if kind in CONTAINERS and members is not None:
                self.fill(child, members, start, end, in_container=True)
            else:
                child.text, child.line_marks = self.text(start, end, ())

    def _title(self, node: Any) -> str:
        """The symbol's first line, up to its body: its signature."""
        row: int = node.start_point[0]
        column: int = node.start_point[1]
        line = self.lines[row][column:]
        title = line.split("{", 1)[0].strip()
        title = title.removesuffix("=>").strip() or line.strip()  # an arrow function's head
        return cut_title(title)


_COMMENT_MARKS = re.compile(r"^\s*(?:/\*\*?|\*/|\*(?!/)|///?|//!)\s?", re.MULTILINE)


def _comment(block: str) -> str:
    """The words of the comment lines above a symbol, without their marks."""
    lines = [line for line in block.split("\n") if line.strip().startswith(("//", "/*", "*"))]
    return _COMMENT_MARKS.sub("", "\n".join(lines)).replace("*/", "").strip()


def _kind(node: Any, in_container: bool) -> str:
    kind = SYMBOLS.get(node.type, "function")  # a variable holding a function
    return "method" if kind == "function" and in_container else kind


def _defined(body: Any) -> Iterator[tuple[Any, Any]]:
    """(symbol, the statement that wraps it or itself) for each symbol `body` declares."""
    for node in body.named_children:
        inner = node
        if node.type in _WRAPPERS:
            inner = node.child_by_field_name("declaration") or next(
                (c for c in node.named_children if c.type in SYMBOLS or _holds_function(c)), node
            )
        if inner.type in SYMBOLS or _holds_function(inner):
            yield inner, node


def _holds_function(node: Any) -> bool:
    """`const f = () => ...`: a declaration whose only value is a function."""
    if node.type not in ("lexical_declaration", "variable_declaration"):
        return False
    declarators = [c for c in node.named_children if c.type == "variable_declarator"]
    if len(declarators) != 1:
        return False
    value = declarators[0].child_by_field_name("value")
    return value is not None and value.type in _FUNCTION_VALUES


def _start(node: Any, wrapper: Any) -> int:
    """A symbol's first line: its wrapper's, or the comments just above it."""
    start: int = wrapper.start_point[0]
    own: int = node.start_point[0]
    before = wrapper.prev_named_sibling
    while before is not None and before.type in ("comment", "line_comment", "block_comment"):
        if before.end_point[0] < start - 1:
            break  # a blank line between: the comment is not the symbol's
        start = before.start_point[0]
        before = before.prev_named_sibling
    return min(start, own) + 1


def _imports(root: Any) -> list[list[Any]]:
    """What the file imports, as [0, spec, []]: a module path ("./db",
    "fmt", "crate::store", "java.util.List")."""
    found: list[list[Any]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        nested = [c for c in node.named_children if c.type in ("import_spec", "import_spec_list")]
        if node.type in _IMPORTS and not nested:
            spec = _spec(node)
            if spec:
                found.append([0, spec, []])
            continue
        if nested or node.type in ("program", "source_file", "import_spec_list"):
            stack.extend(reversed(node.named_children))
        elif node.type in _WRAPPERS and node.child_by_field_name("source") is not None:
            found.append([0, _text(node.child_by_field_name("source")).strip("'\""), []])
    return found


def _spec(node: Any) -> str:
    source = node.child_by_field_name("source") or node.child_by_field_name("path")
    if source is None:
        source = node.child_by_field_name("argument") or (
            node.named_children[-1] if node.named_children else None
        )
    return _text(source).strip("'\"`") if source is not None else ""


def _text(node: Any) -> str:
    return bytes(node.text or b"").decode("utf-8", "replace")


def _errors(node: Any) -> Iterator[Any]:
    if node.type == "ERROR" or node.is_missing:
        yield node
    for child in node.children:
        if child.has_error:
            yield from _errors(child)
