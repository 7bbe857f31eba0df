"""Input hygiene (issue 27): deep or huge JSON and odd scope names are refused
with InvalidInput (exit 1, HTTP 400/422) wherever they come in, and nothing
is written; scopes given as a bare string are refused rather than split."""

from __future__ import annotations

import contextlib
import io
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mnemotree import InvalidInput, Memory
from mnemotree.jsonlimits import MAX_DEPTH, MAX_INT_DIGITS, check_json, parse_json
from mnemotree.model import MAX_SCOPE_CHARS, clean_scope, clean_scopes
from mnemotree.structured import dispatch
from tests.cli_runner import run_cli
from tests.server_helpers import Served, serving

DEEP = 1000  # levels: about where Python's json module hits its recursion limit
DEEP_TEXT = "[" * DEEP + "]" * DEEP
HUGE_INT_TEXT = "1" * 5001  # more digits than Python converts (4,300)
BAD_SCOPES = {
    "bidi override": "user\u202e24",
    "bidi isolate": "kb\u2066x\u2069",
    "left-to-right mark": "kb\u200e",
    "arabic letter mark": "kb\u061c",
    "zero-width space": "k\u200bb",
    "control character": "kb\x07",
    "newline": "kb\nadmin",
    "100,000 characters": "s" * 100_000,
}
SETTINGS = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def nested(depth: int, leaf: Any = 1, as_dict: bool = False) -> Any:
    """`depth` lists (or objects) around `leaf`, built without recursion."""
    value = leaf
    for _ in range(depth):
        value = {"k": value} if as_dict else [value]
    return value


def jsonl_backup(metadata_json: str) -> list[str]:
    """A JSONL backup of one node whose metadata is the given JSON text."""
    header = {"type": "header", "format": "mnemotree-jsonl", "format_version": 1}
    node = (
        '{"type": "node", "id": "01J0000000000000000000000A", "root_id": '
        '"01J0000000000000000000000A", "parent_id": null, "order_key": 1.0, "text": "t", '
        '"token_count": 1, "created_at": "2026-01-01T00:00:00+00:00", '
        '"updated_at": "2026-01-01T00:00:00+00:00", "metadata": ' + metadata_json + "}"
    )
    return [json.dumps(header), node]


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    with serving(tmp_path / "served.db", {"admin": "*", "kb": "kb"}) as s:
        yield s


def assert_error_body(response: httpx.Response) -> None:
    assert response.status_code in (400, 422), response.text
    body = response.json()
    assert set(body) == {"error", "message", "value"}, body
    assert body["error"] == "InvalidInput"


def assert_cli_refused(result: Any, *words: str) -> None:
    assert result.returncode == 1, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), result.stderr
    assert "Traceback" not in result.stderr
    for word in words:
        assert word in result.stderr


# -- deep and huge JSON through the facade ------------------------------------------


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (nested(DEEP), f"nested more than {MAX_DEPTH} levels"),
        (nested(DEEP, as_dict=True), f"nested more than {MAX_DEPTH} levels"),
        (nested(100_000), f"nested more than {MAX_DEPTH} levels"),
        (10**5000, f"limit is {MAX_INT_DIGITS:,} digits"),
    ],
    ids=["1000 lists", "1000 objects", "100000 lists", "5001 digits"],
)
def test_add_and_remember_refuse_deep_or_huge_metadata(
    memory: Memory, value: Any, message: str
) -> None:
    memory.add("before")
    before = memory.stats().nodes
    with pytest.raises(InvalidInput, match=message):
        memory.add("x", metadata={"v": value})
    with pytest.raises(InvalidInput, match=message):
        memory.remember("x", metadata={"v": value})
    with pytest.raises(InvalidInput, match=message):
        memory.remember("x", type="fact", metadata={"v": value})
    node = memory.add("kept")
    with pytest.raises(InvalidInput, match=message):
        memory.update(node.id, metadata={"v": value})
    assert memory.stats().nodes == before + 1
    assert memory.get(node.id).metadata == {}


