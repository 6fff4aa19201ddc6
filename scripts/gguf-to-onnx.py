"""Write a Llama-architecture GGUF file (SmolLM2) as an ONNX decoder that transformers.js runs.

Why: wllama reads a prompt one weight row against one token at a time (llama.cpp's wasm build has
no tiled matrix multiply), while ONNX Runtime Web multiplies whole matrices. The same weights in an
ONNX graph let the browser read a prompt several times faster (BENCHMARKS.md, "The ONNX engine").

The graph is written by hand with the `onnx` package rather than exported from PyTorch, so the
conversion needs only numpy, gguf and onnx (a few MB from the Python package index), not a
framework. Its inputs and outputs follow the names transformers.js feeds a decoder with a KV cache
(`input_ids`, `attention_mask`, `position_ids`, `past_key_values.N.key|value`; `logits`,
`present.N.key|value`), so transformers.js does the generation loop, the chat template and
streaming. Two choices that are ours:
  - logits are computed for the last position only: generation reads only that row, and the
    language-model head over every prompt token would be a fifth of a prompt's arithmetic;
  - the tied embedding serves both the input lookup (Gather) and the head (Gemm with transB), so
    its 113 MB are stored once.
The weights are dequantised from the GGUF blocks to float32 (the GGUF's Q4_1/Q8_0 values exactly;
nothing is re-quantised). `--weights float16` (the default) stores the matrices, the embedding table
included, as float16 behind a Cast, which ONNX Runtime folds into float32 constants when the
session starts: the same arithmetic at run time, measured the same speed and the same greedy
answers (`npm run bench -- onnx-storage`), at half the download (269 MB against 538 MB).
`--weights int8` (per-column int8 behind DequantizeLinear) is for experiments: ONNX Runtime does
not fold DequantizeLinear, so it dequantises on every call.
`--weights w8a8` (`npm run models` writes it as onnx/model_w8a8.onnx, the engine's first choice)
multiplies in 8-bit integers: the weights per output column, the activations per token (a
QuantizeLinear along the rows with a scale max|x|/127 each), ONNX Runtime's MatMulIntegerToFloat
applying the column scales and one Mul the token scales. ONNX Runtime Web reads a prompt about
1.4x faster so; its next-token loss on Alice is within about 1% of the float file's, where the
per-tensor 8-bit of onnxruntime's quantize_dynamic lost 3% and changed answers (BENCHMARKS.md,
"The ONNX engine: 8-bit"). `--float-linears down,o` keeps the named linears float16 (measured
with `down` kept: the same top token more often, a higher next-token loss, slower; none are
kept).

Usage: python gguf-to-onnx.py MODEL.gguf OUT_DIR [--weights float32|float16|int8|w8a8]
       [--onnx-name model] [--float-linears q,k,v,o,gate,up,down]
OUT_DIR receives onnx/{onnx-name}.onnx, config.json, generation_config.json, tokenizer.json and
tokenizer_config.json (the tokenizer is rebuilt from the GGUF's own vocabulary, merges and chat
template).
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import numpy as np
import onnx
from gguf import GGUFReader
from gguf.quants import dequantize
from onnx import TensorProto, helper, numpy_helper

OPSET = 17


def field(reader: GGUFReader, key: str, default=None):
    f = reader.fields.get(key)
    if f is None:
        return default
    return f.contents()


def tensor(reader: GGUFReader, name: str) -> np.ndarray:
    for t in reader.tensors:
        if t.name == name:
            return dequantize(t.data, t.tensor_type).astype(np.float32).reshape(
                [int(d) for d in reversed(t.shape)]
            )
    raise KeyError(f"the GGUF has no tensor {name}")


def unpermute(w: np.ndarray, heads: int) -> np.ndarray:
    """llama.cpp's converter interleaves each head's rotary halves in q and k; undo it so the
    graph can use the rotate-half form of RoPE (the layout of the original checkpoint)."""
    out, inp = w.shape
    return w.reshape(heads, out // heads // 2, 2, inp).swapaxes(1, 2).reshape(out, inp)


class Graph:
    def __init__(self) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self.count = 0

    def name(self, hint: str) -> str:
        self.count += 1
        return f"{hint}_{self.count}"

    def const(self, value, hint: str = "c", dtype=None) -> str:
        arr = np.asarray(value, dtype=dtype)
        n = self.name(hint)
        self.inits.append(numpy_helper.from_array(arr, n))
        return n

    def op(self, op_type: str, inputs: list[str], hint: str | None = None, outputs=None, **attrs):
        outs = outputs or [self.name(hint or op_type.lower())]
        self.nodes.append(helper.make_node(op_type, inputs, outs, **attrs))
        return outs[0] if len(outs) == 1 else outs


def rms_norm(g: Graph, x: str, weight: np.ndarray, eps: float, hint: str) -> str:
    sq = g.op("Mul", [x, x])
    mean = g.op("ReduceMean", [sq], axes=[-1], keepdims=1)
    denom = g.op("Sqrt", [g.op("Add", [mean, g.const(np.float32(eps))])])
    normed = g.op("Div", [x, denom])
    return g.op("Mul", [normed, g.const(weight.astype(np.float32), hint + "_w")], hint=hint)


def quantize_rows(g: Graph, x: str, width: int) -> tuple[str, str, str]:
    """x as uint8 with one symmetric scale per token (row): round(x / s) + 128, s = max|x| / 127,
    in one QuantizeLinear along the rows. Returns the uint8 rows [tokens, in], the scales
    [tokens, 1] and x's shape less its last axis. Per token rather than per tensor: one token
    with a large activation would otherwise flatten every other token's values (per tensor
    changed the answers, BENCHMARKS.md)."""
    rows = g.op("Reshape", [x, g.const(np.array([-1, width], np.int64))])
    amax = g.op("ReduceMax", [g.op("Abs", [rows])], axes=[-1], keepdims=1)
    s = g.op("Max", [g.op("Mul", [amax, g.const(np.float32(1.0 / 127.0))]), g.const(np.float32(1e-12))], hint="row_scale")
    flat = g.op("Reshape", [s, g.const(np.array([-1], np.int64))])
    zero = g.op("Expand", [g.const(np.array([128], np.uint8)), g.op("Shape", [flat])])
    lead = g.op("Shape", [x], end=-1)
    return g.op("QuantizeLinear", [rows, flat, zero], axis=0, hint="row_q"), s, lead


def per_column_int8(wt: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """wt [in, out] rounded to int8 with one symmetric scale per output column: (q, scales)."""
    scale = np.maximum(np.abs(wt).max(axis=0), 1e-12) / 127.0
    return np.clip(np.round(wt / scale), -127, 127).astype(np.int8), scale


def linear(g: Graph, x: str, w: np.ndarray, hint: str, weights: str, xq: tuple[str, str, str] | None = None) -> str:
    """x @ w.T, with w in the checkpoint's [out, in] layout. For `w8a8`, `xq` is x quantised by
    quantize_rows (shared by the linears that read the same x)."""
    wt = np.ascontiguousarray(w.T)
    if weights == "w8a8":
        q, scale = per_column_int8(wt)
        xu, s, lead = xq if xq is not None else quantize_rows(g, x, wt.shape[0])
        # ONNX Runtime's contrib op: the integer product, converted and scaled per column inside
        # the kernel; the per-token scale follows as one Mul.
        y = g.op(
            "MatMulIntegerToFloat",
            [xu, g.const(q, hint + "_q"), g.const(np.float32(1.0), hint + "_one"), g.const(scale.astype(np.float32), hint + "_s"), g.const(np.uint8(128), hint + "_zp")],
            domain="com.microsoft",
        )
        y = g.op("Mul", [y, s])
        shape = g.op("Concat", [lead, g.const(np.array([wt.shape[1]], np.int64))], axis=0)
        return g.op("Reshape", [y, shape], hint=hint)
    if weights == "int8":
        q, scale = per_column_int8(wt)
        deq = g.op(
            "DequantizeLinear",
            [g.const(q, hint + "_q"), g.const(scale.astype(np.float32), hint + "_s")],
            axis=1,
        )
        return g.op("MatMul", [x, deq], hint=hint)
    if weights == "float16":
        w16 = g.op("Cast", [g.const(wt.astype(np.float16), hint + "_w16")], to=TensorProto.FLOAT)
        return g.op("MatMul", [x, w16], hint=hint)
    return g.op("MatMul", [x, g.const(wt, hint + "_w")], hint=hint)


def rotate_half(g: Graph, x: str, half: int) -> str:
    x1, x2 = g.op("Split", [x, g.const(np.array([half, half], np.int64))], outputs=[g.name("x1"), g.name("x2")], axis=-1)
    return g.op("Concat", [g.op("Neg", [x2]), x1], axis=-1)


def build(reader: GGUFReader, weights: str, float_linears: frozenset[str] = frozenset()) -> tuple[onnx.ModelProto, dict]:
    arch = field(reader, "general.architecture")
    if arch != "llama":
        raise SystemExit(f"only the llama architecture is supported, this file is {arch!r}")
    layers = int(field(reader, "llama.block_count"))
    hidden = int(field(reader, "llama.embedding_length"))
    heads = int(field(reader, "llama.attention.head_count"))
    kv_heads = int(field(reader, "llama.attention.head_count_kv"))
    ffn = int(field(reader, "llama.feed_forward_length"))
    eps = float(field(reader, "llama.attention.layer_norm_rms_epsilon"))
    theta = float(field(reader, "llama.rope.freq_base", 10000.0))
    context = int(field(reader, "llama.context_length"))
    head_dim = hidden // heads
    group = heads // kv_heads
    embed = tensor(reader, "token_embd.weight")  # [vocab, hidden]
    vocab = embed.shape[0]
    if any(t.name == "output.weight" for t in reader.tensors):
        raise SystemExit("an untied output head is not supported yet")

    g = Graph()
    inputs = [
        helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
        helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "total"]),
        helper.make_tensor_value_info("position_ids", TensorProto.INT64, ["batch", "seq"]),
    ]
    outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 1, vocab])]
    for i in range(layers):
        for kind in ("key", "value"):
            inputs.append(
                helper.make_tensor_value_info(
                    f"past_key_values.{i}.{kind}", TensorProto.FLOAT, ["batch", kv_heads, "past", head_dim]
                )
            )
            outputs.append(
                helper.make_tensor_value_info(
                    f"present.{i}.{kind}", TensorProto.FLOAT, ["batch", kv_heads, "total", head_dim]
                )
            )

    if weights in ("float16", "w8a8"):
        # Like the other matrices: float16 in the file, one Cast that ONNX Runtime folds into a
        # float32 constant at session start, shared by the lookup and the head.
        embed_name = g.op("Cast", [g.const(embed.astype(np.float16), "embed16")], hint="embed", to=TensorProto.FLOAT)
    else:
        embed_name = g.const(embed, "embed")
    x = g.op("Gather", [embed_name, "input_ids"], hint="embedded", axis=0)

    # Rotary tables from the positions: [batch, 1, seq, head_dim].
    inv_freq = 1.0 / (theta ** (np.arange(0, head_dim, 2, dtype=np.float64) / head_dim))
    pos = g.op("Cast", ["position_ids"], to=TensorProto.FLOAT)
    freqs = g.op("Mul", [g.op("Unsqueeze", [pos, g.const(np.array([-1], np.int64))]), g.const(inv_freq.astype(np.float32))])
    emb = g.op("Concat", [freqs, freqs], axis=-1)
    emb = g.op("Unsqueeze", [emb, g.const(np.array([1], np.int64))])
    cos = g.op("Cos", [emb], hint="cos")
    sin = g.op("Sin", [emb], hint="sin")

    # Additive mask [batch, 1, seq, total]: a query at absolute position past+i sees keys 0..past+i
    # that the attention mask keeps.
    ids_shape = g.op("Shape", ["input_ids"])
    seq = g.op("Gather", [ids_shape, g.const(np.array(1, np.int64))], axis=0)
    mask_shape = g.op("Shape", ["attention_mask"])
    total = g.op("Gather", [mask_shape, g.const(np.array(1, np.int64))], axis=0)
    past = g.op("Sub", [total, seq])
    zero = g.const(np.array(0, np.int64))
    one = g.const(np.array(1, np.int64))
    q_pos = g.op("Add", [g.op("Range", [zero, seq, one]), past])
    k_pos = g.op("Range", [zero, total, one])
    causal = g.op(
        "LessOrEqual",
        [g.op("Unsqueeze", [k_pos, g.const(np.array([0], np.int64))]), g.op("Unsqueeze", [q_pos, g.const(np.array([1], np.int64))])],
    )  # [seq, total]
    keep = g.op("Cast", [g.op("Unsqueeze", ["attention_mask", g.const(np.array([1, 2], np.int64))])], to=TensorProto.BOOL)
    allowed = g.op("And", [causal, keep])  # [batch, 1, seq, total]
    mask = g.op("Where", [allowed, g.const(np.float32(0.0)), g.const(np.float32(-3.0e38))], hint="mask")

    scale = g.const(np.float32(1.0 / np.sqrt(head_dim)))
    q_shape = g.const(np.array([0, 0, heads, head_dim], np.int64))
    kv_shape = g.const(np.array([0, 0, kv_heads, head_dim], np.int64))
    merge_shape = g.const(np.array([0, 0, hidden], np.int64))

    # Each linear's storage: `weights`, or float16 where --float-linears names it.
    wk = {kind: (weights if kind not in float_linears else "float16") for kind in ("q", "k", "v", "o", "gate", "up", "down")}
    for i in range(layers):
        p = f"blk.{i}."
        h = rms_norm(g, x, tensor(reader, p + "attn_norm.weight"), eps, f"l{i}_attn_norm")
        hq = quantize_rows(g, h, hidden) if "w8a8" in (wk["q"], wk["k"], wk["v"]) else None
        q = linear(g, h, unpermute(tensor(reader, p + "attn_q.weight"), heads), f"l{i}_q", wk["q"], hq)
        k = linear(g, h, unpermute(tensor(reader, p + "attn_k.weight"), kv_heads), f"l{i}_k", wk["k"], hq)
        v = linear(g, h, tensor(reader, p + "attn_v.weight"), f"l{i}_v", wk["v"], hq)
        q = g.op("Transpose", [g.op("Reshape", [q, q_shape])], perm=[0, 2, 1, 3])
        k = g.op("Transpose", [g.op("Reshape", [k, kv_shape])], perm=[0, 2, 1, 3])
        v = g.op("Transpose", [g.op("Reshape", [v, kv_shape])], perm=[0, 2, 1, 3])
        half = head_dim // 2
        q = g.op("Add", [g.op("Mul", [q, cos]), g.op("Mul", [rotate_half(g, q, half), sin])])
        k = g.op("Add", [g.op("Mul", [k, cos]), g.op("Mul", [rotate_half(g, k, half), sin])])
        k_all = g.op("Concat", [f"past_key_values.{i}.key", k], outputs=[f"present.{i}.key"], axis=2)
        v_all = g.op("Concat", [f"past_key_values.{i}.value", v], outputs=[f"present.{i}.value"], axis=2)
        # Grouped-query attention: view the queries as [batch, kv_heads, group*seq, head_dim] so
        # each key/value head serves its group without copying the cache.
        qg = g.op("Reshape", [q, g.const(np.array([0, kv_heads, -1, head_dim], np.int64))])
        scores = g.op("Mul", [g.op("MatMul", [qg, g.op("Transpose", [k_all], perm=[0, 1, 3, 2])]), scale])
        scores = g.op("Reshape", [scores, g.op("Concat", [g.const(np.array([0, heads], np.int64)), g.op("Unsqueeze", [seq, g.const(np.array([0], np.int64))]), g.const(np.array([-1], np.int64))], axis=0)])
        probs = g.op("Softmax", [g.op("Add", [scores, mask])], axis=-1)
        probs = g.op("Reshape", [probs, g.const(np.array([0, kv_heads, -1, 0], np.int64))])
        ctx = g.op("MatMul", [probs, v_all])  # [batch, kv_heads, group*seq, head_dim]
        ctx = g.op("Reshape", [ctx, g.const(np.array([0, heads, -1, head_dim], np.int64))])
        ctx = g.op("Reshape", [g.op("Transpose", [ctx], perm=[0, 2, 1, 3]), merge_shape])
        x = g.op("Add", [x, linear(g, ctx, tensor(reader, p + "attn_output.weight"), f"l{i}_o", wk["o"])])
        h = rms_norm(g, x, tensor(reader, p + "ffn_norm.weight"), eps, f"l{i}_ffn_norm")
        hq = quantize_rows(g, h, hidden) if "w8a8" in (wk["gate"], wk["up"]) else None
        gate = linear(g, h, tensor(reader, p + "ffn_gate.weight"), f"l{i}_gate", wk["gate"], hq)
        up = linear(g, h, tensor(reader, p + "ffn_up.weight"), f"l{i}_up", wk["up"], hq)
        act = g.op("Mul", [g.op("Mul", [gate, g.op("Sigmoid", [gate])]), up])
        x = g.op("Add", [x, linear(g, act, tensor(reader, p + "ffn_down.weight"), f"l{i}_down", wk["down"])])

    last = g.op("Slice", [x, g.const(np.array([-1], np.int64)), g.const(np.array([2**62], np.int64)), g.const(np.array([1], np.int64))])
    last = rms_norm(g, last, tensor(reader, "output_norm.weight"), eps, "final_norm")
    flat = g.op("Reshape", [last, g.const(np.array([-1, hidden], np.int64))])
    logits = g.op("Gemm", [flat, embed_name], transB=1)
    g.op("Reshape", [logits, g.const(np.array([-1, 1, vocab], np.int64))], outputs=["logits"])

    graph = helper.make_graph(g.nodes, "decoder", inputs, outputs, g.inits)
    opsets = [helper.make_opsetid("", OPSET)]
    if any(n.domain == "com.microsoft" for n in g.nodes):
        opsets.append(helper.make_opsetid("com.microsoft", 1))
    model = helper.make_model(graph, opset_imports=opsets, producer_name="fragrel-lens gguf-to-onnx")
    model.ir_version = 8
    config = {
        "model_type": "llama",
        "architectures": ["LlamaForCausalLM"],
        "hidden_size": hidden,
        "intermediate_size": ffn,
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "num_key_value_heads": kv_heads,
        "head_dim": head_dim,
        "max_position_embeddings": context,
        "rms_norm_eps": eps,
        "rope_theta": theta,
        "vocab_size": vocab,
        "tie_word_embeddings": True,
        "bos_token_id": int(field(reader, "tokenizer.ggml.bos_token_id", 1)),
        "eos_token_id": int(field(reader, "tokenizer.ggml.eos_token_id", 2)),
        "pad_token_id": int(field(reader, "tokenizer.ggml.padding_token_id", 2)),
        "torch_dtype": "float32",
    }
    return model, config


def tokenizer_files(reader: GGUFReader) -> tuple[dict, dict]:
    """tokenizer.json and tokenizer_config.json for a GPT-2-style byte-level BPE GGUF vocabulary."""
    model = field(reader, "tokenizer.ggml.model")
    pre = field(reader, "tokenizer.ggml.pre")
    if model != "gpt2":
        raise SystemExit(f"only byte-level BPE vocabularies are supported, this one is {model!r}")
    tokens = field(reader, "tokenizer.ggml.tokens")
    types = field(reader, "tokenizer.ggml.token_type")
    merges = field(reader, "tokenizer.ggml.merges")
    # llama.cpp's "smollm" pre-tokenizer splits digits one by one before the GPT-2 expression.
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    if pre in ("smollm", "starcoder", "refact"):
        pre_tokenizer = {
            "type": "Sequence",
            "pretokenizers": [{"type": "Digits", "individual_digits": True}, byte_level],
        }
    elif pre in ("default", "gpt2", None):
        pre_tokenizer = byte_level
    else:
        raise SystemExit(f"the pre-tokenizer {pre!r} is not supported")
    added = [
        {"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False, "special": True}
        for i, (t, kind) in enumerate(zip(tokens, types))
        if int(kind) == 3
    ]
    tok = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": None,
        "pre_tokenizer": pre_tokenizer,
        "post_processor": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False, "use_regex": True},
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": None,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": False,
            "byte_fallback": False,
            "ignore_merges": False,
            "vocab": {t: i for i, t in enumerate(tokens)},
            "merges": list(merges),
        },
    }

    def token(key: str):
        i = field(reader, key)
        return tokens[int(i)] if i is not None else None

    config = {
        "tokenizer_class": "GPT2Tokenizer",
        "add_bos_token": bool(field(reader, "tokenizer.ggml.add_bos_token", False)),
        "bos_token": token("tokenizer.ggml.bos_token_id"),
        "eos_token": token("tokenizer.ggml.eos_token_id"),
        "pad_token": token("tokenizer.ggml.padding_token_id"),
        "unk_token": token("tokenizer.ggml.unknown_token_id"),
        "clean_up_tokenization_spaces": False,
        "model_max_length": int(field(reader, "llama.context_length", 2048)),
        "chat_template": field(reader, "tokenizer.chat_template"),
    }
    return tok, config


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("gguf")
    parser.add_argument("out_dir")
    parser.add_argument("--weights", choices=["float32", "float16", "int8", "w8a8"], default="float16")
    parser.add_argument("--float-linears", default="", help="with w8a8: linears kept float16, e.g. down,o")
    parser.add_argument("--onnx-name", default="model", help="the graph's file name in onnx/, without .onnx")
    args = parser.parse_args()
    reader = GGUFReader(args.gguf)
    model, config = build(reader, args.weights, frozenset(filter(None, args.float_linears.split(","))))
    tok, tok_config = tokenizer_files(reader)
    os.makedirs(os.path.join(args.out_dir, "onnx"), exist_ok=True)
    onnx.checker.check_model(model)
    onnx.save_model(model, os.path.join(args.out_dir, "onnx", args.onnx_name + ".onnx"))
    with open(os.path.join(args.out_dir, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    with open(os.path.join(args.out_dir, "generation_config.json"), "w") as f:
        json.dump({"bos_token_id": config["bos_token_id"], "eos_token_id": config["eos_token_id"], "pad_token_id": config["pad_token_id"]}, f, indent=2)
    with open(os.path.join(args.out_dir, "tokenizer.json"), "w") as f:
        json.dump(tok, f, ensure_ascii=False)
    with open(os.path.join(args.out_dir, "tokenizer_config.json"), "w") as f:
        json.dump(tok_config, f, indent=2, ensure_ascii=False)
    print(f"wrote {args.out_dir}: {len(model.graph.node)} nodes, {config['num_hidden_layers']} layers", file=sys.stderr)


if __name__ == "__main__":
    main()
