#!/usr/bin/env python3
"""inner.py - softmax over a non-last dim: the inner layout against its peers (issue 7).

    python3 tools/bench/inner.py OUTDIR --manifest KDIR/inner.manifest [options]

Needs: torch with a CUDA GPU; softgen's Python binding with libsoftgen_rt.so (--rt-lib,
else $SOFTGEN_RT_LIBRARY); the kernels of tools/bench/gen-inner.sh (manifest lines
"file<TAB>dtype<TAB>N<TAB>layout"); peers.py beside this file (its timer and log).

For every shape "outer N inner" of --shapes (default shapes-inner.txt) x dtype, the
softmax over dim 1 of a contiguous x [outer, N, inner]:
  copy      y.copy_(x), the same bytes: the ceiling
  inner     softgen's inner-layout kernel reading x in place (launch arguments prepared
            once per buffer set, as peers.py does; what softgen.softmax(x, dim=1) runs
            when inner > 1)
  moved     what the binding did before: x.movedim(1, -1).contiguous(), the rows kernel,
            .movedim(-1, 1).contiguous() (two extra copies)
  torch     torch.softmax(x, dim=1)
  compile   torch.compile(lambda x: torch.softmax(x, 1)) (skipped with --no-compile)
Method: peers.py's (random normal inputs rotated over ceil(4 x L2 / set) buffer sets,
device spin + 256 MB copy before each round, median of --iters samples, rounds of all
systems interleaved); GB/s counts read + write of x and y once (2 x outer x N x inner
x element bytes) for every system, so the ratio to copy is the fraction of the floor
reached. Checks: each output against a float32 torch.softmax(x, 1) (peers.py TOL).
Produces in OUTDIR: inner.csv, inner.md (a table per dtype), inner.log.
Exit status: 0 done, 2 bad usage, 3 no CUDA device.
"""
import argparse
import csv
import ctypes
import math
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import peers  # noqa: E402 - the timer, log and tolerances

SYSTEMS = ["copy", "inner", "moved", "torch", "compile"]
FIELDS = ["system", "outer", "N", "inner", "dtype", "status", "time_us", "gbps",
          "ratio_to_copy", "max_err", "note"]


def read_shapes(path):
    out = []
    with open(path) as f:
        for line in f:
            w = line.split("#", 1)[0].split()
            if len(w) >= 3:
                out.append(tuple(int(v) for v in w[:3]))
    return out


def read_manifest(path):
    """{(dtype, N, layout): path}"""
    kernels, base = {}, os.path.dirname(os.path.abspath(path))
    with open(path) as f:
        for line in f:
            c = line.rstrip("\n").split("\t")
            if len(c) >= 4 and not line.startswith("#"):
                kernels[(c[1], int(c[2]), c[3])] = os.path.join(base, c[0])
    return kernels


def launcher(softgen, _rt, k, xs, ys, dim, torch):
    """op(i): k on set i with the runtime's arguments built once per set."""
    handle = k._get(xs[0].device.index or 0)
    arrays = []
    for x, y in zip(xs, ys):
        arr = (_rt.Tensor * 2)()
        arr[0] = softgen._arrays._describe(x, "x", dim=dim)[0]
        arr[1] = softgen._arrays._describe(y, "y", dim=dim)[0]
        arrays.append(arr)
    diag = _rt.Diag()
    stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream or None)

    def op(i):
        st = _rt.lib.sgrt_kernel_launch(handle, arrays[i], 2, stream, ctypes.byref(diag))
        if st:
            raise RuntimeError(f"sgrt_kernel_launch: {st}: {diag.message.decode()}")
    return op