def test_metadata_at_the_depth_limit_is_kept_and_one_more_is_refused(memory: Memory) -> None:
    inside = nested(MAX_DEPTH - 1)  # in the metadata object: MAX_DEPTH levels in all
    node = memory.add("x", metadata={"v": inside})
    assert memory.get(node.id).metadata == {"v": inside}
    with pytest.raises(InvalidInput, match=r'at metadata\["v"\]\[0\]'):
        memory.add("x", metadata={"v": nested(MAX_DEPTH)})


def test_metadata_that_contains_itself_is_refused_not_walked_forever(memory: Memory) -> None:
    loop: dict[str, Any] = {}
    loop["self"] = loop
    with pytest.raises(InvalidInput, match="nested more than"):
        memory.add("x", metadata=loop)


def test_metadata_refuses_surrogates_and_huge_text(memory: Memory) -> None:
    with pytest.raises(InvalidInput, match="not valid UTF-8"):
        memory.add("x", metadata={"v": "bad \udcff byte"})
    with pytest.raises(InvalidInput, match="characters as JSON"):
        memory.add("x", metadata={"v": ["x" * 1_000_000] * 11})
    assert memory.stats().nodes == 0


@pytest.mark.parametrize(
    "content", [nested(DEEP), nested(DEEP, as_dict=True), 10**5000], ids=["lists", "objects", "int"]
)
def test_path_save_refuses_deep_or_huge_content(memory: Memory, content: Any) -> None:
    paths = memory.paths("kb")
    paths.save("Notes/Kept", {"a": 1})
    before = memory.stats().nodes
    with pytest.raises(InvalidInput, match="content"):
        paths.save("Notes/Deep", content)
    with pytest.raises(InvalidInput, match="content"):
        paths.save("Notes/Kept", content)
    assert memory.stats().nodes == before
    assert paths.get("Notes/Kept", record=False).content == {"a": 1}


def test_path_tool_arguments_as_deep_or_huge_json_are_an_error_result(memory: Memory) -> None:
    paths = memory.paths()
    for text in (
        '{"path": "A", "content": ' + DEEP_TEXT + "}",
        '{"path": "A", "content": ' + HUGE_INT_TEXT + "}",
        '{"path": "A", "content": ' + "[" * 100 + "]" * 100 + "}",
    ):
        result = dispatch(paths, "saveMemory", text)
        assert result["status"] == "ERROR", result
    assert memory.stats().nodes == 0


@pytest.mark.parametrize("metadata", [DEEP_TEXT, HUGE_INT_TEXT, "[" * 200 + "]" * 200])
def test_jsonl_import_refuses_deep_or_huge_json(memory: Memory, metadata: str) -> None:
    with pytest.raises(InvalidInput, match="line 2"):
        memory.exchange.import_jsonl(jsonl_backup('{"v": ' + metadata + "}"), source="backup.jsonl")
    assert memory.stats().nodes == 0


def test_markdown_import_refuses_a_deep_node_marker(memory: Memory) -> None:
    marker = (
        '<!-- mt {"id": "A", "parent_id": null, "order_key": 1.0, '
        '"created_at": "2026-01-01T00:00:00+00:00", "updated_at": "2026-01-01T00:00:00+00:00", '
        '"metadata": {"v": ' + DEEP_TEXT + "}} -->\ntext\n"
    )
    with pytest.raises(InvalidInput, match="line 1: node marker"):
        memory.exchange.import_markdown(marker)
    assert memory.stats().nodes == 0


def test_an_export_at_the_limits_imports_again(memory: Memory, tmp_path: Path) -> None:
    node = memory.add("x", metadata={"v": nested(MAX_DEPTH - 1), "n": 10**999})
    memory.update(node.id, "y")  # a version record: the metadata two levels further down
    out = io.StringIO()
    memory.exchange.export_jsonl(out)
    with Memory(tmp_path / "copy.db", embedder="hashing") as copy:
        copy.exchange.import_jsonl(out.getvalue().splitlines())
        assert copy.get(node.id).metadata == memory.get(node.id).metadata


# -- deep and huge JSON through the CLI ---------------------------------------------


