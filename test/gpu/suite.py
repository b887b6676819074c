#!/usr/bin/env python3
"""softgen GPU correctness suite (issue 3, part 4): every generated softmax code object,
launched only through the Python binding (python/softgen) on PyTorch tensors, checked
against a float64 softmax computed by PyTorch on the GPU from the same input.

Needs: a CUDA GPU, torch, python/softgen and libsoftgen_rt.so ($SOFTGEN_RT_LIBRARY), and
OBJECTS/manifest.tsv from test/gpu/generate.sh (file, template, dtype, N, set).
Usage:  python3 test/gpu/suite.py OBJECTS OUTDIR [--filter REGEX] [--max-seconds S] [--quick]
Produces: a short table on stdout (pass/fail per dtype x N group), OUTDIR/suite.log (one
line per case, failures in full) and OUTDIR/suite.md (GPU, date, driver, counts,
failures). Exit status: 0 all passed, 1 a case failed or did not run, 2 usage/setup error.

Cases per object (M is capped so that M*N <= 2^28 elements):
  M=1, M=2, M=199      contiguous rows of mixed kinds (below), default stream
  M=199 strided        input and output rows row_stride > N apart (views into wider
                       tensors; the input's padding holds NaN, the output's gaps a sentinel)
  M=199 shift          x and x+100 (exact in the dtype): both against the reference, and
                       softmax(x+100) against softmax(x)
  M=4096 stream        mixed kinds, launched with stream= a non-default torch stream
  M=70000 current      (N <= 4096 only) mixed kinds, launched inside `with torch.cuda.stream`
  M=1500003            (N <= 4 only) contiguous and strided: packed rows (several a vector)
                       past their few-rows variants, a partial last vector
  M=300003             (5 <= N <= 256, automatic plans) contiguous and strided: flat rows
                       of several a thread past their few-rows variants (the plan of one
                       row a thread while its blocks stay resident), a partial row block
  M=199 subnormal      (softmax, f32 and bf16, N >= 2) rows whose one output below 2^-126
                       must be the dtype's subnormal, not 0 (SUBNORMAL_LOGIT)
  torch.softmax        y = k(x) on a [2, 3, N] tensor (output allocated by the binding)
                       against torch.softmax(x, -1) in x's dtype: the issue's "the binding
                       runs a generated kernel on a PyTorch tensor and matches torch.softmax"
Row kinds (row r gets KINDS[r % 10]; M=1: normal; M=2: normal, large): see make_rows.
Checks of every launch:
  nan      output NaN exactly where torch.softmax(x.double()) is NaN (PyTorch's rule:
           rows of all -inf, a +inf or a NaN give NaN rows)
  written  no element still holds the poison (all-ones bits, a NaN) it had before launch
  inf      no infinite output where the reference is finite
  rel      max over rows with a finite reference of ||y - ref|| / ||ref|| (float64):
           f32 1e-5, f16 1e-3, bf16 1e-2, or, where rounding the reference itself to the
           dtype already costs more (f16 rows of 2^17 and more: outputs near 1/N are
           f16 subnormals), twice that rounding floor ("floor" in the log)
  sum      max over those rows of |sum(y) - 1| <= 1e-3 for f32; for 16-bit outputs the
           rounding alone can cost more (bf16: 1/3 rounds to 0.333984375, three of them sum
           to 1.00195; f16: rows of 2^17 equal values round to subnormals), so there it is
           |sum(y) - sum(dtype(ref))| <= 1e-3 + an ulp at 0.5 (2^-8 bf16, 2^-11 f16: two
           elements of the row rounded the other way); the raw |sum(y) - 1| is logged too
  guard    4 KiB before and after the output and the gaps between strided output rows
           keep their sentinel bits (nothing written outside the output)
  input    the input (with its padding) is bit-for-bit unchanged

Other templates (manifest column 2; generate.sh makes them with the automatic plan only).
The same cases, launch machinery and checks nan / written / guard / input, except:
  log_softmax           x as for softmax; reference torch.log_softmax(x.double(), -1);
                        the shift case is kept (y(x+100) = y(x))
  softmax_backward      k(dy, y, out=dx): y = softmax of make_rows' rows (rounded to the
                        dtype), dy = randn; reference torch._softmax_backward_data(dy.double(),
                        y.double(), -1, torch.float64); no shift case
  log_softmax_backward  the same with y = log_softmax of the rows and
                        torch._log_softmax_backward_data
  No row-sum check; the torch.* case compares k(...) on [2, 3, N] tensors with the torch
  function in the dtype and with the float64 reference; binding errors: softmax only.
  inf      elements where the reference rounded to the dtype is +-inf (a -inf input of
           log_softmax, or a value past the dtype's range) must be exactly that inf; no
           other output may be infinite
  rel      per row over the elements where that rounded reference is finite,
           ||y - ref|| / ||ref|| (||ref|| = 0, e.g. N = 1 or a one-hot y: the absolute
           ||y - ref||) against max(TOL, 2 x rounding floor + allow), where allow is a
           worst-case bound of the f32 arithmetic for these inputs (arith_bound: sums of up
           to 128 serial terms plus a tree, ex2/lg2.approx at 2^-21): it matters only for
           ill-conditioned rows (e.g. softmax_backward of a near one-hot y, where dx is
           all cancellation); the log shows "ratio" (rel / that tolerance) and, where it
           is above TOL, floor and allow
Inner-layout objects (set "inner", softgen --layout inner, every template): the rows of
make_inputs, r = o * inner + i, laid out as [outer, N, inner] tensors (INNER_SHAPES: inner
1, 3, 8, 64, 96, 1000; a stride along N of inner + pad with NaN / sentinel in the pad) and
launched with dim=1, then every check above on those rows (guards include the pad); the
shift case on [2, N, 64]; "torch inner": k(x, dim=1) on a contiguous [2, N, 6] tensor
(output allocated by the binding) against the float64 reference of torch's function
over dim 1.
A second self-test runs the same torch stand-ins (computing in f32) for each template
present in the manifest.
"""
import argparse
import contextlib
import datetime
import math
import os
import re
import subprocess
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))

TOL = {"f32": 1e-5, "f16": 1e-3, "bf16": 1e-2}
SUM_TOL = 1e-3
SUM_TOL_16 = {"bf16": 1e-3 + 2.0 ** -8, "f16": 1e-3 + 2.0 ** -11}
GUARD_BYTES = 4096
POISON = -1                                     # all-ones bits: a NaN in f16, bf16 and f32
SENTINEL = {2: 0x5A5A, 4: 0x5A5A5A5A}           # finite, far outside [0, 1]
KINDS = ["normal", "large", "equal", "all_-inf", "one_+inf", "one_nan", "half_-inf",
         "one_finite", "near_max", "tiny"]
GROUPS = ["N<=1024", "1025-8192", "N>8192"]
MAX_ELEMS = 1 << 28
FLAT_M = 300003  # flat rows (N <= 256): past a one-row-a-thread variant; 3 divides it
# Inner-layout objects (set "inner"): (outer, inner, pad, stream) per case; rows
# r = o * inner + i get the row kinds of make_rows
INNER_SHAPES = [(1, 1, 0, "default"), (5, 1, 0, "default"), (2, 3, 0, "default"),
                (4, 64, 0, "default"), (1, 1000, 0, "default"), (3, 3, 2, "default"),
                (2, 96, 5, "explicit"), (64, 8, 0, "current")]
# Per template: its tensors (name, is_output) in template order and the torch function
# of its torch.* case. Inputs are passed to the kernel in that order: k(dy, y, out=dx).
TEMPLATES = {
    "softmax": {"tensors": [("x", False), ("y", True)], "torch": "torch.softmax"},
    "log_softmax": {"tensors": [("x", False), ("y", True)], "torch": "torch.log_softmax"},
    "softmax_backward": {"tensors": [("dy", False), ("y", False), ("dx", True)],
                         "torch": "torch._softmax_backward_data"},
    "log_softmax_backward": {"tensors": [("dy", False), ("y", False), ("dx", True)],
                             "torch": "torch._log_softmax_backward_data"},
}
SHIFT_TEMPLATES = ("softmax", "log_softmax")   # y(x + 100) = y(x)
EPS32 = 2.0 ** -24                             # every value is computed in f32
APPROX = 2.0 ** -21                            # ex2.approx / lg2.approx, with margin


