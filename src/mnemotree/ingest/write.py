"""Writing a planned document in short transactions.

Written in one transaction, a 50 MB upload would hold the database's single
writer for its whole duration, and every other write (a `/remember`) would
wait behind it. So writing is split in two:

1. `prepare` reads the stored subtree and works out every write (new
   nodes with their token counts, changed nodes, new order keys, deletions
   and their history), outside any transaction.
2. `write` applies them in batches of at most `batch_nodes` nodes, each
   batch its own transaction handed to a `run` callable. The server passes
   one that queues each batch on its writer thread, so other writes run
   between batches and wait for one batch at most.

Atomicity: the document's root carries `"ingesting": <change id>` in its
metadata from the first batch until the last, which removes it. A document
whose process died half-way is therefore never taken for complete: its
listing says so (`complete: false`), it is never "unchanged" for the next
ingest, and re-ingesting the file finishes it (ids are stable, so what was
written is kept and what is missing is added). `forget-doc` removes it.
Every batch first checks that the root still carries this ingest's mark: a
document deleted or taken over by another ingest meanwhile stops the write
with InvalidOperation instead of writing beside it.

Root changes are written in the first batch (a retitled document's new
nodes then get their paths from the new title), and its history snapshot
with them; the order of the rest: inserts (parents first), updates, order
keys, deletions (children first).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar

from .. import ordering
from ..batch import NodeBatch
from ..errors import InvalidOperation
from ..ids import new_id
from ..model import Node, clean_metadata, clean_text
from ..store import Store
from ..tree import Tree
from ..treesync import Planned, _after_planned, _removed, _same, _walk, revised

INGESTING = "ingesting"  # root metadata key while a document is being written

T = TypeVar("T")
# Runs one batch (a function taking no arguments) where writes may run; the
# default calls it in place, the server queues it on its writer thread.
WriteRunner = Callable[[Callable[[], Any]], Any]


def run_here(batch: Callable[[], T]) -> T:
    return batch()


def complete(root: Node) -> bool:
    """Whether a document root was written to the end (see the module docstring)."""
    return INGESTING not in root.metadata


@dataclass
class Writes:
    """Every write a sync needs, worked out before any transaction."""

    root: Node  # as it is once written, without the mark
    old_root: Node | None  # as stored before, if it was
    root_changed: bool = False  # its content (written, with its history, in the first batch)
    inserts: list[Node] = field(default_factory=list)  # parents first, root excluded
    updates: list[tuple[Node, Node]] = field(default_factory=list)  # (as stored, as planned)
    rekeys: list[tuple[str, float]] = field(default_factory=list)
    gone: list[Node] = field(default_factory=list)  # children first
    touched: list[str] = field(default_factory=list)  # parents whose summaries go stale
    change: str = ""
    now: str = ""
    written: list[str] = field(default_factory=list)  # ids added or updated

    @property
    def nodes(self) -> int:
        """Nodes the batches write: inserts, updates, keys and deletions."""
        return len(self.inserts) + len(self.updates) + len(self.rekeys) + len(self.gone)


def prepare(tree: Tree, plan: Planned, owned: Callable[[Node], bool]) -> Writes:
    """What it takes to make the stored subtree under `plan.id` equal to `plan`
    read outside any transaction."""
    store = tree.store
    flat = _walk(plan)
    planned_ids = {p.id for p, _, _ in flat}
    if len(planned_ids) != len(flat):
        raise InvalidOperation(f"the plan holds node {_repeated(flat)} twice", _repeated(flat))
    existing = {n.id: n for n in store.subtree(plan.id)}
    clash = store.get_many([i for i in planned_ids if i not in existing])
    if clash:
        raise InvalidOperation(
            f"node {clash[0].id} already exists outside {plan.id}; it cannot be part of this tree",
            clash[0].id,
        )
    texts = {p.id: clean_text(p.new.text) for p, _, _ in flat}
    fresh = [p.id for p, _, _ in flat if p.id not in existing]
    # Token counts (tiktoken) here, outside the transactions.
    counts = dict(zip(fresh, tree.tokenizer.count_many([texts[i] for i in fresh]), strict=True))
    history = store.latest_versions(fresh)
    built: dict[str, Node] = dict(existing)
    touched: set[str] = set()
    writes = Writes(_placeholder(), existing.get(plan.id), change=new_id(), now=tree.now())
    for planned, parent_id, key in flat:
        text = texts[planned.id]
        old = existing.get(planned.id)
        if old is None:
            parent = built[parent_id] if parent_id is not None else None
            node = tree.build_node(  # it cleans the metadata itself
                planned.new,
                parent=parent,
                key=key,
                now=writes.now,
                text=text,
                tokens=counts[planned.id],
                node_id=planned.id,
            )
            node.version = history.get(planned.id, 0) + 1
            built[node.id] = node
            writes.written.append(node.id)
            if parent is not None:  # a new root's key is taken in the first batch
                writes.inserts.append(node)
                touched.add(parent.id)
            continue
        if old.id == plan.id:  # the existing top stays where it is
            parent_id, key = old.parent_id, old.order_key
        new = dataclasses.replace(planned.new, metadata=clean_metadata(planned.new.metadata))
        changed = _changed(tree, writes, old, new, text, parent_id, key)
        if changed is not None:
            built[old.id] = changed
            touched.update(i for i in (old.parent_id, parent_id) if i is not None)
    writes.root = built[plan.id]
    writes.gone = _removed(existing, planned_ids, owned)
    writes.rekeys.extend(_after_planned(existing, writes.gone, flat))
    touched.update(n.parent_id for n in writes.gone if n.parent_id in planned_ids)
    writes.touched = sorted(i for i in touched if i is not None)
    return writes


def _repeated(flat: Sequence[tuple[Planned, str | None, float]]) -> str:
    seen: set[str] = set()
    for planned, _, _ in flat:
        if planned.id in seen:
            return planned.id
        seen.add(planned.id)
    return ""


def _placeholder() -> Node:
    return Node("", "", None, 0.0, "", 0, "", "", "", "", "", "", 1, False, False, {}, 0.5)


def _changed(
    tree: Tree, writes: Writes, old: Node, new: Any, text: str, parent_id: str | None, key: float
) -> Node | None:
    """The stored node `old` as planned (noting the write), or None if it stays."""
    if _same(old, new, text, parent_id):
        if old.order_key != key:
            writes.rekeys.append((old.id, key))
        return None
    changed = revised(tree, old, new, text, parent_id, key, writes.now)
    writes.written.append(old.id)
    if writes.old_root is not None and old.id == writes.old_root.id:
        writes.root_changed = True  # written with the root, in the first batch
    else:
        writes.updates.append((old, changed))
    return changed


# -- writing -------------------------------------------------------------------------


def write(store: Store, writes: Writes, batch_nodes: int, run: WriteRunner = run_here) -> int:
    """Apply `writes` in transactions of at most `batch_nodes` nodes, each
    through `run`; returns the number of transactions."""
    mark = {**writes.root.metadata, INGESTING: writes.change}
    marked = dataclasses.replace(writes.root, metadata=mark)
    run(lambda: _begin(store, writes, marked))
    batches = 1
    for step in _steps(store, writes, batch_nodes):
        run(partial(_in_batch, store, writes, step))
        batches += 1
    unmarked = partial(_batch(store, writes).annotate, writes.root)
    run(lambda: _in_batch(store, writes, unmarked))
    return batches + 1


def _batch(store: Store, writes: Writes) -> NodeBatch:
    return NodeBatch(store, writes.change, writes.now)


def _begin(store: Store, writes: Writes, marked: Node) -> None:
    """The first batch: the root, marked as being written (created, or with its
    planned content), if nobody changed it since it was read."""
    with store.transaction():
        now = store.get(marked.id)
        before = writes.old_root
        if (now is None) != (before is None) or (
            now is not None and before is not None and now.version != before.version
        ):
            raise InvalidOperation(
                f"document {marked.id} changed while it was being read; ingest it again",
                marked.id,
            )
        batch = _batch(store, writes)
        if before is None:
            marked = dataclasses.replace(
                marked, order_key=ordering.after_last(store.last_key(None))
            )
            writes.root = dataclasses.replace(writes.root, order_key=marked.order_key)
            batch.insert([marked])
        elif writes.root_changed:
            batch.replace([(before, marked)])
        else:
            batch.annotate(marked)


def _in_batch(store: Store, writes: Writes, step: Callable[[], None]) -> None:
    with store.transaction():
        root = store.get(writes.root.id)
        if root is None or root.metadata.get(INGESTING) != writes.change:
            raise InvalidOperation(
                f"document {writes.root.id} was deleted or rewritten while it was being "
                "ingested; ingest it again",
                writes.root.id,
            )
        step()


def _steps(store: Store, writes: Writes, size: int) -> Iterator[Callable[[], None]]:
    """The batches after the first: inserts (a kept node may move under a new
    one), updates, order keys, deletions, then stale summaries."""
    batch = _batch(store, writes)
    for nodes in _chunked(writes.inserts, size):
        yield partial(batch.insert, nodes)
    for pairs in _chunked(writes.updates, size):
        yield partial(batch.replace, pairs)
    for keys in _chunked(writes.rekeys, size):
        yield partial(batch.reorder, keys)
    for doomed in _chunked(writes.gone, size):  # children first across batches
        yield partial(batch.delete, doomed[::-1])  # parents first within one
    for parents in _chunked(writes.touched, size):
        yield partial(batch.touch, parents)


def _chunked(items: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]
