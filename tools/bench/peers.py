#!/usr/bin/env python3
"""peers.py - softgen against its peers on the GPU machine, in one process (issue 5, part 5).

    python3 tools/bench/peers.py OUTDIR --manifest KDIR/peers.manifest [options]

Needs: torch with a CUDA GPU; triton (for the Triton fused softmax and, through
torch.compile, for Inductor); matplotlib (the plot; skipped with a note if
absent); softgen's Python binding (python/softgen, found from this file) with
libsoftgen_rt.so (--rt-lib, else $SOFTGEN_RT_LIBRARY, else <repo>/build/).
The manifest (tools/bench/gen.sh writes it) has lines "file<TAB>dtype<TAB>N",
paths relative to the manifest's folder; a rejected.tsv beside it gives the
reason softgen refused a kernel.

Systems, every shape of --shapes x every dtype:
  copy      y.copy_(x) of the same bytes: the reference ceiling (cudaMemcpy D2D)
  softgen   the generated kernel through the binding (launch arguments prepared
            once per buffer set, so the binding's per-call argument inspection is
            not timed; the public k(x, out=y) call is used for the check)
  torch     torch.softmax(x, -1)
  compile   torch.compile(softmax, dynamic=False, fullgraph=True), one compile
            per shape x dtype (skipped with --no-compile or past the time budget)
  triton    the tutorial's fused softmax: one program per row, the whole row in
            one block (BLOCK = next_power_of_2(N)), fp32 math; N > --triton-max-n
            is not tried ("skipped"), a compile or launch error is "fails"
Method (the same as softgen-bench): random normal inputs; a buffer set (input +
output) is rotated over ceil(4 x L2 / set bytes) sets when smaller than 4 x L2
(L2 assumed --l2-mb, default 60 MB); after warm-up, rounds of up to 25 samples
with CUDA events, each round preceded by a device spin (torch.cuda._sleep, so the
host queues the whole round ahead of the device) and a 256 MB copy that evicts
L2; one sample = one launch, or a batch of k launches divided by k when a launch
is under --batch-us (20 us); median of --iters samples; rounds of all systems
interleave for each shape. GB/s counts read + write: M x N x (in + out bytes).

Produces in OUTDIR (rewritten after each dtype, so a cut-off run keeps what it had):
  peers.csv   one row per system x shape x dtype: time_us, gbps, ratio_to_copy, ...
  peers.md    per dtype: rows = shapes, columns = copy GB/s and each system's ratio;
              with GPU name, date, versions, and per-system geomean / worst
  peers.png   ratio to copy per shape, one line per system, one panel per dtype
  peers.log   this run's console output
Exit status: 0 done (failures of peers are results, not errors), 2 bad usage,
3 no CUDA device.
"""
import argparse
import csv
import ctypes
import datetime
import math
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
SYSTEMS = ["copy", "softgen", "torch", "compile", "triton"]
LABELS = {"copy": "copy", "softgen": "softgen", "torch": "torch.softmax",
          "compile": "torch.compile", "triton": "Triton fused"}
DTYPES = ["f16", "bf16", "f32"]
ELEM = {"f16": 2, "bf16": 2, "f32": 4}
TOL = {"f16": 2e-3, "bf16": 1e-2, "f32": 1e-5}  # max |y - softmax_f32(x)|
SAMPLES_PER_ROUND = 25
MAX_SETS = 256

_log_file = None


def log(*parts):
    line = " ".join(str(p) for p in parts)
    print(line, flush=True)
    if _log_file:
        _log_file.write(line + "\n")
        _log_file.flush()


# ---------------------------------------------------------------- inputs

def read_shapes(path):
    shapes = []
    with open(path) as f:
        for no, line in enumerate(f, 1):
            line = line.split("#", 1)[0].split()
            if not line:
                continue
            if len(line) < 2:
                raise SystemExit(f"peers.py: {path}:{no}: expected 'M N'")
            shapes.append((int(line[0]), int(line[1])))
    return shapes


