"""The web memory browser end to end: Debian's Chromium, headless, driven by
Playwright against a real server on 127.0.0.1 with a real key and database.

Screenshots go to `artifacts/web/` (kept by CI as test artifacts). Without
Chromium the test is skipped, unless MNEMOTREE_REQUIRE_BROWSER is set (as
`.ci/run` does, after installing it): then a missing browser fails it.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.server_helpers import Served, serving

ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts" / "web"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# The machine's network is closed: without these Chromium keeps trying to reach Google.
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
pytestmark = pytest.mark.both_stores  # the browser on each store

HOSTILE = '<img src=x onerror="window.pwned = 1">Bob likes <b>tea</b>'


def _browser_or_skip() -> str:
    if CHROMIUM is None:
        if os.environ.get("MNEMOTREE_REQUIRE_BROWSER"):
            pytest.fail("Chromium is not installed (apt-get install chromium)")
        pytest.skip("Chromium is not installed (apt-get install chromium)")
    return CHROMIUM


@pytest.fixture
def served(db_path: Path, tmp_path: Path) -> Iterator[Served]:
    with serving(db_path, {"admin": "*"}) as s:
        memory = s.memory
        first = memory.remember("Alice lives in Berlin", scope="team")
        memory.remember("Alice moved to Munich", scope="team")  # an update
        memory.typed.fact("office_city", "Lisbon", scope="team")
        # Less sure than what it contradicts: a question for a person, not an update.
        memory.typed.fact("office_city", "Porto", scope="team", confidence=0.6)
        memory.remember(HOSTILE, scope="team")
        memory.update(first.id, "Alice lives in Berlin, near the park")
        notes = tmp_path / "runbook.md"
        notes.write_text(
            "# Runbook\n\n## Queue\n\nRestart the queue worker before the API.\n\n"
            "## Backups\n\nBackups run nightly at 2am and are kept for 30 days.\n"
        )
        memory.ingest(notes, scope="team")
        memory.typed.workflow(
            "make test → make build → deploy",
            ["make test", "make build", "deploy"],
            trigger="deploying",
            scope="team",
            fields={"support": 6, "success": 0.83, "optional_steps": ["lint"]},
        )
        memory.typed.pattern(
            "@cli.command → @with_memory",
            "@cli.command → @with_memory",
            hint="@cli.command → @with_memory: 12 functions in 4 files",
            trigger="src/cli/",
            scope="team",
            fields={"functions": 12, "files": 4, "examples": ["src/cli/a.py:10", "src/cli/b.py:3"]},
        )
        project = memory.add("Project log", scope="team")
        entries = memory.append_many(project.id, ["Kick-off held", "Scope agreed"])
        memory.add_summary([n.id for n in entries], "Week one: kick-off and scope")
        yield s


def shoot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def test_browse_search_open_a_node_and_resolve_a_contradiction(served: Served) -> None:
    executable = _browser_or_skip()
    from playwright.sync_api import expect, sync_playwright

    problems: list[str] = []
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=executable, headless=True, args=FLAGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: problems.append(str(e)))
        try:
            page.goto(served.url)
            # Authentication is on: the page asks for a key before anything else.
            expect(page.locator("#key-form")).to_be_visible()
            page.fill("#key", served.keys["admin"])
            page.click("#key-save")
            roots = page.locator("#tree .roots > li.node")
            expect(roots.first).to_be_visible()
            assert roots.count() == 3  # the space, the document, the project log
            shoot(page, "1-tree")

            # Expand the project log: its summary is marked apart from plain children.
            project = page.locator("#tree li.node", has_text="Project log").first
            project.locator(".toggle").first.click()
            summary = project.locator("li.node.summary")
            expect(summary).to_have_count(1)
            expect(summary.locator(".kind")).to_have_text("summary")
            summary.locator(".toggle").first.click()
            expect(summary.locator("li.node")).to_have_count(2)

            # Open a node: its text, an earlier version and its relations.
            space = page.locator("#tree li.node", has_text="Memories (team)").first
            space.locator(".toggle").first.click()
            space.locator("li.node .label", has_text="near the park").click()
            detail = page.locator("#detail-text")
            expect(detail).to_have_text("Alice lives in Berlin, near the park")
            # v1, v2 (its validity ended by the move to Munich), and v3 now
            expect(page.locator("#versions li.version")).to_have_count(3)
            expect(page.locator("#versions")).to_contain_text("Alice lives in Berlin")
            # Memory text is shown as text, never run as HTML.
            expect(space.locator("li.node", has_text="Bob likes")).to_contain_text("<img src=x")
            assert page.evaluate("window.pwned") is None
            shoot(page, "2-node")

            # Search, with each hit's score explained part by part.
            page.click("#tabs button[data-tab=search]")
            page.fill("#q", "queue worker restart")
            page.press("#q", "Enter")
            hit = page.locator("#hits li.hit").first
            expect(hit).to_contain_text("Restart the queue worker")
            hit.locator("summary").click()
            expect(hit.locator(".explain tr", has_text="keyword")).to_have_count(1)
            hit.locator(".label").click()
            expect(page.locator("#breadcrumb")).to_contain_text("runbook.md")
            shoot(page, "3-search")

            page.click("#tabs button[data-tab=documents]")
            expect(page.locator("#documents tr.document")).to_have_count(1)
            expect(page.locator("#documents tr.document")).to_contain_text("team")

            # The contradiction queue: resolve the open one in favour of the newer statement.
            page.click("#tabs button[data-tab=contradictions]")
            card = page.locator("#contradictions li.contradiction.open")
            expect(card).to_have_count(1)
            expect(card).to_contain_text("office_city: Porto")
            expect(card.locator(".question")).to_contain_text("which one does?")
            shoot(page, "4-contradictions")
            card.locator("button[data-resolution=b_wins]").click()
            expect(page.locator("#contradictions li.contradiction.open")).to_have_count(0)
            expect(page.locator("#status")).to_contain_text("b_wins")
            # Updates apart: applied as written, each with the two statements and a revert.
            page.select_option("#contradiction-status", "updates")
            update = page.locator("#contradictions li.update")
            expect(update).to_have_count(1)
            expect(update).to_contain_text("Alice moved to Munich")
            expect(page.locator("#contradictions li.contradiction")).to_have_count(0)
            shoot(page, "4b-updates")

            # A context preview with the tiers it was built from.
            page.click("#tabs button[data-tab=context]")
            page.fill("#context-query", "where does Alice live")
            page.fill("#context-budget", "600")
            page.click("#context-form button[type=submit]")
            expect(page.locator("#tiers tr.tier").first).to_be_visible()
            expect(page.locator("#context-text")).to_contain_text("Munich")
            expect(page.locator("#context-summary")).to_contain_text("of 600 tokens")
            shoot(page, "5-context")

            # Workflows (steps, how often seen and went well) and code patterns (examples).
            page.click("#tabs button[data-tab=routines]")
            workflow = page.locator("#workflows li.workflow")
            expect(workflow).to_have_count(1)
            expect(workflow.locator(".steps li")).to_have_count(3)
            expect(workflow).to_contain_text("seen 6× · 83% went well · when deploying")
            expect(workflow).to_contain_text("optional: lint")
            pattern = page.locator("#patterns li.pattern")
            expect(pattern).to_contain_text("12 functions in 4 files · in src/cli/")
            expect(pattern.locator(".examples li")).to_have_count(2)
            pattern.locator("button.link").click()
            expect(page.locator("#detail-text")).to_have_text("@cli.command → @with_memory")
            shoot(page, "6-workflows-patterns")
        finally:
            browser.close()

    (resolved, automatic) = served.memory.consolidation.contradictions(status="resolved")
    assert resolved.resolution == "b_wins" and served.memory.consolidation.contradictions() == []
    assert automatic.resolution == "update"
    assert problems == []
