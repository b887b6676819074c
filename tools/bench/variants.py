#!/usr/bin/env python3
"""variants.py - issue 7's variants against PyTorch on the GPU machine, in one process.

    python3 tools/bench/variants.py OUTDIR [--objects DIRS] [--bench-shapes FILE]
                                    [--iters 30] [--no-compile] [--deadline S]

Needs: torch with a CUDA GPU (torch.compile needs triton), softgen's Python binding
(python/softgen) with libsoftgen_rt.so ($SOFTGEN_RT_LIBRARY or <repo>/build/), and the
kernels: compiled on first use where libsoftgen.so is present, else preloaded from
--objects (tools/bench/gen-variants.sh writes those of --bench-shapes; test/gpu/generate.sh
those of the default shapes, in OBJECTS/variants).

Shapes: x is attention scores [B, H, L, N], M = B*H*L rows. Default: three attention
shapes (SHAPES). --bench-shapes FILE: each "M N" line of the benchmark's shape list
as [1, M / L, L, N] with L = the largest power of two <= min(M, N) (a query length; the
mask is [L, N], so at L = M it is as large as x and not shared between rows).
Variants (mask [L, N] with 10 % -inf; scale 0.125):
  scaled       softmax(x * scale)
  masked       softmax(x * scale + mask)
  causal       softmax((x * scale).masked_fill(causal, -inf))        (offset 0)
  attention    softmax((x * scale + mask).masked_fill(causal, -inf))
  safe         the same through torch._safe_softmax (zeros for rows with no key left)
  to_f32       softmax(x, -1, dtype=torch.float32)                   (16-bit x)
  log_softmax  log_softmax(x, -1)
  softmax_bwd  torch._softmax_backward_data(dy, y, -1, dtype)        (3 tensors moved)
  log_softmax_bwd  torch._log_softmax_backward_data(dy, y, -1, dtype)
Systems: copy (a device copy of the variant's own traffic: its reads and its write,
the mask counted once), softgen, torch (the eager op or composition above), compile
(torch.compile(fullgraph=True, dynamic=False) of it, only at --compile-shapes and
while --compile-budget lasts: inductor compiles once per variant, dtype and shape).
Method: per system 3 warm-up calls, then rounds of 10 launches between CUDA events
after a device spin (torch.cuda._sleep) so the host queues each round ahead; median
over --iters launches. Ratio = copy time / system time for the same bytes, same run.
softgen's output is compared with a float64 PyTorch reference (finite entries, and
the same non-finite pattern); a case over tolerance is reported and makes the exit
status 1. --deadline S: no case starts after S seconds (the rest is not run, and said).
Produces OUTDIR/variants.csv and OUTDIR/variants.md (GPU name, date, versions),
rewritten after every case.
"""
import argparse
import datetime
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
SHAPES = [(4, 16, 1024, 1024), (2, 16, 512, 4096), (1, 8, 256, 32768)]
COMPILE_SHAPES = "32768x1024,16384x8192,4096x32768,4096x131072,262144x64,1024x262144"
TOL = {"f16": 2e-3, "bf16": 1.6e-2, "f32": 1e-5}  # max |err| of a probability
SCALE = 0.125


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