def read_manifest(path):
    """{(dtype, N): cubin path} and {(dtype, N): rejection reason}."""
    kernels, rejected = {}, {}
    if not path:
        return kernels, rejected
    base = os.path.dirname(os.path.abspath(path))
    with open(path) as f:
        for no, line in enumerate(f, 1):
            line = line.rstrip("\r\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) < 3:
                raise SystemExit(f"peers.py: {path}:{no}: expected 'file<TAB>dtype<TAB>N'")
            file, dt, n = cols[0], cols[1], int(cols[2])
            kernels[(dt, n)] = file if os.path.isabs(file) else os.path.join(base, file)
    rej = os.path.join(base, "rejected.tsv")
    if os.path.exists(rej):
        with open(rej) as f:
            for line in f:
                if line.startswith("#") or not line.strip():
                    continue
                cols = line.rstrip("\n").split("\t")
                if len(cols) >= 3:
                    rejected[(cols[0], int(cols[1]))] = cols[2]
    return kernels, rejected


# ---------------------------------------------------------------- timing

class Timer:
    """Times op(i) (i = buffer set index) with CUDA events, as softgen-bench does."""

    def __init__(self, torch, args):
        self.torch = torch
        self.args = args
        n = args.filler_mb * 1e6 / 2 / 4
        n = int(n) // 64 * 64
        self.fa = torch.full((n,), 1.0, device="cuda") if n else None
        self.fb = torch.empty_like(self.fa) if n else None
        self.has_sleep = hasattr(torch.cuda, "_sleep")
        self.events = [torch.cuda.Event(enable_timing=True) for _ in range(SAMPLES_PER_ROUND + 1)]

    def warmup(self, op, nsets):
        """Runs every set until warmup_ms passes; returns host enqueue us per op."""
        torch = self.torch
        t0 = time.perf_counter()
        host = []
        it = 0
        while it < 3 or (time.perf_counter() - t0) * 1e3 < self.args.warmup_ms:
            h0 = time.perf_counter()
            for i in range(nsets):
                op(i)
            host.append((time.perf_counter() - h0) * 1e6 / nsets)
            torch.cuda.synchronize()
            it += 1
        return min(host)

    def round(self, op, nsets, cursor, batch, samples, host_us):
        """One round; returns (list of us per op, new cursor)."""
        torch = self.torch
        ops = samples * batch
        if self.has_sleep:
            # long enough for the host to queue the whole round; a slower clock only lengthens it
            us = 1.5 * ops * host_us + 200.0
            torch.cuda._sleep(int(us * 2000))
        if self.fa is not None:
            self.fb.copy_(self.fa)
        ev = self.events
        ev[0].record()
        for s in range(samples):
            for _ in range(batch):
                op(cursor)
                cursor = (cursor + 1) % nsets
            ev[s + 1].record()
        ev[samples].synchronize()
        return [ev[s].elapsed_time(ev[s + 1]) * 1e3 / batch for s in range(samples)], cursor

    def batch_for(self, t_us):
        b = self.args.batch_us
        if not (t_us > 0) or b <= 0 or t_us >= b:
            return 1
        return min(1000, int(math.ceil(b / t_us)))


# ---------------------------------------------------------------- systems

TRITON_KERNEL = None


def triton_kernel():
    """The fused softmax of Triton's tutorial: one program per row, whole row in one block."""
    global TRITON_KERNEL
    if TRITON_KERNEL is None:
        import triton
        import triton.language as tl

        @triton.jit
        def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_cols,
                           BLOCK_SIZE: tl.constexpr):
            row_idx = tl.program_id(0).to(tl.int64)
            col_offsets = tl.arange(0, BLOCK_SIZE)
            mask = col_offsets < n_cols
            row = tl.load(input_ptr + row_idx * input_row_stride + col_offsets, mask=mask,
                          other=-float("inf")).to(tl.float32)
            row_minus_max = row - tl.max(row, axis=0)
            numerator = tl.exp(row_minus_max)
            denominator = tl.sum(numerator, axis=0)
            out = numerator / denominator
            tl.store(output_ptr + row_idx * output_row_stride + col_offsets,
                     out.to(output_ptr.dtype.element_ty), mask=mask)

        TRITON_KERNEL = (triton, softmax_kernel)
    return TRITON_KERNEL


def triton_num_warps(block):
    # the tutorial's heuristic: more warps for longer rows
    if block >= 4096:
        return 16
    if block >= 2048:
        return 8
    return 4


class Skip(Exception):
    """A system not run for this shape: status and note."""

    def __init__(self, status, note):
        super().__init__(note)
        self.status, self.note = status, note


