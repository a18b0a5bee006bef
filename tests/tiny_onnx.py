"""A tiny ONNX graph run the way a shipped model is (the verifier's, the question encoder's): the three
word-piece inputs, a few nodes, one output, saved beside the shipped MiniLM's tokenizer."""

from __future__ import annotations

from pathlib import Path


def save(folder: Path, model_file: str, tokenizer_file: str, nodes, initializers, output: str, shape: list) -> None:
    import onnx
    from onnx import TensorProto, helper

    from eval.verifier_train import base_model_dir

    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, ["b", "t"])
              for n in ("input_ids", "attention_mask", "token_type_ids")]
    graph = helper.make_graph(nodes, "tiny", inputs, [helper.make_tensor_value_info(output, TensorProto.FLOAT, shape)],
                              initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    folder.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(folder / model_file))
    (folder / tokenizer_file).write_bytes((base_model_dir() / "tokenizer.json").read_bytes())
