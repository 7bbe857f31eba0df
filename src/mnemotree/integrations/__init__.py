"""Adapters for agent frameworks, each in its own module and extra:
`langgraph` (a `BaseStore`), `langchain` (a retriever and a chat history),
`llamaindex` (a chat memory) and `openai_agents` (an Agents SDK `Session`)."""
