"""The simulated project's source, for `bench predict --code`: the ten
modules' five TypeScript files each, importing one another as a layered
service does (routes → service → model and client → utils), and some
services calling another module's client. Written from its own seeded
generator, so the replay's events are the same with or without it."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from pathlib import Path

LAYERS = {
    "routes": ["service"],
    "service": ["model", "client"],
    "client": ["utils"],
    "model": ["utils"],
    "utils": [],
}
CROSS = 0.3  # share of services that call another module's client


def write_project(
    folder: Path, modules: tuple[str, ...], topics: Mapping[str, tuple[str, ...]], seed: int
) -> Path:
    """The project under `folder` (a package.json marks its top); returns it."""
    rng = random.Random(seed)
    top = folder / "project"
    (top / "src").mkdir(parents=True)
    (top / "package.json").write_text(json.dumps({"name": "simulated", "private": True}))
    for module in modules:
        for name, imports in LAYERS.items():
            lines = [f'import {{ {i}Api }} from "./{i}";' for i in imports]
            if name == "service" and rng.random() < CROSS:
                other = rng.choice([m for m in modules if m != module])
                lines.append(f'import {{ clientApi as {other}Client }} from "../{other}/client";')
            for topic in topics[module][:2]:
                word = topic.replace(" ", "_")
                lines += [
                    "",
                    f"/** {name.capitalize()} of {module}: {topic}. */",
                    f"export function {word}{name.capitalize()}(input: string): string {{",
                    f'  return "{module}:" + input;',
                    "}",
                ]
            lines += ["", f"export const {name}Api = {{ module: {module!r} }};", ""]
            path = top / "src" / module / f"{name}.ts"
            path.parent.mkdir(exist_ok=True)
            path.write_text("\n".join(lines), encoding="utf-8")
    return top
