"""A simulated developer's event log with planted workflows among noise,
to measure workflow detection (`mnemotree bench workflows`).

How the log is made (seeded, so every run is the same):
- 60 working days of one developer, 9h to 18h, in sessions separated by
  breaks of 40 minutes to 2 hours; events inside a session 1 to 6 minutes
  apart.
- Noise: 46 everyday commands (git status, ls, grep, an editor, docker ps,
  curl…) drawn with Zipf-like weights, each with varied arguments, so the
  most common ones appear around every workflow step by chance; noise
  sessions of 4 to 30 events and 0 to 2 noise events between the steps of
  a workflow occurrence (40% of gaps).
- Planted workflows (`PLANTED`, written before any detector ran): nine
  ordered routines of 3 to 6 steps, several sharing steps (git push, pytest,
  git commit ends three of them), one with an optional step taken half the
  time, three rare ones (about 2 to 5 times in 60 days). Each occurrence varies its
  arguments (branch names, versions, test paths, messages), sometimes
  retries a step (a failed test run then a passing one), and 8% of them
  stop after their first two steps with a failure. Occurrences per log are
  Poisson draws from each routine's weekly rate, so a rare routine may be
  done only once or twice in a log.
- Signals: an activity where the routine has one (deploying, debugging,
  reviewing…), the day's branch, and the file being edited for edits.

A detected workflow matches a planted one when it holds all of the planted
required steps in order and at most one step outside the planted ones; each
planted workflow is matched once, so a duplicate is a false positive.
Precision = matched detected / detected; recall = matched planted /
planted workflows done completely at least 3 times in the log (the
detector's minimum: twice is not yet a routine; the rarer ones are listed).
A control log of the same seed with no planted workflows must give none.
"""

from __future__ import annotations

import math
import random
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from ..activity.events import Detected
from ..activity.mining import MIN_SUPPORT
from ..memory import Memory

DAYS = 60


@dataclass(frozen=True)
class Planted:
    name: str
    steps: tuple[tuple[str, str], ...]  # (kind, detail template)
    per_week: float  # occurrences per five working days
    activity: str = ""
    branch: str = ""  # a template: {topic}
    optional: tuple[int, ...] = ()  # step positions taken half the time


PLANTED: tuple[Planted, ...] = (
    Planted(
        "release",
        (
            ("command", "git pull --rebase origin main"),
            ("command", "make test"),
            ("command", "make build VERSION={version}"),
            ("command", "git tag v{version}"),
            ("command", "git push --tags"),
            ("deploy", "production v{version}"),
        ),
        1.0,
        "deploying",
        "main",
    ),
    Planted(
        "start a feature",
        (
            ("command", "git checkout -b feature/{topic}"),
            ("command", "npm install"),
            ("command", "npm run dev"),
        ),
        1.2,
        "",
        "feature/{topic}",
    ),
    Planted(
        "database migration",
        (
            ("command", "alembic revision --autogenerate -m '{topic}'"),
            ("command", "alembic upgrade head"),
            ("test", "pytest tests/db -q"),
            ("command", "git add migrations/"),
            ("command", "git commit -m 'migration: {topic}'"),
        ),
        0.7,
        "",
        "feature/{topic}",
    ),
    Planted(
        "debug a crashing pod",
        (
            ("command", "kubectl get pods -n {env}"),
            ("command", "kubectl logs {pod} -n {env}"),
            ("command", "kubectl describe pod {pod}"),
            ("command", "kubectl rollout restart deployment/{service}"),
        ),
        0.6,
        "debugging",
        "main",
    ),
    Planted(
        "review a pull request",
        (
            ("command", "gh pr checkout {pr}"),
            ("command", "npm ci"),
            ("test", "npm test"),
            ("command", "gh pr review {pr} --approve"),
        ),
        1.5,
        "reviewing",
        "pr/{pr}",
        optional=(1,),
    ),
    Planted(
        "hotfix",
        (
            ("command", "git checkout main"),
            ("command", "git checkout -b hotfix/{topic}"),
            ("test", "pytest -x tests/{topic}"),
            ("command", "git push -u origin hotfix/{topic}"),
            ("command", "gh pr create --fill"),
        ),
        0.35,
        "debugging",
        "hotfix/{topic}",
    ),
    Planted(
        "commit",
        (
            ("command", "git add -p"),
            ("command", "git commit -m '{topic}'"),
            ("command", "git push"),
        ),
        3.0,
        "",
        "feature/{topic}",
    ),
    Planted(
        "refresh the analytics data",
        (
            ("command", "aws s3 sync s3://exports/{day} data/raw"),
            ("command", "python scripts/load.py data/raw"),
            ("command", "psql -f checks/{topic}.sql"),
        ),
        0.4,
        "",
        "main",
    ),
    Planted(
        "update dependencies",
        (
            ("command", "poetry update {package}"),
            ("test", "pytest -q"),
            ("command", "poetry lock --check"),
        ),
        0.5,
        "",
        "chore/deps-{day}",
    ),
)

