"""Readings of general English the offline detector makes (consolidate/detect*.py).

Each reading is checked with sentences written for these tests, none from
the benchmark sets: an alternative set aside ("rather than X", "instead of
X", "chose A over B") is the same as "not X"; one clock time written two ways
is one value; a goal or a limit stated anew ("New target: ...", "Keep ...
under ...") is a changed value the later statement announces; parts of a day
and weekdays are values of what someone does, not of what someone else does.
"""

from __future__ import annotations

import pytest

from mnemotree.consolidate.detect import ACT, REVIEW, compare, conflicting_values, parse


def confidence(earlier: str, later: str) -> float:
    found = compare(earlier, later)
    return found.confidence if found is not None else 0.0


# -- an alternative set aside is "not X" ---------------------------------------------


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (
            "We store session data in Redis rather than Memcached.",
            "Session data lives in Redis, not Memcached.",
        ),
        (
            "Our team picked Jest instead of Mocha for unit tests.",
            "Unit tests run on Jest, not Mocha.",
        ),
        ("We chose Caddy over Nginx for the edge proxy.", "The edge proxy is Caddy, not Nginx."),
        (
            "The mobile team prefers Kotlin to Java.",
            "The mobile team writes Kotlin rather than Java.",
        ),
    ],
)
def test_one_choice_said_with_rather_than_or_not_agrees(a: str, b: str) -> None:
    assert compare(a, b) is None and compare(b, a) is None
    # nor does dedupe read a denial in one of two paraphrases
    assert conflicting_values(a, b) is None


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (
            "We store session data in Memcached rather than Redis.",
            "Session data lives in Redis, not Memcached.",
        ),
        ("We chose Caddy over Nginx for the edge proxy.", "The edge proxy is Nginx, not Caddy."),
        ("Our team picked Mocha instead of Jest.", "We run unit tests on Jest, not Mocha."),
    ],
)
def test_the_other_choice_contradicts(a: str, b: str) -> None:
    found = compare(a, b)
    assert found is not None and found.confidence >= ACT, (a, b, found)
    assert conflicting_values(a, b) is not None


def test_over_and_to_set_aside_only_after_a_choice() -> None:
    # a quantity, a time, a place: no alternative
    for text in (
        "The gateway handles over 200 requests per second.",
        "We moved the standup to 9:45.",
        "I prefer going to the gym in the morning.",
        "Ravi prefers to work late.",
        "We finished the migration of the billing database to Postgres 16.",
    ):
        assert parse(text).set_aside == 0, text
    assert parse("Ravi picked the blue tiles over the grey ones.").set_aside == 1


# -- one time, written two ways --------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The pharmacy opens at 8 am.", "The pharmacy opens at 08:00."),
        ("Quiet hours start at 10 pm.", "Quiet hours start at 22:00."),
        ("Visitors are welcome after 15:00.", "Visitors are welcome from 3 pm on."),
        ("The ferry leaves at 6.45 pm.", "The ferry leaves at 18:45."),
    ],
)
def test_one_clock_time_written_two_ways_is_one_value(a: str, b: str) -> None:
    assert conflicting_values(a, b) is None
    assert compare(a, b) is None and compare(b, a) is None


def test_another_clock_time_is_another_value() -> None:
    assert conflicting_values("The pharmacy opens at 8 am.", "The pharmacy opens at 09:00.")
    assert confidence("The pharmacy opens at 8 am.", "The pharmacy opens at 09:00.") >= REVIEW


# -- a goal or a limit stated anew -----------------------------------------------------


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        (
            "Keep the median build time under 10 minutes.",
            "New target: median build time under 6 minutes.",
        ),
        ("The daily API quota is 5,000 calls.", "New limit: daily API quota of 8,000 calls."),
        ("Keep the bundle size below 250 KB.", "The bundle size target was lowered to 200 KB."),
        (
            "The nightly job may use at most 4 GB of memory.",
            "The memory limit of the nightly job was raised to 8 GB.",
        ),
    ],
)
def test_a_target_stated_anew_is_an_announced_update(earlier: str, later: str) -> None:
    found = compare(earlier, later)
    assert found is not None, (earlier, later)
    assert found.kind == "changed_value" and found.update
    assert found.confidence >= ACT


def test_a_deadline_label_keeps_its_key() -> None:
    found = compare("The release deadline is March 3.", "New deadline: March 10.")
    assert found is not None and found.update and found.confidence >= ACT


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # another environment, another audience: another thing's number
        (
            "The ingest worker runs 8 threads in production.",
            "The ingest worker runs 2 threads in staging.",
        ),
        (
            "The session timeout is 30 minutes for admins.",
            "The session timeout is 8 hours for guests.",
        ),
    ],
)
def test_a_number_of_another_qualifier_is_no_conflict(a: str, b: str) -> None:
    assert compare(a, b) is None and compare(b, a) is None


