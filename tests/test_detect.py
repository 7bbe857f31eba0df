"""The offline contradiction detector (consolidate/detect.py) on statement pairs.

The failures seen on a realistic store are regressions here: a "key: value"
fact against an unrelated sentence, two statements about one person's
different attributes, a job change said with "now", a changed version, a
negated preference. Property tests: identical text never conflicts, one
number changed always does, and the parse cache changes nothing.
"""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mnemotree.consolidate.detect import ACT, REVIEW, compare, conflicting_values, parse


def sure(earlier: str, later: str) -> bool:
    found = compare(earlier, later)
    return found is not None and found.confidence >= ACT


# -- the failures seen on a realistic store ------------------------------------------


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("office_city: Berlin", "The office plants need watering."),
        ("office_city: Lisbon", "The Lisbon office has a rooftop terrace."),
        (
            "Priya is the DBA for the billing database.",
            "Priya wants every migration to be reversible.",
        ),
        (
            "deploy_target: Kubernetes 1.29",
            "The Kubernetes dashboard is only reachable over the VPN.",
        ),
        ("api_port: 8080", "The API team meets every Monday at 9:30."),
        ("team_size: 8", "The team ordered 8 pizzas for the launch."),
    ],
)
def test_unrelated_statements_sharing_words_are_not_flagged(a: str, b: str) -> None:
    assert compare(a, b) is None
    assert compare(b, a) is None


def test_a_job_change_said_with_now_is_an_update() -> None:
    found = compare(
        "Marco works as a nurse at St Mary's hospital.",
        "Marco now works as a software engineer at Finch Labs.",
    )
    assert found is not None
    assert (found.kind, found.update) == ("changed_value", True)
    assert found.confidence >= ACT
    assert "nurse" in found.reason or "St Mary" in found.reason


def test_a_changed_version_is_a_changed_value() -> None:
    found = compare("Deploy target: Kubernetes 1.27", "Deploy target: Kubernetes 1.29")
    assert found is not None and found.kind == "changed_value" and found.confidence >= ACT
    assert "1.27" in found.reason and "1.29" in found.reason
    later = compare(
        "We deploy the API to Kubernetes 1.27.",
        "The cluster was upgraded and we now deploy the API to Kubernetes 1.29.",
    )
    assert later is not None and later.confidence >= ACT and later.update


def test_a_negated_preference_is_a_negation() -> None:
    found = compare("Ana likes long meetings.", "Ana does not like long meetings.")
    assert found is not None
    assert (found.kind, found.update) == ("negation", False)
    assert found.confidence >= ACT
    assert compare("Ana does not like long meetings.", "Ana dislikes long meetings.") is None


# -- what is and is not a contradiction --------------------------------------------


