#!/usr/bin/env python3
"""sweep.py - softgen, the copy and softgen's peers over the user-shaped sweep (issue 21).

    python3 tools/bench/sweep.py OUTDIR --kernels KDIR [options]     # GPU machine
    python3 tools/bench/sweep.py OUTDIR --report-only                # anywhere

Needs: torch with a CUDA GPU; softgen's Python binding (python/softgen, found from
this file) with libsoftgen_rt.so (--rt-lib, else $SOFTGEN_RT_LIBRARY, else the
build tree); KDIR from tools/bench/gen-sweep.sh (.cubin files, peers.manifest,
rejected.tsv: the public call takes the preloaded kernels, no compiler needed);
optional: quack (quack-kernels) and Liger Kernel, which the GPU machine gets as
wheels (../shared/tools/peer-wheels.sh; a peer that does not import is "absent"),
triton (torch.compile, Liger) and matplotlib (the plot). --report-only needs
none of these: it rewrites sweep.md and sweep.png from OUTDIR/sweep.csv.

Systems, every shape of --shapes (default shapes-sweep.txt) x every dtype:
  copy     y.copy_(x) of the same bytes: the ceiling (cudaMemcpyAsync D2D)
  softgen  call: softgen.softmax(x, dim=-1), the public function with the kernels of
           KDIR preloaded (softgen.preload); kernel alone: a graph of
           softgen.softmax(x, dim=-1, out=y), which captures only the launch (and
           the binding's aligned copies, if it makes any: the note says so)
  quack    quack.softmax.softmax_fwd(x) (CuTe DSL; compiled per N x dtype, ahead
           of use in quack's own pool of --quack-workers processes). N not a
           multiple of its 16-byte vector is "refuses" without a call (quack
           asserts N % vec == 0 while it compiles)
  liger    liger_kernel.ops.softmax.LigerSoftmaxFunction.apply(x) (Triton; it
           raises for N > 65536: "refuses")
  torch    torch.softmax(x, -1)
  compile  torch.compile(softmax, dynamic=False, fullgraph=True), one compile per
           shape x dtype, within --compile-budget-s
Statuses (the call; graph_status likewise for the graph): ok, BAD (output off the
float64 reference by more than the tolerance), NaN (a NaN in the output), refuses
(the system does not take the shape), rejected (softgen refused to generate it:
rejected.tsv's reason), fails (an error), absent (not installed), skipped (time or
compile budget; --no-compile). Only "ok" counts in geomeans, targets and the
best-peer comparison.

Method (one for all systems; peers.py's): inputs standard normal, in buffer sets
(input + output) carved 512-byte aligned from one pool; ceil(4 x L2 / set bytes)
sets, at most 128, when a set is under 4 x L2 (L2 assumed --l2-mb 60), rotated
launch by launch. Each system: one call (checked against a float64 softmax of
the input: |y - ref| <= ATOL + RTOL |ref| everywhere, the copy exactly), one warm-up pass over the sets.
  call ratio   = copy time / system time, both the median of --iters samples a
               round with CUDA events; a round starts with a device spin
               (torch.cuda._sleep, so the host queues the whole round first) and a
               256 MB copy that evicts L2; a sample is one call, or a batch of k
               calls (k x time >= --batch-us) divided by k. Device time of the
               public call: launch gaps and any extra kernels count, host time not.
  graph ratio  = copy graph / system graph: a CUDA graph of L launches over the
               sets (L >= the sets, at least 100 us of work, at most 256), captured
               on a side stream and replayed max(2, --iters // 2) times a round,
               events around each replay, time / L. Every system's own call is
               captured (softgen's with out=); a capture that fails says why.
--rounds rounds (3) interleave all systems, call rounds then graph rounds; the
spread is max - min of the per-round ratios. softgen "meets" issue 21's targets:
copy call >= 20 us: call ratio >= 0.90; smaller: graph time <= 1.5 x copy graph
+ 2 us; against the best peer (ok) at the shape: ratio >= best - noise, noise =
max(the two systems' spreads, --noise 0.02).

Time: the run starts no new shape after --budget-s (480 s from the start, imports
included), each dtype getting an equal share of what is left when it starts; shapes
run in a spread order (by N, bit-reversed), so a cut covers the N range evenly, and
the shapes it left out are rows with status "skipped" (note "time budget").
Estimate for the full sweep (392 shapes x 3 dtypes, all systems, defaults) on an
H100, not yet measured: imports and quack's pool start ~30 s; 0.1-0.3 s of
measurement per shape x dtype (~250-300 s; the 2^30-element shapes ~2 s each);
compiles within their budgets (torch.compile 90 s, Liger 60 s, quack's waits 60 s):
about 8 minutes, and never much over the budget (the last shape, the final report:
< 9 minutes). The log's last line gives the real figure and what compiled.

Produces in OUTDIR:
  sweep.csv      one row per system x shape x dtype (appended after every shape)
  sweep.md       per dtype: geomeans of both ratios per system, noise, softgen
                 against the targets and the best peer, kinds of shape, the worst
                 shapes (rewritten every 30 s, after each dtype and at the end)
  sweep.png      call and graph ratio against N, one panel per dtype x ratio
                 (after each dtype; needs matplotlib)
  sweep.log      the console output;  sweep-info.json  the run's facts (for --report-only)
Exit status: 0 done (a peer's failure is a result), 2 bad usage, 3 no CUDA device,
130/143 interrupted (the outputs hold what was measured).
"""
import argparse
import csv
import datetime
import json
import math
import os
import signal
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
SYSTEMS = ["copy", "softgen", "quack", "liger", "torch", "compile"]
PEERS = ["quack", "liger", "torch", "compile"]
LABELS = {"copy": "copy", "softgen": "softgen", "quack": "quack", "liger": "Liger",
          "torch": "torch.softmax", "compile": "torch.compile"}
DTYPES = ["f16", "bf16", "f32"]
ELEM = {"f16": 2, "bf16": 2, "f32": 4}
# |y - ref| <= ATOL + RTOL x |ref| for every element: relative, because a long
# row's values are about 1 / N (an absolute bound of 2e-3 passed f16 rows of 50K
# with 14 % of their columns counted twice); f16's ATOL is two steps of its
# subnormals (values under 6e-5 keep an absolute, not a relative, precision)
RTOL = {"f16": 2e-3, "bf16": 1e-2, "f32": 1e-5}
ATOL = {"f16": 1.2e-7, "bf16": 1e-12, "f32": 1e-12}
MAX_SETS = 128
GRAPH_MIN_US = 100.0
MAX_LAUNCHES = 256
ALIGN_ELEMS = 256           # each buffer set starts 512-byte aligned (1 KiB for f32)
CHECK_CHUNK = 1 << 25       # elements per chunk of the float64 check
MAX_SAMPLES = 64
BIG_COPY_US = 20.0          # issue 21: copies of >= 20 us need a call ratio >= 0.90
KINDS = ["few-long", "unaligned", "short", "rest"]
KIND_TEXT = {"few-long": "few long rows (M <= 128, N >= 16384)",
             "unaligned": "N not a multiple of the 16-byte vector, N >= 256",
             "short": "short rows (N < 256)", "rest": "none of these"}
