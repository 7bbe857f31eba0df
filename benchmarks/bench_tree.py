"""Foundation benchmark: writes, serialisation, expansion and ordering at scale.

Run: `make bench` or `.venv/bin/python benchmarks/bench_tree.py [--json OUT]`.
Targets (issue 2): batch append >= 20k nodes/s, single append >= 2k/s,
serialize 100k nodes < 1 s, expand_to_budget(8000) < 50 ms,
10k insert_between at one spot < 5 s.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from itertools import pairwise
from pathlib import Path

from mnemotree import Memory, NewNode

WORDS = (
    "memory tree node summary session user project decision sqlite index search vector "
    "token budget context alice bob meeting deploy release bug fix branch review design "
    "the a of to and in is for on with that it as was we they this by from at be"
).split()


def sentence(rng: random.Random) -> str:
    # Zipf-ish: earlier words are picked more often.
    n = rng.randint(8, 24)
    words = [WORDS[min(int(rng.paretovariate(1.2)) - 1, len(WORDS) - 1)] for _ in range(n)]
    return " ".join(words).capitalize() + "."


def timed(fn: object) -> float:
    start = time.perf_counter()
    fn()  # type: ignore[operator]
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    rng = random.Random(7)
    results: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp, Memory(Path(tmp) / "bench.db") as mem:
        mem.tokenizer.count("warm up")  # load the encoding outside the timings
        sections = max(1, args.nodes // 100)
        per_section = args.nodes // sections - 1
        texts = [[sentence(rng) for _ in range(per_section)] for _ in range(sections)]
        root = mem.add("Benchmark space")

        def batch() -> None:
            heads = mem.append_many(
                root.id, [NewNode(f"Section {i}", context_type="section") for i in range(sections)]
            )
            for head, items in zip(heads, texts, strict=True):
                mem.append_many(head.id, items)

        seconds = timed(batch)
        total = mem.stats().nodes - 1
        results["batch_append_nodes"] = total
        results["batch_append_per_s"] = total / seconds

        single_root = mem.add("single appends")
        singles = [sentence(rng) for _ in range(2000)]
        seconds = timed(lambda: [mem.append_child(single_root.id, t) for t in singles])
        results["single_append_per_s"] = len(singles) / seconds

        runs = [timed(lambda: mem.serialize(root.id)) for _ in range(3)]
        results["serialize_s"] = statistics.median(runs)
        results["serialize_nodes"] = len(mem.serialize(root.id))

        runs = [timed(lambda: mem.expand_to_budget(root.id, 8000)) for _ in range(20)]
        results["expand_8000_ms_p50"] = statistics.median(runs) * 1000
        results["expand_8000_ms_max"] = max(runs) * 1000

        spot = mem.add("insert spot")
        first = mem.append_child(spot.id, "first")
        right = mem.append_child(spot.id, "last")

        def inserts() -> None:
            nonlocal right
            for i in range(10_000):
                right = mem.insert_between(first.id, right.id, f"inserted {i}")

        results["insert_between_10k_s"] = timed(inserts)
        keys = [c.order_key for c in mem.children(spot.id)]
        assert all(a < b for a, b in pairwise(keys)), "order broken"

    targets = {
        "batch_append_per_s": (">=", 20_000),
        "single_append_per_s": (">=", 2_000),
        "serialize_s": ("<", 1.0),
        "expand_8000_ms_p50": ("<", 50.0),
        "insert_between_10k_s": ("<", 5.0),
    }
    for name, value in results.items():
        line = f"{name:28s} {value:12,.2f}"
        if name in targets:
            op, goal = targets[name]
            ok = value >= goal if op == ">=" else value < goal
            line += f"   target {op} {goal:,}  {'ok' if ok else 'MISSED'}"
        print(line)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
