"""`import mnemotree` and the command line's startup load no engine: names
are imported when first used, and the CLI imports what a command needs when
it runs. Checked structurally (which modules a fresh interpreter loaded),
never by timing."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import mnemotree
from tests.cli_runner import ENV

INIT = Path(mnemotree.__file__)
HEAVY = ("numpy", "onnxruntime", "mnemotree.memory", "mnemotree.store.protocol")


def _loaded_after(code: str) -> set[str]:
    shown = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys; print('\\n'.join(sys.modules))"],
        capture_output=True,
        text=True,
        env=ENV,
        check=True,
    )
    return set(shown.stdout.split())


def test_importing_the_package_or_the_cli_loads_no_engine() -> None:
    for code in ("import mnemotree", "import mnemotree.cli.main", "from mnemotree import Node"):
        loaded = _loaded_after(code)
        assert [m for m in HEAVY if m in loaded] == [], code


def test_a_command_line_without_arguments_prints_help_without_the_engine() -> None:
    code = (
        "import sys\nfrom mnemotree.cli.main import main\nsys.argv = ['mnemotree', '--help']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass"
    )
    loaded = _loaded_after(code)
    assert [m for m in HEAVY if m in loaded] == []


def test_every_lazy_name_is_imported_for_type_checkers_too() -> None:
    """The map `__getattr__` reads and the imports type checkers read name
    the same objects, and `__all__` is exactly the map."""
    tree = ast.parse(INIT.read_text("utf-8"))
    checked = next(n for n in tree.body if isinstance(n, ast.If))
    imported = {
        (alias.asname or alias.name): ("." * node.level + (node.module or ""), alias.name)
        for node in checked.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert imported == mnemotree._EXPORTS
    assert sorted(mnemotree.__all__) == sorted(mnemotree._EXPORTS)
    assert mnemotree.Memory.__name__ == "Memory" and "Memory" in dir(mnemotree)
