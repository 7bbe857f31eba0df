"""Python source as a document tree, read with the standard `ast`: the
module's own code (docstring, imports, constants) as its text, each class and
function a section titled by its signature (methods under their class), its
code, docstring and comments as the section's text and its lines kept for
citations. The imports are kept so files can be linked to what they import.

A file that does not parse (a syntax error, nesting too deep for the parser)
is outlined from its `def` and `class` lines instead, and says why.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Sequence
from typing import Any

from .code_shape import bound, shape
from .formats import decode
from .limits import DEFAULT_LIMITS, Budget, IngestLimits
from .parsed import ParsedDocument, Section
from .source_lines import SourceLines, cut_title, file_title, first_paragraph

LANGUAGE = "python"
_Symbol = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
_DEFINITION = re.compile(r"^([ \t]*)(?:async[ \t]+)?(def|class)[ \t]+([A-Za-z_]\w*)")


def parse_python(data: bytes, name: str, limits: IngestLimits = DEFAULT_LIMITS) -> ParsedDocument:
    budget = Budget(name, limits)
    text = decode(data, name, budget)
    lines = text.split("\n")
    title = file_title(name)
    metadata: dict[str, Any] = {"language": LANGUAGE}
    try:
        tree = ast.parse(text, filename=name)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        # ValueError: a null byte decode let through; RecursionError and
        # MemoryError: nesting deeper than the parser takes.
        metadata["parse_error"] = _problem(exc)
        root = _Outline(lines, title).module()
    else:
        root = _Symbols(lines, title).module(tree)
        metadata["imports"] = imports(tree)
        metadata["bound"] = bound(tree)
    budget.check_time()
    return ParsedDocument(title, LANGUAGE, root, metadata)


def _problem(exc: BaseException) -> str:
    if isinstance(exc, SyntaxError):
        return f"line {exc.lineno}: {exc.msg}; outlined from its def and class lines"
    return (
        f"{type(exc).__name__}: nested too deeply to parse; outlined from its def and class lines"
    )


def imports(tree: ast.Module) -> list[list[Any]]:
    """Each import as [level, module, names]: `import a.b` is [0, "a.b", []],
    `from ..c import d, e` is [2, "c", ["d", "e"]]."""
    found: list[list[Any]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend([0, alias.name, []] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            found.append([node.level, node.module or "", [a.name for a in node.names]])
    return found


class _Symbols(SourceLines):
    """Sections from the syntax tree."""

    def __init__(self, lines: Sequence[str], title: str) -> None:
        super().__init__(lines)
        self.title = title

    def module(self, tree: ast.Module) -> Section:
        root = self.root_section(self.title)
        self._fill(root, tree.body, 1, len(self.lines), in_class=False)
        return root

    def _fill(
        self, section: Section, body: list[ast.stmt], first: int, last: int, in_class: bool
    ) -> None:
        symbols = list(_defined(body))
        extents = [(self._start(node), node.end_lineno or node.lineno) for node in symbols]
        section.text, section.line_marks = self.text(first, last, extents)
        for node, (start, end) in zip(symbols, extents, strict=True):
            kind = (
                "class" if isinstance(node, ast.ClassDef) else "method" if in_class else "function"
            )
            child = Section(
                _title(node), section.level + 1, element_type=kind, line_start=start, line_end=end
            )
            child.summary = first_paragraph(ast.get_docstring(node) or "")
            if not isinstance(node, ast.ClassDef):
                child.shape = shape(node)
            section.children.append(child)
            if isinstance(node, ast.ClassDef):
                self._fill(child, node.body, start, end, in_class=True)
            else:  # nested functions stay in their function's text
                child.text, child.line_marks = self.text(start, end, ())

    def _start(self, node: _Symbol) -> int:
        """A symbol's first line: its decorators, and the comment block just above it."""
        line = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        while line > 1 and self.lines[line - 2].lstrip().startswith("#"):
            line -= 1
        return line


def _defined(body: list[ast.stmt]) -> Iterator[_Symbol]:
    """The classes and functions a body defines, those under `if`, `try` and
    `with` blocks too (`if TYPE_CHECKING:` stubs, fallbacks after an import
    error); not those inside functions."""
    for node in body:
        if isinstance(node, _Symbol):
            yield node
        elif isinstance(node, (ast.If, ast.For, ast.While, ast.With, ast.AsyncWith)):
            yield from _defined(node.body)
            yield from _defined(getattr(node, "orelse", []))
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody):
                yield from _defined(block)
            for handler in node.handlers:
                yield from _defined(handler.body)


def _title(node: _Symbol) -> str:
    """The symbol's signature: `def name(args) -> returns` or `class Name(bases)`."""
    if isinstance(node, ast.ClassDef):
        bases = [ast.unparse(b) for b in node.bases] + [ast.unparse(k) for k in node.keywords]
        title = f"class {node.name}({', '.join(bases)})" if bases else f"class {node.name}"
    else:
        prefix = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
        returns = f" -> {ast.unparse(node.returns)}" if node.returns is not None else ""
        title = f"{prefix} {node.name}({ast.unparse(node.args)}){returns}"
    return cut_title(title)


class _Outline(SourceLines):
    """Sections from `def` and `class` lines and their indentation, for a file
    the parser refuses: a symbol runs until the next line indented no deeper."""

    def __init__(self, lines: Sequence[str], title: str) -> None:
        super().__init__(lines)
        self.title = title

    def module(self) -> Section:
        root = self.root_section(self.title)
        found = [(i + 1, m) for i, line in enumerate(self.lines) if (m := _DEFINITION.match(line))]
        top = min((len(m.group(1)) for _, m in found), default=0)
        symbols = [(line, m) for line, m in found if len(m.group(1)) == top]
        extents = [(line, self._end(line, top)) for line, _ in symbols]
        root.text, root.line_marks = self.text(1, len(self.lines), extents)
        for (line, match), (start, end) in zip(symbols, extents, strict=True):
            kind = "class" if match.group(2) == "class" else "function"
            title = cut_title(self.lines[line - 1].strip().rstrip(":"))
            child = Section(title, 1, element_type=kind, line_start=start, line_end=end)
            child.text, child.line_marks = self.text(start, end, ())
            root.children.append(child)
        return root

    def _end(self, line: int, indent: int) -> int:
        end = line
        for number in range(line + 1, len(self.lines) + 1):
            text = self.lines[number - 1]
            if not text.strip():
                continue
            if len(text) - len(text.lstrip()) <= indent:
                break
            end = number
        return end