CSV_FIELDS = ["system", "M", "N", "dtype", "kinds", "status", "call_us", "call_ratio",
              "call_spread", "graph_status", "graph_us", "graph_ratio", "graph_spread",
              "launches", "copy_us", "copy_graph_us", "batch", "sets", "host_us", "first_s",
              "max_err", "graph_err", "rule", "target", "best_peer_call", "vs_peer_call",
              "best_peer_graph", "vs_peer_graph", "noise", "note"]
NUMERIC = {"M", "N", "call_us", "call_ratio", "call_spread", "graph_us", "graph_ratio",
           "graph_spread", "launches", "copy_us", "copy_graph_us", "batch", "sets", "host_us",
           "first_s", "noise"}

_log_file = None


def log(*parts):
    line = " ".join(str(p) for p in parts)
    print(line, flush=True)
    if _log_file:
        _log_file.write(line + "\n")
        _log_file.flush()


class Interrupted(BaseException):
    pass


def _on_signal(signum, _frame):
    raise Interrupted(signum)


# ---------------------------------------------------------------- inputs

def read_shapes(path):
    """[(M, N, tag)]: "M N" lines; the tag is the line's comment (sweep-shapes.py's kind)."""
    shapes = []
    with open(path) as f:
        for no, line in enumerate(f, 1):
            body, _, tag = line.partition("#")
            cols = body.split()
            if not cols:
                continue
            if len(cols) < 2:
                raise SystemExit(f"sweep.py: {path}:{no}: expected 'M N'")
            shapes.append((int(cols[0]), int(cols[1]), tag.strip()))
    return shapes


def spread_order(shapes):
    """The shapes sorted by (N, M), then visited in bit-reversed order: any prefix
    (a budget cut, --max-shapes) covers the N range evenly."""
    srt = sorted(shapes, key=lambda s: (s[1], s[0]))
    if len(srt) < 3:
        return srt
    bits = (len(srt) - 1).bit_length()
    pos = sorted(range(len(srt)), key=lambda k: int(format(k, f"0{bits}b")[::-1], 2))
    return [srt[p] for p in pos]


def read_kernels(kdir):
    """({(dtype, N): cubin path}, {(dtype, N): rejection reason}) from gen.sh's files."""
    kernels, rejected = {}, {}
    if not kdir:
        return kernels, rejected
    man = os.path.join(kdir, "peers.manifest")
    if not os.path.exists(man):
        raise SystemExit(f"sweep.py: no peers.manifest in {kdir} (tools/bench/gen-sweep.sh "
                         "makes it)")
    with open(man) as f:
        for no, line in enumerate(f, 1):
            line = line.rstrip("\r\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) < 3:
                raise SystemExit(f"sweep.py: {man}:{no}: expected 'file<TAB>dtype<TAB>N'")
            path = cols[0] if os.path.isabs(cols[0]) else os.path.join(kdir, cols[0])
            kernels[(cols[1], int(cols[2]))] = path
    rej = os.path.join(kdir, "rejected.tsv")
    if os.path.exists(rej):
        with open(rej) as f:
            for line in f:
                cols = line.rstrip("\n").split("\t")
                if line.startswith("#") or len(cols) < 3:
                    continue
                rejected[(cols[0], int(cols[1]))] = cols[2]
    return kernels, rejected


def kinds_of(m, n, dt):
    vec = 16 // ELEM[dt]
    k = []
    if m <= 128 and n >= 16384:
        k.append("few-long")
    if n % vec and n >= 256:
        k.append("unaligned")
    if n < 256:
        k.append("short")
    return k or ["rest"]


# ---------------------------------------------------------------- timing

class Timer:
    """Device-event timing of calls and of graph replays (peers.py's method)."""

    def __init__(self, torch, args):
        self.torch, self.args = torch, args
        n = int(args.filler_mb * 1e6 / 2 / 4) // 64 * 64
        self.fa = torch.ones(n, device="cuda") if n else None
        self.fb = torch.empty_like(self.fa) if n else None
        self.has_sleep = hasattr(torch.cuda, "_sleep")
        self.ev = [torch.cuda.Event(enable_timing=True) for _ in range(MAX_SAMPLES + 1)]

    def _prologue(self, host_us):
        if self.has_sleep:  # long enough for the host to queue the whole round
            us = min(200000.0, 1.5 * host_us + 100.0)
            self.torch.cuda._sleep(int(us * 2000))
        if self.fa is not None:
            self.fb.copy_(self.fa)  # evicts L2

    def warmup(self, op, nsets):
        """One pass over the sets (at least 3 calls, --warmup-ms); host us per call."""
        torch = self.torch
        t0, host, done = time.perf_counter(), [], 0
        while done < 3 or (time.perf_counter() - t0) * 1e3 < self.args.warmup_ms:
            h0 = time.perf_counter()
            for i in range(nsets):
                op(i)
            host.append((time.perf_counter() - h0) * 1e6 / nsets)
            torch.cuda.synchronize()
            done += nsets
        return min(host)

    def calls(self, op, nsets, cursor, batch, samples, host_us):
        """One round of samples x batch calls; (us per call per sample, cursor)."""
        ev = self.ev
        self._prologue(samples * batch * host_us)
        ev[0].record()
        for s in range(samples):
            for _ in range(batch):
                op(cursor)
                cursor = (cursor + 1) % nsets
            ev[s + 1].record()
        ev[samples].synchronize()
        return [ev[s].elapsed_time(ev[s + 1]) * 1e3 / batch for s in range(samples)], cursor

    def replays(self, graph, launches, samples, host_us):
        """One round of graph replays; us per launch per sample."""
        ev = self.ev
        self._prologue(samples * host_us)
        ev[0].record()
        for s in range(samples):
            graph.replay()
            ev[s + 1].record()
        ev[samples].synchronize()
        return [ev[s].elapsed_time(ev[s + 1]) * 1e3 / launches for s in range(samples)]

    def batch_for(self, t_us):
        b = self.args.batch_us
        if not (t_us > 0) or b <= 0 or t_us >= b:
            return 1
        return min(1000, int(math.ceil(b / t_us)))


def capture(ctx, op, nsets, launches):
    """(graph, outputs) of `launches` calls of op over the sets, captured on a side stream."""
    torch = ctx.torch
    side = ctx.side
    cur = torch.cuda.current_stream()
    side.wait_stream(cur)
    with torch.cuda.stream(side):
        for j in range(min(2, launches)):  # warm-up on the capturing stream
            op(j % nsets)
    cur.wait_stream(side)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    outs = [None] * launches
    with torch.cuda.stream(side):
        g.capture_begin(capture_error_mode="thread_local")
        try:
            for j in range(launches):
                outs[j] = op(j % nsets)
        finally:
            g.capture_end()
    cur.wait_stream(side)
    g.replay()
    torch.cuda.synchronize()
    return g, outs


# ---------------------------------------------------------------- checks

def check(torch, x, y, dt, exact=False):
    """(error, NaN seen): ref = float64 softmax of x over rows, or x when exact;
    error = max |y - ref| when exact, else max |y - ref| / (ATOL + RTOL x |ref|)
    (at most 1 passes)."""
    if tuple(y.shape) != tuple(x.shape):
        return float("inf"), False
    m, n = x.shape
    step = max(1, CHECK_CHUNK // max(1, n))
    errs, nans = [], []
    for r0 in range(0, m, step):
        yc = y[r0:r0 + step].double()
        ref = x[r0:r0 + step].double()
        if not exact:
            ref = torch.softmax(ref, -1)
        nans.append(torch.isnan(yc).any())
        d = (yc - ref).abs()
        errs.append(d.max() if exact else (d / (ATOL[dt] + RTOL[dt] * ref.abs())).max())
        del d
        del yc, ref
    err = torch.stack(errs).max().item()
    return err, bool(torch.stack(nans).any().item())


def verdict(dt, err, nan, exact=False):
    if nan:
        return "NaN"
    if exact:
        return "ok" if err == 0 else "BAD"
    return "ok" if err <= 1 else "BAD"  # NaN error fails too


def short(e, limit=240):
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0] if text else ''}"[:limit]