def test_cli_path_save_refuses_deep_or_huge_json(db_path: Path) -> None:
    kept = run_cli(db_path, "path", "save", "A/Kept", '{"a": 1}', embedder="hashing")
    assert kept.returncode == 0, kept.stderr
    for text in (DEEP_TEXT, HUGE_INT_TEXT, "[" * 100 + "]" * 100):
        result = run_cli(db_path, "path", "save", "A/Deep", text, embedder="hashing")
        assert_cli_refused(result, "content")
        piped = run_cli(db_path, "path", "save", "A/Deep", "-", input=text, embedder="hashing")
        assert_cli_refused(piped, "content")
    listed = run_cli(db_path, "path", "ls", "--json", embedder="hashing")
    assert [e["path"] for e in json.loads(listed.stdout)] == ["A", "A/Kept"]


def test_cli_import_refuses_deep_or_huge_json(db_path: Path, tmp_path: Path) -> None:
    for name, metadata in (("deep", DEEP_TEXT), ("huge", HUGE_INT_TEXT)):
        backup = tmp_path / f"{name}.jsonl"
        backup.write_text("\n".join(jsonl_backup('{"v": ' + metadata + "}")), "utf-8")
        assert_cli_refused(run_cli(db_path, "import", str(backup)), "line 2")
    stats = json.loads(run_cli(db_path, "stats", "--json").stdout)
    assert stats["nodes"] == 0


# -- deep and huge JSON over HTTP ---------------------------------------------------


def _send(client: httpx.Client, method: str, url: str, body: str) -> httpx.Response:
    return client.request(method, url, content=body, headers={"content-type": "application/json"})


def _bodies(value_text: str) -> list[tuple[str, str, str]]:
    return [
        ("POST", "/remember", '{"text": "x", "metadata": {"v": ' + value_text + "}}"),
        ("POST", "/nodes", '{"text": "x", "metadata": {"v": ' + value_text + "}}"),
        ("POST", "/facts", '{"key": "k", "value": ' + value_text + "}"),
        ("PUT", "/paths/A/B", '{"content": ' + value_text + "}"),
    ]


def test_http_refuses_json_beyond_the_limits_with_the_error_body(served: Served) -> None:
    client = served.as_("admin")
    before = served.memory.stats().nodes
    for text in ("[" * 100 + "]" * 100, "1" * (MAX_INT_DIGITS + 1), "1e999"):
        for method, url, body in _bodies(text):
            assert_error_body(_send(client, method, url, body))
    assert served.memory.stats().nodes == before


def test_http_refuses_unparseable_json_without_writing(served: Served) -> None:
    client = served.as_("admin")
    before = served.memory.stats().nodes
    for text in (DEEP_TEXT, HUGE_INT_TEXT):
        for method, url, body in _bodies(text):
            response = _send(client, method, url, body)
            assert response.status_code in (400, 422), (url, response.text)
    assert served.memory.stats().nodes == before


def test_http_answers_unparseable_json_with_the_documented_body(served: Served) -> None:
    client = served.as_("admin")
    for text in (DEEP_TEXT, HUGE_INT_TEXT):
        for method, url, body in _bodies(text):
            assert_error_body(_send(client, method, url, body))


# -- scope names --------------------------------------------------------------------


@pytest.mark.parametrize("scope", list(BAD_SCOPES.values()), ids=list(BAD_SCOPES))
def test_odd_scope_names_are_refused_by_the_facade(memory: Memory, scope: str) -> None:
    with pytest.raises(InvalidInput, match="scope") as caught:
        memory.add("x", scope=scope)
    assert len(str(caught.value.value)) < 100  # the error shows the name cut short
    for write in (
        lambda: memory.remember("x", scope=scope),
        lambda: memory.remember("x", type="fact", scope=scope),
        lambda: memory.paths(scope),
        lambda: memory.update(memory.add("y").id, scope=scope),
        lambda: memory.search("x", scopes=[scope]),
        lambda: memory.keys.create([scope]),
    ):
        with pytest.raises(InvalidInput, match="scope"):
            write()
    assert {r.scope for r in memory.roots()} <= {"default"}


