"""The user-supplied NLI cross-encoder, on a tiny model and tokenizer generated here.

The model sums one row of weights per real token: "not"/"no" push towards
contradiction, "yes"/"indeed" towards entailment, other words slightly towards
neutral. Its padding row pushes hard towards contradiction, so a pair whose
padding were not masked would come out differently in a batch than alone.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

from mnemotree.errors import InvalidInput, ParseError
from mnemotree.nli import ENV_LABELS, ENV_MODEL, ENV_TOKENIZER, NLI, NLIScores, OnnxNLI, load_nli

SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"]
WORDS = ["the", "sky", "is", "blue", "not", "no", "yes", "indeed", "marco", "works", "in"]
WORDS += ["berlin", "lisbon", "a", "nurse"]
VOCAB = {token: index for index, token in enumerate(SPECIAL + WORDS)}
CONTRADICTS = ("the sky is blue", "the sky is not blue")
ENTAILS = ("the sky is blue", "yes the sky is indeed blue")
NEUTRAL = ("the sky is blue", "marco works in berlin")


def weights(width: int = 3) -> np.ndarray[Any, Any]:
    table = np.zeros((len(VOCAB), width), dtype=np.float32)
    table[:, width - 1] = 0.2  # ordinary words: a little neutral (the last column)
    table[VOCAB["[PAD]"]] = 0.0
    table[VOCAB["[PAD]"], 0] = 50.0  # would dominate if padding were not masked
    for word in ("not", "no"):
        table[VOCAB[word]] = 0.0
        table[VOCAB[word], 0] = 6.0
    for word in ("yes", "indeed"):
        table[VOCAB[word]] = 0.0
        table[VOCAB[word], 1 % width] = 6.0
    return table


def write_model(
    path: Path,
    *,
    width: int = 3,
    declared: list[Any] | None = None,
    token_types: bool = False,
    int_type: int = TensorProto.INT64,
    ids_name: str = "input_ids",
    extra_axis: bool = False,
) -> Path:
    """logits = sum over real tokens of weights[token] (+ a touch per second-segment token)."""
    inputs = [
        helper.make_tensor_value_info(ids_name, int_type, ["batch", "tokens"]),
        helper.make_tensor_value_info("attention_mask", int_type, ["batch", "tokens"]),
    ]
    nodes = [
        helper.make_node("Gather", ["weights", ids_name], ["rows"]),
        helper.make_node("Cast", ["attention_mask"], ["mask"], to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", ["mask", "last"], ["mask3"]),
        helper.make_node("Mul", ["rows", "mask3"], ["masked"]),
        helper.make_node("ReduceSum", ["masked", "tokens_axis"], ["summed"], keepdims=0),
    ]
    initializers = [
        numpy_helper.from_array(weights(width), "weights"),
        numpy_helper.from_array(np.array([2], dtype=np.int64), "last"),
        numpy_helper.from_array(np.array([1], dtype=np.int64), "tokens_axis"),
    ]
    if token_types:
        inputs.append(helper.make_tensor_value_info("token_type_ids", int_type, ["batch", "t"]))
        nodes += [
            helper.make_node("Cast", ["token_type_ids"], ["types"], to=TensorProto.FLOAT),
            helper.make_node("Mul", ["types", "mask"], ["second"]),
            helper.make_node("ReduceSum", ["second", "tokens_axis"], ["count"], keepdims=1),
            helper.make_node("Mul", ["count", "per_type"], ["nudge"]),
            helper.make_node("Add", ["summed", "nudge"], ["logits"]),
        ]
        nudge = np.zeros((1, width), dtype=np.float32)
        nudge[0, width - 1] = 0.01
        initializers.append(numpy_helper.from_array(nudge, "per_type"))
    elif extra_axis:
        nodes.append(helper.make_node("Unsqueeze", ["summed", "last"], ["logits"]))
    else:
        nodes.append(helper.make_node("Identity", ["summed"], ["logits"]))
    output = helper.make_tensor_value_info(
        "logits", TensorProto.FLOAT, declared or ["batch", width]
    )
    graph = helper.make_graph(nodes, "tiny-nli", inputs, [output], initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return path


def write_echo_model(path: Path) -> Path:
    """A model whose "logits" are its token ids: [batch, tokens], not [batch, 3]."""
    inputs = [
        helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "tokens"])
        for name in ("input_ids", "attention_mask")
    ]
    cast = helper.make_node("Cast", ["input_ids"], ["logits"], to=TensorProto.FLOAT)
    output = helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", "tokens"])
    graph = helper.make_graph([cast], "echo", inputs, [output])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, str(path))
    return path


def write_tokenizer(path: Path) -> Path:
    tokenizer = Tokenizer(models.WordLevel(VOCAB, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.Lowercase()
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", VOCAB["[CLS]"]), ("[SEP]", VOCAB["[SEP]"])],
    )
    tokenizer.save(str(path))
    return path


def model_dir(root: Path, **options: Any) -> Path:
    """A directory holding model.onnx and tokenizer.json; returns the model's path."""
    root.mkdir(parents=True, exist_ok=True)
    write_tokenizer(root / "tokenizer.json")
    return write_model(root / "model.onnx", **options)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> OnnxNLI:
    return OnnxNLI(model_dir(tmp_path_factory.mktemp("nli")))