# ---------------------------------------------------------------- systems

class Skip(Exception):
    """A system not run at this shape: status and note."""

    def __init__(self, status, note):
        super().__init__(note)
        self.status, self.note = status, note


class Ctx:
    """What lives for the whole run."""

    def __init__(self, torch, args):
        self.torch, self.args = torch, args
        self.t0 = time.perf_counter()
        self.softgen = self.quack = self.liger = None  # module / function, or an error text
        self.qpool = None
        self.qpending = None
        self.kernels, self.rejected = {}, {}
        self.jit_used = {}   # (system, dtype) -> seconds of first calls that compiled
        self.seen = set()    # (system, key) compiled in this process
        self.compile_s = 0.0
        self.side = None
        self.timer = None


def jit_key(name, m, n, dt):
    if name == "quack":
        return (dt, n)
    if name == "liger":  # Triton specialises on BLOCK_SIZE and on N (== 1, % 16)
        return (dt, 1 << max(0, (n - 1).bit_length()), n % 16 == 0, n == 1)
    if name == "compile":
        return (dt, m, n)
    return None


def jit_budget(ctx, name):
    args = ctx.args
    total = args.compile_budget_s if name == "compile" else args.jit_budget_s
    return total / max(1, len(args.dtypes))


def make_system(ctx, name, m, n, dt, xs, ys):
    """(call(i) -> output, graph op(i) -> output, note); raises Skip."""
    torch, args = ctx.torch, ctx.args
    if name == "copy":
        def copy(i):
            ys[i].copy_(xs[i])
            return ys[i]
        return copy, copy, ""
    if name == "torch":
        def eager(i):
            return torch.softmax(xs[i], -1)
        return eager, eager, ""
    if name == "softgen":
        if isinstance(ctx.softgen, str):
            raise Skip("fails", ctx.softgen)
        if (dt, n) not in ctx.kernels:
            if (dt, n) in ctx.rejected:
                raise Skip("rejected", ctx.rejected[(dt, n)][:300])
            raise Skip("missing", "no kernel for this N x dtype in --kernels")
        sg = ctx.softgen

        def public(i):
            return sg.softmax(xs[i], dim=-1)

        def into(i):
            return sg.softmax(xs[i], dim=-1, out=ys[i])
        return public, into, ""
    if name == "quack":
        if isinstance(ctx.quack, str):
            raise Skip("absent", ctx.quack)
        vec = 16 // ELEM[dt]
        if n % vec:
            raise Skip("refuses", f"N % {vec} != 0: quack asserts N divisible by its "
                       f"{vec}-element vector; not called")
        fwd = ctx.quack

        def quack(i):
            return fwd(xs[i])
        return quack, quack, ""
    if name == "liger":
        if isinstance(ctx.liger, str):
            raise Skip("absent", ctx.liger)
        fn = ctx.liger

        def liger(i):
            return fn.apply(xs[i])
        return liger, liger, ""
    if name == "compile":
        if args.no_compile:
            raise Skip("skipped", "--no-compile")
        import torch._dynamo
        torch._dynamo.reset()
        f = torch.compile(lambda x: torch.softmax(x, -1), dynamic=False, fullgraph=True)

        def compiled(i):
            return f(xs[i])
        return compiled, compiled, ""
    raise ValueError(name)


def first_call(ctx, name, op):
    """op(0) once, waiting on quack's compile pool when the kernel is still compiling."""
    torch = ctx.torch
    pending = ctx.qpending
    t0 = time.perf_counter()
    while True:
        try:
            y = op(0)
            torch.cuda.synchronize()
            return y
        except BaseException as e:  # noqa: BLE001 - quack's CompilePending is a BaseException
            if pending is None or not isinstance(e, pending):
                raise
            if time.perf_counter() - t0 > ctx.args.quack_wait_s:
                raise Skip("skipped", f"quack's compile pool had not finished this N after "
                           f"{ctx.args.quack_wait_s:g} s") from None
            time.sleep(0.02)


def classify(name, e):
    text = str(e)
    if name == "quack" and (isinstance(e, AssertionError) or "divisible" in text):
        return "refuses"
    if name == "liger" and "exceeds" in text:
        return "refuses"
    return "fails"


# ---------------------------------------------------------------- one shape

class Entry:
    def __init__(self, name, row):
        self.name, self.row = name, row
        self.call = self.gop = self.ring = None
        self.outs = None
        self.batch = 1
        self.host = 0.0
        self.cursor = 0
        self.call_rounds = []
        self.graph = None
        self.gouts = None
        self.launches = 0
        self.ghost = 0.0
        self.graph_rounds = []


def new_row(name, m, n, dt, nsets):
    row = {k: None for k in CSV_FIELDS}
    row.update(system=name, M=m, N=n, dtype=dt, kinds="+".join(kinds_of(m, n, dt)),
               status="ok", graph_status="none", sets=nsets, note="")
    return row


def add_note(row, text):
    row["note"] = (row["note"] + "; " if row["note"] else "") + text


def median_rounds(rounds):
    return statistics.median([s for r in rounds for s in r])


def round_ratios(copy_rounds, rounds):
    return [statistics.median(c) / statistics.median(r)
            for c, r in zip(copy_rounds, rounds) if r and statistics.median(r) > 0]


