"""mnemotree in LangChain, with the real langchain-core package: the
retriever in a chain, and the chat history under RunnableWithMessageHistory
(LangChain's own documented pattern), answered by LangChain's fake chat model."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from langchain_core.documents import Document
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_core.runnables import RunnableConfig, RunnableLambda
from langchain_core.runnables.history import RunnableWithMessageHistory

from mnemotree import Memory
from mnemotree.integrations.langchain import MnemotreeChatHistory, MnemotreeRetriever


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    with Memory(tmp_path / "m.db", embedder="hashing", chat_background=False) as memory:
        yield memory


def test_the_retriever_finds_memories_in_a_chain(mem: Memory) -> None:
    tea = mem.remember("Alice prefers green tea", scope="team")
    mem.remember("The office is in Lisbon", scope="team")
    mem.remember("Alice's private note", scope="alice")
    retriever = MnemotreeRetriever(memory=mem, scopes=["team"], k=2)
    documents = retriever.invoke("what tea does Alice like")
    assert isinstance(documents[0], Document)
    assert documents[0].page_content == "Alice prefers green tea"
    assert documents[0].metadata["id"] == tea.id and documents[0].metadata["scope"] == "team"
    assert all(d.metadata["scope"] == "team" for d in documents)  # never another scope

    def joined(docs: list[Document]) -> str:
        return "\n".join(d.page_content for d in docs)

    chain = retriever | RunnableLambda(joined)
    assert "green tea" in chain.invoke("Alice tea")


def test_the_chat_history_is_a_mnemotree_session(mem: Memory) -> None:
    history = MnemotreeChatHistory(mem, scope="user:42", title="Support")
    history.add_user_message("I prefer green tea")
    history.add_ai_message("Noted: green tea.")
    assert [(type(m), m.content) for m in history.messages] == [
        (HumanMessage, "I prefer green tea"),
        (AIMessage, "Noted: green tea."),
    ]
    again = MnemotreeChatHistory(mem, session=history.session_id)  # another process, later
    assert [m.content for m in again.messages] == ["I prefer green tea", "Noted: green tea."]
    assert mem.chat.session(history.session_id).scope == "user:42"
    old = history.session_id
    history.clear()
    assert history.messages == [] and history.session_id != old


def test_runnable_with_message_history_keeps_the_conversation(mem: Memory) -> None:
    prompt = ChatPromptTemplate.from_messages(
        [("system", "You are helpful."), MessagesPlaceholder("history"), ("human", "{question}")]
    )
    model = FakeListChatModel(responses=["Hello Ada.", "You said your name is Ada."])
    sessions: dict[str, MnemotreeChatHistory] = {}

    def history_for(session_id: str) -> MnemotreeChatHistory:
        if session_id not in sessions:
            sessions[session_id] = MnemotreeChatHistory(mem, scope="user:ada")
        return sessions[session_id]

    chat = RunnableWithMessageHistory(
        prompt | model,
        history_for,
        input_messages_key="question",
        history_messages_key="history",
    )
    config: RunnableConfig = {"configurable": {"session_id": "s1"}}
    chat.invoke({"question": "My name is Ada."}, config=config)
    reply = chat.invoke({"question": "What is my name?"}, config=config)
    assert reply.content == "You said your name is Ada."
    stored = mem.chat.session_messages(sessions["s1"].session_id)
    assert [(n.metadata["role"], n.text) for n in stored] == [
        ("user", "My name is Ada."),
        ("assistant", "Hello Ada."),
        ("user", "What is my name?"),
        ("assistant", "You said your name is Ada."),
    ]
