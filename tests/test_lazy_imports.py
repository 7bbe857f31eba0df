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
    for code in (
        "import mnemotree",
        "import mnemotree.cli",  # every command registered, as the `mnemotree` script starts
        "from mnemotree import Node",
    ):
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


WRITE_ONLY = ("mnemotree.consolidate.on_write", "mnemotree.conversation.chat")


def test_a_search_only_process_never_loads_the_write_and_chat_machinery(
    tmp_path: Path,
) -> None:
    db = tmp_path / "m.db"
    with mnemotree.Memory(db, embedder="hashing") as memory:
        memory.remember("Priya owns the database migration")
    code = (
        "from mnemotree import Memory\n"
        f"with Memory({str(db)!r}, embedder='hashing') as m:\n"
        "    assert m.search('who owns the migration')\n"
        "    m.get(m.search('migration')[0].node.id)"
    )
    loaded = _loaded_after(code)
    assert [m for m in WRITE_ONLY if m in loaded] == []
    # The first write builds them, once.
    written = _loaded_after(
        f"from mnemotree import Memory\nwith Memory({str(db)!r}, embedder='hashing') as m:\n"
        "    m.remember('Deploys stop at 3pm')\n    m.chat.start_session()\n"
        "    assert m.chat is m.chat and m.consolidation.scan is m._scan"
    )
    assert [m for m in WRITE_ONLY if m in written] == list(WRITE_ONLY)


def test_one_command_runs_numpy_on_one_thread_unless_told_otherwise(tmp_path: Path) -> None:
    """numpy's BLAS starts a thread a core when imported (~60 ms of CPU a
    cold command never wins back): the CLI asks for one before the command
    imports numpy; long-running commands and the user's own setting keep theirs."""
    from mnemotree.cli.main import _LONG_RUNNING, cli

    assert set(cli.commands) >= _LONG_RUNNING
    code = (
        "import os, sys\nfrom mnemotree.cli.main import main\n"
        "sys.argv = ['mnemotree', '--db', sys.argv[1], '--embedder', 'hashing', *sys.argv[2:]]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print('threads', os.environ.get('OPENBLAS_NUM_THREADS'))"
    )

    def threads(*args: str, env: dict[str, str] = ENV) -> str:
        shown = subprocess.run(
            [sys.executable, "-c", code, str(db), *args],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        return shown.stdout.split()[-1]

    db = tmp_path / "m.db"
    clean = {k: v for k, v in ENV.items() if k != "OPENBLAS_NUM_THREADS"}
    assert threads("search", "anything", env=clean) == "1"
    assert threads("stats", env={**clean, "OPENBLAS_NUM_THREADS": "2"}) == "2"
    assert threads("consolidate", "--help", env=clean) == "None"