def test_scope_errors_name_the_character_and_the_rule() -> None:
    with pytest.raises(InvalidInput) as caught:
        clean_scope("user\u202e24")
    assert "U+202E (RIGHT-TO-LEFT OVERRIDE)" in caught.value.message
    assert "printable characters only" in caught.value.message
    assert "\u202e" not in caught.value.message  # shown escaped: it would reorder the line
    with pytest.raises(InvalidInput, match=f"at most {MAX_SCOPE_CHARS} characters"):
        clean_scope("s" * (MAX_SCOPE_CHARS + 1))
    assert clean_scope("s" * MAX_SCOPE_CHARS) == "s" * MAX_SCOPE_CHARS
    for fine in ("default", "kb", "user:42", "team a", "équipe", "日本", "*"):
        assert clean_scope(fine) == fine


def test_odd_scope_names_are_refused_by_the_cli(db_path: Path) -> None:
    for scope in (BAD_SCOPES["bidi override"], BAD_SCOPES["control character"], "s" * 100_000):
        assert_cli_refused(run_cli(db_path, "add", "x", "--scope", scope), "scope")
        assert_cli_refused(run_cli(db_path, "remember", "x", "--scope", scope), "scope")
        assert_cli_refused(run_cli(db_path, "search", "x", "--scope", scope), "scope")
    stats = json.loads(run_cli(db_path, "stats", "--json").stdout)
    assert stats["nodes"] == 0


@pytest.mark.parametrize("scope", list(BAD_SCOPES.values()), ids=list(BAD_SCOPES))
def test_odd_scope_names_are_refused_over_http(served: Served, scope: str) -> None:
    client = served.as_("admin")
    before = served.memory.stats().nodes
    assert_error_body(client.post("/remember", json={"text": "x", "scope": scope}))
    assert_error_body(client.post("/nodes", json={"text": "x", "scope": scope}))
    assert_error_body(client.post("/search", json={"query": "x", "scopes": [scope]}))
    if len(scope) < 1000:  # httpx refuses a longer query before sending it
        assert_error_body(client.put("/paths/A", params={"scope": scope}, json={"content": 1}))
    assert served.memory.stats().nodes == before


def test_every_scope_and_comma_lists_still_make_keys(memory: Memory) -> None:
    assert memory.keys.create("*")[0].scopes == ("*",)
    assert memory.keys.create("kb, user:42")[0].scopes == ("kb", "user:42")
    assert memory.keys.create(["kb", "user:42"])[0].scopes == ("kb", "user:42")
    with pytest.raises(InvalidInput, match="alone"):
        memory.keys.create("*,kb")


def test_scopes_made_before_the_rules_are_still_read(db_path: Path) -> None:
    legacy = "legacy \u202e" + "x" * 200
    with Memory(db_path, embedder="hashing") as memory:
        node = memory.add("old note about tea", scope="legacy")
        child = memory.append_child(node.id, "more about tea")
    with sqlite3.connect(db_path) as raw:  # as an older version could have written it
        raw.execute("UPDATE nodes SET scope = ? WHERE scope = 'legacy'", (legacy,))
    with Memory(db_path, embedder="hashing") as memory:
        assert memory.get(child.id).scope == legacy
        assert [r.scope for r in memory.roots()] == [legacy]
        assert {h.node.id for h in memory.search("tea", record=False)} >= {child.id}
        out = io.StringIO()
        memory.exchange.export_jsonl(out)
        assert legacy in out.getvalue()


# -- scopes must be a list ------------------------------------------------------------