def group_of(n):
    return GROUPS[0] if n <= 1024 else GROUPS[1] if n <= 8192 else GROUPS[2]


class Entry:
    def __init__(self, line, folder):
        f = line.rstrip("\n").split("\t")
        self.file, self.template, self.dtype, self.n, self.set = f[0], f[1], f[2], int(f[3]), f[4]
        self.path = os.path.join(folder, self.file)
        self.name = self.file


class Case:
    """One launch configuration's outcome: name, M, measured values, failures."""

    def __init__(self, entry, name, m):
        self.entry, self.name, self.m = entry, name, m
        self.values, self.failures, self.seconds = {}, [], 0.0

    @property
    def ok(self):
        return not self.failures

    def line(self):
        v = " ".join(f"{k}={_fmt(x)}" for k, x in self.values.items())
        head = f"{'PASS' if self.ok else 'FAIL'} {self.entry.name} [{self.name}] M={self.m} {v}"
        return head + "".join(f"\n    - {f}" for f in self.failures)


def _fmt(x):
    if isinstance(x, float):
        return f"{x:.3e}"
    return str(x)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("objects", help="folder with manifest.tsv and the code objects")
    ap.add_argument("outdir", help="folder for suite.log and suite.md")
    ap.add_argument("--filter", help="only objects whose file name matches this regex")
    ap.add_argument("--max-seconds", type=float, default=0,
                    help="stop starting objects after this long (the rest count as not run)")
    ap.add_argument("--quick", action="store_true", help="only M=1, 199 and torch.softmax")
    ap.add_argument("--seed", type=int, default=20260101)
    args = ap.parse_args()
    log, say = open_log(args.outdir, "suite.log")

    global torch, softgen
    try:
        import torch
        import softgen
    except Exception as e:  # noqa: BLE001 - report any import failure
        say(f"suite.py: cannot import torch/softgen: {e!r}")
        return 2
    if not torch.cuda.is_available():
        say("suite.py: torch sees no CUDA device")
        return 2
    with open(os.path.join(args.objects, "manifest.tsv")) as f:
        entries = [Entry(l, args.objects) for l in f if l.strip() and not l.startswith("#")]
    if args.filter:
        entries = [e for e in entries if re.search(args.filter, e.file)]
    info = device_info()
    say(f"suite.py: {len(entries)} objects; {info['gpu']} ({info['cc']}), driver "
        f"{info['driver']}, torch {torch.__version__}; {info['date']}")

    selfcases = selftest(args.seed)
    for c in selfcases:
        say(c.line(), out=not c.ok)
    self_failed = [c for c in selfcases if not c.ok]
    say(f"suite.py: self-test of the checks (torch.softmax as the kernel, and three broken "
        f"variants that must be caught): {len(selfcases) - len(self_failed)}/{len(selfcases)} "
        "as expected")
    tselfcases = []
    for tpl in TEMPLATES:
        if tpl != "softmax" and any(e.template == tpl for e in entries):
            tselfcases += selftest(args.seed, tpl)
    if tselfcases:
        for c in tselfcases:
            say(c.line(), out=not c.ok)
        tself_failed = [c for c in tselfcases if not c.ok]
        self_failed += tself_failed
        say(f"suite.py: self-test of the checks of the other templates (torch computing in f32 "
            f"as the kernel, and three broken variants that must be caught): "
            f"{len(tselfcases) - len(tself_failed)}/{len(tselfcases)} as expected")

    t0 = time.time()
    cases, not_run, errors_in_row, shown = [], [], 0, 0
    for i, e in enumerate(entries):
        if args.max_seconds and time.time() - t0 > args.max_seconds:
            not_run = entries[i:]
            say(f"suite.py: time budget of {args.max_seconds:.0f}s spent: "
                f"{len(not_run)} objects not run")
            break
        if errors_in_row >= 20:
            not_run = entries[i:]
            say(f"suite.py: 20 cases in a row raised (device lost?): {len(not_run)} objects "
                "not run")
            break
        gen = torch.Generator(device="cuda")
        gen.manual_seed(args.seed + i)
        for c in run_object(e, gen, args.quick):
            cases.append(c)
            errors_in_row = errors_in_row + 1 if any("raised" in f for f in c.failures) else 0
            shown += not c.ok
            say(c.line(), out=not c.ok and shown <= 50)
    elapsed = time.time() - t0

    # ---- issue 9: the torch-like API (softgen.softmax & co.), test/gpu/torch_api.py ----
    api_failed = []
    if not args.filter:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import torch_api
        api_cases = torch_api.run(args.objects, say)
        api_failed = [c for c in api_cases if not c[1]]
        import variants  # issue 7: attention_softmax, dtype= (test/gpu/variants.py)
        var_cases = variants.run(args.objects, say)
        api_cases += var_cases
        api_failed += [c for c in var_cases if not c[1]]

    table = summarize(entries, cases, not_run)
    failed = [c for c in cases if not c.ok] + self_failed
    text = format_table(table)
    ttable = summarize_tpl(entries, cases, not_run)
    if ttable:
        text += "\n\n" + format_table_tpl(ttable)
    say("")
    say(text)
    if ttable:
        per = {}
        for c in cases:
            p = per.setdefault(c.entry.template, [0, 0])
            p[0] += c.ok
            p[1] += 1
        say("suite.py: per template (passed/run): "
            + "; ".join(f"{t} {p[0]}/{p[1]}" for t, p in per.items()))
    say(f"suite.py: {len(cases) - len(failed)}/{len(cases)} cases passed, {len(failed)} failed,"
        f" {len(not_run)} objects not run, {elapsed:.1f}s"
        + (f"; torch API and variants {len(api_cases) - len(api_failed)}/{len(api_cases)}"
           if not args.filter else ""))
    write_markdown(os.path.join(args.outdir, "suite.md"), info, entries, cases, failed,
                   not_run, table, elapsed, args, selfcases, ttable, tselfcases)
    log.close()
    return 1 if failed or not_run or api_failed else 0


# ---------------------------------------------------------------- device info

def device_info():
    p = torch.cuda.get_device_properties(0)
    driver = "unknown"
    try:
        r = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                           capture_output=True, text=True, timeout=30)
        if r.returncode == 0 and r.stdout.strip():
            driver = r.stdout.strip().splitlines()[0]
    except (OSError, subprocess.SubprocessError):
        pass
    try:
        import ctypes
        v = ctypes.c_int()
        ctypes.CDLL("libcuda.so.1").cuDriverGetVersion(ctypes.byref(v))
        driver += f" (CUDA {v.value // 1000}.{v.value % 1000 // 10})"
    except OSError:
        pass
    return {"gpu": torch.cuda.get_device_name(0), "cc": f"sm_{p.major}{p.minor}",
            "driver": driver,
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "torch": torch.__version__}


# ---------------------------------------------------------------- inputs

def tdtype(dt):
    return {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}[dt]


def idtype(es):
    return {2: torch.int16, 4: torch.int32}[es]