@pytest.mark.parametrize(
    ("earlier", "later", "kind"),
    [
        ("Alice lives in Berlin.", "Alice moved to Munich in March.", "changed_value"),
        (
            "The API server listens on port 8080.",
            "The API server now listens on port 9000.",
            "changed_value",
        ),
        (
            "Dentist appointment on Tuesday at 3pm.",
            "Dentist appointment rescheduled to Thursday.",
            "changed_value",
        ),
        (
            "The request timeout is 30 seconds.",
            "The request timeout was raised to 60 seconds.",
            "changed_value",
        ),
        (
            "The on-call lead for payments is Greg.",
            "Ines took over as on-call lead for payments.",
            "changed_value",
        ),
        ("User prefers tea to coffee.", "User prefers coffee over tea now.", "changed_value"),
        ("Paul is married.", "Paul is divorced now.", "changed_value"),
        ("I have a dog.", "I no longer have a dog.", "negation"),
        ("The app supports offline mode.", "The app doesn't support offline mode.", "negation"),
        (
            "Customer data is stored in eu-central-1.",
            "Customer data was migrated from eu-central-1 to eu-west-1.",
            "changed_value",
        ),
    ],
)
def test_contradictions_are_found_with_confidence(earlier: str, later: str, kind: str) -> None:
    found = compare(earlier, later)
    assert found is not None, (earlier, later)
    assert found.kind == kind and found.reason
    assert ACT <= found.confidence <= 1.0


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        # what is left once all both say is set aside, when the later says it changed
        ("I take the bus to work.", "I cycle to work now."),
        # an amount at another rate
        ("My salary is $60,000 a year.", "My salary is now $5,500 a month."),
        # the subject of a passive denial is what is denied
        ("The app supports SSO.", "SSO was removed from the app."),
        # a role gets a new holder
        ("The product owner is Sam.", "Lee replaced Sam as product owner."),
        ("My manager is Tom.", "Jill became my manager."),
        # the object of a change is what the statement is about
        ("The flat costs 950 a month.", "The landlord raised the flat's rent to 1,100 a month."),
        ("My default shell is bash.", "I changed my default shell to zsh."),
        # reported and inverted: "fantasy is their favourite genre"
        ("User's favourite genre is sci-fi.", "User says fantasy is their favourite genre now."),
        ("The library is maintained.", "The library is unmaintained and archived."),
        ("The kick-off meeting is on Monday.", "The kickoff meeting moved to Tuesday."),
        ("Dinner is at 7.30pm.", "Dinner is at 8.30pm now."),
    ],
)
def test_constructions_that_say_a_change(earlier: str, later: str) -> None:
    assert sure(earlier, later), compare(earlier, later)


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        ("The product owner is Sam.", "Sam reports to Lee."),  # about the value, no change
        ("My manager is Tom.", "Tom's manager is Jill."),
        ("I use Spotify for music.", "I use Audible for audiobooks."),  # another purpose
        ("Our office rent is €2,000 a month.", "Our flat rent is €1,200 a month."),
        ("The report is due on Friday.", "The report draft is due on Wednesday."),
        ("I sleep 7 hours a night.", "I work 8 hours a day."),
        ("The kids go to Oak School.", "The kids' friends go to Elm School."),
        ("Alice Smith lives in Berlin.", "Alice Jones lives in Munich."),
    ],
)
def test_other_things_said_alike_are_not_acted_on(earlier: str, later: str) -> None:
    assert not sure(earlier, later), compare(earlier, later)


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        ("Alice lives in Paris.", "Carol lives in Rome."),  # another subject
        ("Lena moved to Graz.", "Lena's sister moved to Salzburg."),  # someone else
        ("Deadline for the report is May 3.", "Deadline for the slides is May 10."),
        ("Kenji was born in Kyoto.", "Kenji lives in Osaka."),  # another attribute
        ("The max upload size is 10 MB.", "The max request body for the JSON API is 1 MB."),
        ("I have two cats.", "I have 2 cats."),  # one number, written two ways
        ("The meeting is at 3pm.", "The meeting starts at 15:00."),
        ("Bob likes jazz.", "Bob also enjoys classical music."),  # an addition
        ("The app doesn't support offline mode.", "Offline mode is not available in the app."),
        ("Paul isn't married.", "Paul is single."),  # denials that agree
        ("The cluster has 12 worker nodes.", "The cluster has 3 control-plane nodes."),
        ("Monthly active users are 40k.", "Daily active users are 8k."),
        ("Jonas lives in Rotterdam.", "Jonas flew to Utrecht for a client workshop."),
        ("We deploy with Helm.", "Deployments use Helm."),  # a paraphrase
    ],
)
def test_compatible_statements_are_not_acted_on(earlier: str, later: str) -> None:
    assert not sure(earlier, later), compare(earlier, later)


def test_one_preference_said_two_ways_is_no_change() -> None:
    prefers, rather = (
        "Ana prefers written updates to meetings.",
        "Ana would rather get written updates than meetings.",
    )
    assert compare(prefers, rather) is None
    assert compare(rather, prefers) is None
    assert sure(prefers, "Ana would rather have meetings than written updates now.")


def test_a_narrower_subject_is_left_for_review_at_most() -> None:
    found = compare("Team standup is at 9:30am.", "The design team's standup is at 11am.")
    assert found is None or found.confidence < ACT


@pytest.mark.parametrize(
    ("earlier", "later", "update"),
    [
        ("Noor is based in Nairobi.", "Noor now lives in Kigali.", True),
        ("Jonas lives in Rotterdam.", "Jonas relocated to Utrecht last autumn.", True),
        (
            "The search service uses Elasticsearch.",
            "The search service no longer uses Elasticsearch.",
            True,
        ),
        ("Our CI runs on Jenkins.", "We migrated CI from Jenkins to GitHub Actions.", True),
        ("Clara plays the piano.", "Clara doesn't play piano anymore.", True),
        ("Tom is employed by Siemens.", "Tom has been working for Bosch since January.", True),
        (
            "Rui is a backend engineer on the payments team.",
            "Rui became the engineering manager of the payments team.",
            True,
        ),
        ("The team prefers squash merges.", "The team switched to rebase merges.", True),
        ("Rachel's favourite cuisine is Italian.", "Rachel's favourite cuisine is Thai.", False),
        ("The library is thread-safe.", "The library is not thread-safe.", False),
    ],
)
def test_update_says_whether_the_later_speaks_of_a_change(
    earlier: str, later: str, update: bool
) -> None:
    found = compare(earlier, later)
    assert found is not None and found.confidence >= ACT
    assert found.update is update


