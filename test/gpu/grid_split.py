#!/usr/bin/env python3
"""grid_split.py OBJECTS [OUTDIR] [--max-seconds S] | grid_split.py --files OBJECT... - the
grid splits (few rows over blocks of the grid, issue 21) launched as a program would:
many launches of one loaded kernel in one process, at M changing from launch to launch,
so that its grid splits (and the kernel or cluster variants past them) take turns on the
same workspace slice, on one stream and then on two streams in turn. Each output is
checked against float64 (the per-row 2-norm error, tolerance TOL of the dtype or twice
the error of the reference rounded to it, whichever is larger). A launch
whose blocks wait for each other forever hangs this script: run it under `timeout`
(test/gpu/run.sh's "grid" stage does; session 18 found such a hang this way: two grid
splits of one kernel sharing words of the workspace).

OBJECTS is a folder of test/gpu/generate.sh (its manifest.tsv): every softmax and
log_softmax object of the automatic plan with N >= 16384 (those without a grid split
are skipped); OUTDIR is unused (run.sh's convention); --files takes objects by path
(their names <template>_<dtype>_n<N>...). For each object: the M of a fixed random
sequence (seed 7) over 1 .. the largest max_rows of its grid splits + 3, then M = 5, 3
(a split of 16 over five row blocks, then one of 32 over three: the areas of two grid
splits must not share words), the largest, 1; each on the current stream, then on two
streams in turn; then a CUDA graph of M = min(3, max_rows) captured on a side stream,
replayed on the current stream while direct launches of the same kernel run on the side
stream (a captured launch has a workspace slot of its capture's own). Prints one line
per object and a total ("grid_split.py: P/T cases
passed, F failed"); exit status 0 iff every launch passed and one ran. Needs: torch with
CUDA, the softgen package (python/) and its runtime (SOFTGEN_RT_LIBRARY)."""
import os
import random
import re
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import softgen  # noqa: E402

TOL = {"f32": 1e-5, "f16": 1e-3, "bf16": 1e-2}
SPIN = 200000  # torch.cuda._sleep cycles: about 0.1 ms
DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}


def rel_err(y, ref):
    """The largest per-row relative error (2-norm) of y against ref (float64)."""
    d = y.double() - ref
    return float((d.norm(dim=-1) / ref.norm(dim=-1).clamp_min(1e-300)).max())


def ratio(y, ref, dt):
    """y's error over its tolerance: TOL of the dtype, or twice the error of ref rounded
    to the dtype where that is larger (f16 softmax of long flat rows is subnormal)."""
    floor = rel_err(ref.to(DTYPES[dt]), ref)
    return rel_err(y, ref) / max(TOL[dt], 2 * floor)


def grid_rows(k):
    """The largest max_rows of the object's grid splits (0: none)."""
    meta = k._meta
    most = 0
    for i in range(meta.nvariants):
        v = meta.variants[i]
        if v.split:
            most = max(most, v.max_rows)
    return most


def run(path, gen):
    name = os.path.basename(path)
    m = re.search(r"(log_softmax|softmax)_(f16|bf16|f32)_n(\d+)", name)
    if not m:
        return 0, 0, f"{name}: not a softmax or log_softmax object (skipped)"
    tpl, dt, n = m.group(1), m.group(2), int(m.group(3))
    k = softgen.load(path)
    top = grid_rows(k)
    if not top:
        return 0, 0, f"{name}: no grid split (skipped)"
    ms = [gen.randint(1, top + 3) for _ in range(24)] + [5, 3, top, 1]
    streams = [None, torch.cuda.Stream(), torch.cuda.Stream()]
    runs = fails = 0
    worst = 0.0
    for phase in ("one stream", "two streams"):
        for i, rows in enumerate(ms):
            x = torch.randn(rows, n, device="cuda", dtype=torch.float32).to(DTYPES[dt]) * 4
            s = streams[0] if phase == "one stream" else streams[1 + i % 2]
            if s is None:
                y = k(x)
            else:
                s.wait_stream(torch.cuda.current_stream())
                with torch.cuda.stream(s):
                    y = k(x, stream=s)
                torch.cuda.current_stream().wait_stream(s)
            ref = (torch.log_softmax if tpl == "log_softmax" else torch.softmax)(x.double(), dim=-1)
            e = ratio(y, ref, dt)
            runs += 1
            worst = max(worst, e)
            if not e <= 1:
                fails += 1
    # a CUDA graph captured on stream s, replayed on the current stream while launches
    # of the same kernel run directly on s: the capture's slot is not s's
    fn = torch.log_softmax if tpl == "log_softmax" else torch.softmax
    s = torch.cuda.Stream()
    rows = min(top, 3)
    xg = torch.randn(rows, n, device="cuda").to(DTYPES[dt])
    xs = torch.randn(rows, n, device="cuda").to(DTYPES[dt])
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        k(xg, stream=s)  # the first launch outside the capture
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g, stream=s):
        yg = k(xg)
    for i in range(8):
        xg.copy_(torch.randn(rows, n, device="cuda").to(DTYPES[dt]))
        s.wait_stream(torch.cuda.current_stream())
        # both streams held by a spin of the same length first: the replay and the
        # direct launch then start together and run at the same time
        torch.cuda._sleep(SPIN)
        g.replay()
        with torch.cuda.stream(s):
            torch.cuda._sleep(SPIN)
            ys = k(xs, stream=s)
        torch.cuda.current_stream().wait_stream(s)
        for y, x in ((yg, xg), (ys, xs)):
            e = ratio(y, fn(x.double(), dim=-1), dt)
            runs += 1
            worst = max(worst, e)
            if not e <= 1:
                fails += 1
    torch.cuda.synchronize()
    return runs, fails, (f"{name}: {runs - fails}/{runs} launches pass (M up to {top + 3}; grid "
                         f"splits up to M = {top}; a graph's replays beside direct launches), "
                         f"largest error / tolerance {worst:.2f}")


def objects_of(folder):
    """The manifest's softmax and log_softmax objects of the automatic plan, N >= 16384."""
    out = []
    with open(os.path.join(folder, "manifest.tsv")) as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            if len(p) >= 5 and p[1] in ("softmax", "log_softmax") and p[4] == "auto" \
                    and int(p[3]) >= 16384:
                out.append(os.path.join(folder, p[0]))
    return out


def main():
    args = sys.argv[1:]
    budget = None
    if "--max-seconds" in args:
        i = args.index("--max-seconds")
        budget = float(args[i + 1])
        del args[i:i + 2]
    if args[:1] == ["--files"]:
        paths = args[1:]
    elif args and os.path.isdir(args[0]):
        paths = objects_of(args[0])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    gen = random.Random(7)
    t0 = time.monotonic()
    total = failed = not_run = 0
    for path in paths:
        if budget is not None and time.monotonic() - t0 > budget:
            not_run += 1
            continue
        runs, fails, line = run(path, gen)
        total += runs
        failed += fails
        print(("FAIL " if fails else "") + line, flush=True)
    print(f"grid_split.py: {total - failed}/{total} cases passed, {failed} failed, "
          f"{not_run} objects not run (time up)")
    return 1 if failed or not total or not_run else 0


if __name__ == "__main__":
    sys.exit(main())
