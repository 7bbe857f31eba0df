"""Code patterns mined from the shapes of functions: sets of structures
(decorators, context managers, errors handled or raised, calls) that many
functions across several files are built from together.

A candidate is a set of two to `MAX_FEATURES` features held by at least
`MIN_FUNCTIONS` functions in at least `MIN_FILES` files (or by
`MIN_FUNCTIONS_ONE_FILE` in fewer: a CLI's commands may all live in one
module), with at least one structural feature (a decorator, a context
manager, an error handled or raised, async, yield): calls alone are habits
of vocabulary, not of structure. Its parts must belong together: the
functions holding all of them are at least `MIN_TOGETHER` of those holding
its most common one (the all-confidence of the set), so a structure everyone
uses (`raise InvalidInput`) does not make a pattern with whatever sits
beside it.

A pattern also uses something the project defines (in most of its
functions, a feature starts from a name their module defines or imports
from the project: `@cli.command`, `call render.emit_json`, `raise
InvalidInput`): the standard library's idioms (`with open` then `write`,
`@classmethod` calling `cls`) are the language's habits, not the codebase's.

Of candidates that describe nearly the same functions (mostly those of kept
patterns sharing a feature with them), the one with most features is kept.
Precision matters more than count: what is kept is what recurs, in several
places, as one shape.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations

MIN_FUNCTIONS = 4
MIN_FILES = 3
# Seen this often, a shape recurs even inside one file (a CLI's commands).
MIN_FUNCTIONS_ONE_FILE = 10
MIN_TOGETHER = 0.5
MAX_FEATURES = 4
PART_OF = 0.8  # share of a set's functions inside a larger kept set that makes it its part
STRUCTURE = ("@", "with ", "except", "raise ", "async", "yield")


@dataclass(frozen=True)
class Function:
    """A function as the miner sees it: its features and where it is."""

    path: str  # the file, below the project
    line: int
    name: str
    features: frozenset[str]
    own: frozenset[str] = frozenset()  # features starting from a name the project defines

    @property
    def folder(self) -> str:
        head, _, _ = self.path.rpartition("/")
        return head


@dataclass
class Mined:
    """A pattern: its features and the functions built from them."""

    features: tuple[str, ...]
    functions: list[Function]
    together: float  # the all-confidence of its features

    @property
    def files(self) -> int:
        return len({f.path for f in self.functions})

    @property
    def area(self) -> str:
        """The folder most of its functions are in, if most are in one."""
        folder, times = Counter(f.folder for f in self.functions).most_common(1)[0]
        return folder + "/" if folder and times * 2 > len(self.functions) else ""

    def compressed(self) -> str:
        """The features in reading order: decorators, async, context managers,
        calls, errors."""
        return " → ".join(sorted(self.features, key=_reading_order))

    def examples(self, limit: int = 5) -> list[str]:
        """`path:line` of up to `limit` functions, from as many files as can be."""
        by_file: dict[str, Function] = {}
        for function in sorted(self.functions, key=lambda f: (f.path, f.line)):
            by_file.setdefault(function.path, function)
        chosen = list(by_file.values())[:limit]
        return [f"{f.path}:{f.line}" for f in chosen]


def _reading_order(feature: str) -> tuple[int, str]:
    for rank, prefix in enumerate(("@", "async", "with ", "call ", "yield", "except", "raise ")):
        if feature.startswith(prefix):
            return rank, feature
    return len(STRUCTURE), feature


def structural(feature: str) -> bool:
    return feature.startswith(STRUCTURE)


def head(feature: str) -> str:
    """The name a feature starts from: `@cli.command` -> cli, `call
    render.emit_json` -> render, `raise InvalidInput` -> InvalidInput; ""
    for async, yield and a bare except."""
    if feature in ("async", "yield", "except"):
        return ""
    return feature.removeprefix("@").rpartition(" ")[2].split(".", 1)[0]


def mine(
    functions: Sequence[Function],
    *,
    min_functions: int = MIN_FUNCTIONS,
    min_files: int = MIN_FILES,
    min_together: float = MIN_TOGETHER,
) -> list[Mined]:
    """Patterns among `functions`, those seen most first (see the module)."""
    holders: dict[str, set[int]] = {}
    for n, function in enumerate(functions):
        for feature in function.features:
            holders.setdefault(feature, set()).add(n)
    common = {
        f
        for f, held in holders.items()
        if _recurs([functions[n] for n in held], min_functions, min_files)
    }
    counts: Counter[tuple[str, ...]] = Counter()
    for function in functions:
        mine_ = sorted(function.features & common)
        for size in range(2, MAX_FEATURES + 1):
            counts.update(combinations(mine_, size))
    found: list[Mined] = []
    for features, support in counts.items():
        if support < min_functions or not any(structural(f) for f in features):
            continue
        together = support / max(len(holders[f]) for f in features)
        if together < min_together:
            continue
        members = [functions[n] for n in sorted(set.intersection(*(holders[f] for f in features)))]
        if not any(2 * sum(f in m.own for m in members) >= len(members) for f in features):
            continue  # the language's idioms (with open, then write), not the project's
        if _recurs(members, min_functions, min_files):
            found.append(Mined(features, members, round(together, 3)))
    return _largest(found)


def _recurs(
    members: Sequence[Function], least: int = MIN_FUNCTIONS, files: int = MIN_FILES
) -> bool:
    """Seen often enough: in `least` functions over `files` files, or in
    `MIN_FUNCTIONS_ONE_FILE` wherever they are."""
    spread = len({f.path for f in members})
    return len(members) >= MIN_FUNCTIONS_ONE_FILE or (len(members) >= least and spread >= files)


def _largest(found: Iterable[Mined]) -> list[Mined]:
    """One pattern per group of functions: most features first, a candidate
    whose functions are mostly (`PART_OF`) among those of kept patterns
    sharing a feature with it is another description of them, and dropped."""
    kept: list[tuple[Mined, set[tuple[str, int]]]] = []
    for mined in sorted(found, key=lambda m: (-len(m.features), -len(m.functions), m.features)):
        where = {(f.path, f.line) for f in mined.functions}
        covered: set[tuple[str, int]] = set()
        for other, theirs in kept:
            if set(other.features) & set(mined.features):
                covered |= theirs
        if len(where & covered) < PART_OF * len(where):
            kept.append((mined, where))
    out = [m for m, _ in kept]
    out.sort(key=lambda m: (-len(m.functions), -len(m.features), m.features))
    return out