@pytest.fixture(autouse=True)
def no_nli_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (ENV_MODEL, ENV_TOKENIZER, ENV_LABELS):
        monkeypatch.delenv(name, raising=False)


def test_known_pairs_get_their_label_and_probabilities_sum_to_one(tiny: OnnxNLI) -> None:
    assert isinstance(tiny, NLI)
    found = tiny.scores([CONTRADICTS, ENTAILS, NEUTRAL])
    assert [s.label for s in found] == ["contradiction", "entailment", "neutral"]
    for scores in found:
        parts = (scores.contradiction, scores.entailment, scores.neutral)
        assert all(0.0 <= p <= 1.0 for p in parts)
        assert sum(parts) == pytest.approx(1.0)
    assert found[0].contradiction > 0.9 and found[1].entailment > 0.9
    assert tiny.scores([]) == []


text = st.lists(st.sampled_from([*WORDS, "unknown", "Berlin", ""]), max_size=12).map(" ".join)


@settings(max_examples=30, deadline=None)
@given(pairs=st.lists(st.tuples(text, text), min_size=1, max_size=40))
def test_batching_gives_what_one_by_one_gives(tiny: OnnxNLI, pairs: list[tuple[str, str]]) -> None:
    together = tiny.scores(pairs)
    alone = [tiny.scores([pair])[0] for pair in pairs]
    assert len(together) == len(pairs)
    for a, b in zip(together, alone, strict=True):
        assert (a.contradiction, a.entailment, a.neutral) == pytest.approx(
            (b.contradiction, b.entailment, b.neutral), abs=1e-6
        )
        assert a.contradiction + a.entailment + a.neutral == pytest.approx(1.0)


def test_label_order_is_configurable(tiny: OnnxNLI, tmp_path: Path) -> None:
    swapped = OnnxNLI(tiny.model_path, labels=("Entailment", "CONTRADICTION", "neutral"))
    assert swapped.labels == ("entailment", "contradiction", "neutral")
    assert swapped.identity != tiny.identity  # cached judgements must not mix
    for plain, other in zip(
        tiny.scores([CONTRADICTS, ENTAILS]), swapped.scores([CONTRADICTS, ENTAILS]), strict=True
    ):
        assert other.contradiction == pytest.approx(plain.entailment)
        assert other.entailment == pytest.approx(plain.contradiction)
    assert swapped.scores([CONTRADICTS])[0].label == "entailment"
    with pytest.raises(InvalidInput, match=r"contradiction, entailment, neutral once each"):
        OnnxNLI(tiny.model_path, labels=("contradiction", "entailment"))


def test_label_order_comes_from_a_config_json_beside_the_model(tmp_path: Path) -> None:
    path = model_dir(tmp_path)
    id2label = {"0": "ENTAILMENT", "1": "CONTRADICTION", "2": "NEUTRAL"}
    (tmp_path / "config.json").write_text(json.dumps({"id2label": id2label}))
    assert OnnxNLI(path).labels == ("entailment", "contradiction", "neutral")
    assert OnnxNLI(path, labels=["contradiction", "entailment", "neutral"]).labels[0] == (
        "contradiction"
    )
    (tmp_path / "config.json").write_text(json.dumps({"id2label": {"0": "LABEL_0"}}))
    assert OnnxNLI(path).labels == ("contradiction", "entailment", "neutral")


def test_load_nli_reads_the_environment_and_shares_one_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert load_nli() is None
    monkeypatch.setenv(ENV_MODEL, "  ")
    assert load_nli() is None
    path = model_dir(tmp_path / "a")
    monkeypatch.setenv(ENV_MODEL, str(path))
    loaded = load_nli()
    assert loaded is not None and loaded.identity.startswith("nli-onnx:model.onnx@")
    assert load_nli(str(path)) is loaded
    monkeypatch.setenv(ENV_LABELS, "neutral, contradiction, entailment")
    relabelled = load_nli()
    assert relabelled is not loaded and relabelled is not None
    assert relabelled.scores([CONTRADICTS])[0].label == "neutral"
    monkeypatch.delenv(ENV_LABELS)
    moved = tmp_path / "elsewhere.json"
    (tmp_path / "a" / "tokenizer.json").rename(moved)
    monkeypatch.setenv(ENV_TOKENIZER, str(moved))
    elsewhere = load_nli(path)
    assert elsewhere is not None
    assert elsewhere.scores([ENTAILS])[0].label == "entailment"