NOISE: tuple[tuple[str, str], ...] = (
    ("command", "git status"),
    ("command", "git diff {file}"),
    ("command", "ls -la"),
    ("edit", "{file}"),
    ("command", "grep -rn {word} src"),
    ("command", "cat {file}"),
    ("command", "git log --oneline -5"),
    ("command", "cd src/{topic}"),
    ("command", "python -c 'import {word}'"),
    ("command", "docker ps"),
    ("command", "curl -s localhost:8080/health"),
    ("test", "pytest tests/{topic}/test_{word}.py"),
    ("command", "git stash"),
    ("command", "git stash pop"),
    ("command", "htop"),
    ("command", "make lint"),
    ("command", "npm run lint"),
    ("command", "git fetch"),
    ("command", "git branch -a"),
    ("command", "rg {word}"),
    ("command", "code {file}"),
    ("command", "tail -f logs/app.log"),
    ("command", "docker compose up -d"),
    ("command", "docker compose logs {service}"),
    ("command", "ssh {env}-bastion"),
    ("command", "kubectl get pods -n {env}"),
    ("command", "psql {env}"),
    ("command", "redis-cli ping"),
    ("command", "python manage.py shell"),
    ("command", "pip list"),
    ("command", "which python"),
    ("command", "echo $PATH"),
    ("command", "history"),
    ("command", "man {word}"),
    ("command", "git show HEAD"),
    ("command", "git blame {file}"),
    ("command", "make format"),
    ("command", "npm run typecheck"),
    ("command", "mypy src"),
    ("command", "open http://localhost:3000"),
    ("command", "jq . {file}"),
    ("command", "wc -l {file}"),
    ("command", "find . -name '*.{word}'"),
    ("command", "df -h"),
    ("command", "top"),
    ("command", "git push"),
)
TOPICS = ("auth", "billing", "search", "uploads", "reports", "chat", "profile", "admin")
WORDS = ("retry", "token", "invoice", "cache", "index", "session", "quota", "export")
SERVICES = ("api", "worker", "web", "scheduler")
ENVS = ("prod", "staging")


@dataclass
class _Log:
    rng: random.Random
    events: list[dict[str, Any]] = field(default_factory=list)
    occurrences: dict[str, int] = field(default_factory=dict)  # complete ones
    started: int = 0


def _fill(template: str, rng: random.Random, fixed: dict[str, str]) -> str:
    values = {
        "topic": rng.choice(TOPICS),
        "word": rng.choice(WORDS),
        "file": f"src/{rng.choice(TOPICS)}/{rng.choice(WORDS)}.py",
        "service": rng.choice(SERVICES),
        "env": rng.choice(ENVS),
        "pod": f"{rng.choice(SERVICES)}-{rng.randrange(16**5):05x}",
        "pr": str(rng.randint(100, 999)),
        "version": f"2.{rng.randint(0, 30)}.{rng.randint(0, 9)}",
        "day": f"2026-{rng.randint(3, 5):02d}-{rng.randint(1, 28):02d}",
        "package": rng.choice(("requests", "pydantic", "sqlalchemy", "httpx")),
        **fixed,
    }
    return template.format(**values)


def _noise(log: _Log, count: int) -> Iterator[dict[str, Any]]:
    weights = [1 / (rank + 1) ** 0.8 for rank in range(len(NOISE))]
    for kind, template in log.rng.choices(NOISE, weights, k=count):
        detail = _fill(template, log.rng, {})
        yield {"kind": kind, "detail": detail, "outcome": _outcome(log.rng, kind)}


