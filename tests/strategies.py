"""Hypothesis strategies that build random memory trees through the facade."""

from __future__ import annotations

import contextlib
from typing import Any

from hypothesis import strategies as st

from mnemotree import InvalidOperation, Memory

# Any text a user could store: every Unicode character but surrogates and NUL.
node_text = st.text(
    alphabet=st.characters(exclude_categories=["Cs"], exclude_characters="\x00"),
    min_size=1,
    max_size=60,
).filter(lambda s: bool(s.strip()))

tricky_text = st.sampled_from(
    [
        "  leading and trailing  ",
        "line one\nline two",
        "# looks like a heading",
        "ends with a hash #",
        '<!-- mt {"id": "fake"} -->',
        "para one\n\n\n\npara two",
        "carriage\rreturn",
        "line\u2028separator",
        "--> arrow <!-- comment",
        "@tag and @other.tag",
        "\ttabbed\t",
        "💾 emoji and ünïcödé",
        "before\n<!-- mnemotree markdown v1 -->\nafter",
        "<!-- mnemotree markdown v1 -->",
    ]
)

any_text = st.one_of(node_text, tricky_text)
label = st.sampled_from(["", "message", "summary", "user", "a-->b", "naïve"])
operation = st.tuples(
    st.sampled_from(
        [
            "root",
            "append",
            "append",
            "append",
            "insert",
            "summarize",
            "update",
            "delete",
            "move",
            "move_after",
            "restore",
            "append_scoped",
        ]
    ),
    st.integers(min_value=0, max_value=10_000),
    any_text,
    label,
)


def build(mem: Memory, ops: list[tuple[str, int, str, str]]) -> None:
    """Apply random operations; invalid picks (e.g. a non-contiguous summary) are skipped."""
    mem.add("seed root", scope="kb")
    for kind, pick, text, ctx in ops:
        ids = [n.id for n in mem.store.iter_nodes()]
        if not ids:
            mem.add(text)
            continue
        target = ids[pick % len(ids)]
        with contextlib.suppress(InvalidOperation):
            _apply(mem, kind, target, pick, text, ctx)


def _apply(mem: Memory, kind: str, target: str, pick: int, text: str, ctx: str) -> Any:
    node = mem.get(target)
    if kind == "root":
        return mem.add(text, context_type=ctx, metadata={"pick": pick, "ctx": ctx})
    if kind == "append":
        return mem.append_child(target, text, context_name=ctx)
    if kind == "append_scoped":  # a child in another scope than its parent
        return mem.append_child(target, text, scope=["kb", "default", "user:1"][pick % 3])
    if kind == "insert":
        siblings = mem.children(node.parent_id) if node.parent_id else mem.roots()
        index = [s.id for s in siblings].index(node.id)
        if index + 1 < len(siblings):
            return mem.insert_between(node.id, siblings[index + 1].id, text, context_value=ctx)
        return None
    if kind == "summarize" and node.parent_id:
        siblings = mem.children(node.parent_id)
        index = [s.id for s in siblings].index(node.id)
        run = [s.id for s in siblings[index : index + 1 + pick % 3]]
        return mem.add_summary(run, text)
    if kind == "update":
        return mem.update(target, text, context_type=ctx)
    if kind == "delete" and node.parent_id:
        return mem.delete(target)
    if kind == "move" and node.parent_id:
        roots = mem.roots()
        return mem.move(target, parent=roots[pick % len(roots)].id)
    if kind == "move_after" and node.parent_id:
        siblings = [s for s in mem.children(node.parent_id) if s.id != node.id]
        if siblings:
            return mem.move(target, after=siblings[pick % len(siblings)].id)
    if kind == "restore":
        # Bring back a deleted node or an older version, whichever the pick lands on.
        history = [v for v in mem.store.iter_versions()]
        if history:
            version = history[pick % len(history)]
            return mem.restore(version.node_id, version.version)
    return None