def test_only_the_qualifier_changed_is_still_a_change() -> None:
    found = compare(
        "The session timeout is 30 minutes in production.",
        "The session timeout was raised to 60 minutes in production.",
    )
    assert found is not None and found.confidence >= ACT and found.update


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Keep the search latency under 400 ms.", "Search currently answers in about 250 ms."),
        ("The export job is limited to 10,000 rows.", "Yesterday's export job wrote 7,300 rows."),
    ],
)
def test_a_limit_and_a_measured_amount_are_not_acted_on(a: str, b: str) -> None:
    assert confidence(a, b) < ACT


# -- parts of a day and weekdays -------------------------------------------------------


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        (
            "Tomasz answers customer emails in the morning.",
            "Tomasz moved his email slot to the evening; expect replies after 18:00.",
        ),
        ("The team retro is on Thursdays.", "The team retro moved to Mondays."),
        (
            "Rosa tutors maths on Tuesday afternoons.",
            "Rosa tutors maths on Wednesday afternoons now.",
        ),
    ],
)
def test_an_activity_moved_to_another_time_is_an_update(earlier: str, later: str) -> None:
    found = compare(earlier, later)
    assert found is not None and found.update and found.confidence >= ACT, found


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Tomasz answers customer emails in the morning.", "Tomasz goes climbing in the evening."),
        (
            "Rosa tutors maths on Tuesday afternoons.",
            "Rosa plays volleyball on Wednesday afternoons.",
        ),
    ],
)
def test_another_activity_at_another_time_is_no_conflict(a: str, b: str) -> None:
    assert compare(a, b) is None and compare(b, a) is None


def test_another_activity_at_another_time_is_never_acted_on() -> None:
    # one verb each and no object the other lacks: at most a candidate to review
    a, b = "Ilse reads in the morning.", "Ilse does pilates in the evening."
    assert confidence(a, b) < ACT and confidence(b, a) < ACT


def test_an_activity_word_after_go_is_no_change() -> None:
    # "climbing", "skiing" after "go" name what is done, not that a value changed
    assert not parse("Tomasz goes climbing on Sundays.").update


def test_the_general_pair_set_is_labelled_and_split_by_round() -> None:
    from mnemotree.bench.contradictions import GENERAL, load

    pairs = load(name=GENERAL)
    assert {p["label"] for p in pairs} == {"contradiction", "consistent"}
    assert {p["round"] for p in pairs} == {"tuned", "fresh"}
    assert len({(p["a"], p["b"]) for p in pairs}) == len(pairs)  # no pair twice
    assert all(p["a"] != p["b"] and p["kind"] for p in pairs)


def test_over_may_follow_the_chosen_things_own_phrase() -> None:
    # "over" sets aside what follows even after "in the team channel"
    text = "Omar prefers async updates in the team channel over stand-up calls."
    assert parse(text).set_aside == 1
    # what is set aside ("stand-up calls") is not the other's kind of call
    assert confidence("Omar likes long design calls with the client.", text) < ACT


# -- a subject is read in its own sentence; "someone" is nobody in particular --------


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        # the later names the earlier's subject only in another sentence of its own
        (
            "Tidewater is Corvid's booking app for ferries.",
            "Ines Duarte left Corvid in May; Bram Kool joined as the new designer for Tidewater.",
        ),
        (
            "Northwind is our biggest customer in Spain.",
            "Omar left Northwind last week. We still invoice Northwind monthly.",
        ),
        # two things someone did: not known to be one subject
        ("Someone left a red scarf in the library.", "Someone left a phone charger in room 4."),
        ("Somebody parked a van in bay 3.", "Somebody parked a bike in bay 7."),
    ],
)
def test_what_another_sentence_or_someone_says_is_no_change(earlier: str, later: str) -> None:
    assert confidence(earlier, later) < REVIEW


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        # after a colon the sentence goes on about what came before it
        (
            "Our contact at Brisa Foods is Marta Lima, their buyer.",
            "Brisa Foods has a new contact for us: Rui Costa replaced Marta Lima as buyer.",
        ),
        ("Ines Duarte works at Corvid as a designer.", "Ines Duarte left Corvid in May."),
    ],
)
def test_a_change_said_in_the_subjects_own_sentence_is_still_read(earlier: str, later: str) -> None:
    assert confidence(earlier, later) >= ACT


@pytest.mark.parametrize(
    "later",
    ["Lena left her umbrella in the meeting room.", "Lena left her bike behind the office."],
)
def test_a_thing_left_somewhere_is_no_leaving(later: str) -> None:
    assert confidence("Lena works at the front desk of the hotel.", later) < REVIEW
    assert confidence("Lena works at Finch Labs.", later) < REVIEW
