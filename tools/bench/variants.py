#!/usr/bin/env python3
"""variants.py - issue 7's variants against PyTorch on the GPU machine, in one process.

    python3 tools/bench/variants.py OUTDIR [--objects DIR] [--iters 30] [--no-compile]

Needs: torch with a CUDA GPU (torch.compile needs triton), softgen's Python binding
(python/softgen) with libsoftgen_rt.so ($SOFTGEN_RT_LIBRARY or <repo>/build/), and the
kernels: compiled on first use where libsoftgen.so is present, else preloaded from
--objects (test/gpu/generate.sh writes them to OBJECTS/variants).

Variants (x: scores [B, H, L, N] in the dtype, M = B*H*L rows; mask [L, N], 10 % -inf):
  scaled     softmax(x * 0.125)
  masked     softmax(x * 0.125 + mask)
  causal     softmax((x * 0.125).masked_fill(causal, -inf))         (offset 0)
  attention  softmax((x * 0.125 + mask).masked_fill(causal, -inf))
  safe       the same through torch._safe_softmax (zeros for rows with no key left)
  f16->f32   softmax(x, -1, dtype=torch.float32)
Systems: copy (a byte copy of the variant's own traffic: x read + y written; the mask is
L x N, read once, and counted too), softgen (softgen.attention_softmax / softmax), torch
(eager composition above), compile (torch.compile(fullgraph=True) of the same function).
Method: inputs >= 128 MB, so every pass streams from DRAM; per system 3 warm-up calls,
then rounds of 10 launches between CUDA events after a device spin (torch.cuda._sleep)
so the host queues each round ahead; median over --iters launches. Ratio = copy time /
system time for the same bytes, measured in the same run.
Produces OUTDIR/variants.csv and OUTDIR/variants.md (GPU name, date, versions).
"""
import argparse
import datetime
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
SHAPES = [(4, 16, 1024, 1024), (2, 16, 512, 4096), (1, 8, 256, 32768)]