def make_system(name, torch, args, xs, ys, dt, n, kernels, rejected, state):
    """(op(i), out(i) -> tensor for the check, note) for one system, or raises Skip."""
    if name == "copy":
        def op(i):
            ys[i].copy_(xs[i])
        return op, (lambda i: ys[i]), ""

    if name == "torch":
        outs = [None] * len(xs)

        def op(i):
            outs[i] = torch.softmax(xs[i], -1)
        return op, (lambda i: outs[i]), ""

    if name == "compile":
        if args.no_compile:
            raise Skip("skipped", "--no-compile")
        elapsed = time.perf_counter() - state["t0"]
        if elapsed > args.budget_s - args.compile_reserve_s:
            raise Skip("skipped", f"time budget ({elapsed:.0f} s of {args.budget_s:.0f} s used)")
        import torch._dynamo
        torch._dynamo.reset()
        f = torch.compile(lambda x: torch.softmax(x, -1), dynamic=False, fullgraph=True)
        c0 = time.perf_counter()
        try:
            f(xs[0])
            torch.cuda.synchronize()
        except Exception as e:  # noqa: BLE001 - any compile failure is a result
            raise Skip("fails", f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}")
        ct = time.perf_counter() - c0
        state["compile_s"] += ct
        outs = [None] * len(xs)

        def op(i):
            outs[i] = f(xs[i])
        return op, (lambda i: outs[i]), f"compile {ct:.1f} s"

    if name == "triton":
        try:
            triton, kern = triton_kernel()
        except Exception as e:  # noqa: BLE001
            raise Skip("fails", f"triton unavailable: {e}")
        block = triton.next_power_of_2(n)
        if n > args.triton_max_n:
            raise Skip("skipped", f"N > --triton-max-n {args.triton_max_n}")
        warps = triton_num_warps(block)
        m = xs[0].shape[0]

        def op(i):
            kern[(m,)](ys[i], xs[i], xs[i].stride(0), ys[i].stride(0), n, BLOCK_SIZE=block,
                       num_warps=warps)
        try:
            op(0)
            torch.cuda.synchronize()
        except Exception as e:  # noqa: BLE001
            raise Skip("fails", f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}")
        return op, (lambda i: ys[i]), f"BLOCK {block}, {warps} warps"

    if name == "softgen":
        if (dt, n) not in kernels:
            if (dt, n) in rejected:
                raise Skip("rejected", rejected[(dt, n)][:200])
            raise Skip("missing", "no kernel in the manifest")
        sg = state["softgen"]
        if isinstance(sg, str):
            raise Skip("fails", sg)
        softgen, _rt = sg
        try:
            k = softgen.load(kernels[(dt, n)])
            k(xs[0], out=ys[0])  # the public call, checked below
            torch.cuda.synchronize()
        except Exception as e:  # noqa: BLE001
            raise Skip("fails", f"{type(e).__name__}: {e}"[:300])
        dev = xs[0].device.index or 0
        handle = k._get(dev)
        arrays = []
        for i in range(len(xs)):
            arr = (_rt.Tensor * len(k.tensors))()
            for j, (tname, is_out, _) in enumerate(k.tensors):
                arr[j] = softgen._arrays._describe(ys[i] if is_out else xs[i], tname)[0]
            arrays.append(arr)
        launch, diag = _rt.lib.sgrt_kernel_launch, _rt.Diag()
        stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream or None)
        nt = len(k.tensors)
        state["keep"].append(k)

        def op(i):
            st = launch(handle, arrays[i], nt, stream, ctypes.byref(diag))
            if st:
                raise RuntimeError(f"sgrt_kernel_launch: {st}: {diag.message.decode()}")
        return op, (lambda i: ys[i]), f"{k.kernel} block {k.block} rows/block {k.rows_per_block}"

    raise ValueError(name)


# ---------------------------------------------------------------- one shape

