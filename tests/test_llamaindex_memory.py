"""mnemotree as LlamaIndex's chat memory, with the real llama-index-core
package: LlamaIndex's chat engine example with its own MockLLM."""

from __future__ import annotations

from pathlib import Path

from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.chat_engine import SimpleChatEngine
from llama_index.core.llms import MockLLM

from mnemotree import Memory
from mnemotree.integrations.llamaindex import MnemotreeChatMemory


def test_a_chat_engine_keeps_its_chat_in_a_mnemotree_session(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db", embedder="hashing", chat_background=False) as mem:
        memory = MnemotreeChatMemory.from_defaults(memory=mem, scope="user:42", token_limit=500)
        engine = SimpleChatEngine.from_defaults(llm=MockLLM(max_tokens=8), memory=memory)
        engine.chat("My favourite tea is sencha.")
        engine.chat("Which tea do I like?")
        stored = mem.chat.session_messages(memory.session or "")
        assert [n.metadata["role"] for n in stored] == ["user", "assistant", "user", "assistant"]
        assert stored[0].text == "My favourite tea is sencha." and stored[0].scope == "user:42"
        history = memory.get()
        assert history[0].role == MessageRole.USER and "sencha" in (history[0].content or "")
        assert [m.content for m in memory.get_all()] == [n.text for n in stored]

        again = MnemotreeChatMemory(memory=mem, session=memory.session)  # later, elsewhere
        assert [m.content for m in again.get_all()] == [n.text for n in stored]
        again.set([ChatMessage(role=MessageRole.USER, content="Start over")])
        assert [m.content for m in again.get_all()] == ["Start over"]
        again.reset()
        assert again.get_all() == []