def test_findings_below_review_are_not_given() -> None:
    pairs = [
        ("User prefers dark mode in the IDE.", "User prefers light mode for reading PDFs."),
        ("Priya relocated to Bangalore.", "Priya moved to Bengaluru."),
    ]
    for a, b in pairs:
        found = compare(a, b)
        assert found is None or REVIEW <= found.confidence < ACT


# -- false findings on a realistic store, by class, each beside its real change --------
# The write path supersedes the older memory at ACT, so each of these would hide a true one.


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        (
            "Passwords must be hashed with bcrypt.",
            "User passwords are hashed with bcrypt and nothing else.",
        ),
        ("Logs are shipped to Loki.", "Logs go to Loki and nowhere else."),
        (
            "The nightly export writes to the archive bucket.",
            "The nightly export writes to no bucket other than the archive bucket.",
        ),
        (
            "Deploys are approved by the release manager.",
            "No one but the release manager approves deploys.",
        ),
        (
            "The analytics job reads from the replica.",
            "The analytics job never reads from anything but the replica.",
        ),
        ("Payroll data is visible to finance.", "Nobody outside finance sees payroll data."),
        (
            "Releases are signed with the team key.",
            "No release ships unless it is signed with the team key.",
        ),
        ("Only admins can delete projects.", "Projects can be deleted by admins."),
    ],
)
def test_exclusivity_restates_it_does_not_deny(earlier: str, later: str) -> None:
    assert compare(earlier, later) is None
    assert compare(later, earlier) is None


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        (
            "Never log full tokens; mask all but the last four.",
            "Tokens must never appear unmasked in logs.",
        ),
        ("Backups must never be stored unencrypted.", "All backups are encrypted at rest."),
        (
            "Don't disable TLS verification in any client.",
            "All clients must keep TLS verification enabled.",
        ),
        (
            "Don't turn off two-factor authentication for admins.",
            "Admins must keep two-factor authentication enabled.",
        ),
        ("Don't leave the server room unlocked.", "Keep the server room locked."),
        (
            "Never ship a release without a changelog entry.",
            "Every release needs a changelog entry.",
        ),
        (
            "Do not merge to main without a passing build.",
            "Every merge to main requires a green build.",
        ),
        (
            "Two-factor authentication is required for all admins.",
            "Admins must never disable two-factor authentication.",
        ),
        (
            "Certificates are renewed automatically 30 days before they expire.",
            "Never let a certificate expire.",
        ),
        # a denial narrowed by what the other does not say denies less
        ("We deploy the API to Kubernetes 1.29.", "Never deploy on Fridays."),
        (
            "Database migrations are applied by the deploy job.",
            "Nobody applies database migrations by hand.",
        ),
    ],
)
def test_rules_said_with_negations_are_compared_by_what_they_require(
    earlier: str, later: str
) -> None:
    assert not sure(earlier, later), compare(earlier, later)
    assert not sure(later, earlier), compare(later, earlier)


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        (
            "Never log full tokens; mask all but the last four.",
            "Tokens are now logged in full for the fraud team.",
        ),
        ("Every release needs a changelog entry.", "Releases can ship without a changelog entry."),
        (
            "Cached API responses are always encrypted.",
            "Cached API responses are stored unencrypted.",
        ),
        (
            "Debug logging must not be enabled in production.",
            "Debug logging is enabled in production now.",
        ),
        ("Never disable the firewall.", "The firewall is disabled on the build hosts."),
        ("Passwords are hashed with bcrypt.", "Passwords are no longer hashed with bcrypt."),
        (
            "Customer files are stored only in S3.",
            "Customer files are now stored in Azure instead of S3.",
        ),
        ("The certificate is valid until June.", "The certificate expired."),
    ],
)
def test_a_rule_reversed_or_an_exclusive_value_changed_is_found(earlier: str, later: str) -> None:
    assert sure(earlier, later), compare(earlier, later)


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        (
            "Acme pays our invoices net 30.",
            "Acme is our largest customer, with around 1,200 invoices a month.",
        ),
        ("Globex pays within 60 days.", "Globex sends us around 300 purchase orders a quarter."),
        ("The support team has 6 people.", "The support team handles roughly 350 tickets a week."),
        (
            "The API rate limit is 100 requests per minute.",
            "The API serves around 40 million requests a day.",
        ),
        (
            "Acme pays net 30.",
            "Acme asked for one more month; their contract now renews on April 30.",
        ),
        ("The search cluster has 6 nodes.", "The search index holds 90 million documents."),
        (
            "The mobile app has a 4.6 star rating.",
            "The mobile app has 120,000 monthly active users.",
        ),
        (
            "The payments service has a p99 latency of 180 ms.",
            "The payments service timeout is 5 seconds.",
        ),
    ],
)
def test_a_number_conflicts_only_with_one_of_its_attribute(earlier: str, later: str) -> None:
    assert not sure(earlier, later), compare(earlier, later)


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        ("Acme pays net 30.", "Acme now pays net 60."),
        ("Globex pays within 60 days.", "Globex now pays within 90 days."),
        (
            "The API rate limit is 100 requests per minute.",
            "We raised the API rate limit to 250 requests per minute.",
        ),
        ("The search cluster has 6 nodes.", "The search cluster was scaled to 9 nodes."),
        ("Our churn is 3% a month.", "Monthly churn is 5%."),
        ("Goal: p95 latency under 200 ms by Q3.", "Goal: p95 latency under 150 ms by Q3."),
    ],
)
def test_one_attribute_with_a_new_number_is_found(earlier: str, later: str) -> None:
    assert sure(earlier, later), compare(earlier, later)


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        (
            "The April restore drill passed; a full restore took 42 minutes.",
            "The October restore drill passed; a full restore took 35 minutes.",
        ),
        ("Sprint 12 velocity was 40 points.", "Sprint 13 velocity was 34 points."),
        ("In Q1 we shipped 3 releases.", "In Q2 we shipped 5 releases."),
        (
            "Last week's database incident lasted 40 minutes.",
            "Yesterday's database incident lasted two hours.",
        ),
        (
            "The first load test used 500 virtual users.",
            "The second load test used 2,000 virtual users.",
        ),
        (
            "Incident 2024-03-12: the API was down for 40 minutes.",
            "Incident 2024-05-02: the API was down for 15 minutes.",
        ),
        ("The staging cluster has 3 nodes.", "The production cluster has 12 nodes."),
        ("For billing we use Postgres.", "For caching we use Redis."),
        ("At my last job I was a PM.", "At Finch Labs I am an engineer."),
    ],
)
def test_distinct_occurrences_are_different_subjects(earlier: str, later: str) -> None:
    assert not sure(earlier, later), compare(earlier, later)


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        # a memory's type before a sentence is a label, no key
        (
            "Preference: Priya wants every migration to be reversible.",
            "Preference: Ana likes short status updates.",
        ),
        (
            "Pattern: deploys late on Fridays cause most of our weekend pages.",
            "Pattern: incidents cluster in the week after a big release.",
        ),
        # told at different times
        (
            "Episode: on 2024-02-14 the checkout API returned errors for 12 minutes.",
            "Episode: in March we onboarded 4 new engineers.",
        ),
        # "one" as a pronoun is no number
        (
            "Decision: we use PostgreSQL 16 for all new services.",
            "Decision: we never break a published API version; we add a new one instead.",
        ),
        # someone's, then no one's in particular
        ("The design team's standup is at 11am.", "The standup is at 9:30am every weekday."),
        # a thing, then only who does something
        (
            "Decision: event data goes to ClickHouse, not Postgres.",
            "Decision: we use PostgreSQL 16 for all new services.",
        ),
        # a change dated: its time says when it changed
        ("Initech's renewal is due on September 1.", "Initech grew to 60 seats by June."),
    ],
)
def test_notes_of_one_store_that_share_words_are_not_acted_on(earlier: str, later: str) -> None:
    assert not sure(earlier, later), compare(earlier, later)


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        ("The restore drill runs in April.", "The restore drill now runs in October."),
        ("Sprint 12 velocity was 40 points.", "Correction: sprint 12 velocity was 36 points."),
        ("In 2024 the offsite is in Porto.", "In 2024 the offsite moved to Split."),
        ("The board meets every quarter.", "The board now meets every month."),
        ("We have 14 engineers.", "We now have 22 engineers."),
        ("The launch is planned for Q3 2024.", "The launch slipped to Q1 2025."),
    ],
)
def test_one_occurrence_or_a_schedule_changed_is_found(earlier: str, later: str) -> None:
    found = compare(earlier, later)
    assert found is not None and found.confidence >= ACT and found.update, found


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        (
            "Brightwater pays net 30.",
            "Brightwater asked for one more month; their contract now renews on April 30.",
        ),
        (
            "The checkout service is written in Kotlin.",
            "The checkout service moved to the eu-west-1 cluster.",
        ),
        ("Marta leads the mobile team.", "Marta moved to a four-day week."),
        ("The mobile team uses Jira.", "The mobile team switched to two-week sprints."),
        ("Our docs are built with Sphinx.", "Our docs moved to docs.acme.io."),
        ("Lena works at Finch Labs.", "Lena moved to Porto."),
        ("Priya is the DBA for the billing database.", "Priya moved the weekly sync to Thursdays."),
        # a word of change used as a noun says no change
        (
            "We deploy the API to Kubernetes 1.29.",
            "Incident 2024-03-12: the API was down for 40 minutes after a bad config push.",
        ),
        (
            "Backups of the production database run nightly at 02:00 UTC.",
            "Don't merge to main without a passing CI run.",
        ),
        # what something does at a time is no state ("opens at 8am")
        (
            "The office is closed between Christmas and New Year.",
            "The office opens at 8am on weekdays.",
        ),
    ],
)
def test_another_attribute_of_one_entity_is_not_acted_on(earlier: str, later: str) -> None:
    assert not sure(earlier, later), compare(earlier, later)


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        ("Lena lives in Lisbon.", "Lena moved to Porto."),
        ("The data pipeline runs on Airflow.", "The data pipeline moved from Airflow to Dagster."),
        ("Our docs are built with Sphinx.", "Our docs are built with MkDocs now."),
        ("Halvorsen pays on net 30 terms.", "Halvorsen now pays on net 45 terms."),
        ("The weekly DB sync is on Tuesdays.", "The weekly DB sync moved to Thursdays."),
    ],
)
def test_the_same_attribute_changed_is_found(earlier: str, later: str) -> None:
    assert sure(earlier, later), compare(earlier, later)