def system(name, torch, sg, kernels, xs, ys, dt, n, args, keep):
    """(op(i), out(i)) of one system, or raises peers.Skip."""
    if name == "copy":
        return (lambda i: ys[i].copy_(xs[i])), (lambda i: ys[i])
    if name == "torch":
        outs = [None] * len(xs)

        def op(i):
            outs[i] = torch.softmax(xs[i], 1)
        return op, (lambda i: outs[i])
    if name == "compile":
        if args.no_compile:
            raise peers.Skip("skipped", "--no-compile")
        import torch._dynamo
        torch._dynamo.reset()
        f = torch.compile(lambda x: torch.softmax(x, 1), dynamic=False, fullgraph=True)
        outs = [None] * len(xs)

        def op(i):
            outs[i] = f(xs[i])
        return op, (lambda i: outs[i])
    if isinstance(sg, str):
        raise peers.Skip("fails", sg)
    softgen, _rt = sg
    layout = "inner" if name == "inner" else "rows"
    if (dt, n, layout) not in kernels:
        raise peers.Skip("missing", f"no {layout} kernel for {dt} N={n} in the manifest")
    k = softgen.load(kernels[(dt, n, layout)])
    keep.append(k)
    if name == "inner":
        return launcher(softgen, _rt, k, xs, ys, 1, torch), (lambda i: ys[i])
    mx = xs[0].movedim(1, -1).contiguous()  # [outer, inner, N]: rows of N
    my = torch.empty_like(mx)
    run = launcher(softgen, _rt, k, [mx], [my], None, torch)

    def op(i):
        mx.copy_(xs[i].movedim(1, -1))
        run(0)
        ys[i].copy_(my.movedim(-1, 1))
    return op, (lambda i: ys[i])


def bench(torch, timer, args, shape, dt, kernels, sg):
    outer, n, inner = shape
    tdt = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}[dt]
    nbytes = 2 * outer * n * inner * peers.ELEM[dt]
    nsets = 1 if nbytes >= 4 * args.l2_mb * 1e6 else \
        min(peers.MAX_SETS, math.ceil(4 * args.l2_mb * 1e6 / nbytes))
    gen = torch.Generator(device="cuda")
    gen.manual_seed(outer + n + inner)
    xs = [torch.randn(outer, n, inner, device="cuda", generator=gen).to(tdt) for _ in range(nsets)]
    ys = [torch.empty_like(xs[0]) for _ in range(nsets)]
    ref = torch.softmax(xs[0].float(), 1)
    rows, live, keep = {}, [], []
    for name in args.systems:
        row = {"system": name, "outer": outer, "N": n, "inner": inner, "dtype": dt,
               "status": "ok", "time_us": "", "gbps": "", "ratio_to_copy": "", "max_err": "",
               "note": ""}
        rows[name] = row
        try:
            op, out = system(name, torch, sg, kernels, xs, ys, dt, n, args, keep)
            host = timer.warmup(op, nsets)
            probe, _ = timer.round(op, nsets, 0, 1, 5, host)
            live.append([name, op, out, {"cursor": 0, "host": host, "s": [],
                                         "batch": timer.batch_for(statistics.median(probe))}])
        except peers.Skip as s:
            row["status"], row["note"] = s.status, s.note
        except Exception as e:  # noqa: BLE001 - a system that breaks is a result
            row["status"], row["note"] = "fails", f"{type(e).__name__}: {e}"[:300]
    done = 0
    while done < args.iters and live:
        take = min(peers.SAMPLES_PER_ROUND, args.iters - done)
        for name, op, _, st in live:
            s, st["cursor"] = timer.round(op, nsets, st["cursor"], st["batch"], take, st["host"])
            st["s"].extend(s)
        done += take
    for name, op, out, st in live:
        row = rows[name]
        t = statistics.median(st["s"])
        row["time_us"], row["gbps"] = round(t, 3), round(nbytes / (t * 1e3), 1)
        op(0)
        torch.cuda.synchronize()
        y = out(0).float()
        err = (y - (xs[0].float() if name == "copy" else ref)).abs().max().item()
        row["max_err"] = f"{err:.2e}"
        if not (err == 0 if name == "copy" else err <= peers.TOL[dt]):
            row["status"], row["note"] = "BAD", f"max |err| {err:.2e}"
    cg = rows["copy"]["gbps"] if rows.get("copy") and rows["copy"]["gbps"] != "" else None
    for row in rows.values():
        if cg and row["gbps"] != "":
            row["ratio_to_copy"] = round(row["gbps"] / cg, 4)
    return [rows[s] for s in args.systems]