def _outcome(rng: random.Random, kind: str) -> str:
    if kind in ("test", "deploy"):
        return "fail" if rng.random() < 0.15 else "ok"
    return ""


def _occurrence(log: _Log, planted: Planted) -> Iterator[dict[str, Any]]:
    rng = log.rng
    log.started += 1
    label = {"workflow": planted.name, "occurrence": log.started}
    fixed = {k: _fill("{" + k + "}", rng, {}) for k in ("topic", "version", "pod", "pr", "env")}
    fixed["service"] = rng.choice(SERVICES)
    fixed["day"] = _fill("{day}", rng, {})
    fixed["package"] = _fill("{package}", rng, {})
    aborted = rng.random() < 0.08
    for position, (kind, template) in enumerate(planted.steps):
        if position in planted.optional and rng.random() < 0.5:
            continue
        if position and rng.random() < 0.4:  # the developer does something else in between
            yield from _noise(log, rng.randint(1, 2))
        detail = _fill(template, rng, fixed)
        if kind == "test" and rng.random() < 0.2:  # failed, fixed, run again
            yield {"kind": kind, "detail": detail, "outcome": "fail", **label, "step": position}
            yield {"kind": "edit", "detail": _fill("{file}", rng, {}), "outcome": ""}
        failed = aborted and position == 1
        outcome = "fail" if failed else ("ok" if kind in ("test", "deploy") else "")
        yield {"kind": kind, "detail": detail, "outcome": outcome, **label, "step": position}
        if failed:
            return
    log.occurrences[planted.name] = log.occurrences.get(planted.name, 0) + 1


def generate(
    seed: int = 11, days: int = DAYS, planted: tuple[Planted, ...] = PLANTED
) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """The log (events with kind, detail, at, outcome and signals) and how
    many complete occurrences of each planted workflow it holds."""
    log = _Log(random.Random(seed))
    rng = log.rng
    day = datetime(2026, 3, 2, tzinfo=timezone.utc)
    for n in range(days):
        if n:
            day += timedelta(days=3 if day.weekday() == 4 else 1)
        branch_topic = rng.choice(TOPICS)
        todo = [p for p in planted for _ in range(_times(rng, p.per_week / 5))]
        rng.shuffle(todo)
        blocks: list[Planted | None] = [*todo, *[None] * rng.randint(2, 5)]
        rng.shuffle(blocks)
        clock = day.replace(hour=9, minute=rng.randint(0, 30))
        for routine in blocks:
            events = (
                list(_noise(log, rng.randint(4, 30)))
                if routine is None
                else [
                    *_noise(log, rng.randint(0, 3)),
                    *_occurrence(log, routine),
                    *_noise(log, rng.randint(0, 3)),
                ]
            )
            branch = (
                routine.branch.format(topic=branch_topic, pr=rng.randint(100, 999), day=n)
                if routine
                else f"feature/{branch_topic}"
            )
            for event in events:
                clock += timedelta(minutes=rng.randint(1, 6), seconds=rng.randint(0, 59))
                signals = {"branch": branch}
                if routine and routine.activity:
                    signals["activity"] = routine.activity
                if event["kind"] == "edit":
                    signals["file"] = event["detail"]
                log.events.append({**event, "at": clock.isoformat(), "signals": signals})
            clock += timedelta(minutes=rng.randint(40, 120))
    return log.events, log.occurrences


def _times(rng: random.Random, rate: float) -> int:
    """A Poisson draw (Knuth's method): occurrences of a routine on a day."""
    limit, k, product = math.exp(-rate), 0, rng.random()
    while product > limit:
        k += 1
        product *= rng.random()
    return k