def bench_shapes(path):
    out = []
    with open(path) as f:
        for line in f:
            w = line.split("#")[0].split()
            if len(w) >= 2:
                m, n = int(w[0]), int(w[1])
                L = 1 << (min(m, n).bit_length() - 1)
                out.append((1, m // L, L, n))
    return out


def cases(torch, softgen, x, dt, mask, keep, dy, y_fwd, y_log):
    """name -> (softgen call, torch call on x, float64 reference call, bytes moved).
    x, mask, dy, y_fwd, y_log: the inputs (y_*: softmax / log_softmax outputs for the
    backward passes)."""
    e = x.element_size()
    xy = x.numel() * 2 * e
    mb = mask.numel() * mask.element_size()
    safe_fn = getattr(torch, "_safe_softmax", None)
    d = torch.float64

    def attn(t, masked, causal):  # float64 t: the mask promotes to float64 as well
        s = t * SCALE
        if masked:
            s = s + mask
        if causal:
            s = s.masked_fill(~keep, float("-inf"))
        return s

    def fwd(sg, fn, nbytes):
        return sg, fn, lambda: fn(x.double()), nbytes

    def bwd(sg, op, y):
        return (sg, lambda t: op(dy, y, -1, t.dtype),
                lambda: op(dy.double(), y.double(), -1, d), x.numel() * 3 * e)

    c = {
        "scaled": fwd(lambda: softgen.attention_softmax(x, scale=SCALE),
                      lambda t: torch.softmax(attn(t, 0, 0), -1), xy),
        "masked": fwd(lambda: softgen.attention_softmax(x, scale=SCALE, mask=mask),
                      lambda t: torch.softmax(attn(t, 1, 0), -1), xy + mb),
        "causal": fwd(lambda: softgen.attention_softmax(x, scale=SCALE, causal=True),
                      lambda t: torch.softmax(attn(t, 0, 1), -1), xy),
        "attention": fwd(lambda: softgen.attention_softmax(x, scale=SCALE, mask=mask, causal=True),
                         lambda t: torch.softmax(attn(t, 1, 1), -1), xy + mb),
    }
    if safe_fn is not None:
        c["safe"] = fwd(lambda: softgen.attention_softmax(x, scale=SCALE, mask=mask, causal=True,
                                                          safe=True),
                        lambda t: safe_fn(attn(t, 1, 1), -1), xy + mb)
    if dt != "f32":
        c["to_f32"] = (lambda: softgen.softmax(x, -1, dtype=torch.float32),
                       lambda t: torch.softmax(t, -1, dtype=torch.float32),
                       lambda: torch.softmax(x.double(), -1), x.numel() * (e + 4))
    c["log_softmax"] = fwd(lambda: softgen.log_softmax(x, -1),
                           lambda t: torch.log_softmax(t, -1), xy)
    c["softmax_bwd"] = bwd(lambda: softgen.softmax_backward(dy, y_fwd),
                           torch._softmax_backward_data, y_fwd)
    c["log_softmax_bwd"] = bwd(lambda: softgen.log_softmax_backward(dy, y_log),
                               torch._log_softmax_backward_data, y_log)
    return c


def compare(torch, got, ref):
    """(max |err| over entries finite in the reference, count of entries where one
    side is finite and the other not, or NaN where the other is not)."""
    got = got.double()
    fin = torch.isfinite(ref)
    err = (got[fin] - ref[fin]).abs().max().item() if fin.any() else 0.0
    pattern = int((torch.isfinite(got) != fin).sum().item() +
                  (torch.isnan(got) != torch.isnan(ref)).sum().item())
    return err, pattern


def write(outdir, rows, notes, torch):
    if not rows:
        return
    with open(os.path.join(outdir, "variants.csv"), "w") as f:
        keys = list(rows[0])
        f.write(",".join(keys) + "\n")
        for r in rows:
            f.write(",".join(str(r[k]) for k in keys) + "\n")
    with open(os.path.join(outdir, "variants.md"), "w") as f:
        f.write(f"# Variants vs PyTorch: {torch.cuda.get_device_name()}, "
                f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, "
                f"torch {torch.__version__}\n\n")
        f.write("Ratio to the device copy of the same bytes (median of launches; "
                "tools/bench/variants.py); err = softgen's max |error| against float64.\n\n")
        f.write("| variant | dtype | shape | copy GB/s | softgen | torch | compile | err |\n")
        f.write("|---|---|---|---|---|---|---|---|\n")
        keyed = {}
        for r in rows:
            keyed.setdefault((r["variant"], r["dtype"], r["shape"]), {})[r["system"]] = r
        for (v, dt, sh), d in keyed.items():
            f.write(f"| {v} | {dt} | {sh} | {d['copy']['gbps']} | "
                    + " | ".join(f"{d[s]['ratio_to_copy']:.3f}" if s in d else "-"
                                 for s in ("softgen", "torch", "compile"))
                    + f" | {d['copy']['max_abs_err']:.1e} |\n")
        for n in notes:
            f.write(f"\n{n}\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--objects", help="folders of code objects to preload (os.pathsep apart; a "
                    "folder's variants/ subfolder when it has one)")
    ap.add_argument("--bench-shapes", help='"M N" lines (the benchmark\'s shape list) instead '
                    "of the default attention shapes")
    ap.add_argument("--dtypes", default="f16,bf16,f32")
    ap.add_argument("--variants", help="comma-separated subset of the variants (default all)")
    ap.add_argument("--iters", type=int, default=30)
    ap.add_argument("--no-compile", action="store_true")
    ap.add_argument("--compile-shapes", help="MxN of the shapes torch.compile is timed at, "
                    "comma-separated, or 'all' (default: all of the default shapes; with "
                    f"--bench-shapes {COMPILE_SHAPES})")
    ap.add_argument("--compile-budget", type=float, default=300.0,
                    help="seconds of torch.compile (compiling and timing) at most, shared "
                    "equally by the dtypes")
    ap.add_argument("--deadline", type=float, default=0.0, help="seconds; 0: none")
    args = ap.parse_args(argv)
    t0 = time.monotonic()
    import torch
    if not torch.cuda.is_available():
        print("variants.py: no CUDA device", file=sys.stderr)
        return 3
    import torch._dynamo
    for knob in ("cache_size_limit", "recompile_limit", "accumulated_cache_size_limit",
                 "accumulated_recompile_limit"):  # one compile per variant x dtype x shape
        if hasattr(torch._dynamo.config, knob):
            setattr(torch._dynamo.config, knob, 4096)
    sys.path.insert(0, os.path.join(REPO, "python"))
    import softgen
    for d in (args.objects or "").split(os.pathsep):
        if d:
            softgen.preload(os.path.join(d, "variants") if os.path.isdir(os.path.join(d, "variants")) else d)
    os.makedirs(args.outdir, exist_ok=True)
    shapes = bench_shapes(args.bench_shapes) if args.bench_shapes else SHAPES
    cs = args.compile_shapes or (COMPILE_SHAPES if args.bench_shapes else "all")
    compile_at = None if cs == "all" else set(cs.split(","))
    wanted = set(args.variants.split(",")) if args.variants else None
    rows, notes, bad, skipped, compile_spent = [], [], 0, 0, 0.0
    tdts = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}
    dtypes = args.dtypes.split(",")
    for dt in dtypes:
        tdt = tdts[dt]
        budget_dt = args.compile_budget * (dtypes.index(dt) + 1) / len(dtypes)
        for shape in shapes:
            if args.deadline and time.monotonic() - t0 > args.deadline:
                skipped += 1
                continue
            b, h, L, n = shape
            mn = f"{b * h * L}x{n}"
            g = torch.Generator(device="cuda")
            g.manual_seed(1)
            x = torch.randn(shape, generator=g, device="cuda").to(tdt)
            mask = torch.randn(L, n, generator=g, device="cuda")
            mask = mask.masked_fill(torch.rand(L, n, generator=g, device="cuda") < 0.1,
                                    float("-inf")).to(tdt)
            keep = torch.ones(L, n, dtype=torch.bool, device="cuda").tril(0)
            dy = torch.randn(shape, generator=g, device="cuda").to(tdt)
            y_fwd = torch.softmax(x.float(), -1).to(tdt)
            y_log = torch.log_softmax(x.float(), -1).to(tdt)
            for name, (sg, tfn, reffn, nbytes) in cases(torch, softgen, x, dt, mask, keep, dy, y_fwd,
                                                  y_log).items():
                if wanted and name not in wanted:
                    continue
                try:
                    src = torch.empty(nbytes // 2, dtype=torch.uint8, device="cuda")
                    dst = torch.empty_like(src)
                    t_copy = median_us(torch, lambda: dst.copy_(src), args.iters)
                    del src, dst
                    ref = reffn()
                    err, pattern = compare(torch, sg(), ref)
                    del ref
                except Exception as ex:  # noqa: BLE001 - recorded; the other cases go on
                    bad += 1
                    notes.append(f"FAIL {name} {dt} {mn}: {type(ex).__name__}: {ex}")
                    print(notes[-1], flush=True)
                    continue
                tol = TOL[dt] * (8 if name.startswith("log") else 1) * (
                    4 if name.endswith("bwd") else 1)
                if err > tol or pattern:
                    bad += 1
                    notes.append(f"FAIL {name} {dt} {mn}: max |err| {err:.2e} (tolerance "
                                 f"{tol:.1e}), {pattern} entries differ in finiteness")
                res = {"copy": t_copy, "softgen": median_us(torch, sg, args.iters),
                       "torch": median_us(torch, lambda: tfn(x), args.iters)}
                if (not args.no_compile and (compile_at is None or mn in compile_at)
                        and name != "safe" and compile_spent < budget_dt):
                    tc = time.monotonic()
                    try:
                        cf = torch.compile(tfn, dynamic=False, fullgraph=True)
                        res["compile"] = median_us(torch, lambda: cf(x), args.iters)
                    except Exception as ex:  # noqa: BLE001 - a failing peer is a result
                        print(f"compile {name}: {type(ex).__name__}: {ex}", file=sys.stderr)
                    compile_spent += time.monotonic() - tc
                for system, t in res.items():
                    rows.append({"variant": name, "dtype": dt, "shape": "x".join(map(str, shape)),
                                 "mxn": mn, "system": system, "time_us": round(t, 2),
                                 "gbps": round(nbytes / t / 1e3, 1),
                                 "ratio_to_copy": round(t_copy / t, 3), "max_abs_err": err})
                print(f"{name:15s} {dt:4s} {mn:13s} " + "  ".join(
                    f"{s} {t:8.1f}us {t_copy / t:5.3f}" for s, t in res.items())
                    + f"  (softgen max|err| {err:.1e})", flush=True)
                write(args.outdir, rows, notes, torch)
            del x, mask, keep, dy, y_fwd, y_log
            torch.cuda.empty_cache()
    if skipped:
        notes.append(f"{skipped} (dtype, shape) pairs not run: --deadline {args.deadline:.0f} s")
    notes.append(f"torch.compile: {compile_spent:.0f} s of the {args.compile_budget:.0f} s budget")
    write(args.outdir, rows, notes, torch)
    for n in notes:
        print(n)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