def make_rows(m, n, dt, gen):
    """[m, n] input in dtype dt; row r is of kind KINDS[r % 10] (M=2: normal, large).

    normal      randn * 2
    large       f16/bf16: +-U(0.5, 0.9) * finfo.max; f32: randn * 1e30
    equal       one value per row: 0, -3.5, 7.25 or 0.9 * finfo.max
    all_-inf    every element -inf                      (PyTorch: NaN row)
    one_+inf    normal with one +inf                    (PyTorch: NaN row)
    one_nan     normal with one NaN                     (PyTorch: NaN row)
    half_-inf   normal with -inf in the even columns    (N=1: all -inf)
    one_finite  -inf but one finite column              (exactly one-hot)
    near_max    U(0.85, 0.9) * finfo.max (many ties in f16/bf16)
    tiny        randn * 1e-4 (nearly uniform rows)
    The +inf / NaN / finite column moves with r, so it also falls in masked tails."""
    f32 = torch.float32
    fmax = torch.finfo(tdtype(dt)).max
    x = torch.randn(m, n, device="cuda", generator=gen, dtype=f32) * 2
    r = torch.arange(m, device="cuda")
    kind = r % len(KINDS)
    if m == 2:
        kind = torch.tensor([0, 1], device="cuda")
    col = torch.arange(n, device="cuda")[None, :]

    def rows(k):
        return (kind == KINDS.index(k))[:, None]

    u = torch.rand(m, n, device="cuda", generator=gen, dtype=f32)
    sign = 1.0 - 2.0 * (torch.rand(m, n, device="cuda", generator=gen) < 0.5).to(f32)
    large = sign * (0.5 + 0.4 * u) * fmax if dt != "f32" else x * 0.5e30
    x = torch.where(rows("large"), large, x)
    consts = torch.tensor([0.0, -3.5, 7.25, 0.9 * fmax], device="cuda", dtype=f32)[r % 4]
    x = torch.where(rows("equal"), consts[:, None].expand(m, n), x)
    x = x.masked_fill(rows("all_-inf"), float("-inf"))
    x = x.masked_fill(rows("one_+inf") & (col == ((r * 37) % n)[:, None]), float("inf"))
    x = x.masked_fill(rows("one_nan") & (col == ((r * 53) % n)[:, None]), float("nan"))
    x = x.masked_fill(rows("half_-inf") & (col % 2 == 0), float("-inf"))
    x = x.masked_fill(rows("one_finite") & (col != ((r * 29) % n)[:, None]), float("-inf"))
    x = torch.where(rows("near_max"), (0.85 + 0.05 * u) * fmax, x)
    x = torch.where(rows("tiny"), x * 5e-5, x)
    return x.to(tdtype(dt))


# Subnormal outputs (f32 and bf16 softmax keep them, as PyTorch does; docs/numerics.md):
# a row of 0 and SUBNORMAL_LOGIT[dt] (every other column -inf) has the output exp(logit)
# / (1 + exp(logit)), below 2^-126: f32 3.7e-44, bf16 8.2e-40, each a subnormal of the
# dtype. An exp flushed to 0 would write 0 there (the norm checks cannot see it).
SUBNORMAL_LOGIT = {"f32": -100.0, "bf16": -90.0}


def subnormal_rows(m, n, dt):
    """[m, n] rows of -inf but a 0 at column r % n and the logit at (r + 1) % n; and
    the logit's columns."""
    r = torch.arange(m, device="cuda")
    c0, c1 = r % n, (r + 1) % n
    x = torch.full((m, n), float("-inf"), device="cuda", dtype=torch.float32)
    x[r, c0] = 0.0
    x[r, c1] = SUBNORMAL_LOGIT[dt]
    return x.to(tdtype(dt)), c1


def subnormal_failures(x, y, cols, dt):
    """The logit's outputs: nonzero and within a subnormal spacing of the float64
    reference rounded to the dtype (2^-149 f32, 2^-133 bf16) times 2."""
    r = torch.arange(x.shape[0], device="cuda")
    ref = torch.softmax(x.double(), dim=-1)[r, cols]
    got = y[r, cols].double()
    spacing = {"f32": 2.0 ** -149, "bf16": 2.0 ** -133}[dt]
    bad = (got <= 0) | ((got - ref.to(tdtype(dt)).double()).abs() > 2 * spacing)
    if not bool(bad.any()):
        return []
    i = int(bad.nonzero()[0, 0])
    return [f"subnormal: {int(bad.sum())} rows wrong, row {i}: {got[i].item():.3e} "
            f"against {ref[i].item():.3e}"]


def shift_pair(m, n, dt, gen):
    """x and x + 100, both exact in dt: x is randn*3 clamped to [-30, 27] and rounded to
    the dtype's spacing in [64, 128) (f16 1/16, bf16 1/2, f32 2^-17)."""
    q = {"f16": 16.0, "bf16": 2.0, "f32": 131072.0}[dt]
    base = (torch.randn(m, n, device="cuda", generator=gen, dtype=torch.float64) * 3)
    base = torch.round(base.clamp(-30, 27) * q) / q
    x, xs = base.to(tdtype(dt)), (base + 100).to(tdtype(dt))
    assert torch.equal(xs.double() - x.double(), torch.full_like(base, 100.0)), "shift not exact"
    return x, xs


def make_inputs(tpl, m, n, dt, gen):
    """The inputs of template tpl for m rows: softmax and log_softmax: make_rows (one
    tensor, as for softmax); the backward passes: (dy, y) in template order, y the
    forward pass of make_rows' rows computed in float64 and rounded to dt (so NaN rows,
    zeros / -inf and one-hot rows come from the row kinds), dy = randn."""
    x = make_rows(m, n, dt, gen)
    if tpl in ("softmax", "log_softmax"):
        return x
    fwd = torch.softmax if tpl == "softmax_backward" else torch.log_softmax
    y = fwd(x.double(), dim=-1).to(tdtype(dt))
    dy = torch.randn(m, n, device="cuda", generator=gen, dtype=torch.float32).to(tdtype(dt))
    return dy, y


def torch_backward(tpl, dy, y, dtype):
    """torch's private backward functions: (grad_output, output, dim, input_dtype)."""
    f = torch._softmax_backward_data if tpl == "softmax_backward" \
        else torch._log_softmax_backward_data
    return f(dy, y, -1, dtype)


def reference(tpl, ins):
    """The float64 reference of template tpl (not softmax) from float64 inputs."""
    if tpl == "log_softmax":
        return torch.log_softmax(ins[0], dim=-1)
    return torch_backward(tpl, ins[0], ins[1], torch.float64)


def arith_bound(tpl, ins, ref):
    """A worst-case bound, element by element (float64), of the error that computing
    template tpl in f32 (as the kernel does) adds on these float64 inputs ins, with ref
    the float64 reference. Sums: at most min(N, 128) serial additions plus a tree of
    log2 N levels (the automatic plans have <= 64 values a thread); exp = ex2.approx(a *
    log2e) (relative error |a| eps from the product, APPROX from ex2); log = lg2.approx
    (APPROX * max(1, L) absolute). Rounding the result to the dtype is not included (the
    rounding floor). NaN or inf entries are masked by the caller."""
    n = ref.shape[-1]
    gam = (min(n, 128) + math.ceil(math.log2(n)) + 4) * EPS32
    if tpl == "log_softmax":
        # y = d - L, d = x - max (exact or eps |d| <= eps |y|), L = log sum exp(d) >= 0
        fin = torch.isfinite(ref)
        ya = ref.abs().masked_fill(~fin, 0.0)
        p = torch.exp(ref.masked_fill(~fin, float("-inf")))          # softmax weights
        big = torch.full_like(ya, float("inf"))
        L = torch.where(fin, ref.abs(), big).amin(dim=-1, keepdim=True)  # -max(y) = L
        L = torch.nan_to_num(L, posinf=0.0)
        dL = (gam + 4 * EPS32 + 2 * EPS32 * (p * ya).sum(dim=-1, keepdim=True)
              + APPROX * torch.clamp(L, min=1.0))
        return 4 * EPS32 * ya + dL
    g, p = ins
    if tpl == "softmax_backward":
        # dx = p (g - s), s = sum g p: |err| <= |p| (gam sum|g p| + 3 eps (|g| + |s|)) + eps|dx|
        gp = g * p
        s = gp.sum(dim=-1, keepdim=True).abs()
        sa = gp.abs().sum(dim=-1, keepdim=True)
        return p.abs() * (gam * sa + 3 * EPS32 * (g.abs() + s)) + EPS32 * ref.abs()
    # log_softmax_backward: dx = g - exp(p) S, S = sum g; exp(p) relative error
    # APPROX + 2 eps |p| (p * log2e rounded, log2e rounded); results below 2^-126 flushed
    fin = torch.isfinite(p)
    e = torch.exp(p.masked_fill(~fin, float("-inf")))
    pa = p.abs().masked_fill(~fin, 0.0)
    S = g.sum(dim=-1, keepdim=True).abs()
    sa = g.abs().sum(dim=-1, keepdim=True)
    return (EPS32 * ref.abs() + e * (S * (APPROX + 2 * EPS32 * (1 + pa)) + gam * sa)
            + 2.0 ** -126 * S)


def padded_stride(n, es):
    """A row stride > n keeping rows 16-byte aligned (the widest vector access)."""
    per = 16 // es
    return (n + per - 1) // per * per + per


# ---------------------------------------------------------------- launch and check