def score(
    detected: list[list[list[int]]], events: list[dict[str, Any]], complete: dict[str, int]
) -> dict[str, Any]:
    """Match detected workflows, each given by the events (indices into
    `events`) of its example occurrences, to planted ones. A detected
    workflow is planted workflow W when at least 80% of its occurrences are
    made only of events of one planted occurrence of W, and its steps there
    cover every required step of W. Each W is matched once: a second
    detection of it is a false positive. Recall counts the planted
    workflows the log holds complete at least `MIN_SUPPORT` times (done
    twice is not yet a routine); those rarer are listed as too rare."""
    planted = {p.name: p for p in PLANTED}
    matched: dict[str, int] = {}
    unmatched: list[int] = []
    for n, occurrences in enumerate(detected):
        names = [_planted_occurrence(events, o) for o in occurrences]
        name = max(set(names), key=names.count) if names else None
        true = [o for o, got in zip(occurrences, names, strict=True) if got == name and name]
        covered = {events[i]["step"] for o in true for i in o}
        if (
            name
            and name not in matched
            and len(true) >= 0.8 * len(occurrences)
            and covered >= set(range(len(planted[name].steps))) - set(planted[name].optional)
        ):
            matched[name] = n
        else:
            unmatched.append(n)
    precision = len(matched) / len(detected) if detected else 1.0
    findable = {name for name in planted if complete.get(name, 0) >= MIN_SUPPORT}
    return {
        "detected": len(detected),
        "planted": len(findable),
        "too_rare": sorted(set(planted) - findable),
        "matched": sorted(matched),
        "missed": sorted(findable - set(matched)),
        "unmatched": unmatched,
        "precision": round(precision, 4),
        "recall": round(len(findable & set(matched)) / max(1, len(findable)), 4),
    }


def _planted_occurrence(events: list[dict[str, Any]], occurrence: list[int]) -> str | None:
    """The planted workflow whose one occurrence all these events belong to, if any."""
    ids = {events[i].get("occurrence") for i in occurrence}
    if len(ids) != 1 or None in ids:
        return None
    return str(events[occurrence[0]]["workflow"])


def run(
    seeds: tuple[int, ...] = (11, 12, 13),
    embedder: str = "hashing",
    progress: Callable[[str], None] = lambda _: None,
) -> dict[str, Any]:
    """Record each seed's log through `Memory.record_event`, detect workflows,
    and score them; totals are summed over seeds. A control log of the same
    seed without planted workflows must give none."""
    runs = []
    for seed in seeds:
        events, complete = generate(seed)
        report, ids, recorded, took = _detect(events, embedder)
        detected = [[[ids[i] for i in o] for o in w["examples"]] for w in report.workflows]
        scored = score(detected, events, complete)
        names = [w["name"] for w in report.workflows]
        scored["unmatched"] = [names[n] for n in scored["unmatched"]]
        noise, _ = generate(seed, planted=())
        control = _detect(noise, embedder)[0]
        runs.append(
            {
                "seed": seed,
                "events": len(events),
                "sessions": report.sessions,
                "complete_occurrences": complete,
                "record_per_s": round(len(events) / recorded),
                "detect_s": round(took, 3),
                **scored,
                "noise_only_detected": [w["name"] for w in control.workflows],
            }
        )
        progress(f"seed {seed}: precision {scored['precision']}, recall {scored['recall']}")
    detected = sum(r["detected"] for r in runs)
    matched = sum(len(r["matched"]) for r in runs)
    found = sum(len(r["matched"]) - len(set(r["matched"]) & set(r["too_rare"])) for r in runs)
    planted = sum(r["planted"] for r in runs)
    return {
        "seeds": list(seeds),
        "precision": round(matched / max(1, detected), 4),
        "recall": round(found / max(1, planted), 4),
        "noise_only_detected": sum(len(r["noise_only_detected"]) for r in runs),
        "runs": runs,
    }


def _detect(
    events: list[dict[str, Any]], embedder: str
) -> tuple[Detected, dict[str, int], float, float]:
    """Record `events` in a fresh memory and detect workflows: the report,
    event index by node id, and the seconds recording and detecting took."""
    with (
        tempfile.TemporaryDirectory() as tmp,
        Memory(Path(tmp) / "events.db", embedder=embedder) as memory,
    ):
        started = time.perf_counter()
        ids = {}
        for n, event in enumerate(events):
            node = memory.record_event(
                event["kind"],
                event["detail"],
                event["signals"],
                outcome=event["outcome"] or None,
                at=event["at"],
            )
            ids[node.id] = n
        recorded = time.perf_counter() - started
        started = time.perf_counter()
        report = memory.activity.detect_workflows()
        return report, ids, recorded, time.perf_counter() - started
