"""A statement that retires a named tool or service outdates what said it was
in use: read on write as an update, never for a plain change of habit or a
person's move."""

from __future__ import annotations

import pytest

from mnemotree import Memory
from mnemotree.consolidate.replaced import replaced, retired, retired_value
from tests.helpers import Clock


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("We switched from PagerDuty to Opsgenie for paging.", {"pagerduty"}),
        ("Transactional email was migrated from Postmark to Amazon SES in July.", {"postmark"}),
        ("Decision: we replaced OpenSearch with Postgres full-text search.", {"opensearch"}),
        ("We no longer use CircleCI: the jobs were ported to GitHub Actions.", {"circleci"}),
        ("Create flags in Unleash now; LaunchDarkly is gone.", {"launchdarkly"}),
        ("The old redis-cache was decommissioned last week.", {"redis-cache"}),
        ("We moved from weekly to daily standups.", set()),  # no name retired
        ("Tomás moved from billing-service to payouts.", set()),  # a person moves
        ("We use Postgres for invoices.", set()),
    ],
)
def test_what_a_statement_retires(text: str, names: set[str]) -> None:
    assert retired(text) == names


def test_an_earlier_statement_naming_the_retired_thing_is_outdated() -> None:
    found = replaced(
        "Invoice emails are sent through Postmark; bounces go to #billing.",
        "Transactional email was migrated from Postmark to Amazon SES in July.",
    )
    assert found is not None and found.update and found.confidence >= 0.8
    assert found.reason == "postmark is no longer in use"


@pytest.mark.parametrize(
    "earlier",
    [
        "Bounces are posted to #billing.",  # does not name it
        "Email moved from Postmark to SES to cut costs.",  # tells of the change itself
        "We stopped using Postmark for receipts.",  # retires it too
    ],
)
def test_what_does_not_name_it_as_in_use_is_left_alone(earlier: str) -> None:
    assert replaced(earlier, "Transactional email was migrated from Postmark to SES.") is None


def test_on_write_the_retirement_supersedes_the_older_statement(cmem: Memory, clock: Clock) -> None:
    old = cmem.remember("Alerts page whoever is on call through PagerDuty.")
    clock.advance(days=30)
    new = cmem.remember("We switched from PagerDuty to Opsgenie for paging.")
    (update,) = cmem.consolidation.updates()
    assert (update.a_id, update.b_id) == (old.id, new.id)
    assert [h.node.id for h in cmem.search("who pages on call", record=False)] == [new.id]


def test_an_earlier_statement_naming_what_replaced_it_already_knows() -> None:
    earlier = (
        "Decision: CI runs on GitHub Actions from March on; the CircleCI jobs are being ported."
    )
    later = "We no longer use CircleCI: the last jobs were ported to GitHub Actions."
    assert replaced(earlier, later) is None
    assert replaced("CI runs on CircleCI; the config is in .circleci.", later) is not None


def test_a_retirement_says_the_comparisons_change_is_one(cmem: Memory, clock: Clock) -> None:
    old = cmem.remember("To add a feature flag, create it in LaunchDarkly and default it off.")
    clock.advance(days=30)
    new = cmem.remember("To add a feature flag, create it in Unleash; LaunchDarkly is gone.")
    (update,) = cmem.consolidation.updates()
    assert (update.a_id, update.b_id) == (old.id, new.id)


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("The nightly scripts/export_all.sh is no longer used.", {"scripts/export_all.sh"}),
        ("Jenkins is no longer needed since the move.", {"jenkins"}),
        ("The Segment integration was switched off.", {"segment"}),
        ("Airflow has been deprecated here.", {"airflow"}),
        ("Lunch is no longer served on Fridays.", set()),  # no name
    ],
)
def test_retirements_said_in_the_passive(text: str, names: set[str]) -> None:
    assert retired(text) == names


def test_an_earlier_statement_naming_a_source_is_no_successor() -> None:
    # It names "Postgres" as the source; the successor is "Postgres full-text search".
    earlier = "Product search uses Elasticsearch, fed from Postgres by a nightly job."
    later = "We replaced Elasticsearch with Postgres full-text search for product search."
    found = replaced(earlier, later)
    assert found is not None and found.reason == "elasticsearch is no longer in use"
    knows = "Product search will move to Postgres full-text search; Elasticsearch until then."
    assert replaced(knows, later) is None


@pytest.mark.parametrize(
    ("earlier", "outdated"),
    [
        ("Alerts page whoever is on call through PagerDuty.", True),
        ("Receipts are sent through PagerDuty.", False),  # not in the key's words
        ("Paging moved from PagerDuty to Opsgenie in May.", False),  # tells of the change
        ("Pages go to Opsgenie first, PagerDuty as a fallback.", False),  # names the new value
    ],
)
def test_a_facts_new_value_retires_statements_of_the_old(earlier: str, outdated: bool) -> None:
    found = retired_value(earlier, "paging_tool", "PagerDuty", "Opsgenie")
    assert (found is not None) is outdated


def test_on_write_a_facts_new_value_supersedes_statements_naming_the_old(
    cmem: Memory, clock: Clock
) -> None:
    cmem.typed.fact("paging_tool", "PagerDuty")
    note = cmem.remember("Alerts page whoever is on call through PagerDuty.")
    other = cmem.remember("PagerDuty sent us a renewal quote for receipts.")
    clock.advance(days=30)
    cmem.typed.fact("paging_tool", "Opsgenie")
    reasons = sorted(u.reason for u in cmem.consolidation.updates())
    assert reasons == ["paging_tool: PagerDuty then Opsgenie"] * 2
    assert "valid_to" in cmem.get(note.id).metadata
    assert "valid_to" not in cmem.get(other.id).metadata
