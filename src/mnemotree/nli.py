"""A natural-language-inference cross-encoder a user may supply, behind one narrow protocol.

Nothing here is required or shipped: contradiction detection works offline by
rules and the embedder. A user who has an NLI cross-encoder exported to ONNX
(for example cross-encoder/nli-deberta-v3-xsmall or roberta-large-mnli) points
mnemotree at it and its judgement of "does the later statement contradict the
earlier one" can be used beside the rules.

Configuration, read by `load_nli()` when no path is given:

- `MNEMOTREE_NLI_MODEL`: the .onnx file (unset or empty: no NLI model);
- `MNEMOTREE_NLI_TOKENIZER`: its HuggingFace tokenizer.json (default: the
  tokenizer.json next to the model);
- `MNEMOTREE_NLI_LABELS`: the model's label order, comma-separated, e.g.
  `contradiction,neutral,entailment` (default: the `id2label` of a config.json
  next to the model, else `contradiction,entailment,neutral`). Models differ
  here, and a wrong order silently swaps the answers, hence the config.json.

The model takes `input_ids` and `attention_mask` (and `token_type_ids` if it
declares them), int64 or int32, and returns logits [batch, 3].
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from .errors import InvalidInput, MissingExtra, ParseError, ProviderError

ENV_MODEL = "MNEMOTREE_NLI_MODEL"
ENV_TOKENIZER = "MNEMOTREE_NLI_TOKENIZER"
ENV_LABELS = "MNEMOTREE_NLI_LABELS"
LABELS = ("contradiction", "entailment", "neutral")
_REQUIRED_INPUTS = ("input_ids", "attention_mask")
_OPTIONAL_INPUTS = ("token_type_ids",)
_INT_TYPES = {"tensor(int64)": np.int64, "tensor(int32)": np.int32}
_MAX_TOKENS = 512  # the usual limit of BERT-like encoders; pairs are truncated longest first
_BATCH = 16
_PROVIDERS = ["CPUExecutionProvider"]
_PAD_TOKENS = ("[PAD]", "<pad>")


@dataclass(frozen=True, slots=True)
class NLIScores:
    """Probabilities (summing to 1) that the hypothesis (the later statement)
    contradicts, follows from, or is neutral to the premise (the earlier one)."""

    contradiction: float
    entailment: float
    neutral: float

    @property
    def label(self) -> str:
        """The most probable of "contradiction", "entailment", "neutral"."""
        return max(LABELS, key=lambda name: float(getattr(self, name)))


@runtime_checkable
class NLI(Protocol):
    """Scores (premise, hypothesis) pairs. `identity` names the exact model
    (weights, tokenizer, label order) so cached judgements can be told apart."""

    @property
    def identity(self) -> str: ...

    def scores(self, pairs: Sequence[tuple[str, str]]) -> list[NLIScores]: ...


class OnnxNLI:
    """An NLI cross-encoder exported to ONNX, run by onnxruntime on the CPU.

    The constructor only checks that the files exist and the labels make
    sense; the model loads on `warm()` or the first `scores()` call, where a
    file that is not ONNX or not a 3-way classifier is reported.
    """

    def __init__(
        self,
        model_path: str | os.PathLike[str],
        tokenizer_path: str | os.PathLike[str] | None = None,
        labels: Sequence[str] | None = None,
        *,
        max_tokens: int = _MAX_TOKENS,
        threads: int | None = None,
    ) -> None:
        self.model_path = _model_file(model_path)
        self.tokenizer_path = _tokenizer_file(self.model_path, tokenizer_path)
        self.labels = (
            check_labels(labels) if labels is not None else _config_labels(self.model_path)
        )
        if max_tokens < 8:
            raise InvalidInput(f"max_tokens must be at least 8, got {max_tokens}", max_tokens)
        self._max_tokens = max_tokens
        self._threads = threads or min(4, os.cpu_count() or 1)
        self._lock = threading.Lock()
        self._runner: _Runner | None = None
        self._identity: str | None = None

    @property
    def identity(self) -> str:
        """`nli-onnx:<file name>@<sha256 of model, tokenizer and label order>`."""
        if self._identity is None:
            digest = hashlib.sha256()
            for path in (self.model_path, self.tokenizer_path):
                with path.open("rb") as handle:
                    for block in iter(lambda: handle.read(1 << 20), b""):
                        digest.update(block)
            digest.update(",".join(self.labels).encode())
            self._identity = f"nli-onnx:{self.model_path.name}@{digest.hexdigest()[:12]}"
        return self._identity

    def warm(self) -> str:
        """Load and check the model and tokenizer now; returns the identity."""
        self._load()
        return self.identity

    def scores(self, pairs: Sequence[tuple[str, str]]) -> list[NLIScores]:
        """One NLIScores per (premise, hypothesis) pair, in order."""
        checked = _check_pairs(pairs)
        if not checked:
            return []
        runner = self._load()
        probabilities = np.zeros((len(checked), len(LABELS)), dtype=np.float64)
        # Pairs of similar length share a batch, so padding stays short.
        order = sorted(range(len(checked)), key=lambda i: len(checked[i][0]) + len(checked[i][1]))
        for start in range(0, len(order), _BATCH):
            rows = order[start : start + _BATCH]
            probabilities[rows] = runner.run([checked[i] for i in rows])
        position = [self.labels.index(name) for name in LABELS]
        return [NLIScores(*(float(row[index]) for index in position)) for row in probabilities]

    def _load(self) -> _Runner:
        with self._lock:
            if self._runner is None:
                session = _session(self.model_path, self._threads)
                tokenizer = _tokenizer(self.tokenizer_path, self._max_tokens)
                self._runner = _Runner(self.model_path, session, tokenizer)
            return self._runner


class _Runner:
    """A loaded, checked session and its tokenizer: pairs in, probabilities out."""

    def __init__(self, model: Path, session: Any, tokenizer: Any) -> None:
        self._model = model
        self._session = session
        self._tokenizer = tokenizer
        self._inputs = _check_inputs(model, session)
        self._output = _check_output(model, session)
        self._pad_id = _pad_id(tokenizer)

    def run(self, pairs: Sequence[tuple[str, str]]) -> npt.NDArray[np.float64]:
        encoded = self._tokenizer.encode_batch(list(pairs))
        width = max(len(e.ids) for e in encoded)
        ids = np.full((len(encoded), width), self._pad_id, dtype=np.int64)
        mask = np.zeros((len(encoded), width), dtype=np.int64)
        types = np.zeros((len(encoded), width), dtype=np.int64)
        for row, encoding in enumerate(encoded):
            size = len(encoding.ids)
            ids[row, :size] = encoding.ids
            mask[row, :size] = encoding.attention_mask
            types[row, :size] = encoding.type_ids
        columns = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        feeds = {name: columns[name].astype(dtype) for name, dtype in self._inputs.items()}
        try:
            logits = np.asarray(self._session.run([self._output], feeds)[0], dtype=np.float64)
        except _ort_errors() as exc:
            raise ProviderError(
                f"the NLI model {str(self._model)!r} failed on a batch: {_first_line(exc)}",
                str(self._model),
            ) from None
        if logits.shape != (len(pairs), len(LABELS)):
            raise InvalidInput(
                f"the NLI model {str(self._model)!r} returned {self._output} of shape "
                f"{list(logits.shape)}; expected [batch, 3] logits "
                f"({', '.join(LABELS)} in some order)",
                str(self._model),
            )
        if not np.isfinite(logits).all():
            raise ProviderError(
                f"the NLI model {str(self._model)!r} returned logits that are not finite numbers",
                str(self._model),
            )
        shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
        probabilities: npt.NDArray[np.float64] = shifted / shifted.sum(axis=1, keepdims=True)
        return probabilities


_CACHE: dict[tuple[Any, ...], OnnxNLI] = {}
_CACHE_LOCK = threading.Lock()


def load_nli(
    path: str | os.PathLike[str] | None = None,
    *,
    tokenizer_path: str | os.PathLike[str] | None = None,
    labels: Sequence[str] | None = None,
) -> NLI | None:
    """The NLI model at `path` (else `$MNEMOTREE_NLI_MODEL`), loaded and
    checked now so a bad file fails before anything is written; None when
    neither names one. The tokenizer and labels default to
    `$MNEMOTREE_NLI_TOKENIZER` and `$MNEMOTREE_NLI_LABELS`, then to the files
    next to the model. One loaded model is shared per files and label order."""
    if path is None:
        path = os.environ.get(ENV_MODEL, "").strip() or None
        if path is None:
            return None
    if tokenizer_path is None:
        tokenizer_path = os.environ.get(ENV_TOKENIZER, "").strip() or None
    if labels is None:
        names = os.environ.get(ENV_LABELS, "").strip()
        labels = [n.strip() for n in names.split(",")] if names else None
    model = OnnxNLI(path, tokenizer_path, labels)
    key = (
        *(_file_key(p) for p in (model.model_path, model.tokenizer_path)),
        model.labels,
    )
    with _CACHE_LOCK:
        cached = _CACHE.get(key)
        if cached is not None:
            return cached
    model.warm()  # outside the lock: a large model takes seconds
    with _CACHE_LOCK:
        return _CACHE.setdefault(key, model)


def check_labels(labels: Sequence[str]) -> tuple[str, ...]:
    """`labels` as the model's output order: the three NLI labels, each once,
    in any case (MNLI models write them in capitals)."""
    if isinstance(labels, str):
        labels = labels.split(",")
    found = tuple(str(name).strip().lower() for name in labels)
    if sorted(found) != sorted(LABELS):
        raise InvalidInput(
            f"NLI labels must name {', '.join(LABELS)} once each, in the model's output "
            f"order; got {list(labels)}",
            list(labels),
        )
    return found


def _model_file(path: str | os.PathLike[str]) -> Path:
    model = Path(path).expanduser()
    if model.is_dir():
        raise InvalidInput(
            f"NLI model {str(model)!r} is a directory; pass the .onnx file inside it "
            f"(or set {ENV_MODEL} to it)",
            str(model),
        )
    if not model.is_file():
        raise InvalidInput(
            f"no NLI model file at {str(model)!r}; pass the path of a cross-encoder exported "
            f"to ONNX (a .onnx file), or unset {ENV_MODEL}",
            str(model),
        )
    return model


def _tokenizer_file(model: Path, path: str | os.PathLike[str] | None) -> Path:
    tokenizer = Path(path).expanduser() if path is not None else model.parent / "tokenizer.json"
    if not tokenizer.is_file():
        how = "" if path is not None else " (looked next to the model)"
        raise InvalidInput(
            f"no tokenizer.json for the NLI model at {str(tokenizer)!r}{how}; pass "
            f"tokenizer_path or set {ENV_TOKENIZER} to the model's HuggingFace tokenizer.json",
            str(tokenizer),
        )
    return tokenizer


def _config_labels(model: Path) -> tuple[str, ...]:
    """The label order from the HuggingFace config.json beside the model, if
    it has one naming the three labels, else the default order."""
    config = model.parent / "config.json"
    try:
        id2label = json.loads(config.read_text(encoding="utf-8")).get("id2label")
        names = [id2label[key] for key in sorted(id2label, key=int)]
        return check_labels(names)
    except (OSError, ValueError, TypeError, AttributeError, KeyError, InvalidInput):
        return LABELS  # no usable config: the order of cross-encoder/nli-* models


def _session(model: Path, threads: int) -> Any:
    try:
        import onnxruntime as ort
    except ImportError as exc:  # pragma: no cover - onnxruntime is a core dependency
        raise MissingExtra(
            f"an NLI model needs {exc.name}; reinstall mnemotree (pip install mnemotree)",
            exc.name,
        ) from None
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    # Idle threads would otherwise spin, taking a core from the writes beside them.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    try:
        return ort.InferenceSession(str(model), options, providers=_PROVIDERS)
    except _ort_errors() as exc:
        raise ParseError(
            f"{str(model)!r} is not a readable ONNX model (onnxruntime: {_first_line(exc)}); "
            "pass an NLI cross-encoder exported to ONNX",
            str(model),
        ) from None


def _tokenizer(path: Path, max_tokens: int) -> Any:
    try:
        from tokenizers import Tokenizer
    except ImportError as exc:  # pragma: no cover - tokenizers is a core dependency
        raise MissingExtra(
            f"an NLI model needs {exc.name}; reinstall mnemotree (pip install mnemotree)",
            exc.name,
        ) from None
    try:
        text = path.read_text(encoding="utf-8")
        json.loads(text)
        tokenizer = Tokenizer.from_str(text)
    except (OSError, ValueError) as exc:
        raise _not_tokenizer(path, exc) from None
    except Exception as exc:
        # tokenizers reports JSON of the wrong structure as a bare Exception;
        # anything more specific is not about the file and goes on.
        if type(exc) is not Exception:
            raise
        raise _not_tokenizer(path, exc) from None
    if tokenizer.truncation is None or tokenizer.truncation["max_length"] > max_tokens:
        tokenizer.enable_truncation(max_tokens)
    tokenizer.no_padding()  # _Runner pads each batch to its longest pair
    return tokenizer


def _not_tokenizer(path: Path, exc: BaseException) -> ParseError:
    return ParseError(
        f"{str(path)!r} is not a readable HuggingFace tokenizer.json ({_first_line(exc)})",
        str(path),
    )


def _check_inputs(model: Path, session: Any) -> dict[str, Any]:
    """The inputs to feed and their integer types."""
    found = {i.name: i.type for i in session.get_inputs()}
    unknown = [name for name in found if name not in _REQUIRED_INPUTS + _OPTIONAL_INPUTS]
    missing = [name for name in _REQUIRED_INPUTS if name not in found]
    wrong = [name for name in found if name not in unknown and found[name] not in _INT_TYPES]
    if unknown or missing or wrong:
        raise InvalidInput(
            f"the NLI model {str(model)!r} takes inputs "
            f"{', '.join(f'{n} {t}' for n, t in found.items()) or 'none'}; expected "
            "input_ids and attention_mask (and optionally token_type_ids), int64 or int32 "
            "[batch, tokens]: is it a cross-encoder?",
            str(model),
        )
    return {name: _INT_TYPES[kind] for name, kind in found.items()}


def _check_output(model: Path, session: Any) -> str:
    """The name of the logits output, checked as [batch, 3] where its shape is known."""
    outputs = session.get_outputs()
    named = [o for o in outputs if o.name == "logits"]
    chosen = named[0] if named else outputs[0] if len(outputs) == 1 else None
    shape = list(chosen.shape) if chosen is not None else []
    last = shape[-1] if shape else None
    if chosen is None or len(shape) != 2 or (isinstance(last, int) and last != len(LABELS)):
        described = ", ".join(f"{o.name} {list(o.shape)}" for o in outputs) or "none"
        raise InvalidInput(
            f"the NLI model {str(model)!r} has outputs {described}; expected one output "
            f"(or one named logits) of shape [batch, 3]: logits for {', '.join(LABELS)} "
            "in some order",
            str(model),
        )
    return str(chosen.name)


def _pad_id(tokenizer: Any) -> int:
    """The tokenizer's padding id: some models (RoBERTa) derive positions from it."""
    for token in _PAD_TOKENS:
        found = tokenizer.token_to_id(token)
        if found is not None:
            return int(found)
    return 0


def _check_pairs(pairs: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    checked: list[tuple[str, str]] = []
    for pair in pairs:
        if (
            not isinstance(pair, (tuple, list))
            or len(pair) != 2
            or not all(isinstance(text, str) for text in pair)
        ):
            raise InvalidInput(
                f"an NLI pair is (premise, hypothesis), two strings; got {pair!r}", pair
            )
        checked.append((pair[0], pair[1]))
    return checked


def _file_key(path: Path) -> tuple[str, int, int]:
    """A file's identity for the cache: a replaced file loads afresh."""
    stat = path.stat()
    return str(path.resolve()), stat.st_mtime_ns, stat.st_size


def _ort_errors() -> tuple[type[BaseException], ...]:
    """Every error onnxruntime raises (its own classes derive from Exception
    directly), plus the Python errors its wrapper raises."""
    from onnxruntime.capi import onnxruntime_pybind11_state as state

    own = tuple(
        kind
        for kind in vars(state).values()
        if isinstance(kind, type) and issubclass(kind, Exception)
    )
    return (*own, RuntimeError, ValueError, OSError)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:300] if text else type(exc).__name__