def launch_checked(k, e, case, x_rows, rs_in=None, rs_out=None, stream_mode="default",
                   mixed=True, inner=None):
    """Copies x_rows (the input, or a tuple of the inputs in template order) into (maybe
    padded) inputs, launches into a poisoned, guarded output and runs every check of
    e.template; fills case.values/failures; returns the output view ([M, N] rows).
    inner: (I, pad) for an inner-layout kernel: the rows r = o * I + i become
    [M / I, N, I] tensors whose stride along N is I + pad (the pad NaN in the inputs,
    sentinel in the output), launched with dim=1."""
    ins_rows = x_rows if isinstance(x_rows, tuple) else (x_rows,)
    m, n = ins_rows[0].shape
    dt = tdtype(e.dtype)
    es = ins_rows[0].element_size()
    it = idtype(es)
    rs_in, rs_out = rs_in or n, rs_out or n
    xins, xs = [], []
    iv, ipad = inner if inner else (1, 0)
    shape = (m // iv, n, iv + ipad) if inner else (m, rs_in)
    for rows in ins_rows:
        xin = torch.empty(*shape, device="cuda", dtype=dt)
        if inner:
            xin[:, :, iv:] = float("nan")
            xin[:, :, :iv] = rows.reshape(m // iv, iv, n).transpose(1, 2)
            xins.append(xin)
            xs.append(xin[:, :, :iv])
            continue
        if rs_in > n:
            xin[:, n:] = float("nan")  # a kernel reading the padding turns rows NaN
        xin[:, :n] = rows
        xins.append(xin)
        xs.append(xin[:, :n])
    g = GUARD_BYTES // es
    span = m * rs_out if not inner else m // iv * n * (iv + ipad)
    big = torch.full((g + span + g,), SENTINEL[es], device="cuda", dtype=it)
    if inner:
        outer = big[g:g + span].view(m // iv, n, iv + ipad)
        outer[:, :, :iv] = POISON
        y = outer.view(dt)[:, :, :iv]
    else:
        outer = big[g:g + m * rs_out].view(m, rs_out)
        outer[:, :n] = POISON
        y = outer.view(dt)[:, :n]
    befores = [xin.view(it).clone() for xin in xins]
    dim = {"dim": 1} if inner else {}

    cur = torch.cuda.current_stream()
    if stream_mode == "explicit":
        s = torch.cuda.Stream()
        s.wait_stream(cur)
        k(*xs, out=y, stream=s, **dim)
        cur.wait_stream(s)
    elif stream_mode == "current":
        s = torch.cuda.Stream()
        s.wait_stream(cur)
        with torch.cuda.stream(s):
            k(*xs, out=y, **dim)
        cur.wait_stream(s)
    else:
        k(*xs, out=y, **dim)

    guard = (big[:g] != SENTINEL[es]).sum() + (big[g + span:] != SENTINEL[es]).sum()
    if inner and ipad:
        guard = guard + (outer[:, :, iv:] != SENTINEL[es]).sum()
    if not inner and rs_out > n:
        guard = guard + (outer[:, n:] != SENTINEL[es]).sum()
    if inner:  # the checks below read rows: row r = o * I + i of [M / I, N, I]
        xs = [x.transpose(1, 2).reshape(m, n) for x in xs]
        y = y.transpose(1, 2).reshape(m, n)
    changed = (xins[0].view(it) != befores[0]).sum()
    for xin, before in zip(xins[1:], befores[1:]):
        changed = changed + (xin.view(it) != before).sum()
    if e.template == "softmax":
        st = stats(xs[0], y, e.dtype)
    else:
        st = stats_tpl(e.template, xs, y, e.dtype)
    st["guard"] = guard
    st["input"] = changed
    vals = {key: v for key, v in zip(st.keys(), torch.stack(
        [v.double() if torch.is_tensor(v) else torch.tensor(float(v), device="cuda")
         for v in st.values()]).tolist())}
    if e.template == "softmax":
        judge(case, e.dtype, vals, mixed)
    else:
        judge_tpl(case, e.dtype, vals, mixed)
    return y


def stats(x, y, dt):
    """Reductions of the checks over [m, n] views x (input) and y (output), in row chunks
    of <= 2^25 elements; all values stay on the GPU (one sync in the caller)."""
    m, n = x.shape
    it = idtype(y.element_size())
    chunk = max(1, (1 << 25) // n)
    z = torch.zeros((), device="cuda", dtype=torch.float64)
    acc = {"nan": z, "written": z, "inf": z, "rel": z, "rel_row": z, "sum": z, "sum_raw": z,
           "ratio": z, "floor": z}
    for r0 in range(0, m, chunk):
        xs, ys = x[r0:r0 + chunk], y[r0:r0 + chunk]
        ref = torch.softmax(xs.double(), dim=-1)
        yd = ys.double()
        rnan = torch.isnan(ref)
        rowok = ~rnan.any(dim=-1)
        diff = (yd - ref).masked_fill(~rowok[:, None], 0.0)
        den = (ref * ref).sum(dim=-1).masked_fill(~rowok, 1.0)
        rel = torch.sqrt((diff * diff).sum(dim=-1) / den)
        # NaN (a NaN output in a finite row) must win the max: map it to +inf
        rel = torch.nan_to_num(rel, nan=float("inf"), posinf=float("inf"))
        # the rounding floor: the error of the reference rounded to the output dtype
        refq = ref.to(y.dtype).double().masked_fill(~rowok[:, None], 0.0)
        floor = torch.sqrt(((refq - ref.masked_fill(~rowok[:, None], 0.0)) ** 2).sum(dim=-1) / den)
        ratio = rel / torch.clamp(2.0 * floor, min=TOL[dt])
        acc["ratio"] = torch.maximum(acc["ratio"], ratio.max())
        acc["floor"] = torch.maximum(acc["floor"], floor.max())
        s = yd.sum(dim=-1)
        target = ref.to(y.dtype).double().sum(dim=-1) if dt != "f32" else 1.0
        serr = torch.nan_to_num((s - target).abs().masked_fill(~rowok, 0.0), nan=float("inf"),
                                posinf=float("inf"))
        sraw = torch.nan_to_num((s - 1.0).abs().masked_fill(~rowok, 0.0), nan=float("inf"),
                                posinf=float("inf"))
        cmax, crow = rel.max(dim=0)
        acc["rel_row"] = torch.where(cmax > acc["rel"], (crow + r0).double(), acc["rel_row"])
        acc["rel"] = torch.maximum(acc["rel"], cmax)
        acc["nan"] = acc["nan"] + (rnan != torch.isnan(yd)).sum()
        acc["written"] = acc["written"] + (ys.view(it) == POISON).sum()
        acc["inf"] = acc["inf"] + (torch.isinf(yd) & ~rnan).sum()
        acc["sum"] = torch.maximum(acc["sum"], serr.max())
        acc["sum_raw"] = torch.maximum(acc["sum_raw"], sraw.max())
    return acc


def compare_rows(tpl, ins, ref, yd, ydtype, dt, arith=True):
    """Per-row comparison of yd (an output, as float64) with ref (float64) for template
    tpl with float64 inputs ins ([rows, n] each). Elements where ref rounded to ydtype
    is finite ("fin", in rows without NaN) are compared by norm; the others must match
    exactly (rnan: NaN, nonfin: +-inf of the dtype). Returns a dict of [rows] tensors
    (rel, floor, allow, tol, ratio = rel / tol) and the masks. arith=False: no
    allowance for the template's arithmetic (arith_bound), as judge() for softmax."""
    rnan = torch.isnan(ref)
    rowok = ~rnan.any(dim=-1)
    refq = ref.to(ydtype).double()
    fin = torch.isfinite(refq) & rowok[:, None]
    nonfin = ~torch.isfinite(refq) & ~rnan
    reff = ref.masked_fill(~fin, 0.0)
    diff = (yd - ref).masked_fill(~fin, 0.0)
    den = (reff * reff).sum(dim=-1)
    den = torch.where(den > 0, den, torch.ones_like(den))   # a zero row: absolute error
    rel = torch.sqrt((diff * diff).sum(dim=-1) / den)
    # NaN (a NaN or inf output where the reference is finite) must win the max
    rel = torch.nan_to_num(rel, nan=float("inf"), posinf=float("inf"))
    floor = torch.sqrt(((refq.masked_fill(~fin, 0.0) - reff) ** 2).sum(dim=-1) / den)
    if arith:
        b = torch.nan_to_num(arith_bound(tpl, ins, ref), nan=0.0, posinf=0.0).masked_fill(~fin, 0.0)
        allow = torch.sqrt((b * b).sum(dim=-1) / den)
    else:
        allow = torch.zeros_like(floor)
    tol = torch.clamp(2.0 * floor + allow, min=TOL[dt])
    return {"rel": rel, "floor": floor, "allow": allow, "tol": tol, "ratio": rel / tol,
            "rnan": rnan, "fin": fin, "nonfin": nonfin, "refq": refq}


def new_acc(device):
    """The running worst case that accumulate() folds row chunks into."""
    z = torch.zeros((), device=device, dtype=torch.float64)
    return {"nan": z, "written": z, "inf": z, "rel": z, "ratio": z, "ratio_row": z,
            "floor": z, "allow": z}


def accumulate(acc, c, ys, yd, r0):
    """Folds compare_rows' result c for output rows ys (yd: the same as float64), the
    first of them row r0, into acc: worst ratios and the row of the worst, NaN and
    infinity mismatches, elements left unwritten (POISON)."""
    it = idtype(ys.element_size())
    cmax, crow = c["ratio"].max(dim=0)
    acc["ratio_row"] = torch.where(cmax > acc["ratio"], (crow + r0).double(), acc["ratio_row"])
    acc["ratio"] = torch.maximum(acc["ratio"], cmax)
    acc["rel"] = torch.maximum(acc["rel"], c["rel"].max())
    acc["floor"] = torch.maximum(acc["floor"], c["floor"].max())
    acc["allow"] = torch.maximum(acc["allow"], c["allow"].max())
    acc["nan"] = acc["nan"] + (c["rnan"] != torch.isnan(yd)).sum()
    acc["written"] = acc["written"] + (ys.view(it) == POISON).sum()
    acc["inf"] = acc["inf"] + ((c["nonfin"] & (yd != c["refq"]))
                               | (c["fin"] & torch.isinf(yd))).sum()


def stats_tpl(tpl, xs, y, dt):
    """stats() for the other templates: xs the input views (template order), y the
    output view; no row sums; see compare_rows. All values stay on the GPU."""
    m, n = y.shape
    chunk = max(1, (1 << 25) // n)
    acc = new_acc(y.device)
    for r0 in range(0, m, chunk):
        ins = [x[r0:r0 + chunk].double() for x in xs]
        ys = y[r0:r0 + chunk]
        yd = ys.double()
        c = compare_rows(tpl, ins, reference(tpl, ins), yd, y.dtype, dt)
        accumulate(acc, c, ys, yd, r0)
    return acc


def kind_of(row, m, mixed):
    if not mixed:
        return "normal"
    return ["normal", "large"][row] if m == 2 else KINDS[row % len(KINDS)]


def judge(case, dt, v, mixed=True):
    tol = TOL[dt]
    case.values.update({"rel": v["rel"], "sum": v["sum"]})
    if v.get("floor", 0) * 2 > tol:
        case.values["floor"] = v["floor"]
    if dt != "f32":
        case.values["sum_raw"] = v["sum_raw"]
    if v["nan"]:
        case.failures.append(f"nan: {int(v['nan'])} elements NaN where the reference is not, "
                             "or not NaN where it is")
    if v["written"]:
        case.failures.append(f"written: {int(v['written'])} output elements still hold the poison")
    if v["inf"]:
        case.failures.append(f"inf: {int(v['inf'])} infinite outputs where the reference is finite")
    if not v["ratio"] <= 1.0:
        case.failures.append(f"rel: max row ||y-ref||/||ref|| = {v['rel']:.3e} > max({tol:.0e}, "
                             f"2 x rounding floor {v['floor']:.1e}) "
                             f"(row {int(v['rel_row'])}, kind {kind_of(int(v['rel_row']), case.m, mixed)})")
    sum_tol = SUM_TOL_16.get(dt, SUM_TOL)
    if not v["sum"] <= sum_tol:
        case.failures.append(f"sum: max |rowsum - {'1' if dt == 'f32' else 'sum(' + dt + '(ref))'}|"
                             f" = {v['sum']:.3e} > {sum_tol:.2e}")
    if v["guard"]:
        case.failures.append(f"guard: {int(v['guard'])} elements written outside the output")
    if v["input"]:
        case.failures.append(f"input: {int(v['input'])} input elements changed")


def judge_tpl(case, dt, v, mixed=True):
    """judge() for the other templates (stats_tpl's values): no row-sum check."""
    tol = TOL[dt]
    case.values.update({"rel": v["rel"], "ratio": v["ratio"]})
    if 2 * v["floor"] + v["allow"] > tol:
        case.values.update({"floor": v["floor"], "allow": v["allow"]})
    if v["nan"]:
        case.failures.append(f"nan: {int(v['nan'])} elements NaN where the reference is not, "
                             "or not NaN where it is")
    if v["written"]:
        case.failures.append(f"written: {int(v['written'])} output elements still hold the poison")
    if v["inf"]:
        case.failures.append(f"inf: {int(v['inf'])} outputs not the +-inf of the reference "
                             "rounded to the dtype, or infinite where it is finite")
    if not v["ratio"] <= 1.0:
        row = int(v["ratio_row"])
        case.failures.append(f"rel: max over rows of (||y-ref||/||ref||) / max({tol:.0e}, 2 x rounding "
                             f"floor + f32 arithmetic bound) = {v['ratio']:.3e} > 1 (max rel "
                             f"{v['rel']:.3e}; row {row}, kind {kind_of(row, case.m, mixed)})")
    if v["guard"]:
        case.failures.append(f"guard: {int(v['guard'])} elements written outside the output")
    if v["input"]:
        case.failures.append(f"input: {int(v['input'])} input elements changed")


def binding_errors(k, e, c):
    """The binding's argument errors on real tensors (part 2 of the issue), and M = 0."""
    n, dt = e.n, tdtype(e.dtype)
    other = torch.float32 if dt != torch.float32 else torch.float16
    bad = [("wrong dtype", lambda: k(torch.zeros(4, n, device="cuda", dtype=other)),
            (softgen.ArgumentError, TypeError)),
           ("wrong N", lambda: k(torch.zeros(4, n + 1, device="cuda", dtype=dt)),
            softgen.ArgumentError),
           ("columns not contiguous", lambda: k(torch.zeros(n, 4, device="cuda", dtype=dt).t()),
            ValueError),
           ("host tensor", lambda: k(torch.zeros(4, n, dtype=dt)), ValueError),
           ("out of another shape", lambda: k(torch.zeros(4, n, device="cuda", dtype=dt),
                                              out=torch.zeros(5, n, device="cuda", dtype=dt)),
            softgen.ArgumentError)]
    for what, fn, exc in bad:
        try:
            fn()
            c.failures.append(f"{what}: no exception")
        except exc:
            pass
        except Exception as ex:  # noqa: BLE001
            c.failures.append(f"{what}: threw {type(ex).__name__} ({ex}), expected {exc}")
    y = k(torch.zeros(0, n, device="cuda", dtype=dt))  # M = 0: launches nothing
    if tuple(y.shape) != (0, n):
        c.failures.append(f"M=0 gave shape {tuple(y.shape)}")
    torch.cuda.synchronize()
    c.values["errors_checked"] = len(bad) + 1


class _Pseudo:
    """A manifest-like entry for the self-test."""

    def __init__(self, dtype, n, what, template="softmax"):
        self.dtype, self.n, self.set, self.template = dtype, n, "selftest", template
        tag = "" if template == "softmax" else f"{template}:"
        self.file = self.name = f"selftest:{tag}{what}:{dtype}:n{n}"


def torch_kernel(mode, template="softmax"):
    """A stand-in kernel written with torch (computing in f32): "ok" is a correct softmax
    (or the template's function); the others break one property that the checks must
    catch."""

    def k(*xs, out=None, stream=None):
        x = xs[0]
        ctx = torch.cuda.stream(stream) if stream is not None else contextlib.nullcontext()
        with ctx:
            if template == "softmax":
                y = torch.softmax(x.float(), dim=-1).to(x.dtype)
            elif template == "log_softmax":
                y = torch.log_softmax(x.float(), dim=-1).to(x.dtype)
            else:
                y = torch_backward(template, xs[0].float(), xs[1].float(),
                                   torch.float32).to(x.dtype)
            if mode == "unwritten":   # the last column is never written
                out[:, :-1] = y[:, :-1]
            elif mode == "nan":       # NaN rows come out as zeros
                out.copy_(torch.nan_to_num(y, nan=0.0))
            elif mode == "flush":     # outputs below 2^-126 flushed to 0
                out.copy_(torch.where(y.float().abs() < 2.0 ** -126, torch.zeros_like(y), y))
            elif mode == "overrun":   # one element written past the last row
                out.copy_(y)
                m, n = out.shape
                past = torch.as_strided(out, (1,), (1,), out.storage_offset() + (m - 1) * out.stride(0) + n)
                past.fill_(0.5)
            else:
                out.copy_(y)
        return out
    return k


def selftest(seed, template="softmax"):
    """Runs the checks on torch_kernel variants; a Case passes when the outcome is the
    expected one (no failure for "ok", a failure naming the broken check otherwise)."""
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)
    out = []
    for dt in ("f16", "bf16", "f32"):
        for n in (1, 33, 1025):
            for mode, expect in (("ok", None), ("unwritten", "written"), ("nan", "nan"),
                                 ("overrun", "guard")):
                e = _Pseudo(dt, n, mode, template)
                c, probe = Case(e, f"expect {expect or 'pass'}", 199), Case(e, mode, 199)
                try:
                    launch_checked(torch_kernel(mode, template), e, probe,
                                   make_inputs(template, 199, n, dt, gen),
                                   stream_mode="explicit" if n == 33 else "default")
                    c.values = dict(probe.values)
                    got = [f.split(":")[0] for f in probe.failures]
                    if expect is None and probe.failures:
                        what = "torch.softmax" if template == "softmax" else f"torch {template} (f32)"
                        c.failures += [f"the checks reject {what}: {f}" for f in probe.failures]
                    elif expect is not None and expect not in got:
                        c.failures.append(f"a '{mode}' kernel was not caught by '{expect}' "
                                          f"(failures: {probe.failures})")
                except Exception as ex:  # noqa: BLE001
                    c.failures.append(f"raised {type(ex).__name__}: {ex}")
                out.append(c)
    for dt in SUBNORMAL_LOGIT if template == "softmax" else ():
        for n in (2, 33, 1025):
            for mode, expect in (("ok", None), ("flush", "subnormal")):
                e = _Pseudo(dt, n, mode, template)
                c = Case(e, f"subnormal rows: expect {expect or 'pass'}", 199)
                probe = Case(e, mode, 199)
                try:
                    x, cols = subnormal_rows(199, n, dt)
                    y = launch_checked(torch_kernel(mode, template), e, probe, x, mixed=False)
                    fails = probe.failures + subnormal_failures(x, y, cols, dt)
                    c.values = dict(probe.values)
                    if expect is None and fails:
                        c.failures += [f"the checks reject torch.softmax: {f}" for f in fails]
                    elif expect is not None and expect not in [f.split(":")[0] for f in fails]:
                        c.failures.append(f"a '{mode}' kernel was not caught by '{expect}' "
                                          f"(failures: {fails})")
                except Exception as ex:  # noqa: BLE001
                    c.failures.append(f"raised {type(ex).__name__}: {ex}")
                out.append(c)
    torch.cuda.synchronize()
    return out


def run_object(e, gen, quick):
    """All cases of one manifest entry (a list of Case)."""
    out = []
    n, dt = e.n, e.dtype
    try:
        k = softgen.load(e.path)
    except Exception as ex:  # noqa: BLE001
        c = Case(e, "load", 0)
        c.failures.append(f"load raised {type(ex).__name__}: {ex}")
        return [c]
    meta_bad = []
    tpl = e.template
    if not k.n_min <= n <= k.n:  # a kernel for a range of N takes any N in it
        meta_bad.append(f"metadata N {k.n_min}..{k.n} does not hold manifest N {n}")
    if tpl == "softmax":
        if k.template != "softmax":
            meta_bad.append(f"metadata template {k.template!r}")
        if [t[2] for t in k.tensors] != [dt, dt]:
            meta_bad.append(f"metadata tensors {k.tensors} are not two {dt} tensors")
    elif tpl not in TEMPLATES:
        meta_bad.append(f"suite.py has no reference for template {tpl!r}")
    else:
        want = TEMPLATES[tpl]["tensors"]
        if k.template != tpl:
            meta_bad.append(f"metadata template {k.template!r}, manifest {tpl!r}")
        if [(t[0], t[1], t[2]) for t in k.tensors] != [(nm, o, dt) for nm, o in want]:
            meta_bad.append(f"metadata tensors {k.tensors} are not "
                            f"{[(nm, o, dt) for nm, o in want]}")
    if meta_bad:
        c = Case(e, "metadata", 0)
        c.failures += meta_bad
        return [c]
    es = torch.empty((), dtype=tdtype(dt)).element_size()
    cap = max(1, MAX_ELEMS // n)
    tcase = TEMPLATES[tpl]["torch"]  # "torch.softmax" for softmax
    plan = [("mixed", 1, "contig", "default"), ("mixed", 199, "contig", "default"),
            (tcase, 6, None, None)]
    if not quick:
        plan = [("mixed", 1, "contig", "default"), ("mixed", 2, "contig", "default"),
                ("mixed", 199, "contig", "default"), ("mixed", 199, "strided", "default")]
        if tpl in SHIFT_TEMPLATES:
            plan.append(("shift", 199, "contig", "default"))
        plan.append(("mixed", min(4096, cap), "contig", "explicit"))
        if n <= 4096:
            plan.append(("mixed", min(70000, cap), "contig", "current"))
        if n <= 4:  # packed rows past their few-rows variants; a partial last vector
            plan.append(("mixed", min(1500003, cap), "contig", "default"))
            plan.append(("mixed", min(1500003, cap), "strided", "default"))
        elif n <= 256 and e.set == "auto":  # flat rows of several a thread past their
            # few-rows variants (plan->thread_rows); a partial last row block
            plan.append(("mixed", min(FLAT_M, cap), "contig", "default"))
            plan.append(("mixed", min(FLAT_M, cap), "strided", "default"))
        plan.append((tcase, 6, None, None))
    if tpl == "softmax" and e.set == "auto" and n == 1000 and e.file.endswith(".cubin"):
        plan.append(("binding errors", 4, None, None))
    if tpl == "softmax" and dt in SUBNORMAL_LOGIT and n >= 2 and not quick:
        plan.append(("subnormal", min(199, cap), "contig", "default"))
    if e.set == "inner":  # [outer, N, inner] (inner, pad: the stride along N is inner + pad)
        plan = [("mixed", o * i, "inner", mode, (i, p)) for o, i, p, mode in INNER_SHAPES
                if o * i <= cap and (not quick or mode == "default")]
        if tpl in SHIFT_TEMPLATES and not quick:
            plan.append(("shift", 128, "inner", "default", (64, 0)))
        plan.append(("torch inner", 12, None, None))
    for what, m, layout, mode, *inner in plan:
        inner = inner[0] if inner else None
        label = what if what != "mixed" else f"{layout}{'' if mode == 'default' else ', ' + mode + ' stream'}"
        if inner:
            label = f"{what if what != 'mixed' else ''} [{m // inner[0]}, N, {inner[0]}]" + \
                (f" n_stride {inner[0] + inner[1]}" if inner[1] else "") + \
                ("" if mode == "default" else f", {mode} stream")
        c = Case(e, label.strip(), m)
        t = time.time()
        try:
            if what == "mixed":
                x = make_inputs(tpl, m, n, dt, gen)
                rs = padded_stride(n, es) if layout == "strided" else None
                launch_checked(k, e, c, x, rs, rs, mode, inner=inner)
            elif what == "torch inner":
                torch_case_inner(k, e, c, gen)
            elif what == "shift":
                x, xs = shift_pair(m, n, dt, gen)
                y0 = launch_checked(k, e, c, x, mixed=False, inner=inner).clone()
                c1 = Case(e, "shift+100", m)
                y1 = launch_checked(k, e, c1, xs, mixed=False, inner=inner)
                c.failures += [f"x+100: {f}" for f in c1.failures]
                c.values["rel+100"] = c1.values["rel"]
                d = (y1.double() - y0.double())
                if tpl == "softmax":
                    srel = ((d * d).sum(-1) / (y0.double() ** 2).sum(-1)).sqrt().max().item()
                else:  # log_softmax of N = 1 is 0: an absolute difference there
                    den = (y0.double() ** 2).sum(-1)
                    den = torch.where(den > 0, den, torch.ones_like(den))
                    srel = torch.nan_to_num(((d * d).sum(-1) / den).sqrt(), nan=float("inf")
                                            ).max().item()
                c.values["shift_rel"] = srel
                if not srel <= TOL[dt]:
                    c.failures.append(f"shift: max row ||y(x+100)-y(x)||/||y(x)|| = {srel:.3e}"
                                      f" > {TOL[dt]:.0e}")
            elif what == "subnormal":
                x, cols = subnormal_rows(m, n, dt)
                y = launch_checked(k, e, c, x, mixed=False)
                c.failures += subnormal_failures(x, y, cols, dt)
            elif what == "binding errors":
                binding_errors(k, e, c)
            elif tpl != "softmax":
                torch_case_tpl(k, e, c, gen)
            else:  # the binding on a torch tensor, output allocated by the binding
                x = torch.randn(2, 3, n, device="cuda", generator=gen, dtype=torch.float32)
                x = (x * 2).to(tdtype(dt))
                y = k(x)
                if y.shape != x.shape or y.dtype != x.dtype:
                    c.failures.append(f"k(x) gave {tuple(y.shape)} {y.dtype} for "
                                      f"{tuple(x.shape)} {x.dtype}")
                else:
                    ts = torch.softmax(x, dim=-1).double().reshape(-1, n)
                    yd = y.double().reshape(-1, n)
                    ref = torch.softmax(x.double(), dim=-1).reshape(-1, n)
                    num = ((yd - ts) ** 2).sum(-1)
                    vt = torch.sqrt(num / (ts * ts).sum(-1)).max()
                    vr = torch.sqrt(((yd - ref) ** 2).sum(-1) / (ref * ref).sum(-1)).max()
                    rq = ref.to(tdtype(dt)).double()
                    fl = torch.sqrt(((rq - ref) ** 2).sum(-1) / (ref * ref).sum(-1)).max()
                    vt, vr, fl = torch.stack([vt, vr, fl]).tolist()
                    c.values.update({"rel_torch": vt, "rel": vr})
                    tol = max(TOL[dt], 2 * fl)  # the rounding floor, as in judge()
                    if not vt <= tol:
                        c.failures.append(f"torch.softmax: max row rel diff {vt:.3e} > "
                                          f"{tol:.1e}")
                    if not vr <= tol:
                        c.failures.append(f"rel: {vr:.3e} > {tol:.1e}")
        except Exception as ex:  # noqa: BLE001 - a raising case is a failed case
            tb = traceback.format_exc().strip().splitlines()
            c.failures.append(f"raised {type(ex).__name__}: {ex} ({tb[-3].strip() if len(tb) > 2 else ''})")
        c.seconds = time.time() - t
        out.append(c)
    out[0].values["plan"] = (f"block={k.block},rows_per_block={k.rows_per_block},"
                             f"vector_bytes={k.vector_bytes}")
    try:
        torch.cuda.synchronize()
    except Exception as ex:  # noqa: BLE001 - a sticky device error: the next cases say so
        out[-1].failures.append(f"raised at synchronize: {type(ex).__name__}: {ex}")
    del k
    return out


def torch_case_inner(k, e, c, gen):
    """An inner-layout kernel on a contiguous [2, N, 6] torch tensor, dim=1, output
    allocated by the binding, against the float64 reference of torch's function over
    dim 1 (judge()'s tolerance for softmax, compare_rows' for the others, on the rows
    r = o * 6 + i); torch's own result in the dtype is logged beside (torch_ratio)."""
    n, dt, tpl = e.n, tdtype(e.dtype), e.template
    ins = [(torch.randn(2, n, 6, device="cuda", generator=gen) * 2).to(dt)]
    if tpl in ("softmax_backward", "log_softmax_backward"):
        fwd = torch.softmax if tpl == "softmax_backward" else torch.log_softmax
        ins = [ins[0], fwd(torch.randn(2, n, 6, device="cuda", generator=gen).double(),
                           dim=1).to(dt)]
    y = k(*ins, dim=1)
    if tpl in ("softmax", "log_softmax"):
        f = getattr(torch, tpl)
        t, ref = f(ins[0], dim=1), f(ins[0].double(), dim=1)
    else:
        f = torch._softmax_backward_data if tpl == "softmax_backward" \
            else torch._log_softmax_backward_data
        t, ref = f(ins[0], ins[1], 1, dt), f(ins[0].double(), ins[1].double(), 1, torch.float64)
    rows = [a.transpose(1, 2).reshape(-1, n) for a in [y, t, ref] + ins]
    if y.shape != ins[0].shape or y.dtype != dt:
        c.failures.append(f"k(x, dim=1) gave {tuple(y.shape)} {y.dtype}")
        return
    if tpl == "softmax":  # rel by norm against max(TOL, 2 x rounding floor), as judge()
        yd, td, ref = rows[0].double(), rows[1].double(), rows[2]
        den = (ref * ref).sum(-1)
        fl = torch.sqrt(((ref.to(dt).double() - ref) ** 2).sum(-1) / den).max()
        tol = torch.clamp(2 * fl, min=TOL[e.dtype])
        ry = torch.sqrt(((yd - ref) ** 2).sum(-1) / den).max()
        rt = torch.sqrt(((td - ref) ** 2).sum(-1) / den).max()
        vy, vt, rel = (ry / tol).item(), (rt / tol).item(), ry.item()
    else:
        ins64 = [a.double() for a in rows[3:]]
        cy = compare_rows(tpl, ins64, rows[2], rows[0].double(), dt, e.dtype)
        ct = compare_rows(tpl, ins64, rows[2], rows[1].double(), dt, e.dtype)
        vy, vt, rel = cy["ratio"].max().item(), ct["ratio"].max().item(), cy["rel"].max().item()
    c.values.update({"rel": rel, "ratio": vy, "torch_ratio": vt})
    if not vy <= 1.0:
        c.failures.append(f"rel/tol {vy:.3f} > 1 against the float64 reference")


def torch_case_tpl(k, e, c, gen):
    """The torch.* case of the other templates: k(...) on [2, 3, N] tensors (output
    allocated by the binding) against the float64 reference within the tolerance of
    compare_rows, and against the torch function in the dtype within that tolerance
    plus the torch function's own error against the float64 reference."""
    n, dt, tpl = e.n, tdtype(e.dtype), e.template
    x = (torch.randn(2, 3, n, device="cuda", generator=gen, dtype=torch.float32) * 2).to(dt)
    if tpl == "log_softmax":
        ins = (x,)
        ts = torch.log_softmax(x, dim=-1)
    else:
        dy = torch.randn(2, 3, n, device="cuda", generator=gen, dtype=torch.float32).to(dt)
        fwd = torch.softmax if tpl == "softmax_backward" else torch.log_softmax
        ins = (dy, fwd(x.double(), dim=-1).to(dt))
        ts = torch_backward(tpl, ins[0], ins[1], dt)
    y = k(*ins)
    if y.shape != x.shape or y.dtype != x.dtype:
        c.failures.append(f"k(...) gave {tuple(y.shape)} {y.dtype} for {tuple(x.shape)} {x.dtype}")
        return
    flat = [t.reshape(-1, n).double() for t in ins]
    yd = y.reshape(-1, n).double()
    ref = reference(tpl, flat)
    cr = compare_rows(tpl, flat, ref, yd, dt, e.dtype)
    ct = compare_rows(tpl, flat, ts.reshape(-1, n).double(), yd, dt, e.dtype)
    # torch's own rows are off the float64 reference too (its 16-bit backward passes:
    # on an H200, f16 rows 8.6e-3 from ours where ours were 3.2e-4 from the reference):
    # a row may differ from torch's by our tolerance plus torch's own error
    tr = compare_rows(tpl, flat, ref, ts.reshape(-1, n).double(), dt, e.dtype)
    vals = torch.stack([ct["rel"].max(), (ct["rel"] / (cr["tol"] + tr["rel"])).max(),
                        cr["rel"].max(),
                        cr["ratio"].max(), cr["tol"].max(),
                        (cr["rnan"] != torch.isnan(yd)).sum().double(),
                        ((cr["nonfin"] & (yd != cr["refq"])) | (cr["fin"] & torch.isinf(yd))
                         ).sum().double()]).tolist()
    vt, rt, vr, rr, tol, nan, inf = vals
    c.values.update({"rel_torch": vt, "rel": vr, "ratio": rr})
    name = TEMPLATES[tpl]["torch"]
    if not rt <= 1.0:
        c.failures.append(f"{name}: max row rel diff to torch in {e.dtype} {vt:.3e} over its "
                          f"tolerance (ratio {rt:.3e}; largest tolerance {tol:.1e})")
    if not rr <= 1.0:
        c.failures.append(f"rel: {vr:.3e} over its tolerance (ratio {rr:.3e}; largest "
                          f"tolerance {tol:.1e})")
    if nan:
        c.failures.append(f"nan: {int(nan)} elements NaN where the reference is not, or not NaN "
                          "where it is")
    if inf:
        c.failures.append(f"inf: {int(inf)} outputs not the +-inf of the reference rounded to "
                          "the dtype, or infinite where it is finite")


# ---------------------------------------------------------------- reporting

def summarize(entries, cases, not_run):
    table = {}
    for dt in ("f16", "bf16", "f32"):
        for g in GROUPS:
            table[(dt, g)] = {"objects": set(), "pass": 0, "fail": 0, "not_run": 0,
                              "rel": 0.0, "sum": 0.0}
    for c in cases:
        if c.entry.template != "softmax":  # summarize_tpl
            continue
        row = table[(c.entry.dtype, group_of(c.entry.n))]
        row["objects"].add(c.entry.file)
        row["pass" if c.ok else "fail"] += 1
        if "rel" in c.values:
            row["rel"] = max(row["rel"], c.values["rel"])
        if "sum" in c.values:
            row["sum"] = max(row["sum"], c.values["sum"])
    for e in not_run:
        if e.template == "softmax":
            table[(e.dtype, group_of(e.n))]["not_run"] += 1
    return table


def summarize_tpl(entries, cases, not_run):
    """The table of the other templates: (template, dtype, N group) -> counts, max rel
    err and max rel / tolerance; empty when the manifest has softmax only."""
    table = {}
    tpls = [t for t in TEMPLATES if t != "softmax"]
    tpls += sorted({e.template for e in entries} - set(TEMPLATES))

    def row(e):
        key = (e.template, e.dtype, group_of(e.n))
        if key not in table:
            table[key] = {"objects": set(), "pass": 0, "fail": 0, "not_run": 0, "rel": 0.0,
                          "ratio": 0.0}
        return table[key]
    for c in cases:
        if c.entry.template == "softmax":
            continue
        r = row(c.entry)
        r["objects"].add(c.entry.file)
        r["pass" if c.ok else "fail"] += 1
        for k in ("rel", "ratio"):
            if k in c.values:
                r[k] = max(r[k], c.values[k])
    for e in not_run:
        if e.template != "softmax":
            row(e)["not_run"] += 1
    order = {(t, d, g): i for i, (t, d, g) in enumerate(
        (t, d, g) for t in tpls for d in ("f16", "bf16", "f32") for g in GROUPS)}
    return dict(sorted(table.items(), key=lambda kv: order.get(kv[0], len(order))))


def open_log(outdir, name):
    """The log file outdir/name and say(msg, out=True): a line to the log, and to
    stdout unless out is false."""
    os.makedirs(outdir, exist_ok=True)
    log = open(os.path.join(outdir, name), "w")

    def say(msg, out=True):
        log.write(msg + "\n")
        log.flush()
        if out:
            print(msg, flush=True)

    return log, say


def render_table(head, rows, md=False):
    """A table as markdown (md) or as aligned text columns."""
    if md:
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join(lines)
    w = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(head)]
    fmt = "  ".join("{:<%d}" % x for x in w)
    return "\n".join([fmt.format(*head)] + [fmt.format(*r) for r in rows])


def format_table_tpl(table, md=False):
    head = ["template", "dtype", "N group", "objects", "cases", "pass", "fail", "not run",
            "max rel err", "max rel/tol"]
    rows = [[t, dt, g, str(len(r["objects"])), str(r["pass"] + r["fail"]), str(r["pass"]),
             str(r["fail"]), str(r["not_run"]), f"{r['rel']:.2e} (tol {TOL[dt]:.0e})",
             f"{r['ratio']:.2f}"] for (t, dt, g), r in table.items()]
    return render_table(head, rows, md)


def format_table(table, md=False):
    head = ["dtype", "N group", "objects", "cases", "pass", "fail", "not run",
            "max rel err", "max rowsum err"]
    rows = []
    for (dt, g), r in table.items():
        cases = r["pass"] + r["fail"]
        if not cases and not r["not_run"]:
            continue
        rows.append([dt, g, str(len(r["objects"])), str(cases), str(r["pass"]), str(r["fail"]),
                     str(r["not_run"]), f"{r['rel']:.2e} (tol {TOL[dt]:.0e})", f"{r['sum']:.2e}"])
    return render_table(head, rows, md)


def write_markdown(path, info, entries, cases, failed, not_run, table, elapsed, args, selfcases,
                   ttable=None, tselfcases=()):
    ok = not failed and not not_run
    sets = sorted({e.set for e in entries})
    L = [f"### suite.py: {'PASS' if ok else 'FAIL'}", "",
         f"- GPU: {info['gpu']} ({info['cc']}); driver {info['driver']}; torch {info['torch']}",
         f"- date: {info['date']}",
         f"- objects: {len(entries)} ({sum(e.file.endswith('.ptx') for e in entries)} PTX, "
         f"the rest cubin); constraint sets: {', '.join(sets)}",
         f"- cases: {len(cases)}, passed {len(cases) - len(failed)}, failed {len(failed)}; "
         f"objects not run: {len(not_run)}; {elapsed:.0f} s"
         + (" (--quick)" if args.quick else ""),
         "- every case: output poisoned (NaN) before launch, 4 KiB guards around it, "
         "NaN mask = torch.softmax(float64)'s, row rel err by norm vs float64 "
         "(f32 1e-5, f16 1e-3, bf16 1e-2), row sums 1e-3 (bf16: vs the rounded reference's "
         "sum), input unchanged; M in {1, 2, 199, 4096, 70000 (N<=4096)}, strided rows, "
         "x vs x+100, a non-default stream, torch.softmax on a [2, 3, N] tensor",
         f"- self-test of the checks: torch.softmax in place of the kernel passes them, and an "
         f"unwritten column, NaN rows zeroed and a write past the output are each caught: "
         f"{sum(c.ok for c in selfcases)}/{len(selfcases)} as expected", "",
         format_table(table, md=True), ""]
    if ttable:
        tpls = [t for t in TEMPLATES if t != "softmax" and any(k[0] == t for k in ttable)]
        L[-3:-3] = [
            f"- other templates ({', '.join(tpls)}; automatic plan only): the same cases "
            "(shift for log_softmax only; no row sums), inputs dy = randn and y = the forward "
            "pass of the row kinds in the dtype for the backward passes; reference "
            "torch.log_softmax / torch._softmax_backward_data / "
            "torch._log_softmax_backward_data in float64 on the same rounded inputs; +-inf "
            "of the rounded reference matched exactly, the rest row rel err by norm within "
            "max(tol, 2 x rounding floor + a worst-case bound of the f32 arithmetic)",
            f"- self-test of the other templates' checks (torch in f32 as the kernel, and the "
            f"same three broken variants): {sum(c.ok for c in tselfcases)}/{len(tselfcases)} "
            "as expected"]
        L += ["#### Other templates", "", format_table_tpl(ttable, md=True), ""]
    if failed:
        L += [f"#### Failures ({len(failed)})", "", "```"]
        for c in failed[:200]:
            L.append(c.line())
        if len(failed) > 200:
            L.append(f"... and {len(failed) - 200} more in suite.log")
        L += ["```", ""]
    if not_run:
        L += [f"Not run (time budget or device lost): "
              f"{', '.join(e.file for e in not_run[:50])}"
              + (" ..." if len(not_run) > 50 else ""), ""]
    with open(path, "w") as f:
        f.write("\n".join(L))


if __name__ == "__main__":
    sys.exit(main())