def bench_shape(torch, timer, args, m, n, dt, kernels, rejected, state):
    """Rows (dicts) for every system at one shape x dtype."""
    tdt = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}[dt]
    es = ELEM[dt]
    nbytes = m * n * 2 * es  # read + write, also what the copy moves
    set_bytes = nbytes
    l2 = args.l2_mb * 1e6
    nsets = 1 if set_bytes >= 4 * l2 else min(MAX_SETS, int(math.ceil(4 * l2 / set_bytes)))
    gen = torch.Generator(device="cuda")
    gen.manual_seed(1234 + m + n)
    xs = [torch.randn(m, n, device="cuda", dtype=torch.float32, generator=gen).to(tdt)
          for _ in range(nsets)]
    ys = [torch.empty_like(xs[0]) for _ in range(nsets)]
    ref = torch.softmax(xs[0].float(), -1)

    rows = {}
    live = []  # (name, op, out, timer state)
    for name in args.systems:
        row = {"system": name, "M": m, "N": n, "dtype": dt, "status": "ok", "time_us": "",
               "gbps": "", "ratio_to_copy": "", "copy_gbps": "", "batch": "", "sets": nsets,
               "host_us": "", "max_err": "", "note": ""}
        rows[name] = row
        try:
            op, out, note = make_system(name, torch, args, xs, ys, dt, n, kernels, rejected, state)
            row["note"] = note
            host = timer.warmup(op, nsets)
            probe, _ = timer.round(op, nsets, 0, 1, 5, host)
            batch = timer.batch_for(statistics.median(probe))
            row["batch"], row["host_us"] = batch, round(host, 2)
            live.append([name, op, out, {"cursor": 0, "batch": batch, "host": host, "s": []}])
        except Skip as s:
            row["status"], row["note"] = s.status, s.note
        except Exception as e:  # noqa: BLE001 - a peer that breaks is a result
            row["status"], row["note"] = "fails", f"{type(e).__name__}: {e}"[:300]
            try:
                torch.cuda.synchronize()
            except Exception:  # noqa: BLE001 - a sticky error shows in the next system
                pass

    done = 0
    while done < args.iters and live:
        take = min(SAMPLES_PER_ROUND, args.iters - done)
        for entry in list(live):
            name, op, _, st = entry
            try:
                s, st["cursor"] = timer.round(op, nsets, st["cursor"], st["batch"], take, st["host"])
                st["s"].extend(s)
            except Exception as e:  # noqa: BLE001
                rows[name]["status"], rows[name]["note"] = "fails", f"{type(e).__name__}: {e}"[:300]
                live.remove(entry)
        done += take

    for name, op, out, st in live:
        row = rows[name]
        t = statistics.median(st["s"])
        row["time_us"] = round(t, 3)
        row["gbps"] = round(nbytes / (t * 1e3), 1)
        # check: the last launch on set 0, against a float32 softmax
        try:
            op(0)
            torch.cuda.synchronize()
            y = out(0)
            if name == "copy":
                err = (y.float() - xs[0].float()).abs().max().item()
                ok = err == 0
            else:
                err = (y.float() - ref).abs().max().item()
                ok = err <= TOL[dt]  # NaN fails too
            row["max_err"] = f"{err:.2e}"
            if not ok:
                row["status"] = "BAD"
                row["note"] = (row["note"] + "; " if row["note"] else "") + \
                    f"check failed: max |err| {err:.2e} > {TOL[dt]:.0e}"
        except Exception as e:  # noqa: BLE001
            row["status"], row["note"] = "fails", f"check: {type(e).__name__}: {e}"[:300]

    copy = rows.get("copy")
    cg = copy["gbps"] if copy and copy["gbps"] != "" else None
    for row in rows.values():
        row["copy_gbps"] = cg if cg else ""
        if cg and row["gbps"] != "":
            row["ratio_to_copy"] = round(row["gbps"] / cg, 4)
    del xs, ys, ref, live
    return [rows[s] for s in args.systems]


# ---------------------------------------------------------------- reports

CSV_FIELDS = ["system", "M", "N", "dtype", "status", "time_us", "gbps", "ratio_to_copy",
              "copy_gbps", "batch", "sets", "host_us", "max_err", "note"]


def write_csv(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=CSV_FIELDS)
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k, "") for k in CSV_FIELDS})


def cell(r):
    if r is None:
        return ""
    if r["ratio_to_copy"] != "" and r["status"] in ("ok", "BAD"):
        return f"{r['ratio_to_copy']:.2f}" + (" (BAD)" if r["status"] == "BAD" else "")
    return {"skipped": "—", "rejected": "rejected", "missing": "—"}.get(r["status"], r["status"])


