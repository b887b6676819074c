#!/usr/bin/env python3
"""make.py - the MLIR goldens of issue 23: softmax as real frontends emit it.

Run by make.sh (which builds the virtual environment); writes OUTDIR/*.mlir:

  torch_*.mlir   torch-mlir's FX importer (torch_mlir.fx.export_and_import, output
                 linalg-on-tensors): the torch frontend's own lowering of aten._softmax /
                 aten._log_softmax (max with its index, keepdim, extf / truncf around
                 16-bit inputs)
  tosa_*.mlir    the same models through torch-mlir's TOSA output, lowered to linalg by
                 MLIR's own tosa-to-linalg passes (mlir-opt): the TOSA path
  shlo_*.mlir    JAX's StableHLO (jax.jit(f).lower(...)), converted to linalg by IREE's
                 input pipeline (iree-compile --compile-to=input); IREE's util.func /
                 util.return are renamed func.func / func.return, the rest is as IREE
                 printed it
  decompose_*.mlir  linalg.softmax decomposed by MLIR's own transform
                 (transform.structured.decompose_interface)
  *_memref.mlir  some of the above bufferized by mlir-opt --one-shot-bufferize
                 (function boundaries, identity layouts)
  *_dyn_*.mlir   a dynamic batch (torch.export.Dim on dim 0): tensor<?x1000x...>

Models take their weights as arguments (no dense resources in the goldens). Every
file starts with a comment saying how it was made. The near_* models are softmax's
near misses (a plain normalisation, a max over another dim): no softmax to find.
"""
import os
import subprocess
import sys

import torch
from torch_mlir import fx

out = sys.argv[1]
mlir_opt = os.environ.get("MLIR_OPT", "mlir-opt-22")
iree_compile = os.environ.get("IREE_COMPILE", "iree-compile")
os.makedirs(out, exist_ok=True)
torch.manual_seed(0)


def write(name, how, text):
    with open(os.path.join(out, name + ".mlir"), "w") as f:
        f.write("// " + how.replace("\n", "\n// ") + "\n" + text.rstrip() + "\n")


def run(cmd, text):
    return subprocess.run(cmd, input=text, capture_output=True, text=True, check=True).stdout


class Fn(torch.nn.Module):
    def __init__(self, f):
        super().__init__()
        self.f = f

    def forward(self, *a):
        return self.f(*a)


def attention(q, k, v):
    return torch.softmax((q @ k.transpose(-2, -1)) * 0.125, dim=-1) @ v


def classifier(x, w, b):
    return torch.softmax(x @ w.t() + b, dim=-1)


def near_normalize(x):  # x / sum(x): no exp, no max
    return x / x.sum(-1, keepdim=True)


def near_other_dim(x):  # the max over rows, the sum over columns
    e = torch.exp(x - x.max(0, keepdim=True).values)
    return e / e.sum(-1, keepdim=True)


f32, f16, bf16 = torch.float32, torch.float16, torch.bfloat16
models = [
    ("softmax_f32", lambda x: torch.softmax(x, -1), [torch.randn(4, 1000)]),
    ("softmax_f16", lambda x: torch.softmax(x, -1), [torch.randn(4, 1000, dtype=f16)]),
    ("softmax_bf16", lambda x: torch.softmax(x, -1), [torch.randn(4, 1000, dtype=bf16)]),
    ("log_softmax_f32", lambda x: torch.log_softmax(x, -1), [torch.randn(4, 1000)]),
    ("log_softmax_f16", lambda x: torch.log_softmax(x, -1), [torch.randn(4, 1000, dtype=f16)]),
    ("softmax_dim1_f32", lambda x: torch.softmax(x, 1), [torch.randn(2, 16, 32)]),
    ("attention_f16", attention, [torch.randn(2, 4, 64, 32, dtype=f16) for _ in range(3)]),
    ("classifier_f32", classifier, [torch.randn(8, 256), torch.randn(32000, 256), torch.randn(32000)]),
    ("near_normalize_f32", near_normalize, [torch.randn(4, 1000)]),
    ("near_other_dim_f32", near_other_dim, [torch.randn(4, 1000)]),
    # a dynamic batch (torch.export Dim): M known at run time only
    ("softmax_dyn_f16", lambda x: torch.softmax(x, -1), [torch.randn(4, 1000, dtype=f16)], "batch"),
    ("log_softmax_dyn_f32", lambda x: torch.log_softmax(x, -1), [torch.randn(4, 1000)], "batch"),
]
tosa_lower = ("builtin.module(func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith,"
              "tosa-to-tensor),canonicalize)")
