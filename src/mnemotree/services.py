"""What the parts of a memory share, built once by `Memory` and handed to each.

The parts (`Memory.chat`, `.docs`, `.typed`, `.consolidation`, `.keys` and
the engines behind the flat verbs) read the store, tree, tokenizer and clock
from here, and the providers that take time to load (the embedder behind the
retriever, an LLM) are built here on first use, once, whichever part asks.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Protocol

from .batch import NodeBatch
from .config import default_embedder, default_llm
from .embed import Embedder, get_embedder
from .embed.protocol import DEFAULT_EMBEDDER
from .errors import InvalidInput, MnemotreeError
from .ids import new_id
from .llm import LLM, LLMSettings, get_llm
from .model import NewNode
from .nli import NLI
from .retrieval.hits import Hit
from .retrieval.rank import Weights
from .retrieval.search import CONTAINER, Retriever
from .store import Store
from .timeutil import Clock, from_iso, to_iso, utc_now
from .tokens import DEFAULT_TOKENIZER, Tokenizer, get_tokenizer
from .tree import Tree


class Services:
    """The store and the providers every part of one memory uses."""

    def __init__(
        self,
        store: Store,
        tokenizer: Tokenizer,
        clock: Clock,
        *,
        weights: Weights,
        nli: NLI | None,
        embedder: str | Embedder | None,
        ann_min_rows: int | None,
        llm: LLM | str | None,
    ) -> None:
        self.store = store
        self.tokenizer = tokenizer
        self.clock = clock
        self.tree = Tree(store, tokenizer, clock)
        self.weights = weights
        self.nli = nli
        # Background chat upkeep that failed; kept, not raised.
        self.chat_errors: list[MnemotreeError] = []
        self._embedder_choice = embedder
        self._ann_min_rows = ann_min_rows
        self._llm_choice = llm
        self._retriever: Retriever | None = None
        self._llm: tuple[LLM | None] | None = None
        self._spaces: dict[str, str] = {}
        # Requests on several threads (the server) may ask for a lazily built
        # part at once: it is built once, under this lock.
        self.making = threading.RLock()

    @property
    def built_retriever(self) -> Retriever | None:
        """The retriever if something built it (closing must not load a model)."""
        return self._retriever

    @property
    def retriever(self) -> Retriever:
        """The search engine (built on first use: loading the model takes ~0.5 s)."""
        if self._retriever is not None:
            return self._retriever
        with self.making:
            if self._retriever is None:
                choice = self._embedder_choice
                embedder = (
                    choice
                    if isinstance(choice, Embedder)
                    else get_embedder(choice or default_embedder() or DEFAULT_EMBEDDER)
                )
                self._retriever = Retriever(
                    self.store, embedder, self.clock, ann_min_rows=self._ann_min_rows
                )
            return self._retriever

    @property
    def llm(self) -> LLM | None:
        """The configured LLM, or None (offline). `llm="offline"` never calls one;
        the default uses MNEMOTREE_LLM_* when they name a model."""
        if self._llm is None:
            with self.making:
                if self._llm is None:
                    self._llm = (_chosen_llm(self._llm_choice),)
        return self._llm[0]

    def now(self) -> str:
        return to_iso(self.clock())

    def space(self, scope: str) -> str:
        """The root that holds a scope's loose memories, made on first use."""
        cached = self._spaces.get(scope)
        if cached is not None and self.store.get(cached) is None:  # deleted meanwhile
            del self._spaces[scope]
        if scope not in self._spaces:
            # By the type and scope indexes: a memory may hold thousands of roots.
            spaces = self.store.roots_of_type("space", [scope])
            found = next((r for r in spaces if r.context_value == scope), None)
            if found is None:
                # A container, not a memory: search skips it (it still shows in ancestry).
                found = self.tree.create_root(
                    NewNode(
                        f"Memories ({scope})",
                        "space",
                        "",
                        scope,
                        scope=scope,
                        metadata={CONTAINER: True},
                    )
                )
            self._spaces[scope] = found.id
        return self._spaces[scope]

    def valid_at(self, valid_at: str | None, include_expired: bool) -> str | None:
        """The time reads keep memories valid at: now, unless asked otherwise."""
        if include_expired and valid_at is not None:
            raise InvalidInput(
                "give valid_at (what was valid then) or include_expired (everything), not both",
                valid_at,
            )
        if include_expired:
            return None
        return moment(valid_at, "valid_at") or self.now()


class Search(Protocol):
    """How a part finds memories the way a caller would: `Memory.search`."""

    def __call__(
        self,
        query: str,
        *,
        scopes: Sequence[str] | None = ...,
        limit: int = ...,
        record: bool = ...,
    ) -> list[Hit]: ...


class Part:
    """A part of a memory: reads what every part shares from `Services`."""

    def __init__(self, services: Services) -> None:
        self.services = services
        self.store = services.store
        self.clock = services.clock
        self.tokenizer = services.tokenizer
        self._tree = services.tree

    @property
    def retriever(self) -> Retriever:
        return self.services.retriever

    @property
    def llm(self) -> LLM | None:
        return self.services.llm


def moment(value: str | None, what: str) -> str | None:
    """An ISO time given by a caller, normalised (InvalidInput naming `what`)."""
    if value is None:
        return None
    try:
        return to_iso(from_iso(value))
    except (TypeError, ValueError):
        raise InvalidInput(
            f"{what} must be an ISO-8601 time such as 2026-01-31 or 2026-01-31T12:00:00Z, "
            f"got {value!r}",
            value,
        ) from None


def _chosen_llm(given: LLM | str | None) -> LLM | None:
    choice = given if given is not None else default_llm()
    if choice == "offline":
        return None
    if isinstance(choice, str):
        return get_llm(choice)
    if choice is None:
        return get_llm("openai") if LLMSettings.configured() else None
    return choice


_TOKENIZER_SETTING = "tokenizer"


def pick_tokenizer(store: Store, wanted: str | Tokenizer | None) -> Tokenizer:
    """The tokenizer asked for, else the one the file was counted with; a
    change recounts every node (counts are derived, not content)."""
    stored = store.get_setting(_TOKENIZER_SETTING)
    if wanted is None:
        tokenizer = get_tokenizer(stored or DEFAULT_TOKENIZER)
    elif isinstance(wanted, str):
        tokenizer = get_tokenizer(wanted)
    else:
        tokenizer = wanted
    if stored != tokenizer.name:
        with store.transaction():
            if stored is not None:  # counts were made by another tokenizer
                nodes = list(store.iter_nodes())
                counts = tokenizer.count_many([n.text for n in nodes])
                pairs = zip(nodes, counts, strict=True)
                NodeBatch(store, new_id(), to_iso(utc_now())).recount([(n.id, c) for n, c in pairs])
            store.set_setting(_TOKENIZER_SETTING, tokenizer.name)
    return tokenizer
