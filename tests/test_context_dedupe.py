"""When two texts in a context are one: the same words (case, spacing and
punctuation aside), one inside the other, or nearly all words shared with
no number or negation changed. Different values are never one."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mnemotree.context.dedupe import Seen, same, words


def first_match(kept: list[str], text: str) -> tuple[int, bool] | None:
    seen: Seen[int] = Seen()
    for number, said in enumerate(kept):
        seen.keep(said, number)
    return seen.match(text)


@pytest.mark.parametrize(
    ("kept", "text", "expected"),
    [
        ("Deploys go out on Tuesdays.", "deploys  go out on TUESDAYS", (0, False)),
        # A sentence inside a paragraph is said by it; the paragraph says more.
        (
            "Deploys go out through the pipeline; watch the error rate after each one. Then "
            "roll back if it doubles.",
            "Deploys go out through the pipeline; watch the error rate after each one.",
            (0, False),
        ),
        (
            "Deploys go out through the pipeline; watch the error rate after each one.",
            "Deploys go out through the pipeline; watch the error rate after each one. Then "
            "roll back if it doubles.",
            (0, True),
        ),
        (
            "The staging cluster runs Kubernetes 1.27 on three nodes in eu-west-1 today.",
            "The staging cluster runs Kubernetes 1.29 on three nodes in eu-west-1 today.",
            None,
        ),
        (
            "Ana likes long meetings with the whole team every week.",
            "Ana doesn't like long meetings with the whole team every week.",
            None,
        ),
        ("The session cache is Redis.", "The session cache is Memcached.", None),
        ("Deploys", "Deploys go out on Tuesdays.", None),  # a topic, not a statement
    ],
)
def test_repeats_and_different_facts(
    kept: str, text: str, expected: tuple[int, bool] | None
) -> None:
    assert first_match([kept], text) == expected


def test_the_first_kept_repeat_is_named() -> None:
    kept = ["Unrelated words about the coffee machine.", "Passwords are hashed with argon2id."]
    assert first_match(kept, "passwords are hashed with Argon2id!") == (1, False)


@given(st.text(min_size=1, max_size=80), st.integers(0, 999), st.integers(0, 999))
def test_a_changed_number_is_never_the_same(text: str, a: int, b: int) -> None:
    first, second = words(f"{text} {a}"), words(f"{text} {b}")
    assert same(first, second) == (a == b or first == second)