def test_token_type_ids_and_int32_inputs_are_fed(tmp_path: Path) -> None:
    typed = OnnxNLI(model_dir(tmp_path / "typed", token_types=True))
    narrow = OnnxNLI(model_dir(tmp_path / "int32", int_type=TensorProto.INT32))
    for model in (typed, narrow):
        found = model.scores([CONTRADICTS, ENTAILS, NEUTRAL])
        assert [s.label for s in found] == ["contradiction", "entailment", "neutral"]


def test_a_missing_model_file_names_the_path_and_what_to_pass(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "model.onnx"
    with pytest.raises(InvalidInput, match=r"no NLI model file at .*nowhere.*a .onnx file") as err:
        load_nli(missing)
    assert err.value.value == str(missing)
    with pytest.raises(InvalidInput, match=r"is a directory; pass the .onnx file"):
        load_nli(tmp_path)


def test_a_text_file_named_onnx_is_reported_as_not_onnx(tmp_path: Path) -> None:
    fake = tmp_path / "model.onnx"
    fake.write_text("These are my notes, not a model.\n")
    write_tokenizer(tmp_path / "tokenizer.json")
    with pytest.raises(ParseError, match=r"is not a readable ONNX model") as err:
        load_nli(fake)
    assert err.value.value == str(fake)
    fake.write_bytes(b"")
    with pytest.raises(ParseError, match=r"is not a readable ONNX model"):
        OnnxNLI(fake).scores([CONTRADICTS])
    # Once the file is a model, the same path loads: the failure was not kept.
    write_model(fake)
    fixed = load_nli(fake)
    assert fixed is not None and fixed.scores([CONTRADICTS])[0].label == "contradiction"


def test_a_model_of_the_wrong_shape_says_what_it_found_and_expected(tmp_path: Path) -> None:
    two = model_dir(tmp_path / "two", width=2)
    with pytest.raises(
        InvalidInput, match=r"outputs logits \['batch', 2\]; expected .*\[batch, 3\]"
    ):
        load_nli(two)
    flat = model_dir(tmp_path / "flat", extra_axis=True, declared=["batch", 3, 1])
    with pytest.raises(InvalidInput, match=r"has outputs logits \['batch', 3, 1\]"):
        OnnxNLI(flat).warm()
    # An output as wide as the text passes the load and is caught on the first batch.
    echo = write_echo_model(tmp_path / "two" / "echo.onnx")
    with pytest.raises(InvalidInput, match=r"of shape \[1, 11\]; expected \[batch, 3\] logits"):
        OnnxNLI(echo).scores([NEUTRAL])
    image = model_dir(tmp_path / "image", ids_name="pixel_values")
    with pytest.raises(InvalidInput, match=r"takes inputs pixel_values tensor.*expected input_ids"):
        load_nli(image)


def test_a_missing_or_unreadable_tokenizer_is_named(tmp_path: Path) -> None:
    path = write_model(tmp_path / "model.onnx")
    beside = tmp_path / "tokenizer.json"
    with pytest.raises(InvalidInput, match=r"no tokenizer.json .*looked next to the model") as err:
        load_nli(path)
    assert err.value.value == str(beside)
    with pytest.raises(InvalidInput, match=r"no tokenizer.json .*elsewhere.json.*tokenizer_path"):
        OnnxNLI(path, tokenizer_path=tmp_path / "elsewhere.json")
    beside.write_text("not json at all")
    with pytest.raises(ParseError, match=r"is not a readable HuggingFace tokenizer.json"):
        load_nli(path)
    beside.write_text(json.dumps({"version": "1.0", "model": "nonsense"}))
    with pytest.raises(ParseError, match=r"is not a readable HuggingFace tokenizer.json"):
        load_nli(path)


def test_pairs_must_be_two_strings(tiny: OnnxNLI) -> None:
    with pytest.raises(InvalidInput, match=r"two strings"):
        tiny.scores([("only one",)])  # type: ignore[list-item]
    with pytest.raises(InvalidInput, match=r"two strings"):
        tiny.scores([("a", 3)])  # type: ignore[list-item]
    assert tiny.scores([CONTRADICTS])[0].label == "contradiction"  # still usable


def test_long_texts_are_truncated_not_refused(tiny: OnnxNLI) -> None:
    long = " ".join(["the sky is blue"] * 400)
    (scores,) = tiny.scores([(long, "the sky is not blue")])
    assert isinstance(scores, NLIScores)
    assert scores.contradiction + scores.entailment + scores.neutral == pytest.approx(1.0)


def test_nothing_loads_at_import() -> None:
    code = (
        "import sys, mnemotree.nli; "
        "print(sorted(m for m in ('onnxruntime', 'tokenizers', 'onnx') if m in sys.modules))"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1] / "src")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