def test_scopes_as_a_string_are_refused_and_a_list_works(memory: Memory) -> None:
    memory.remember("tea with lemon", scope="kb")
    memory.remember("tea for k", scope="k")
    with pytest.raises(InvalidInput, match=r"scopes must be a list such as \['kb'\]") as caught:
        memory.search("tea", scopes="kb")
    assert "got the string 'kb'" in caught.value.message
    for call in (
        lambda: memory.typed.memories(scopes="kb"),
        lambda: memory.context("tea", scopes="kb"),
        lambda: memory.predict({"file": "a.py"}, scopes="kb"),
        lambda: memory.docs.list("kb"),
        lambda: memory.chat.sessions("kb"),
        lambda: memory.consolidation.contradictions(scopes="kb"),
        lambda: memory.consolidation.archived(scopes="kb"),
        lambda: memory.ask("tea?", scopes="kb"),
        lambda: memory.search("tea", scopes=b"kb"),  # type: ignore[arg-type]
        lambda: memory.search("tea", scopes={"kb": 1}),  # type: ignore[arg-type]
    ):
        with pytest.raises(InvalidInput, match="scopes must be a list"):
            call()
    found = memory.search("tea", scopes=["kb"], record=False)
    assert {h.node.scope for h in found} == {"kb"}
    found = memory.search("tea", scopes=("kb", "k"), record=False)
    assert {h.node.scope for h in found} == {"kb", "k"}


def test_clean_scopes_keeps_none_and_empty_apart() -> None:
    assert clean_scopes(None) is None
    assert clean_scopes([]) == ()
    assert clean_scopes(s for s in ["kb", "user:42"]) == ("kb", "user:42")
    with pytest.raises(InvalidInput, match="got a int"):
        clean_scopes(3)


# -- properties -----------------------------------------------------------------------

TEXT = st.characters(codec="utf-8")  # every character but surrogates
json_leaf = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**MAX_INT_DIGITS) + 1, max_value=10**MAX_INT_DIGITS - 1)
    | st.integers(min_value=-(2**64), max_value=2**64)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(TEXT, max_size=20)
)
json_value = st.recursive(
    json_leaf,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(TEXT, max_size=8), inner),
    max_leaves=30,
)


@SETTINGS
@given(value=json_value, depth=st.integers(min_value=0, max_value=MAX_DEPTH - 2))
def test_json_within_the_limits_round_trips_through_metadata(
    memory: Memory, value: Any, depth: int
) -> None:
    wrapped = nested(depth, value, as_dict=depth % 2 == 0)
    try:
        check_json(wrapped, "value", max_depth=MAX_DEPTH - 1)
    except InvalidInput:
        return  # deeper than the limit once wrapped: the other property's case
    node = memory.add("x", metadata={"v": wrapped})
    assert memory.get(node.id).metadata == {"v": wrapped}


@SETTINGS
@given(
    depth=st.integers(min_value=MAX_DEPTH, max_value=5000),
    as_dict=st.booleans(),
    leaf=json_leaf,
)
def test_json_beyond_the_depth_is_refused_with_invalid_input_only(
    memory: Memory, depth: int, as_dict: bool, leaf: Any
) -> None:
    before = memory.stats().nodes
    value = nested(depth, leaf, as_dict)
    with pytest.raises(InvalidInput, match="nested"):
        memory.add("x", metadata={"v": value})
    with pytest.raises(InvalidInput, match="nested"):
        memory.paths().save("A", value)
    text = json.dumps(value) if depth < 300 else ("[" * depth + "1" + "]" * depth)
    with pytest.raises(InvalidInput, match="nested"):
        parse_json("[" + text + "]", "value")  # one level more, as in the metadata
    assert memory.stats().nodes == before


@SETTINGS
@given(
    st.text(alphabet='[]{}":,0123456789-+.eE tnrufals\\', max_size=300)
    | st.builds(lambda n, tail: "[" * n + tail, st.integers(0, 5000), st.text(max_size=5))
)
def test_parse_json_raises_nothing_but_invalid_input(text: str) -> None:
    with contextlib.suppress(InvalidInput):
        parse_json(text, "value")


def test_a_child_goes_under_a_node_of_a_scope_made_before_the_rules(db_path: Path) -> None:
    legacy = "legacy " + "x" * 200
    with Memory(db_path, embedder="hashing") as memory:
        node = memory.add("old note", scope="legacy")
    with sqlite3.connect(db_path) as raw:
        raw.execute("UPDATE nodes SET scope = ? WHERE scope = 'legacy'", (legacy,))
    with Memory(db_path, embedder="hashing") as memory:
        assert memory.append_child(node.id, "new note").scope == legacy
