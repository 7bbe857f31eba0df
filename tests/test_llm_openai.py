"""The OpenAI-compatible LLM against a real local HTTP server with scripted replies."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mnemotree import InvalidInput, ProviderError
from mnemotree.llm import LLMSettings, extract_json, validate
from mnemotree.llm.openai_compat import OpenAILLM
from tests.openai_server import Reply, Script, openai_server

FACTS = {
    "type": "object",
    "properties": {
        "facts": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "text": {"type": "string", "minLength": 1},
                    "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                },
                "required": ["text", "confidence"],
            },
        }
    },
    "required": ["facts"],
    "additionalProperties": False,
}
GOOD = {"facts": [{"text": "Alice moved to Lisbon", "confidence": 0.9}]}
ASK = [{"role": "user", "content": "What happened?"}]


def llm(url: str, **settings: Any) -> tuple[OpenAILLM, list[float]]:
    waits: list[float] = []
    options = {"model": "local-chat", "base_url": url, "api_key": "k", **settings}
    return OpenAILLM(LLMSettings(**options), sleep=waits.append), waits


def test_a_plain_reply_comes_back_with_the_request_as_sent() -> None:
    script = Script(chat=["Hello there."])
    with openai_server(script) as url:
        model, _ = llm(url)
        reply = model.complete(ASK, max_tokens=50, temperature=0.3)
    assert (reply.text, reply.data, reply.attempts) == ("Hello there.", None, 1)
    sent = script.chat_requests()[0]
    assert sent["model"] == "local-chat" and sent["messages"] == ASK
    assert sent["max_tokens"] == 50 and sent["temperature"] == 0.3
    assert "response_format" not in sent
    assert model.identity == f"openai:local-chat@{url.split('/', 2)[2]}"


@pytest.mark.parametrize(
    "text",
    [
        json.dumps(GOOD),
        "Sure! Here it is:\n```json\n" + json.dumps(GOOD) + "\n```\nAnything else?",
        '{"facts": [{"text": "Alice moved to Lisbon", "confidence": 0.9},]}',  # trailing comma
    ],
)
def test_json_replies_are_found_and_validated(text: str) -> None:
    script = Script(chat=[text])
    with openai_server(script) as url:
        reply = llm(url)[0].complete(ASK, json_schema=FACTS)
    assert reply.data == GOOD and reply.attempts == 1
    sent = script.chat_requests()[0]
    assert sent["response_format"] == {"type": "json_object"}
    assert sent["messages"][0]["role"] == "system" and '"facts"' in sent["messages"][0]["content"]


def test_an_invalid_reply_is_sent_back_once_with_its_problems() -> None:
    bad = json.dumps({"facts": [{"text": "Alice moved", "confidence": 7}]})
    script = Script(chat=[bad, json.dumps(GOOD)])
    with openai_server(script) as url:
        reply = llm(url)[0].complete(ASK, json_schema=FACTS)
    assert reply.data == GOOD and reply.attempts == 2
    repair = script.chat_requests()[1]["messages"]
    assert repair[-2] == {"role": "assistant", "content": bad}
    assert "$.facts[0].confidence: 7 is above 1" in repair[-1]["content"]


def test_replies_that_stay_broken_are_a_provider_error() -> None:
    script = Script(chat=["not json at all", "still {not json"])
    expected = pytest.raises(ProviderError, match="did not return JSON valid")
    with openai_server(script) as url, expected as caught:
        llm(url)[0].complete(ASK, json_schema=FACTS)
    assert len(script.chat_requests()) == 2  # one repair by default
    assert caught.value.value == "still {not json"


def test_server_errors_are_retried_with_backoff() -> None:
    script = Script(chat=[Reply(status=500), Reply(status=503), "fine"])
    with openai_server(script) as url:
        model, waits = llm(url, retries=2, backoff=0.25)
        reply = model.complete(ASK)
    assert reply.text == "fine" and reply.attempts == 3
    assert waits == [0.25, 0.5]


def test_a_server_that_keeps_failing_is_a_provider_error_naming_it() -> None:
    script = Script(chat=[Reply(status=500)] * 5)
    with openai_server(script) as url:
        model, waits = llm(url, retries=2)
        with pytest.raises(ProviderError, match=r"local-chat at .* failed after 3 tries.*500"):
            model.complete(ASK)
    assert len(script.chat_requests()) == 3 and len(waits) == 2


@pytest.mark.parametrize("status", [400, 401, 404])
def test_refusals_are_not_retried(status: int) -> None:
    script = Script(chat=[Reply(status=status), "never sent"])
    with openai_server(script) as url, pytest.raises(ProviderError, match=f"refused.*{status}"):
        llm(url)[0].complete(ASK)
    assert len(script.chat_requests()) == 1


def test_a_slow_server_times_out_and_is_retried() -> None:
    script = Script(chat=[Reply("late", delay=1.0), "in time"])
    with openai_server(script) as url:
        model, waits = llm(url, timeout=0.3, retries=1)
        assert model.complete(ASK).text == "in time"
    assert len(waits) == 1


def test_a_reply_that_is_not_a_chat_completion_is_a_provider_error() -> None:
    script = Script(chat=[Reply(raw={"choices": []})])
    with openai_server(script) as url, pytest.raises(ProviderError, match="not a chat reply"):
        llm(url)[0].complete(ASK)


@pytest.mark.parametrize(
    "messages",
    [[], "hello", [{"role": "robot", "content": "x"}], [{"role": "user", "content": 3}], ["x"]],
)
def test_bad_messages_are_invalid_input_and_nothing_is_sent(messages: Any) -> None:
    script = Script(chat=["unused"])
    with openai_server(script) as url, pytest.raises(InvalidInput):
        llm(url)[0].complete(messages)
    assert script.chat_requests() == []


def test_settings_from_the_environment() -> None:
    assert not LLMSettings.configured({})
    env = {"MNEMOTREE_LLM_MODEL": "llama3", "MNEMOTREE_LLM_BASE_URL": "http://127.0.0.1:9/v1"}
    assert LLMSettings.configured(env)
    settings = LLMSettings.from_env({**env, "MNEMOTREE_LLM_TIMEOUT": "5", "OPENAI_API_KEY": "sk"})
    assert (settings.model, settings.timeout, settings.api_key) == ("llama3", 5.0, "sk")
    with pytest.raises(InvalidInput, match="MNEMOTREE_LLM_MODEL"):
        LLMSettings.from_env({})
    with pytest.raises(InvalidInput, match="MNEMOTREE_LLM_TIMEOUT must be a number, got 'soon'"):
        LLMSettings.from_env({**env, "MNEMOTREE_LLM_TIMEOUT": "soon"})
    with pytest.raises(InvalidInput, match="retries"):
        LLMSettings("m", retries=-1)


def test_schema_problems_name_their_place() -> None:
    value = {"facts": [{"text": "", "confidence": "high"}], "extra": 1}
    assert validate(value, FACTS) == [
        "$.facts[0].text: shorter than 1 characters",
        "$.facts[0].confidence: expected number, got string",
        "$: unexpected key 'extra'",
    ]
    assert validate(True, {"type": "integer"}) == ["$: expected integer, got boolean"]
    assert validate(3.0, {"type": "integer"}) == []
    assert validate("b", {"enum": ["a"]}) == ["$: 'b' is not one of ['a']"]


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@given(
    value=st.dictionaries(st.text(), JSON, max_size=4) | st.lists(JSON, max_size=4),
    before=st.text(alphabet=st.characters(blacklist_characters="{[`")),
    after=st.text(),
)
def test_json_is_found_inside_any_prose(value: Any, before: str, after: str) -> None:
    assert extract_json(before + json.dumps(value) + after) == value
