"""The int8 query graph: MiniLM rewritten to keep its int8 weights int8.

Real models only: small ONNX graphs generated here and the shipped MiniLM,
both run by ONNX Runtime.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper

from mnemotree import Memory
from mnemotree.embed import QueryEmbedder, get_embedder
from mnemotree.embed.int8_graph import int8_query_graph
from mnemotree.embed.minilm import MiniLMEmbedder, _model_path, _optimized
from mnemotree.retrieval.search import embed_text


def _weight_only_model(path: Path, rows: int, columns: int, seed: int = 3) -> np.ndarray:
    """x [2, rows] @ (int8 [rows, columns] * scale [1, columns]), saved at `path`;
    returns the dequantised weights."""
    rng = np.random.default_rng(seed)
    quantised = rng.integers(-127, 128, size=(rows, columns), dtype=np.int8)
    scales = rng.uniform(0.001, 0.02, size=(1, columns)).astype(np.float32)
    graph = helper.make_graph(
        [
            helper.make_node("Cast", ["w_q"], ["w_f"], to=TensorProto.FLOAT),
            helper.make_node("Mul", ["w_f", "w_scale"], ["w"]),
            helper.make_node("MatMul", ["x", "w"], ["y"], name="proj"),
        ],
        "weight_only",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, rows])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, columns])],
        [numpy_helper.from_array(quantised, "w_q"), numpy_helper.from_array(scales, "w_scale")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))
    return quantised.astype(np.float32) * scales


def _run(model: bytes | str, x: np.ndarray) -> np.ndarray:
    session = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    return np.asarray(session.run(None, {"x": x})[0])


def test_a_weight_only_matmul_becomes_matmulnbits_and_computes_the_same() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "w.onnx"
        weights = _weight_only_model(path, rows=64, columns=16)
        rewritten = int8_query_graph(path)
        assert rewritten is not None
        proto = onnx.load_from_string(rewritten)
        assert [n.op_type for n in proto.graph.node] == ["MatMulNBits"]
        assert {t.name for t in proto.graph.initializer} == {"proj.q8", "proj.s8", "proj.z8"}
        x = np.random.default_rng(5).normal(size=(2, 64)).astype(np.float32)
        original, fast = _run(str(path), x), _run(rewritten, x)
    assert np.allclose(original, x @ weights, atol=1e-4)
    # Activations are quantised to int8 per block: close, not equal.
    cosine = np.sum(original * fast, axis=1) / (
        np.linalg.norm(original, axis=1) * np.linalg.norm(fast, axis=1)
    )
    assert cosine.min() > 0.999


def test_a_model_without_int8_weights_is_left_alone() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "f.onnx"
        weights = np.ones((64, 4), dtype=np.float32)
        graph = helper.make_graph(
            [helper.make_node("MatMul", ["x", "w"], ["y"])],
            "float_only",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 64])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4])],
            [numpy_helper.from_array(weights, "w")],
        )
        onnx.save(helper.make_model(graph), str(path))
        assert int8_query_graph(path) is None
        # Rows not a multiple of the block: not rewritten either.
        odd = Path(tmp) / "odd.onnx"
        _weight_only_model(odd, rows=40, columns=8)
        assert int8_query_graph(odd) is None


def test_rows_gathered_from_an_int8_table_are_scaled_after_and_computes_the_same() -> None:
    """An embedding table (int8 rows, one scale a row) is read row by row, so
    the runtime never folds the whole table into floats."""
    rng = np.random.default_rng(5)
    table = rng.integers(-127, 128, size=(50, 16), dtype=np.int8)
    scales = rng.uniform(0.001, 0.02, size=(50, 1)).astype(np.float32)
    graph = helper.make_graph(
        [
            helper.make_node("Cast", ["t_q"], ["t_f"], to=TensorProto.FLOAT),
            helper.make_node("Mul", ["t_f", "t_scale"], ["t"]),
            helper.make_node("Gather", ["t", "ids"], ["rows"], name="embed"),
        ],
        "table",
        [helper.make_tensor_value_info("ids", TensorProto.INT64, [1, 3])],
        [helper.make_tensor_value_info("rows", TensorProto.FLOAT, [1, 3, 16])],
        [numpy_helper.from_array(table, "t_q"), numpy_helper.from_array(scales, "t_scale")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "table.onnx"
        onnx.save(model, str(path))
        rewritten = int8_query_graph(path)
        assert rewritten is not None
        ids = np.array([[3, 0, 49]], dtype=np.int64)
        before = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        after = ort.InferenceSession(rewritten, providers=["CPUExecutionProvider"])
        expected = before.run(None, {"ids": ids})[0]
        assert np.array_equal(after.run(None, {"ids": ids})[0], expected)
    nodes = onnx.load_from_string(rewritten).graph.node
    assert not [n for n in nodes if n.op_type == "Cast" and n.input[0] == "t_q"]


def test_minilm_graph_keeps_every_weight_matrix_int8() -> None:
    rewritten = int8_query_graph(_model_path())
    assert rewritten is not None
    loaded = onnx.load_from_string(rewritten).graph
    stored = {t.name for t in loaded.initializer}
    # The word embeddings stay an int8 table: rows are scaled once gathered.
    assert not [
        n
        for n in loaded.node
        if n.op_type == "Cast" and n.input[0] in stored and "word_embeddings" in n.input[0]
    ]
    ops = [n.op_type for n in loaded.node]
    # Six layers: query, key, value, output and two feed-forward matrices each.
    assert ops.count("MatMulNBits") == 36
    # Left as they were: the attention products (two per layer).
    assert ops.count("MatMul") == 12


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    embedder = get_embedder("minilm")
    assert isinstance(embedder, MiniLMEmbedder)
    return embedder


WORDS = st.sampled_from(
    "when did she move to the city I love hiking mountains dog weekend error connection "
    "refused migration staging Caroline Melanie painted sunrise adoption agency 2023 May "
    "support group book favourite camping kids pottery class".split()
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(WORDS, min_size=1, max_size=40))
def test_query_vectors_agree_with_document_vectors(
    minilm: MiniLMEmbedder, words: list[str]
) -> None:
    text = " ".join(words)
    query = minilm.embed_query(text)
    document = minilm.embed_batch([text])[0]
    assert query.shape == (384,) and query.dtype == np.float32
    assert abs(float(np.linalg.norm(query)) - 1.0) < 1e-5
    # Measured: >= 0.9997 from two words on, >= 0.9986 for single words.
    assert float(query @ document) > (0.999 if len(words) > 1 else 0.998)
    assert minilm.query_path in {"int8 graph", "full model"}


def test_a_query_vector_is_never_stored_as_a_nodes_own(minilm: MiniLMEmbedder) -> None:
    assert isinstance(minilm, QueryEmbedder)
    with tempfile.TemporaryDirectory() as tmp, Memory(Path(tmp) / "m.db", embedder="minilm") as m:
        assert not m.retriever.exact_queries
        m.remember("the database schema uses sqlite tables")
        m.flush()
        # The snapshot search embeds the entry's own text as its query.
        entry = m.paths().save("Project/Schema", "database schema", context_tokens=50)
        pending = {n.id for n in m.store.pending_vectors(100)}
        assert entry.node_id in pending  # left for the batch path, not kept
        m.flush()
        node = m.get(entry.node_id)
        stored = m.retriever.vectors([node.id])[node.id]
        assert np.array_equal(stored, minilm.embed_batch([embed_text(node)])[0])


def test_a_runtime_that_cannot_run_the_rewritten_graph_leaves_the_full_model() -> None:
    """onnxruntime before 1.22 refuses 8-bit MatMulNBits; a graph the runtime
    refuses is no fast path, never a failed search."""
    node = helper.make_node(
        "MatMulNBits",
        ["x", "w", "s"],
        ["y"],
        domain="com.microsoft",
        bits=3,
        block_size=16,
        K=16,
        N=1,
    )
    graph = helper.make_graph(
        [node],
        "refused",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1])],
        initializer=[
            helper.make_tensor("w", TensorProto.UINT8, [1, 1, 6], bytes(6), raw=True),
            helper.make_tensor("s", TensorProto.FLOAT, [1], [1.0]),
        ],
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
    )
    model.ir_version = 10
    assert _optimized(model.SerializeToString()) is None
