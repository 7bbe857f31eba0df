"""A statement that retires a named tool or service outdates what said it was
in use: read on write as an update, never for a plain change of habit or a
person's move."""

from __future__ import annotations

import pytest

from mnemotree import Memory
from mnemotree.consolidate.replaced import replaced, retired
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
    (update,) = cmem.updates()
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
    (update,) = cmem.updates()
    assert (update.a_id, update.b_id) == (old.id, new.id)
