"""mlir_e2e.py CASES OUTDIR - checks the results of test/gpu/mlir_e2e.sh: for each
case of CASES (test/gpu/mlir-cases.txt), reads OUTDIR/NAME/in*.bin and out.bin
(written by test/MLIR/Inputs/run_lowered.c), recomputes the model in float64
with PyTorch on the GPU, and prints a Markdown table: the largest absolute
error of the module's result and, as a yardstick, of PyTorch's own result in
the case's dtype. A case passes when its result is finite and within the
dtype's tolerance of float64 (softmax alone: f32 1e-5, f16 1e-3, bf16 8e-3;
whole models, whose matmuls the lowered module runs on the CPU in the
model's dtype: f32 1e-4, 16-bit 5e-2). Exit status 0 iff all pass."""
import os
import sys

import numpy as np
import torch

DEV = "cuda" if torch.cuda.is_available() else "cpu"
DT = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}


def load(path, spec):
    dt, shape = spec.split(":")
    shape = [int(s) for s in shape.split("x")]
    raw = np.fromfile(path, dtype=np.uint16 if dt != "f32" else np.float32)
    t = torch.from_numpy(raw.astype(np.int16) if dt != "f32" else raw)
    t = t.view(DT[dt]) if dt != "f32" else t
    return t.reshape(shape).to(DEV), dt


def model(kind, xs):
    if kind.startswith("softmax:"):
        return torch.softmax(xs[0], int(kind.split(":")[1]))
    if kind.startswith("log_softmax:"):
        return torch.log_softmax(xs[0], int(kind.split(":")[1]))
    if kind == "attention":
        q, k, v = xs
        return torch.softmax((q @ k.transpose(-2, -1)) * 0.125, -1) @ v
    if kind == "classifier":
        x, w, b = xs
        return torch.softmax(x @ w.t() + b, -1)
    raise ValueError(kind)


def main():
    cases, out = sys.argv[1], sys.argv[2]
    print("| case | model | result | module vs float64 | PyTorch (same dtype) vs float64 | tolerance | |")
    print("|---|---|---|---|---|---|---|")
    ok = True
    for line in open(cases):
        if not line.strip() or line.startswith("#"):
            continue
        name, golden, func, kind, *specs = line.split()
        ins = [s for s in specs if not s.startswith("=")]
        res = [s[1:] for s in specs if s.startswith("=")][0]
        d = os.path.join(out, name)
        try:
            xs = [load(os.path.join(d, "in%d.bin" % i), s)[0] for i, s in enumerate(ins)]
            y, dt = load(os.path.join(d, "out.bin"), res)
        except (OSError, ValueError) as e:
            print("| %s | %s | %s | not run (%s) | | | FAIL |" % (name, kind, res, e))
            ok = False
            continue
        ref = model(kind, [x.double() for x in xs])
        own = model(kind, xs)
        err = (y.double() - ref).abs().max().item()
        own_err = (own.double() - ref).abs().max().item()
        whole = kind in ("attention", "classifier")
        tol = {"f32": 1e-4 if whole else 1e-5, "f16": 5e-2 if whole else 1e-3,
               "bf16": 5e-2 if whole else 8e-3}[dt]
        if kind.startswith("log_softmax"):  # values of tens: relative
            tol *= max(1.0, ref.abs().max().item())
        good = np.isfinite(err) and err <= tol
        ok = ok and good
        print("| %s | %s | %s | %.3g | %.3g | %.3g | %s |" % (name, kind, res, err, own_err, tol,
                                                          "pass" if good else "FAIL"))
    print("\n%s" % ("all passed" if ok else "FAILURES"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