def write_md(path, rows, info, shapes, args):
    systems = [s for s in args.systems if s != "copy"]
    out = [f"# softmax vs peers — {info['gpu']}", "",
           f"- date: {info['date']}",
           f"- GPU: {info['gpu']} ({info['l2']}), driver CUDA {info['cuda']}",
           f"- torch {info['torch']}, triton {info['triton']}, python {info['python']}",
           f"- method: median of {args.iters} samples with CUDA events after "
           f"{args.warmup_ms:g} ms warm-up; inputs rotated over ceil(4 × L2 / set) buffer sets "
           f"(L2 assumed {args.l2_mb:g} MB); GB/s counts read + write; ratio = system GB/s / "
           f"copy GB/s (copy = `y.copy_(x)` of the same bytes, same run)",
           "- cells: ratio to copy; `—` not run (see peers.csv note), `fails` compile/launch "
           "error, `rejected` softgen refused the shape (reason in peers.csv), `(BAD)` wrong output",
           ""]
    for dt in args.dtypes:
        drows = [r for r in rows if r["dtype"] == dt]
        if not drows:
            continue
        out += [f"## {dt}", "",
                "| shape (M×N) | copy GB/s | " + " | ".join(LABELS[s] for s in systems) + " |",
                "|---|---:|" + "---:|" * len(systems)]
        for m, n in shapes:
            by = {r["system"]: r for r in drows if r["M"] == m and r["N"] == n}
            if not by:
                continue
            c = by.get("copy")
            cg = f"{c['gbps']:.0f}" if c and c["gbps"] != "" else "—"
            out.append(f"| {m}×{n} | {cg} | " + " | ".join(cell(by.get(s)) for s in systems) + " |")
        gm, worst = [], []
        for s in systems:
            v = [(r["ratio_to_copy"], r) for r in drows
                 if r["system"] == s and r["ratio_to_copy"] != "" and r["status"] == "ok"]
            if v:
                gm.append(f"{math.exp(sum(math.log(x) for x, _ in v) / len(v)):.2f} ({len(v)})")
                x, r = min(v, key=lambda t: t[0])
                worst.append(f"{x:.2f} ({r['M']}×{r['N']})")
            else:
                gm.append("—")
                worst.append("—")
        out.append("| geomean (shapes) | | " + " | ".join(gm) + " |")
        out.append("| worst | | " + " | ".join(worst) + " |")
        out.append("")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def write_png(path, rows, info, shapes, args):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as e:  # noqa: BLE001
        log(f"peers.py: no plot ({e})")
        return
    dts = [d for d in args.dtypes if any(r["dtype"] == d for r in rows)]
    if not dts:
        return
    systems = [s for s in args.systems if s != "copy"]
    fig, axes = plt.subplots(len(dts), 1, figsize=(12, 3.6 * len(dts)), squeeze=False)
    labels = [f"{m}×{n}" for m, n in shapes]
    for ax, dt in zip(axes[:, 0], dts):
        for s in systems:
            ys = []
            for m, n in shapes:
                r = next((r for r in rows if r["dtype"] == dt and r["system"] == s and
                          r["M"] == m and r["N"] == n), None)
                ok = r is not None and r["ratio_to_copy"] != "" and r["status"] == "ok"
                ys.append(r["ratio_to_copy"] if ok else float("nan"))
            ax.plot(range(len(shapes)), ys, marker="o", label=LABELS[s])
        ax.axhline(1.0, color="black", lw=0.8)
        ax.axhline(0.9, color="gray", lw=0.8, ls="--")
        ax.set_title(f"{dt}: ratio to device copy ({info['gpu']}, {info['date']})")
        ax.set_ylabel("GB/s / copy GB/s")
        ax.set_ylim(0, 1.15)
        ax.set_xticks(range(len(shapes)))
        ax.set_xticklabels(labels, rotation=40, ha="right", fontsize=8)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ---------------------------------------------------------------- main

