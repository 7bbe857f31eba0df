"""mnemotree as the OpenAI Agents SDK's session, with the real openai-agents
package: the SDK's own session example (Runner.run twice with one session),
its model answered by the local OpenAI-speaking server."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agents import Agent, OpenAIChatCompletionsModel, Runner, set_tracing_disabled
from openai import AsyncOpenAI

from mnemotree import Memory
from mnemotree.integrations.openai_agents import MnemotreeSession
from tests.openai_server import Script, openai_server


def test_an_agent_remembers_the_conversation_in_mnemotree(tmp_path: Path) -> None:
    set_tracing_disabled(True)  # the SDK would export traces to OpenAI otherwise
    script = Script(chat=["San Francisco", "California"])
    with (
        openai_server(script) as url,
        Memory(tmp_path / "m.db", embedder="hashing", chat_background=False) as mem,
    ):
        model = OpenAIChatCompletionsModel(
            model="local-chat", openai_client=AsyncOpenAI(base_url=url, api_key="k")
        )
        agent = Agent(name="Assistant", instructions="Reply very concisely.", model=model)
        session = MnemotreeSession("user_123", mem, scope="user:123")

        async def main() -> tuple[str, str]:
            first = await Runner.run(
                agent, "What city is the Golden Gate Bridge in?", session=session
            )
            second = await Runner.run(agent, "What state is it in?", session=session)
            return str(first.final_output), str(second.final_output)

        answers = asyncio.run(main())
        assert answers == ("San Francisco", "California")
        # The second request carried the first exchange, read back from mnemotree.
        sent = [m["content"] for m in script.chat_requests()[1]["messages"]]
        assert "What city is the Golden Gate Bridge in?" in sent and "San Francisco" in sent
        items = asyncio.run(session.get_items())
        assert [(i["role"], i["content"]) for i in items] == [
            ("user", "What city is the Golden Gate Bridge in?"),
            ("assistant", "San Francisco"),
            ("user", "What state is it in?"),
            ("assistant", "California"),
        ]
        found = mem.search("Golden Gate", scopes=["user:123"])
        assert found[0].node.text == "What city is the Golden Gate Bridge in?"
        # A new object for the same id (another process, later) sees the same history.
        again = MnemotreeSession("user_123", mem, scope="user:123")
        assert asyncio.run(again.get_items(limit=2)) == items[-2:]
        assert asyncio.run(again.pop_item()) == items[-1]
        assert len(asyncio.run(session.get_items())) == 3
        asyncio.run(session.clear_session())
        assert asyncio.run(again.get_items()) == []


def test_items_that_are_not_messages_are_kept_whole(tmp_path: Path) -> None:
    call = {
        "type": "function_call",
        "call_id": "c1",
        "name": "weather",
        "arguments": '{"city": "Lisbon"}',
    }
    output = {"type": "function_call_output", "call_id": "c1", "output": "sunny"}
    parts = {"role": "user", "content": [{"type": "input_text", "text": "and tomorrow?"}]}
    with Memory(tmp_path / "m.db", embedder="hashing", chat_background=False) as mem:
        session = MnemotreeSession("s", mem)
        asyncio.run(session.add_items([call, output, parts]))
        assert asyncio.run(session.get_items()) == [
            call,
            output,
            {"role": "user", "content": "and tomorrow?"},
        ]