def write_md(path, rows, args, gpu):
    systems = [s for s in args.systems if s != "copy"]
    out = [f"# softmax over dim 1 of [outer, N, inner] — {gpu}", "",
           f"- {time.strftime('%Y-%m-%d %H:%M')}; ratio to `y.copy_(x)` of the same bytes "
           f"(read + write of x and y once), median of {args.iters} samples (tools/bench/inner.py)",
           ""]
    for dt in args.dtypes:
        out += [f"## {dt}", "", "| outer×N×inner | copy GB/s | " + " | ".join(systems) + " |",
                "|---|---:|" + "---:|" * len(systems)]
        for r0 in [r for r in rows if r["dtype"] == dt and r["system"] == "copy"]:
            by = {r["system"]: r for r in rows if r["dtype"] == dt and
                  (r["outer"], r["N"], r["inner"]) == (r0["outer"], r0["N"], r0["inner"])}
            out.append(f"| {r0['outer']}×{r0['N']}×{r0['inner']} | {r0['gbps']} | " +
                       " | ".join(peers.cell(by.get(s)) for s in systems) + " |")
        out.append("")
    with open(path, "w") as f:
        f.write("\n".join(out))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("outdir")
    p.add_argument("--manifest", required=True, help="inner.manifest of gen-inner.sh")
    p.add_argument("--shapes", default=os.path.join(HERE, "shapes-inner.txt"))
    p.add_argument("--dtypes", default="f16,bf16,f32")
    p.add_argument("--systems", default=",".join(SYSTEMS))
    p.add_argument("--no-compile", action="store_true")
    p.add_argument("--iters", type=int, default=50)
    p.add_argument("--warmup-ms", type=float, default=30.0)
    p.add_argument("--batch-us", type=float, default=20.0)
    p.add_argument("--l2-mb", type=float, default=60.0)
    p.add_argument("--filler-mb", type=float, default=256.0)
    p.add_argument("--rt-lib")
    args = p.parse_args()
    args.dtypes = [d for d in args.dtypes.split(",") if d]
    args.systems = ["copy"] + [s for s in args.systems.split(",") if s and s != "copy"]
    if any(s not in SYSTEMS for s in args.systems):
        p.error(f"systems: {', '.join(SYSTEMS)}")
    os.makedirs(args.outdir, exist_ok=True)
    peers._log_file = open(os.path.join(args.outdir, "inner.log"), "w")
    import torch
    if not torch.cuda.is_available():
        peers.log("inner.py: no CUDA device")
        return 3
    if args.rt_lib:
        os.environ["SOFTGEN_RT_LIBRARY"] = os.path.abspath(args.rt_lib)
    sys.path.insert(0, os.path.join(peers.REPO, "python"))
    try:
        import softgen
        from softgen import _rt
        sg = (softgen, _rt)
    except Exception as e:  # noqa: BLE001
        sg = f"binding unavailable: {type(e).__name__}: {e}"
    kernels = read_manifest(args.manifest)
    timer = peers.Timer(torch, args)
    gpu = torch.cuda.get_device_name(0)
    rows = []
    for dt in args.dtypes:
        for shape in read_shapes(args.shapes):
            got = bench(torch, timer, args, shape, dt, kernels, sg)
            rows += got
            torch.cuda.empty_cache()
            peers.log(f"{dt:4} {'x'.join(map(str, shape)):>16}  " + "  ".join(
                f"{r['system']}={r['gbps'] if r['system'] == 'copy' else peers.cell(r)}"
                for r in got))
        with open(os.path.join(args.outdir, "inner.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=FIELDS)
            w.writeheader()
            w.writerows({k: r.get(k, "") for k in FIELDS} for r in rows)
        write_md(os.path.join(args.outdir, "inner.md"), rows, args, gpu)
    return 0


if __name__ == "__main__":
    sys.exit(main())