def bench_shape(ctx, m, n, dt):
    torch, args, timer = ctx.torch, ctx.args, ctx.timer
    tdt = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}[dt]
    es = ELEM[dt]
    elems = m * n
    set_bytes = elems * 2 * es
    l2 = args.l2_mb * 1e6
    nsets = 1 if set_bytes >= 4 * l2 else min(MAX_SETS, int(math.ceil(4 * l2 / set_bytes)))
    per = (elems + ALIGN_ELEMS - 1) // ALIGN_ELEMS * ALIGN_ELEMS
    gen = torch.Generator(device="cuda")
    gen.manual_seed(1234 + 7 * m + n)
    xpool = torch.randn(nsets * per, device="cuda", dtype=tdt, generator=gen)
    ypool = torch.zeros(nsets * per, device="cuda", dtype=tdt)
    xs = [xpool[i * per:i * per + elems].view(m, n) for i in range(nsets)]
    ys = [ypool[i * per:i * per + elems].view(m, n) for i in range(nsets)]

    entries = []
    for name in args.systems:
        e = Entry(name, new_row(name, m, n, dt, nsets))
        row = e.row
        key = jit_key(name, m, n, dt)
        t1 = None
        try:
            if key is not None and (name, key) not in ctx.seen:
                used = ctx.jit_used.get((name, dt), 0.0)
                if used >= jit_budget(ctx, name):
                    raise Skip("skipped", f"{name} compile budget used ({used:.0f} s for {dt})")
            call, gop, note = make_system(ctx, name, m, n, dt, xs, ys)
            if note:
                add_note(row, note)
            if name == "softgen":
                before = dict(ctx.softgen.cache_info())
            t1 = time.perf_counter()
            y0 = first_call(ctx, name, call)
            first = time.perf_counter() - t1
            row["first_s"] = round(first, 4)
            if key is not None and (name, key) not in ctx.seen:
                ctx.seen.add((name, key))
                ctx.jit_used[(name, dt)] = ctx.jit_used.get((name, dt), 0.0) + first
                if name == "compile":
                    ctx.compile_s += first
            if name == "softgen":
                after = ctx.softgen.cache_info()
                if after.get("compiles", 0) > before.get("compiles", 0):
                    add_note(row, "compiled, not preloaded")
                if after.get("device_copies", 0) > before.get("device_copies", 0):
                    add_note(row, "the binding copied for alignment")
            err, nan = check(torch, xs[0], y0, dt, exact=name == "copy")
            row["max_err"] = f"{err:.2e}"
            row["status"] = verdict(dt, err, nan, exact=name == "copy")
            if row["status"] != "ok":
                add_note(row, f"check: error {err:.2e} x the tolerance (RTOL {RTOL[dt]:.0e})")
            del y0
            e.call, e.gop = call, gop
            e.outs = [None] * nsets

            def ring(i, call=call, outs=e.outs):
                outs[i] = call(i)
            e.ring = ring
            e.host = timer.warmup(ring, nsets)
            probe, e.cursor = timer.calls(ring, nsets, 0, 1, 3, e.host)
            t_est = statistics.median(probe)
            e.batch = timer.batch_for(t_est)
            row["batch"], row["host_us"] = e.batch, round(e.host, 2)
            entries.append(e)
        except Skip as s:
            row["status"] = s.status
            add_note(row, s.note)
            if t1 is not None and key is not None and (name, key) not in ctx.seen:
                ctx.jit_used[(name, dt)] = ctx.jit_used.get((name, dt), 0.0) + \
                    time.perf_counter() - t1  # waiting on quack's pool costs time too
            entries.append(e)
            continue
        except Exception as ex:  # noqa: BLE001 - a system that breaks is a result (OOM too)
            row["status"] = classify(name, ex)
            add_note(row, short(ex))
            if t1 is not None and key is not None and (name, key) not in ctx.seen:
                ctx.jit_used[(name, dt)] = ctx.jit_used.get((name, dt), 0.0) + \
                    time.perf_counter() - t1  # a failed compile costs time too
            e.call = e.gop = e.ring = e.outs = None
            _settle(torch)
            torch.cuda.empty_cache()
            entries.append(e)
            continue
        # the graph
        if name in args.no_graph:
            add_note(row, "graph: not captured (--no-graph)")
            continue
        try:
            launches = nsets * max(1, int(math.ceil(GRAPH_MIN_US / max(t_est * nsets, 1e-3))))
            launches = max(1, min(MAX_LAUNCHES, launches))
            e.graph, e.gouts = capture(ctx, gop, nsets, launches)
            e.launches = launches
            h0 = time.perf_counter()
            e.graph.replay()
            e.ghost = (time.perf_counter() - h0) * 1e6
            torch.cuda.synchronize()
            row["graph_status"], row["launches"] = "ok", launches
        except Exception as ex:  # noqa: BLE001
            e.graph = e.gouts = None
            row["graph_status"] = "fails"
            add_note(row, "graph: " + short(ex))
            _settle(torch)
            torch.cuda.empty_cache()

    live = [e for e in entries if e.call is not None]
    iters = args.iters
    giters = max(2, args.iters // 2)
    for _ in range(args.rounds):
        for e in list(live):
            try:
                s, e.cursor = timer.calls(e.ring, nsets, e.cursor, e.batch, iters, e.host)
                e.call_rounds.append(s)
            except Exception as ex:  # noqa: BLE001
                e.row["status"] = "fails"
                add_note(e.row, "timing: " + short(ex))
                live.remove(e)
                e.graph = None
                _settle(torch)
        for e in live:
            if e.graph is None:
                continue
            try:
                e.graph_rounds.append(timer.replays(e.graph, e.launches, giters, e.ghost))
            except Exception as ex:  # noqa: BLE001
                e.row["graph_status"] = "fails"
                add_note(e.row, "graph timing: " + short(ex))
                e.graph = None
                _settle(torch)

    # the graph's output, checked: NaN-filled, one replay
    for e in live:
        if e.graph is None:
            continue
        try:
            y = e.gouts[0]
            y.fill_(float("nan"))
            e.graph.replay()
            torch.cuda.synchronize()
            err, nan = check(torch, xs[0], y, dt, exact=e.name == "copy")
            e.row["graph_err"] = f"{err:.2e}"
            st = verdict(dt, err, nan, exact=e.name == "copy")
            if st != "ok":
                e.row["graph_status"] = st
                add_note(e.row, f"graph check: error {err:.2e} x the tolerance")
        except Exception as ex:  # noqa: BLE001
            e.row["graph_status"] = "fails"
            add_note(e.row, "graph check: " + short(ex))
            _settle(torch)

    copy = next((e for e in entries if e.name == "copy"), None)
    crounds = copy.call_rounds if copy else []
    cgrounds = copy.graph_rounds if copy and copy.graph is not None else []
    copy_us = median_rounds(crounds) if crounds else None
    copy_gus = median_rounds(cgrounds) if cgrounds else None
    for e in entries:
        row = e.row
        row["copy_us"] = round(copy_us, 3) if copy_us else None
        row["copy_graph_us"] = round(copy_gus, 3) if copy_gus else None
        if e.call_rounds:
            t = median_rounds(e.call_rounds)
            row["call_us"] = round(t, 3)
            if copy_us:
                row["call_ratio"] = round(copy_us / t, 4)
                rr = round_ratios(crounds, e.call_rounds)
                if e.name == "copy":  # the copy's own noise: its round medians, relative
                    rr = [statistics.median(r) / t for r in e.call_rounds]
                if len(rr) > 1:
                    row["call_spread"] = round(max(rr) - min(rr), 4)
        if e.graph_rounds and e.graph is not None:
            t = median_rounds(e.graph_rounds)
            row["graph_us"] = round(t, 3)
            if copy_gus and len(cgrounds) == len(e.graph_rounds):
                row["graph_ratio"] = round(copy_gus / t, 4)
                rr = round_ratios(cgrounds, e.graph_rounds)
                if e.name == "copy":
                    rr = [statistics.median(r) / t for r in e.graph_rounds]
                if len(rr) > 1:
                    row["graph_spread"] = round(max(rr) - min(rr), 4)
    rows = [e.row for e in entries]
    judge(rows, args.noise)
    for e in entries:
        e.graph = e.gouts = e.outs = None
    del xs, ys, xpool, ypool, entries, live
    return rows


def _settle(torch):
    try:
        torch.cuda.synchronize()
    except Exception:  # noqa: BLE001 - a sticky error shows in the next system
        pass


def ok_call(r):
    return r is not None and r["status"] == "ok" and r["call_ratio"] is not None


def ok_graph(r):
    return r is not None and r["graph_status"] == "ok" and r["graph_ratio"] is not None


def judge(rows, noise_floor):
    """Fills softgen's row: the issue's target and the comparison with the best peer."""
    by = {r["system"]: r for r in rows}
    sg = by.get("softgen")
    if sg is None:
        return
    cu, cg = sg.get("copy_us"), sg.get("copy_graph_us")
    if cu is not None and cu >= BIG_COPY_US:
        sg["rule"] = "call>=0.90"
        if ok_call(sg):
            sg["target"] = "ok" if sg["call_ratio"] >= 0.90 else "miss"
    elif cu is not None:
        sg["rule"] = "graph<=1.5copy+2us"
        if ok_graph(sg) and cg is not None:
            sg["target"] = "ok" if sg["graph_us"] <= 1.5 * cg + 2.0 else "miss"
    for kind, ok, ratio, spread in (("call", ok_call, "call_ratio", "call_spread"),
                                    ("graph", ok_graph, "graph_ratio", "graph_spread")):
        peers = [by[p] for p in PEERS if p in by and ok(by[p])]
        if not peers:
            continue
        best = max(peers, key=lambda r: r[ratio])
        sg["best_peer_" + kind] = f"{best['system']} {best[ratio]:.3f}"
        if ok(sg):
            noise = max(noise_floor, sg[spread] or 0.0, best[spread] or 0.0)
            if kind == "call":
                sg["noise"] = round(noise, 4)
            sg["vs_peer_" + kind] = "ok" if sg[ratio] >= best[ratio] - noise else "miss"


# ---------------------------------------------------------------- reports

def write_csv_header(path):
    with open(path, "w", newline="") as f:
        csv.DictWriter(f, fieldnames=CSV_FIELDS).writeheader()


def append_csv(path, rows):
    with open(path, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=CSV_FIELDS)
        for r in rows:
            w.writerow({k: ("" if r.get(k) is None else r.get(k)) for k in CSV_FIELDS})


def read_csv(path):
    rows = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            row = {}
            for k in CSV_FIELDS:
                v = r.get(k, "")
                if k in NUMERIC:
                    if v in ("", None):
                        row[k] = None
                    else:
                        row[k] = int(float(v)) if k in ("M", "N") else float(v)
                else:
                    row[k] = v if v != "" else (None if k not in ("note",) else "")
            rows.append(row)
    return rows


def geomean(vals):
    vals = [v for v in vals if v and v > 0]
    if not vals:
        return None
    return math.exp(sum(math.log(v) for v in vals) / len(vals))


def pct(vals, q):
    vals = sorted(v for v in vals if v is not None)
    if not vals:
        return None
    return vals[min(len(vals) - 1, int(q * (len(vals) - 1) + 0.5))]


def f2(v, nd=2):
    return "—" if v is None else f"{v:.{nd}f}"


def cell(r, kind):
    if r is None:
        return ""
    if kind == "call":
        if r["call_ratio"] is not None and r["status"] in ("ok", "BAD", "NaN"):
            return f"{r['call_ratio']:.2f}" + ("" if r["status"] == "ok" else f" ({r['status']})")
        return r["status"]
    if r["graph_ratio"] is not None and r["graph_status"] in ("ok", "BAD", "NaN"):
        return f"{r['graph_ratio']:.2f}" + ("" if r["graph_status"] == "ok"
                                            else f" ({r['graph_status']})")
    return r["graph_status"] if r["status"] == "ok" else "—"


def write_md(path, rows, info, args):
    systems = [s for s in args.systems if s != "copy"]
    out = [f"# softgen sweep against the copy and peers — {info.get('gpu', '?')}", "",
           f"- date: {info.get('date', '?')}; code: {info.get('commit', '?')}; shapes: "
           f"`{info.get('shapes', '?')}`; kernels: {info.get('kernels', '?')}",
           f"- GPU: {info.get('gpu', '?')} ({info.get('l2', '?')}), CUDA {info.get('cuda', '?')}; "
           f"torch {info.get('torch', '?')}, triton {info.get('triton', '?')}, quack "
           f"{info.get('quack', '?')}, Liger {info.get('liger', '?')}, "
           f"python {info.get('python', '?')}",
           f"- method: {info.get('method', '')}",
           "- call ratio = copy time / system time (the public call, device events); graph "
           "ratio = copy graph / system graph (CUDA-graph replay: the kernel alone). Geomeans "
           "and targets count status `ok` only; `spread` = max - min of the per-round ratios "
           "(for the copy: of its per-round median times over their median, its own noise).",
           ""]
    for dt in args.dtypes:
        drows = [r for r in rows if r["dtype"] == dt]
        if not drows:
            continue
        shapes = sorted({(r["M"], r["N"]) for r in drows}, key=lambda s: (s[1], s[0]))
        by = {(r["system"], r["M"], r["N"]): r for r in drows}
        measured = sum(1 for s in shapes if (by.get(("copy",) + s) or {}).get("call_us"))
        out += [f"## {dt}: {len(shapes)} shapes, {measured} measured", ""]
        out += ["| system | call ratio geomean (n) | graph ratio geomean (n) | call spread "
                "median / p90 | graph spread median / p90 | ok | BAD | NaN | refuses | "
                "rejected | fails | absent | skipped |",
                "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for s in args.systems:
            rs = [r for r in drows if r["system"] == s]
            gc = geomean([r["call_ratio"] for r in rs if ok_call(r)])
            gg = geomean([r["graph_ratio"] for r in rs if ok_graph(r)])
            nc = sum(1 for r in rs if ok_call(r))
            ng = sum(1 for r in rs if ok_graph(r))
            cs = [r["call_spread"] for r in rs if ok_call(r)]
            gs = [r["graph_spread"] for r in rs if ok_graph(r)]
            cnt = {k: sum(1 for r in rs if r["status"] == k) for k in
                   ("ok", "BAD", "NaN", "refuses", "rejected", "fails", "absent", "skipped")}
            cnt["fails"] += sum(1 for r in rs if r["status"] == "missing")
            out.append(f"| {LABELS.get(s, s)} | {f2(gc, 3)} ({nc}) | {f2(gg, 3)} ({ng}) | "
                       f"{f2(pct(cs, .5), 3)} / {f2(pct(cs, .9), 3)} | "
                       f"{f2(pct(gs, .5), 3)} / {f2(pct(gs, .9), 3)} | "
                       + " | ".join(str(cnt[k]) for k in
                                    ("ok", "BAD", "NaN", "refuses", "rejected", "fails",
                                     "absent", "skipped")) + " |")
        graphs_failed = {s: sum(1 for r in drows if r["system"] == s and r["status"] == "ok"
                                and r["graph_status"] not in ("ok",)) for s in args.systems}
        gf = ", ".join(f"{LABELS.get(s, s)} {v}" for s, v in graphs_failed.items() if v)
        if gf:
            out.append("")
            out.append(f"Graph not measured or wrong where the call was ok: {gf} (notes in "
                       "sweep.csv).")
        out.append("")
        # softgen and the targets
        sg = [r for r in drows if r["system"] == "softgen"]
        if sg:
            big = [r for r in sg if r["rule"] == "call>=0.90"]
            small = [r for r in sg if r["rule"] == "graph<=1.5copy+2us"]
            gc = geomean([r["call_ratio"] for r in sg if ok_call(r)])
            gg = geomean([r["graph_ratio"] for r in sg if ok_graph(r)])
            vpc = [r for r in sg if r["vs_peer_call"]]
            vpg = [r for r in sg if r["vs_peer_graph"]]
            at95 = [r for r in sg if ok_call(r)]
            noise = [r["noise"] for r in sg if r["noise"] is not None]
            out += ["### softgen against issue 21's targets", "",
                    f"- copy >= {BIG_COPY_US:g} us, call ratio >= 0.90: "
                    f"**{sum(1 for r in big if r['target'] == 'ok')} of {len(big)}** shapes "
                    f"({sum(1 for r in big if r['target'] is None)} not measured or not ok)",
                    f"- copy < {BIG_COPY_US:g} us, graph time <= 1.5 x copy graph + 2 us: "
                    f"**{sum(1 for r in small if r['target'] == 'ok')} of {len(small)}** "
                    f"({sum(1 for r in small if r['target'] is None)} not measured or not ok)",
                    f"- geomean >= 0.95: call {f2(gc, 3)}, graph {f2(gg, 3)}",
                    f"- >= the best peer within noise: call "
                    f"**{sum(1 for r in vpc if r['vs_peer_call'] == 'ok')} of {len(vpc)}**, "
                    f"graph **{sum(1 for r in vpg if r['vs_peer_graph'] == 'ok')} of "
                    f"{len(vpg)}** shapes where a peer ran (noise per shape: the larger round "
                    f"spread of the two, at least {args.noise:g}; median "
                    f"{f2(pct(noise, .5), 3)}, p90 {f2(pct(noise, .9), 3)})",
                    f"- call ratio >= 0.95 (shapes.txt's bar): "
                    f"{sum(1 for r in at95 if r['call_ratio'] >= 0.95)} of {len(at95)}", ""]
        # kinds
        out += ["### Kinds of shape: geomean call ratio / graph ratio (shapes)", "",
                "| kind | " + " | ".join(LABELS.get(s, s) for s in systems) + " |",
                "|---|" + "---:|" * len(systems)]
        for kind in KINDS:
            cells = []
            for s in systems:
                rs = [r for r in drows
                      if r["system"] == s and kind in (r["kinds"] or "").split("+")]
                gc = geomean([r["call_ratio"] for r in rs if ok_call(r)])
                gg = geomean([r["graph_ratio"] for r in rs if ok_graph(r)])
                cells.append(f"{f2(gc)} / {f2(gg)} ({sum(1 for r in rs if ok_call(r))})")
            out.append(f"| {KIND_TEXT[kind]} | " + " | ".join(cells) + " |")
        out.append("")
        # worst shapes
        if sg:
            out += ["### softgen's worst shapes", "",
                    "| M×N | kinds | copy us | copy graph us | softgen call | softgen graph | "
                    "graph us | best peer call | best peer graph | target | note |",
                    "|---|---|---:|---:|---:|---:|---:|---|---|---|---|"]
            bad = [r for r in sg if r["status"] != "ok" and r["status"] != "skipped"]
            worst_c = sorted((r for r in sg if ok_call(r)), key=lambda r: r["call_ratio"])[:10]
            worst_g = sorted((r for r in sg if ok_graph(r)), key=lambda r: r["graph_ratio"])[:10]
            seen, pick = set(), []
            for r in bad + worst_c + worst_g:
                if id(r) not in seen:
                    seen.add(id(r))
                    pick.append(r)
            for r in pick:
                out.append(f"| {r['M']}×{r['N']} | {r['kinds']} | {f2(r['copy_us'], 1)} | "
                           f"{f2(r['copy_graph_us'], 2)} | {cell(r, 'call')} | "
                           f"{cell(r, 'graph')} | {f2(r['graph_us'], 2)} | "
                           f"{r['best_peer_call'] or '—'} | {r['best_peer_graph'] or '—'} | "
                           f"{r['target'] or '—'} | {(r['note'] or '')[:120]} |")
            out.append("")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


MARKERS = {"softgen": ("o", "tab:red"), "quack": ("^", "tab:blue"), "liger": ("s", "tab:green"),
           "torch": ("x", "tab:gray"), "compile": ("D", "tab:purple")}


def write_png(path, rows, info, args):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as e:  # noqa: BLE001
        log(f"sweep.py: no plot ({type(e).__name__}: {e})")
        return
    dts = [d for d in args.dtypes if any(r["dtype"] == d for r in rows)]
    if not dts:
        return
    systems = [s for s in args.systems if s != "copy"]
    fig, axes = plt.subplots(2, len(dts), figsize=(6.5 * len(dts), 9), squeeze=False)
    for col, dt in enumerate(dts):
        for rowi, (kind, ok, key) in enumerate((("call", ok_call, "call_ratio"),
                                                ("graph", ok_graph, "graph_ratio"))):
            ax = axes[rowi][col]
            for s in systems:
                pts = [(r["N"], r[key]) for r in rows
                       if r["dtype"] == dt and r["system"] == s and ok(r)]
                if not pts:
                    continue
                mk, color = MARKERS.get(s, (".", None))
                ax.scatter([p[0] for p in pts], [min(p[1], 1.5) for p in pts], marker=mk,
                           s=14, alpha=0.7, color=color,
                           facecolors="none" if s != "softgen" and mk != "x" else None,
                           label=f"{LABELS.get(s, s)} ({len(pts)})")
            ax.axhline(1.0, color="black", lw=0.8)
            ax.axhline(0.9, color="gray", lw=0.8, ls="--")
            ax.set_xscale("log", base=2)
            ax.set_ylim(0, 1.5)
            ax.set_xlabel("N (row length)")
            ax.set_ylabel(f"{kind} ratio to copy")
            ax.set_title(f"{dt}, {'public call' if kind == 'call' else 'kernel alone (graph)'}",
                         fontsize=10)
            ax.grid(alpha=0.3)
            if ax.get_legend_handles_labels()[0]:
                ax.legend(fontsize=7, loc="best")
    fig.suptitle(f"softmax / copy over the sweep ({info.get('gpu', '?')}, "
                 f"{info.get('date', '?')}, {info.get('commit', '?')})", fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


# ---------------------------------------------------------------- main

def parse(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n", 2)[2])
    p.add_argument("outdir")
    p.add_argument("--kernels", help="gen-sweep.sh's folder (peers.manifest, rejected.tsv, "
                   ".cubin): softgen's kernels, preloaded")
    p.add_argument("--shapes", default=os.path.join(HERE, "shapes-sweep.txt"))
    p.add_argument("--max-shapes", type=int, default=0,
                   help="the first K shapes of the spread order (0: all)")
    p.add_argument("--dtypes", default=",".join(DTYPES))
    p.add_argument("--systems", default=",".join(SYSTEMS),
                   help="from " + ",".join(SYSTEMS) + " (copy is always measured)")
    p.add_argument("--iters", type=int, default=8,
                   help="call samples per round (8); graph replays per round: half, at least 2")
    p.add_argument("--rounds", type=int, default=3, help="interleaved rounds (3)")
    p.add_argument("--budget-s", type=float, default=480.0,
                   help="no new shape after this many seconds from the start (480)")
    p.add_argument("--compile-budget-s", type=float, default=90.0,
                   help="torch.compile's first calls, all dtypes together (90)")
    p.add_argument("--jit-budget-s", type=float, default=60.0,
                   help="Liger's and quack's compiling first calls, each, all dtypes (60)")
    p.add_argument("--quack-workers", type=int, default=8,
                   help="processes of quack's compile pool, started first (8; 0: compile "
                   "in process)")
    p.add_argument("--quack-wait-s", type=float, default=20.0,
                   help="longest wait for one N in quack's pool (20)")
    p.add_argument("--no-compile", action="store_true", help="skip torch.compile")
    p.add_argument("--no-graph", default="",
                   help="systems whose call is not captured in a graph (e.g. quack,liger)")
    p.add_argument("--warmup-ms", type=float, default=2.0)
    p.add_argument("--batch-us", type=float, default=20.0)
    p.add_argument("--l2-mb", type=float, default=60.0)
    p.add_argument("--filler-mb", type=float, default=256.0)
    p.add_argument("--noise", type=float, default=0.02,
                   help="least noise allowed in the best-peer comparison (0.02)")
    p.add_argument("--rt-lib",
                   help="libsoftgen_rt.so (default $SOFTGEN_RT_LIBRARY, the build tree)")
    p.add_argument("--commit", help="the code measured, for the report (default: git HEAD)")
    p.add_argument("--report-only", action="store_true",
                   help="rewrite sweep.md and sweep.png from OUTDIR/sweep.csv and exit")
    args = p.parse_args(argv)
    args.dtypes = [d for d in args.dtypes.split(",") if d]
    args.systems = [s for s in args.systems.split(",") if s]
    for d in args.dtypes:
        if d not in DTYPES:
            p.error(f"unknown dtype {d!r} ({', '.join(DTYPES)})")
    for s in args.systems:
        if s not in SYSTEMS:
            p.error(f"unknown system {s!r} ({', '.join(SYSTEMS)})")
    if "copy" not in args.systems:
        args.systems.insert(0, "copy")
    args.systems = [s for s in SYSTEMS if s in args.systems]
    args.no_graph = [s for s in args.no_graph.split(",") if s]
    for s in args.no_graph:
        if s not in SYSTEMS:
            p.error(f"--no-graph: unknown system {s!r}")
    if args.iters < 1 or args.iters > MAX_SAMPLES or args.rounds < 1:
        p.error(f"--iters must be 1..{MAX_SAMPLES}, --rounds positive")
    return args


def report_only(args):
    csv_path = os.path.join(args.outdir, "sweep.csv")
    rows = read_csv(csv_path)
    info = {}
    ipath = os.path.join(args.outdir, "sweep-info.json")
    if os.path.exists(ipath):
        with open(ipath) as f:
            info = json.load(f)
    present = {r["dtype"] for r in rows}
    args.dtypes = [d for d in args.dtypes if d in present]
    sysp = {r["system"] for r in rows}
    args.systems = [s for s in SYSTEMS if s in sysp]
    write_md(os.path.join(args.outdir, "sweep.md"), rows, info, args)
    write_png(os.path.join(args.outdir, "sweep.png"), rows, info, args)
    print(f"sweep.py: {len(rows)} rows; rewrote sweep.md (and sweep.png, with matplotlib) in "
          f"{args.outdir}")
    return 0


def git_head():
    try:
        return subprocess.run(["git", "-C", REPO, "log", "-1", "--format=%h %s"],
                              capture_output=True, text=True, timeout=10).stdout.strip()[:80]
    except Exception:  # noqa: BLE001
        return ""


def setup_peers(ctx, order):
    args, torch = ctx.args, ctx.torch
    if "softgen" in args.systems:
        if args.rt_lib:
            os.environ["SOFTGEN_RT_LIBRARY"] = os.path.abspath(args.rt_lib)
        sys.path.insert(0, os.path.join(REPO, "python"))
        try:
            import softgen
            n = softgen.preload(args.kernels) if args.kernels else 0
            ctx.softgen = softgen
            log(f"sweep.py: softgen: {n} kernels preloaded from {args.kernels}")
        except Exception as e:  # noqa: BLE001
            ctx.softgen = f"binding unavailable: {short(e)}"
            log(f"sweep.py: softgen {ctx.softgen}")
    if "liger" in args.systems:
        try:
            from liger_kernel.ops.softmax import LigerSoftmaxFunction
            ctx.liger = LigerSoftmaxFunction
        except Exception as e:  # noqa: BLE001
            ctx.liger = f"liger_kernel does not import: {short(e)}"
            log(f"sweep.py: {ctx.liger}")
    if "quack" in args.systems:
        try:
            from quack.softmax import softmax_fwd
            ctx.quack = softmax_fwd
        except Exception as e:  # noqa: BLE001
            ctx.quack = f"quack does not import: {short(e)}"
            log(f"sweep.py: {ctx.quack}")
        if not isinstance(ctx.quack, str) and args.quack_workers > 0:
            try:  # quack's own compile pool: every N x dtype it will be asked for, in order
                from quack.cache import async_compile as qa
                from quack.cute_dsl_utils import torch2cute_dtype_map
                from quack.softmax import Softmax
                ctx.qpool = qa.activate(args.quack_workers)
                ctx.qpending = qa.CompilePending
                tmap = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}
                sent, done = 0, set()
                for dt in args.dtypes:
                    cdt = torch2cute_dtype_map[tmap[dt]]
                    for _, n, _ in order:
                        if n % (16 // ELEM[dt]) or (dt, n) in done:
                            continue
                        done.add((dt, n))
                        try:
                            Softmax.compile(cdt, cdt, n)
                        except qa.CompilePending:
                            sent += 1
                        except Exception:  # noqa: BLE001 - the measurement records it
                            pass
                log(f"sweep.py: quack: {sent} compiles sent to its pool of "
                    f"{args.quack_workers} processes ({len(done) - sent} cached)")
            except Exception as e:  # noqa: BLE001
                log(f"sweep.py: quack's compile pool unavailable ({short(e)}); compiling "
                    "in process")
                ctx.qpool = ctx.qpending = None
                try:
                    qa.deactivate()
                except Exception:  # noqa: BLE001
                    pass


def main(argv=None):
    global _log_file
    args = parse(argv)
    if args.report_only:
        return report_only(args)
    os.makedirs(args.outdir, exist_ok=True)
    _log_file = open(os.path.join(args.outdir, "sweep.log"), "w")
    shapes = read_shapes(args.shapes)
    order = spread_order(shapes)
    if args.max_shapes > 0:
        order = order[:args.max_shapes]
    t_start = time.perf_counter()
    import torch
    if not torch.cuda.is_available():
        log("sweep.py: no CUDA device")
        return 3
    torch.set_grad_enabled(False)
    for name in ("cache_size_limit", "recompile_limit", "accumulated_cache_size_limit",
                 "accumulated_recompile_limit"):
        try:
            import torch._dynamo
            if hasattr(torch._dynamo.config, name):
                setattr(torch._dynamo.config, name, 1024)
        except Exception:  # noqa: BLE001
            pass
    ctx = Ctx(torch, args)
    ctx.t0 = t_start
    ctx.kernels, ctx.rejected = read_kernels(args.kernels)
    if "softgen" in args.systems and not args.kernels:
        log("sweep.py: no --kernels: softgen compiles on first use (needs libsoftgen.so) or fails")
    setup_peers(ctx, order)

    props = torch.cuda.get_device_properties(0)
    l2 = getattr(props, "L2_cache_size", 0)
    versions = {}
    for mod, key in (("triton", "triton"), ("quack", "quack"), ("liger_kernel", "liger")):
        try:
            versions[key] = getattr(__import__(mod), "__version__", "?")
        except Exception:  # noqa: BLE001
            versions[key] = "absent"
    info = {"gpu": torch.cuda.get_device_name(0),
            "date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"),
            "l2": f"L2 {l2 / 2**20:.0f} MiB reported" if l2 else "L2 not reported",
            "cuda": torch.version.cuda, "torch": torch.__version__,
            "python": sys.version.split()[0], "commit": args.commit or git_head() or "unknown",
            "shapes": os.path.relpath(args.shapes, REPO) if args.shapes.startswith(REPO)
            else os.path.basename(args.shapes),
            "kernels": f"{len(ctx.kernels)} preloaded, {len(ctx.rejected)} rejected",
            "method": f"{args.rounds} interleaved rounds x {args.iters} call samples "
                      f"(median) and x {max(2, args.iters // 2)} graph replays; buffer sets "
                      f"rotated over 4 x L2 (assumed {args.l2_mb:g} MB, at most {MAX_SETS}); "
                      f"L2 evicted and the host queued ahead before each round; graphs of "
                      f">= {GRAPH_MIN_US:g} us (<= {MAX_LAUNCHES} launches); outputs checked "
                      f"against float64 (|err| <= ATOL + RTOL |ref| per element; RTOL f16 "
                      f"{RTOL['f16']:g}, bf16 {RTOL['bf16']:g}, f32 {RTOL['f32']:g})", **versions}
    with open(os.path.join(args.outdir, "sweep-info.json"), "w") as f:
        json.dump(info, f, indent=1)
    log(f"sweep.py: {info['gpu']} ({info['l2']}), torch {info['torch']}, triton "
        f"{versions['triton']}, quack {versions['quack']}, Liger {versions['liger']}; "
        f"{len(order)} shapes x {args.dtypes} x {args.systems}; setup "
        f"{time.perf_counter() - t_start:.0f} s")

    ctx.timer = Timer(torch, args)
    ctx.side = torch.cuda.Stream()
    paths = {k: os.path.join(args.outdir, f"sweep.{k}") for k in ("csv", "md", "png")}
    write_csv_header(paths["csv"])
    all_rows = []
    deadline = t_start + args.budget_s
    rc = 0
    last_md = time.perf_counter()
    signal.signal(signal.SIGTERM, _on_signal)
    try:
        for di, dt in enumerate(args.dtypes):
            now = time.perf_counter()
            dt_deadline = now + max(0.0, deadline - now) / (len(args.dtypes) - di)
            nmeas = 0
            for m, n, _tag in order:
                s0 = time.perf_counter()
                if s0 > dt_deadline:
                    rows = [new_row(s, m, n, dt, None) for s in args.systems]
                    for r in rows:
                        r["status"], r["note"] = "skipped", "time budget"
                else:
                    try:
                        rows = bench_shape(ctx, m, n, dt)
                        nmeas += 1
                    except torch.cuda.OutOfMemoryError as e:
                        rows = [new_row(s, m, n, dt, None) for s in args.systems]
                        for r in rows:
                            r["status"], r["note"] = "fails", f"out of memory: {str(e)[:120]}"
                    torch.cuda.empty_cache()
                    by = {r["system"]: r for r in rows}
                    cu = (by.get("copy") or {}).get("call_us")
                    log(f"{dt:4} {m:>9}x{n:<7} {time.perf_counter() - s0:5.2f}s copy "
                        f"{f2(cu, 1)} us  " + "  ".join(
                            f"{r['system']}={cell(r, 'call')}/{cell(r, 'graph')}"
                            for r in rows if r["system"] != "copy"))
                append_csv(paths["csv"], rows)
                all_rows += rows
                if time.perf_counter() - last_md > 30:
                    write_md(paths["md"], all_rows, info, args)
                    last_md = time.perf_counter()
            log(f"sweep.py: {dt}: {nmeas} of {len(order)} shapes measured; "
                f"{time.perf_counter() - t_start:.0f} s so far")
            write_md(paths["md"], all_rows, info, args)
            write_png(paths["png"], all_rows, info, args)
    except (KeyboardInterrupt, Interrupted) as e:
        rc = 143 if isinstance(e, Interrupted) else 130
        log(f"sweep.py: interrupted ({type(e).__name__}); writing what was measured")
        write_md(paths["md"], all_rows, info, args)
        write_png(paths["png"], all_rows, info, args)
    finally:
        if ctx.qpool is not None:
            try:
                from quack.cache import async_compile as qa
                qa.deactivate()
            except Exception:  # noqa: BLE001
                pass
    used = ", ".join(f"{s} {dt} {v:.0f} s" for (s, dt), v in sorted(ctx.jit_used.items()))
    log(f"sweep.py: done in {time.perf_counter() - t_start:.0f} s (first calls that "
        f"compiled: {used or 'none'}); wrote {paths['csv']}, {paths['md']}, {paths['png']}")
    return rc


if __name__ == "__main__":
    sys.exit(main())