def median_us(torch, op, iters):
    for _ in range(3):
        op()
    torch.cuda.synchronize()
    times, per_round = [], 10
    ev = [torch.cuda.Event(enable_timing=True) for _ in range(per_round + 1)]
    while len(times) < iters:
        if hasattr(torch.cuda, "_sleep"):
            torch.cuda._sleep(20_000_000)  # ~10 ms: the host queues the round meanwhile
        ev[0].record()
        for i in range(per_round):
            op()
            ev[i + 1].record()
        ev[-1].synchronize()
        times += [ev[i].elapsed_time(ev[i + 1]) * 1e3 for i in range(per_round)]
    return statistics.median(times[:iters])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--objects", help="folders of code objects to preload (os.pathsep apart; a "
                    "folder's variants/ subfolder when it has one)")
    ap.add_argument("--iters", type=int, default=30)
    ap.add_argument("--no-compile", action="store_true")
    ap.add_argument("--compile-dtypes", default="f16,bf16,f32",
                    help="dtypes torch.compile is timed for (each variant x shape compiles once)")
    ap.add_argument("--shapes", default="0,1,2", help="indices into SHAPES for f16")
    ap.add_argument("--other-shapes", default="0", help="indices into SHAPES for bf16 and f32")
    args = ap.parse_args(argv)
    import torch
    if not torch.cuda.is_available():
        print("variants.py: no CUDA device", file=sys.stderr)
        return 3
    sys.path.insert(0, os.path.join(REPO, "python"))
    import softgen
    for d in (args.objects or "").split(os.pathsep):
        if d:
            softgen.preload(os.path.join(d, "variants") if os.path.isdir(os.path.join(d, "variants")) else d)
    os.makedirs(args.outdir, exist_ok=True)
    rows = []
    g = torch.Generator(device="cuda")
    g.manual_seed(1)
    for dt, tdt in (("f16", torch.float16), ("bf16", torch.bfloat16), ("f32", torch.float32)):
        picks = args.shapes if dt == "f16" else args.other_shapes
        for shape in [SHAPES[int(i)] for i in picks.split(",") if i != ""]:
            b, h, L, n = shape
            x = torch.randn(shape, generator=g, device="cuda").to(tdt)
            mask = torch.randn(L, n, generator=g, device="cuda")
            mask = mask.masked_fill(torch.rand(L, n, generator=g, device="cuda") < 0.1,
                                    float("-inf")).to(tdt)
            keep = torch.ones(L, n, dtype=torch.bool, device="cuda").tril(0)
            safe_fn = getattr(torch, "_safe_softmax", None)
            variants = {
                "scaled": (dict(scale=0.125), lambda x: torch.softmax(x * 0.125, -1)),
                "masked": (dict(scale=0.125, mask=mask),
                           lambda x: torch.softmax(x * 0.125 + mask, -1)),
                "causal": (dict(scale=0.125, causal=True),
                           lambda x: torch.softmax((x * 0.125).masked_fill(~keep, float("-inf")),
                                                   -1)),
                "attention": (dict(scale=0.125, mask=mask, causal=True),
                              lambda x: torch.softmax((x * 0.125 + mask).masked_fill(
                                  ~keep, float("-inf")), -1)),
            }
            if safe_fn is not None:
                variants["safe"] = (dict(scale=0.125, mask=mask, causal=True, safe=True),
                                    lambda x: safe_fn((x * 0.125 + mask).masked_fill(
                                        ~keep, float("-inf")), -1))
            if dt != "f32":
                variants["to_f32"] = (None, lambda x: torch.softmax(x, -1, dtype=torch.float32))
            for name, (kw, tfn) in variants.items():
                out_bytes = 4 if name == "to_f32" else x.element_size()
                nbytes = x.numel() * (x.element_size() + out_bytes)
                if kw and "mask" in kw:
                    nbytes += mask.numel() * mask.element_size()
                src = torch.empty(nbytes // 2, dtype=torch.uint8, device="cuda")
                dst = torch.empty_like(src)
                t_copy = median_us(torch, lambda: dst.copy_(src), args.iters)
                del src, dst
                if kw is None:
                    sg = lambda: softgen.softmax(x, -1, dtype=torch.float32)  # noqa: E731
                else:
                    sg = lambda kw=kw: softgen.attention_softmax(x, **kw)  # noqa: E731
                ref = tfn(x.double() if name != "to_f32" else x).float()
                y = sg().float()
                fin = torch.isfinite(ref)
                err = (y[fin] - ref[fin]).abs().max().item() if fin.any() else 0.0
                res = {"copy": t_copy, "softgen": median_us(torch, sg, args.iters),
                       "torch": median_us(torch, lambda: tfn(x), args.iters)}
                if not args.no_compile and dt in args.compile_dtypes.split(","):
                    try:
                        cf = torch.compile(tfn, dynamic=False, fullgraph=True)
                        res["compile"] = median_us(torch, lambda: cf(x), args.iters)
                    except Exception as e:  # noqa: BLE001 - a failing peer is a result
                        print(f"compile {name}: {type(e).__name__}: {e}", file=sys.stderr)
                for system, t in res.items():
                    rows.append({"variant": name, "dtype": dt, "shape": "x".join(map(str, shape)),
                                 "system": system, "time_us": round(t, 2),
                                 "gbps": round(nbytes / t / 1e3, 1),
                                 "ratio_to_copy": round(t_copy / t, 3), "max_abs_err": err})
                print(f"{name:9s} {dt:4s} {str(shape):22s} " + "  ".join(
                    f"{s} {t:8.1f}us {t_copy / t:5.3f}" for s, t in res.items())
                    + f"  (softgen max|err| {err:.1e})", flush=True)
                torch.cuda.empty_cache()
    with open(os.path.join(args.outdir, "variants.csv"), "w") as f:
        keys = list(rows[0])
        f.write(",".join(keys) + "\n")
        for r in rows:
            f.write(",".join(str(r[k]) for k in keys) + "\n")
    with open(os.path.join(args.outdir, "variants.md"), "w") as f:
        f.write(f"# Variants vs PyTorch: {torch.cuda.get_device_name()}, "
                f"{datetime.datetime.utcnow():%Y-%m-%d %H:%M} UTC, torch {torch.__version__}\n\n")
        f.write("Ratio to the device copy of the same bytes (median of "
                f"{args.iters} launches; tools/bench/variants.py).\n\n")
        f.write("| variant | dtype | shape | copy GB/s | softgen | torch | compile |\n")
        f.write("|---|---|---|---|---|---|---|\n")
        keyed = {}
        for r in rows:
            keyed.setdefault((r["variant"], r["dtype"], r["shape"]), {})[r["system"]] = r
        for (v, dt, sh), d in keyed.items():
            f.write(f"| {v} | {dt} | {sh} | {d['copy']['gbps']} | "
                    + " | ".join(f"{d[s]['ratio_to_copy']:.3f}" if s in d else "-"
                                 for s in ("softgen", "torch", "compile")) + " |\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
