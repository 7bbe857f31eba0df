"""`mnemotree chat`: an interactive session (the documents-and-chat design).

Plain text is a question: it is stored as a user message and answered from
memory and documents, by the LLM when one is configured (with the session's
message list as history), otherwise with what retrieval found. Slash
commands: /search, /ask, /memory, /remember, /forget, /docs, /help, /quit.
It reads standard input line by line, so it can be scripted.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

import click

from .. import InvalidInput, InvalidOperation, MnemotreeError
from . import render
from .main import _State, cli, with_memory

if TYPE_CHECKING:
    from .. import Answer, Memory, Node

HISTORY_TOKENS = 3000
HELP = """\
/search QUERY    hybrid search over memories and documents
/ask QUESTION    answer from memory (not stored in the session)
/memory          the memory log of this chat's scope
/remember NOTE   remember a note (and log it)
/forget          clear this scope's memory log
/docs            ingested documents
/help            this list
/quit            leave (so does end of input)
Anything else is a message: stored, and answered from memory."""


class Repl:
    """One chat: a session, the scopes it may see, and the commands."""

    def __init__(self, memory: Memory, session: Node, see: list[str] | None) -> None:
        self.memory = memory
        self.session = session
        self.see = see  # None: every scope (the owner)
        self.commands: dict[str, Callable[[str], None]] = {
            "search": self.search,
            "ask": self.ask,
            "memory": self.show_log,
            "remember": self.remember,
            "forget": self.forget,
            "docs": self.docs,
            "help": lambda _: render.out.print(HELP),
        }

    def handle(self, line: str) -> bool:
        """Run one line; False when the user leaves."""
        line = line.strip()
        name, _, rest = line[1:].partition(" ") if line.startswith("/") else ("", "", line)
        if name in ("quit", "exit", "q"):
            return False
        command = self.commands.get(name) if line.startswith("/") else self.message
        if command is None:
            render.err.print(f"[red]unknown command /{render.escape(name)}[/]; /help lists them")
        elif line:
            try:
                command(rest.strip())
            except MnemotreeError as exc:  # one bad line does not end the chat
                render.err.print(f"[red]error:[/] {render.escape(str(exc))}")
        return True

    def _needs(self, what: str, text: str) -> bool:
        if not text:
            render.err.print(f"[yellow]{what}[/]")
        return bool(text)

    def search(self, query: str) -> None:
        if self._needs("usage: /search QUERY", query):
            render.hits(self.memory.search(query, scopes=self.see, limit=5), explain=False)

    def ask(self, question: str) -> None:
        if self._needs("usage: /ask QUESTION", question):
            self._answer(self.memory.ask(question, scopes=self.see, history=self._history()))

    def show_log(self, _: str) -> None:
        click.echo(self.memory.chat.memory_log(self.session.scope), nl=False)

    def remember(self, note: str) -> None:
        if self._needs("usage: /remember NOTE", note):
            node = self.memory.chat.note(note, scope=self.session.scope)
            render.out.print(f"[green]remembered[/] {node.id}")

    def forget(self, _: str) -> None:
        gone = self.memory.chat.clear_memory_log(self.session.scope)
        scope = self.session.scope
        render.out.print(f"[green]cleared[/] the memory log of {scope} ({gone} sections)")

    def docs(self, _: str) -> None:
        render.documents(self.memory.docs.list(scopes=self.see))

    def message(self, text: str) -> None:
        # Answered before it is stored, so the question does not find itself.
        answer = self.memory.ask(text, scopes=self.see, history=self._history())
        self.memory.chat.add_message(self.session.id, "user", text)
        self._answer(answer)
        if answer.answer:
            self.memory.chat.add_message(self.session.id, "assistant", answer.answer)

    def _history(self) -> list[dict[str, object]]:
        return self.memory.chat.build_message_list(self.session.id, HISTORY_TOKENS)

    def _answer(self, answer: Answer) -> None:
        if answer.answer:
            render.out.print(f"[bold]assistant[/]: {render.escape(answer.answer)}")
            return
        if answer.error:
            render.err.print(f"[yellow]the model failed ({render.escape(answer.error)})[/]")
        if not answer.sources and not answer.memories:
            render.out.print("[dim]nothing in memory about that[/]")
            return
        render.out.print("[dim]from memory:[/]")
        shown: set[str] = set()
        for hit in answer.memories:
            # A captured memory repeats its message with the speaker in front.
            text = hit.node.text
            said = text.split(": ", 1)[1] if ": " in text[:40] else text
            if said not in shown and not said.rstrip().endswith("?"):  # questions are no answer
                shown.add(said)
                render.out.print(f"  - {render.escape(hit.node.text)}")
        for source in answer.sources:
            render.out.print(f"  - [{render.escape(source.header)}] {render.escape(source.text)}")


@cli.command()
@click.option("--session", "session_id", default=None, help="Continue this session.")
@click.option("--scope", default="default", show_default=True, help="Scope of a new session.")
@click.option("--title", default=None, help="Title of a new session.")
@click.option(
    "--see",
    multiple=True,
    help="Scopes answers may come from (repeatable; default: every scope, as the owner).",
)
@with_memory
def chat(
    state: _State, session_id: str | None, scope: str, title: str | None, see: tuple[str, ...]
) -> None:
    """Chat with your memory: messages are kept, summarised and captured."""
    memory = state.memory
    if session_id and (title is not None or scope != "default"):
        raise InvalidInput(
            "--scope and --title name a new session; leave them out with --session", session_id
        )
    session = (
        memory.chat.session(session_id) if session_id else memory.chat.start_session(scope, title)
    )
    if session.metadata.get("status") == "ended":
        raise InvalidOperation(f"session {session.id} has ended; start a new one", session.id)
    repl = Repl(memory, session, list(see) or None)
    model = memory.llm.identity if memory.llm is not None else "no model: retrieval-only answers"
    interactive = sys.stdin.isatty()
    render.err.print(f"[dim]session {session.id} ({session.scope}); {model}; /help[/]")
    while True:
        try:
            line = input("› ") if interactive else sys.stdin.readline()
        except (EOFError, KeyboardInterrupt):
            break
        if not interactive and not line:
            break
        if not repl.handle(line):
            break
    memory.chat.wait_for_chat()
    # What was said since the last capture is not left waiting for 20 more turns.
    report = memory.chat.capture(session.id)
    if report.new:
        render.err.print(
            f"[dim]captured {len(report.promoted)} memories, {len(report.pending)} to review "
            "(mnemotree captured)[/]"
        )
    render.err.print(f"[dim]session {session.id} kept; continue with --session {session.id}[/]")