@pytest.mark.parametrize(
    ("earlier", "later", "found"),
    [
        ("Sam is the release manager.", "Kim is the release manager now.", True),
        ("Priya is our DBA.", "Sam is our DBA now.", True),
        (
            "Priya is the DBA for the billing database.",
            "Sam is now the DBA for the billing database.",
            True,
        ),
        ("Ana is a designer.", "Marco is a designer.", False),  # one of many
        ("Ana is the CFO.", "Marco is the CTO.", False),
        ("Sam is the release manager for iOS.", "Kim is the release manager for Android.", False),
        ("Sam was the release manager in 2023.", "Kim is the release manager in 2024.", False),
    ],
)
def test_a_role_one_person_holds_gets_a_new_holder(earlier: str, later: str, found: bool) -> None:
    assert sure(earlier, later) is found, compare(earlier, later)


def test_every_weekday_is_a_period() -> None:
    assert sure("The retro is every other Friday.", "The retro is every Friday now.")
    assert not sure("The retro is every other Friday.", "The demo is every Friday.")


_SAID_ONLY = (
    "{s} {v} {x} and nothing else.",
    "{s} {v} {x} and no other.",
    "{s} {v} only {x}.",
    "{s} {v} exclusively {x}.",
    "{s} never {v} anything but {x}.",
    "{s} {v} nothing except {x}.",
)


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(_SAID_ONLY),
    st.sampled_from(["The API", "Our team", "Billing", "The exporter"]),
    st.sampled_from(["uses", "writes to", "reads from", "deploys to", "talks to"]),
    st.sampled_from(["Postgres", "the replica", "S3", "the EU bucket", "Vault"]),
)
def test_saying_only_never_contradicts_the_plain_statement(
    template: str, subject: str, verb: str, thing: str
) -> None:
    plain = f"{subject} {verb} {thing}."
    exclusive = template.format(s=subject, v=verb, x=thing)
    assert not sure(plain, exclusive), compare(plain, exclusive)
    assert not sure(exclusive, plain), compare(exclusive, plain)


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(
        [
            "The {o} restore drill took {n} minutes.",
            "In {o} we closed {n} tickets.",
            "The {o} audit found {n} issues.",
            "{o}'s deploy took {n} minutes.",
        ]
    ),
    st.lists(
        st.sampled_from(["April", "October", "Q1", "Q3", "2023", "2024", "Monday", "Friday"]),
        min_size=2,
        max_size=2,
        unique=True,
    ),
    st.integers(1, 500),
    st.integers(1, 500),
)
def test_other_occurrences_never_conflict_and_one_occurrence_does(
    template: str, occasions: list[str], x: int, y: int
) -> None:
    first, second = occasions
    earlier = template.format(o=first, n=x)
    assert not sure(earlier, template.format(o=second, n=y))
    if x != y:
        assert compare(earlier, template.format(o=first, n=y)) is not None