for name, f, args, *dyn in models:
    # dim 0 of the first argument dynamic where the model names it
    ds = {"a": ({0: torch.export.Dim(dyn[0])},)} if dyn else None
    m = fx.export_and_import(Fn(f).eval(), *args, output_type="linalg-on-tensors", func_name=name,
                             dynamic_shapes=ds)
    write("torch_" + name, f"torch-mlir {fx.__name__}.export_and_import(..., "
          f"output_type='linalg-on-tensors'), torch {torch.__version__}", str(m))
    if name in ("softmax_f32", "softmax_f16", "log_softmax_f32", "attention_f16"):
        t = fx.export_and_import(Fn(f).eval(), *args, output_type="tosa", func_name=name)
        write("tosa_" + name, f"torch-mlir export_and_import(..., output_type='tosa'), then\n"
              f"{mlir_opt} --pass-pipeline='{tosa_lower}'", run([mlir_opt, "--pass-pipeline=" + tosa_lower], str(t)))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

jmodels = [
    ("softmax_f32", lambda x: jax.nn.softmax(x, axis=-1), [jnp.zeros((4, 1000), jnp.float32)]),
    ("log_softmax_f32", lambda x: jax.nn.log_softmax(x, axis=-1), [jnp.zeros((4, 1000), jnp.float32)]),
    ("softmax_bf16", lambda x: jax.nn.softmax(x, axis=-1), [jnp.zeros((4, 1000), jnp.bfloat16)]),
    ("softmax_axis0_f32", lambda x: jax.nn.softmax(x, axis=0), [jnp.zeros((32, 48), jnp.float32)]),
    ("attention_f32", lambda q, k, v: jax.nn.softmax(q @ k.swapaxes(-1, -2) * 0.125, axis=-1) @ v,
     [jnp.zeros((2, 4, 64, 32), jnp.float32)] * 3),
]
for name, f, args in jmodels:
    shlo = jax.jit(f).lower(*args).as_text()
    lin = run([iree_compile, "--compile-to=input", "-"], shlo)
    lin = lin.replace("util.func public", "func.func").replace("util.func", "func.func")
    lin = lin.replace("util.return", "func.return")
    write("shlo_" + name, f"jax {jax.__version__}: jax.jit(f).lower(...).as_text() (StableHLO), then\n"
          f"{iree_compile} --compile-to=input (IREE's StableHLO input conversion to linalg);\n"
          "util.func / util.return renamed func.func / func.return", lin)

dec = """func.func @softmax_f32(%x: tensor<4x1000xf32>) -> tensor<4x1000xf32> {
  %e = tensor.empty() : tensor<4x1000xf32>
  %y = linalg.softmax dimension(1) ins(%x : tensor<4x1000xf32>) outs(%e : tensor<4x1000xf32>) -> tensor<4x1000xf32>
  return %y : tensor<4x1000xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %0 = transform.structured.match ops{["linalg.softmax"]} in %root : (!transform.any_op) -> !transform.any_op
    %1 = transform.structured.decompose_interface %0 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
"""
d = run([mlir_opt, "--transform-interpreter"], dec)
d = d[:d.index("  module attributes {transform.with_named_sequence}")] + "}\n"  # the script itself
write("decompose_softmax_f32", f"linalg.softmax through {mlir_opt} --transform-interpreter "
      "(transform.structured.decompose_interface)", d)

bufferize = ("--one-shot-bufferize=bufferize-function-boundaries "
             "function-boundary-type-conversion=identity-layout-map")
for src in ("torch_softmax_f32", "torch_softmax_f16", "tosa_softmax_f32", "shlo_softmax_f32",
            "torch_log_softmax_f32"):
    text = open(os.path.join(out, src + ".mlir")).read()
    write(src + "_memref", f"{src}.mlir through {mlir_opt} {bufferize}",
          run([mlir_opt, bufferize], text))
print("make.py: wrote", len(os.listdir(out)), "files to", out)