def main(argv=None):
    global _log_file
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("outdir")
    p.add_argument("--manifest", help="peers.manifest from gen.sh (file<TAB>dtype<TAB>N)")
    p.add_argument("--shapes", default=os.path.join(HERE, "shapes.txt"))
    p.add_argument("--dtypes", default=",".join(DTYPES))
    p.add_argument("--systems", default=",".join(SYSTEMS))
    p.add_argument("--no-compile", action="store_true", help="skip torch.compile")
    p.add_argument("--iters", type=int, default=50, help="timed samples per system (50)")
    p.add_argument("--warmup-ms", type=float, default=30.0, help="warm-up per system (30 ms)")
    p.add_argument("--batch-us", type=float, default=20.0)
    p.add_argument("--l2-mb", type=float, default=60.0)
    p.add_argument("--filler-mb", type=float, default=256.0)
    p.add_argument("--budget-s", type=float, default=300.0,
                   help="no new torch.compile after budget - reserve seconds (300)")
    p.add_argument("--compile-reserve-s", type=float, default=60.0)
    p.add_argument("--triton-max-n", type=int, default=65536,
                   help="largest N to try the one-block Triton kernel on (65536)")
    p.add_argument("--rt-lib", help="libsoftgen_rt.so (default $SOFTGEN_RT_LIBRARY, <repo>/build)")
    args = p.parse_args(argv)
    args.dtypes = [d for d in args.dtypes.split(",") if d]
    args.systems = [s for s in args.systems.split(",") if s]
    for d in args.dtypes:
        if d not in DTYPES:
            p.error(f"unknown dtype {d!r} (f16, bf16, f32)")
    for s in args.systems:
        if s not in SYSTEMS:
            p.error(f"unknown system {s!r} ({', '.join(SYSTEMS)})")
    if "copy" not in args.systems:
        args.systems.insert(0, "copy")
    if args.iters < 1:
        p.error("--iters must be positive")

    os.makedirs(args.outdir, exist_ok=True)
    _log_file = open(os.path.join(args.outdir, "peers.log"), "w")
    shapes = read_shapes(args.shapes)
    kernels, rejected = read_manifest(args.manifest)
    if "softgen" in args.systems and not args.manifest:
        log("peers.py: no --manifest: softgen is not measured")

    t0 = time.perf_counter()
    import torch
    if not torch.cuda.is_available():
        log("peers.py: no CUDA device")
        return 3
    for name in ("cache_size_limit", "recompile_limit", "accumulated_cache_size_limit",
                 "accumulated_recompile_limit"):
        try:
            import torch._dynamo
            if hasattr(torch._dynamo.config, name):
                setattr(torch._dynamo.config, name, 1024)
        except Exception:  # noqa: BLE001
            pass

    state = {"t0": t0, "compile_s": 0.0, "keep": [], "softgen": None}
    if args.rt_lib:
        os.environ["SOFTGEN_RT_LIBRARY"] = os.path.abspath(args.rt_lib)
    sys.path.insert(0, os.path.join(REPO, "python"))
    try:
        import softgen
        from softgen import _rt
        state["softgen"] = (softgen, _rt)
    except Exception as e:  # noqa: BLE001
        state["softgen"] = f"binding unavailable: {type(e).__name__}: {e}"
        log(f"peers.py: softgen {state['softgen']}")

    props = torch.cuda.get_device_properties(0)
    l2 = getattr(props, "L2_cache_size", 0)
    try:
        import triton
        tver = triton.__version__
    except Exception:  # noqa: BLE001
        tver = "absent"
    info = {"gpu": torch.cuda.get_device_name(0),
            "date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"),
            "l2": f"L2 {l2 / 2**20:.0f} MiB reported" if l2 else "L2 not reported",
            "cuda": torch.version.cuda, "torch": torch.__version__, "triton": tver,
            "python": sys.version.split()[0]}
    log(f"peers.py: {info['gpu']} ({info['l2']}), torch {info['torch']}, triton {tver}; "
        f"{len(shapes)} shapes x {args.dtypes} x {args.systems}")

    timer = Timer(torch, args)
    all_rows = []
    outs = {k: os.path.join(args.outdir, f"peers.{k}") for k in ("csv", "md", "png")}
    for dt in args.dtypes:
        for m, n in shapes:
            s0 = time.perf_counter()
            try:
                rows = bench_shape(torch, timer, args, m, n, dt, kernels, rejected, state)
            except torch.cuda.OutOfMemoryError as e:
                rows = [{"system": s, "M": m, "N": n, "dtype": dt, "status": "fails",
                         "note": f"out of memory: {str(e)[:120]}", "time_us": "", "gbps": "",
                         "ratio_to_copy": "", "copy_gbps": ""} for s in args.systems]
            torch.cuda.empty_cache()
            all_rows += rows
            summary = "  ".join(
                f"{r['system']}={cell(r) if r['system'] != 'copy' else r['gbps']}"
                for r in rows)
            log(f"{dt:4} {m:>7}x{n:<7} {time.perf_counter() - s0:5.1f}s  {summary}")
        write_csv(outs["csv"], all_rows)
        write_md(outs["md"], all_rows, info, shapes, args)
        write_png(outs["png"], all_rows, info, shapes, args)
    log(f"peers.py: done in {time.perf_counter() - t0:.0f} s "
        f"(torch.compile compiles {state['compile_s']:.0f} s); wrote {outs['csv']}, "
        f"{outs['md']}, {outs['png']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