# -- conflicting values, for dedupe -------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("We run the API on Kubernetes 1.27.", "We run the API on Kubernetes 1.29."),
        ("Ana likes long meetings.", "Ana does not like long meetings."),
        ("The standup is on Monday.", "The standup is on Tuesday."),
        ("The cache lives in Frankfurt.", "The cache lives in Dublin."),
        ("User prefers dark mode.", "User prefers light mode."),
        ("The report is due 2024-05-03.", "The report is due 2024-05-10."),
    ],
)
def test_values_that_differ_are_named(a: str, b: str) -> None:
    assert conflicting_values(a, b) is not None
    assert conflicting_values(b, a) is not None


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("We deploy with Helm.", "Deployments use Helm."),
        ("I have two cats.", "I have 2 cats."),
        ("The report is due on 2024-05-03.", "Report due May 3rd, 2024."),
        ("Paul isn't married.", "Paul is single."),
        ("The app doesn't support offline mode.", "Offline mode is not available in the app."),
        ("Max upload size is 10 MB.", "Uploads are capped at 10 megabytes."),
    ],
)
def test_true_paraphrases_have_no_conflicting_value(a: str, b: str) -> None:
    assert conflicting_values(a, b) is None


_TEMPLATES = (
    "The API server listens on port {n}.",
    "Our team has {n} engineers.",
    "The cache TTL is {n} minutes.",
    "Max upload size is {n} MB.",
    "We run Postgres {n} in production.",
    "The budget for the offsite is ${n}.",
    "Sara walks {n} steps a day.",
    "The build takes {n} seconds on CI.",
)


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(_TEMPLATES),
    st.integers(min_value=0, max_value=100_000),
    st.integers(min_value=0, max_value=100_000),
)
def test_one_number_changed_always_conflicts(template: str, x: int, y: int) -> None:
    if x == y:
        y = x + 1
    a, b = template.format(n=x), template.format(n=y)
    assert conflicting_values(a, b) is not None


