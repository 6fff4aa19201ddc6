"""Write the weight-format variants the probe compares, from the converter's float32 output.

Usage (in a venv with numpy, gguf, onnx and onnxruntime):
  python make-variants.py MODEL.gguf OUT_DIR ALICE.txt
OUT_DIR gets smol-f32 (float32), smol-f16 (float16 storage, Cast folded at load: the engine's
format), smol-int8 (dynamic int8 MatMulInteger, onnxruntime.quantization.quantize_dynamic) and
smol-q4 (4-bit MatMulNBits, block 32), each with the tokenizer files, and alice-800.txt.
"""
import os
import shutil
import subprocess
import sys

import onnx
from onnxruntime.quantization import QuantType, quantize_dynamic
from onnxruntime.quantization.matmul_nbits_quantizer import DefaultWeightOnlyQuantConfig, MatMulNBitsQuantizer

gguf, out, alice = sys.argv[1:4]
conv = os.path.join(os.path.dirname(__file__), "../../../scripts/gguf-to-onnx.py")
for name, weights in (("smol-f32", "float32"), ("smol-f16", "float16")):
    subprocess.run([sys.executable, conv, gguf, os.path.join(out, name), "--weights", weights], check=True)
f32 = os.path.join(out, "smol-f32")
for name in ("smol-int8", "smol-q4"):
    os.makedirs(os.path.join(out, name, "onnx"), exist_ok=True)
    for f in os.listdir(f32):
        if f.endswith(".json"):
            shutil.copy(os.path.join(f32, f), os.path.join(out, name, f))
quantize_dynamic(os.path.join(f32, "onnx/model.onnx"), os.path.join(out, "smol-int8/onnx/model.onnx"), weight_type=QuantType.QUInt8, op_types_to_quantize=["MatMul"])
q = MatMulNBitsQuantizer(onnx.load(os.path.join(f32, "onnx/model.onnx")), algo_config=DefaultWeightOnlyQuantConfig(block_size=32, is_symmetric=False))
q.process()
q.model.save_model_to_file(os.path.join(out, "smol-q4/onnx/model.onnx"), use_external_data_format=False)
words = open(alice, encoding="utf-8").read().split()
open(os.path.join(out, "alice-800.txt"), "w").write(" ".join(words[2000:2800]))