_WORDS = st.sampled_from(
    "the a Alice Berlin lives in moved to not no longer port 8080 9090 on Monday at 3pm "
    "is was now prefers dark light mode team budget $400 works as nurse engineer at Finch "
    "Labs , . ; : — and but office_city: Lisbon 1.27 1.29 May 3 2024-05-03 likes".split()
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_WORDS, min_size=1, max_size=14).map(" ".join))
def test_identical_text_never_conflicts(text: str) -> None:
    assert compare(text, text) is None
    assert conflicting_values(text, text) is None


@settings(max_examples=300, deadline=None)
@given(
    st.lists(_WORDS, min_size=1, max_size=14).map(" ".join),
    st.lists(_WORDS, min_size=1, max_size=14).map(" ".join),
)
def test_any_text_gives_a_sound_finding_and_the_cache_changes_nothing(a: str, b: str) -> None:
    cache: dict[str, object] = {}
    found = compare(a, b, cache)  # type: ignore[arg-type]
    assert found == compare(a, b)
    assert set(cache) <= {a, b}
    if found is not None:
        assert found.kind in ("negation", "changed_value") and found.reason
        assert REVIEW <= found.confidence <= 1.0


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_any_unicode_parses(text: str) -> None:
    statement = parse(text)
    assert statement.text == text
    compare(text, "Alice lives in Berlin.")


def test_a_scan_of_thousands_of_pairs_is_fast() -> None:
    texts = [
        f"Service {i} listens on port {8000 + i} and is owned by team {i % 7}." for i in range(200)
    ]
    cache: dict[str, object] = {}
    started = time.perf_counter()
    for i, a in enumerate(texts):
        for b in texts[i + 1 : i + 11]:
            compare(a, b, cache)  # type: ignore[arg-type]
    assert time.perf_counter() - started < 5.0  # 1,945 pairs; about 0.1 s on a laptop
