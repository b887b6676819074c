#!/usr/bin/env python3
"""softgen GPU alignment matrix (issue 21, "Correctness"): the objects of OBJECTS/align/
(test/gpu/generate-align.sh: every template x f16, bf16, f32 at N = 1, odd, prime and
2^k +- 1, automatic plan) launched through the Python binding on rows that start at every
element offset of a 16-byte vector, with row strides that are not multiples of it, and
with tensors of one launch at different offsets, against float64 references.

Needs: a CUDA GPU, torch, python/softgen and libsoftgen_rt.so ($SOFTGEN_RT_LIBRARY), and
OBJECTS/align/manifest.tsv (file, template, dtype, N, set; generate.sh's format). Reuses
test/gpu/suite.py's helpers (make_rows, make_inputs, reference, compare_rows / arith_bound,
judge_tpl, Case, Entry, the poison and sentinel values).
Usage:
  python3 test/gpu/alignment.py OBJECTS OUTDIR [--filter REGEX] [--max-seconds S] [--no-selftest]
  python3 test/gpu/alignment.py --sanitize KERNEL.cubin
Produces: OUTDIR/align.log (one line per case, failures in full), OUTDIR/align.md (a table
per template x dtype: objects, cases, passed, failed, skipped, max rel / tolerance; the
failures) and a short table on stdout. Objects run by N (all templates and dtypes at one N,
then the next), so --max-seconds leaves out the largest N first (counted as not run).
Exit status: 0 all passed (skips allowed), 1 a case failed or an object did not run (time
budget), 2 usage / setup error.

Layouts, per object; vec = 16 / element size (8 for f16 / bf16, 4 for f32), k the element
offset of a view's first element from a 16-byte boundary (buffers from torch are 512-byte
aligned), s its row stride:
  contig            every tensor k = 0, s = N                          M = 1, 2, 3, 300
  offset k          every tensor at k (1 .. vec - 1), s = N            M = 1, 3 (and 2, 300
                    for k = 1 and vec - 1)
  stride N+1        k = 0, s = N + 1 (row r starts at r (N + 1) mod vec) M = 2, 3, 300
  offset 1 stride N+3                                                  M = 2, 300
  out 1 in 2        inputs at k = 2, the output at k = 1 (the output's rows start at another
                    offset than the first input's: the per-element path) M = 1, 300
  two-input templates (backward passes: dy, y; masked, attention, safe_attention: x, mask):
  in2 0 others 1    the second input at k = 0, the rest at 1            M = 3, 300
  in2 vec-1 others 0                                                    M = 1, 300
  in2 stride N+1    the second input at k = 1, s = N + 1, the rest k = 1, s = N   M = 300
For N <= 4 (packed rows, several a vector) the layouts of 3 Ms or more also run M = 1500003,
past their few-rows variants: one vector access where the rows are a 16-byte aligned span,
element by element elsewhere, a partial last vector; for 4 < N <= 256 (flat rows, several a
thread) M = 300003, past theirs: the rows' span copied where it is one, per thread elsewhere.
Inputs are make_inputs' row kinds (normal, large, equal, rows of -inf, a +inf, a NaN, half
-inf, one-hot, near max, tiny; M = 2: normal, large) for softmax, log_softmax and the backward
passes, and make_rows' rows x for the others, with scale = 0.125, L = 7 (query m mod 7),
offset max(N / 2 - 3, 0) (safe_attention_softmax: N / 2 - 3, so small N have rows with no key
left: zeros), a mask of R = min(M, 3) rows (R = 3 repeats over M = 300) of 2 randn with 10 %
-inf. Input buffers hold NaN outside the views (a kernel that reads a row's neighbours turns
it NaN); the output buffer holds a sentinel outside the view (4 KiB before and after, the
gaps between rows) and the poison (NaN bits) in it.
References (float64): softmax torch.softmax; log_softmax and the backward passes suite.py's
reference(); the others softmax of the logits x * scale (+ mask[m mod R]) formed in f32, as
the kernel forms them (scale is a power of two, so one rounding: the sum's, as fma or mul and
add give), then the causal mask (key n <= (m mod L) + offset) and the safe rule (rows with
no key left give zeros) in float64.
Checks of every launch (suite.py's judge_tpl): nan (NaN exactly where the reference is NaN),
written (no poison left), inf, rel (per row ||y - ref|| / ||ref|| over the finite entries,
within max(TOL, 2 x rounding floor) for the softmax family and suite.py's compare_rows bound
(with arith_bound) for log_softmax and the backward passes), guard (every element of the
output buffer outside the view keeps the sentinel), input (input buffers bit for bit
unchanged), and in place: softgen.cache_info()["device_copies"] unchanged (the binding
launched on the caller's views, no aligned copy). A kernel whose metadata says vector_bytes
== its element size takes any element-aligned view, so every case runs; one whose vectors are
wider (vector_bytes 16: N a multiple of the vector, or objects made before the peeled head)
runs the cases whose views are aligned to its vectors and reports the others as "skipped:
kernel requires aligned rows" (not failures).
A self-test first runs the checks on torch stand-ins on the misaligned layouts: a correct one
must pass; one that reads the rows from the 16-byte boundary below the view, one that leaves
each row's first element unwritten and one that writes one element past each row must each be
caught (nan or rel, written, guard).

--sanitize KERNEL: the driver of run.sh's compute-sanitizer stage for align objects
(softgen-run has no offsets): no torch CUDA work (only the kernel runs on the GPU); buffers
from the runtime (sgrt_mem_alloc, each ending where its view's last row does, so memcheck sees
a read or write past it), M = 3 on contig, offset 1, offset vec - 1, stride N+1, out 1 in 2
and in2 0 others 1, and M = 300 (63 past N = 8193, which the 3 mask rows divide) on the last
three; inputs of normal rows (a mask as above), checked on the CPU as above; template, dtype and N from the metadata. Also
runs host-target objects (.so, the runtime's host memory): a dry run where no GPU is. Prints
one line per launch and last "check: ... PASS" (or FAIL); exit 0 passed, 1 a check failed, 3 a
runtime error.
"""
import argparse
import ctypes
import os
import re
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import suite  # noqa: E402 - test/gpu/suite.py, beside this file

MS = (1, 2, 3, 300)
PACKED_M = 1500003  # N <= 4: past packed rows' few-rows variants; 3 divides it (masks)
FLAT_M = 300003  # 4 < N <= 256: past flat rows' one-row-a-thread variant; 3 divides it
SCALE = 0.125           # a power of two: x * scale is exact in f32
CAUSAL_L = 7
MASK_INF = 0.1          # the share of -inf keys in a mask
SUITE_TPLS = ("log_softmax", "softmax_backward", "log_softmax_backward")
ES = {"f16": 2, "bf16": 2, "f32": 4}
# The softmax family: (scaled, masked, causal, safe) per template
SOFT = {"softmax": (False, False, False, False),
        "scaled_softmax": (True, False, False, False),
        "safe_softmax": (False, False, False, True),
        "causal_softmax": (True, False, True, False),
        "masked_softmax": (True, True, False, False),
        "attention_softmax": (True, True, True, False),
        "safe_attention_softmax": (True, True, True, True)}


def known(tpl):
    return tpl in SOFT or tpl in SUITE_TPLS


# ---------------------------------------------------------------- layouts

def layouts(vec, ninputs):
    """[(label, {tensor index: (k, pad)} with 'in' (every input), 'in2' (the second input)
    and 'out' keys, Ms)] for vectors of vec elements and ninputs inputs."""
    out = [("contig", {"in": (0, 0), "out": (0, 0)}, MS)]
    for k in range(1, vec):
        ms = (1, 2, 3, 300) if k in (1, vec - 1) else (1, 3)
        out.append((f"offset {k}", {"in": (k, 0), "out": (k, 0)}, ms))
    out += [("stride N+1", {"in": (0, 1), "out": (0, 1)}, (2, 3, 300)),
            ("offset 1 stride N+3", {"in": (1, 3), "out": (1, 3)}, (2, 300)),
            ("out 1 in 2", {"in": (2, 0), "out": (1, 0)}, (1, 300))]
    if ninputs >= 2:
        out += [("in2 0 others 1", {"in": (1, 0), "in2": (0, 0), "out": (1, 0)}, (3, 300)),
                (f"in2 {vec - 1} others 0", {"in": (0, 0), "in2": (vec - 1, 0),
                                             "out": (0, 0)}, (1, 300)),
                ("in2 stride N+1", {"in": (1, 0), "in2": (1, 1), "out": (1, 0)}, (300,))]
    return out


# --sanitize: the layouts it runs (and "offset vec - 1"), M = 3 on each, and many rows (300;
# 63 past N = 8193, a multiple of the mask's 3 rows) on those marked True (racecheck's time
# grows with the launches)
SANITIZE = {"contig": False, "offset 1": False, "stride N+1": True, "out 1 in 2": True,
            "in2 0 others 1": True}


def place_of(lay, i, is_out):
    """(k, pad) of tensor i (an input's index in template order) under layout lay."""
    if is_out:
        return lay["out"]
    return lay["in2"] if i == 1 and "in2" in lay else lay["in"]


# ---------------------------------------------------------------- inputs and references

def mask_rows(m):
    return m if m <= 3 else 3


def scalars_of(k, n):
    """The scalar arguments of kernel k (by its metadata's names)."""
    tpl = k.template
    offset = n // 2 - 3 if tpl == "safe_attention_softmax" else max(n // 2 - 3, 0)
    vals = {"scale": SCALE, "L": CAUSAL_L, "offset": offset}
    return {name: vals[name] for name, _ in k.scalars}


def make_case_inputs(tpl, m, n, dt, gen, device="cuda"):
    """The inputs of template tpl in template order ([m, n] rows; a mask [R, n])."""
    torch = suite.torch
    if device == "cuda":
        if tpl in SUITE_TPLS or tpl == "softmax":
            ins = suite.make_inputs(tpl, m, n, dt, gen)
            ins = ins if isinstance(ins, tuple) else (ins,)
        else:
            ins = (suite.make_rows(m, n, dt, gen),)
    else:  # --sanitize: normal rows on the CPU (no torch CUDA work under the sanitizer)
        x = (torch.randn(m, n, generator=gen) * 2).to(suite.tdtype(dt))
        ins = (x,)
        if tpl in ("softmax_backward", "log_softmax_backward"):
            fwd = torch.softmax if tpl == "softmax_backward" else torch.log_softmax
            ins = (torch.randn(m, n, generator=gen).to(suite.tdtype(dt)),
                   fwd(x.double(), dim=-1).to(suite.tdtype(dt)))
    if tpl in SOFT and SOFT[tpl][1]:
        r = mask_rows(m)
        mask = torch.randn(r, n, generator=gen, device=device) * 2
        mask = mask.masked_fill(torch.rand(r, n, generator=gen, device=device) < MASK_INF,
                                float("-inf"))
        ins = ins + (mask.to(suite.tdtype(dt)),)
    return ins


def reference(tpl, ins, scalars, r0=0):
    """float64 reference rows of template tpl for inputs ins (in the dtype, template order;
    a mask whole, its R rows repeating), the rows being rows r0, r0 + 1, ... of the launch
    (the mask row and the causal query follow the row's index)."""
    torch = suite.torch
    if tpl in SUITE_TPLS:
        return suite.reference(tpl, [a.double() for a in ins])
    scaled, masked, causal, safe = SOFT[tpl]
    x = ins[0]
    m, n = x.shape
    if not scaled and not masked:
        s = x.double()
    else:  # the f32 logits, as the kernel forms them
        s = x.float() * scalars["scale"]
        if masked:
            mk = ins[1]
            s = s + mk.float()[(torch.arange(m, device=x.device) + r0) % mk.shape[0]]
        s = s.double()
    if causal:
        q = (torch.arange(m, device=x.device)[:, None] + r0) % scalars["L"]
        col = torch.arange(n, device=x.device)[None, :]
        s = s.masked_fill(col > q + scalars["offset"], float("-inf"))
    y = torch.softmax(s, dim=-1)
    if safe:
        y = y.masked_fill((s == float("-inf")).all(dim=-1, keepdim=True), 0.0)
    return y


def compare_rows(tpl, ins64, ref, yd, ydtype, dt):
    """suite.compare_rows: for log_softmax and the backward passes with arith_bound; for
    the softmax family with suite.judge's tolerance, max(TOL, 2 x rounding floor): no
    arithmetic allowance, as suite.py's softmax."""
    return suite.compare_rows(tpl, ins64, ref, yd, ydtype, dt, arith=tpl in SUITE_TPLS)


def stats(tpl, xs, y, dt, scalars):
    """suite.stats_tpl for every template: xs the input views (template order; a mask of R
    rows), y the output view; rows in chunks of <= 2^25 elements; values stay on y's device
    (one sync in the caller)."""
    m, n = y.shape
    chunk = max(1, (1 << 25) // n)
    whole = {1} if tpl in SOFT and SOFT[tpl][1] else set()   # the mask: R rows, not sliced
    acc = suite.new_acc(y.device)
    for r0 in range(0, m, chunk):
        ins = [x if i in whole else x[r0:r0 + chunk] for i, x in enumerate(xs)]
        ys = y[r0:r0 + chunk]
        yd = ys.double()
        ref = reference(tpl, ins, scalars, r0)
        c = compare_rows(tpl, [a.double() for a in ins], ref, yd, y.dtype, dt)
        suite.accumulate(acc, c, ys, yd, r0)
    return acc


# ---------------------------------------------------------------- buffers and views

class Place:
    """Where one tensor of a launch lives: rows x n elements at element offset base of a
    flat buffer, stride elements apart (the buffer is the caller's)."""

    def __init__(self, rows, n, k, pad, guard):
        self.rows, self.n, self.stride = rows, n, n + pad
        self.base = guard + k
        self.span = (rows - 1) * self.stride + n
        self.size = self.base + self.span + guard

    def view(self, buf):
        return buf.as_strided((self.rows, self.n), (self.stride, 1), self.base)


def need_bytes(k, dtypes, i):
    """The alignment (bytes) the runtime asks of tensor i (sg_meta_tensor_align: the
    kernel's vector_bytes, of its widest tensor, scaled to tensor i's element)."""
    widest = max(ES[d] for d in dtypes)
    return max(1, (k.vector_bytes or 1) * ES[dtypes[i]] // widest)


def runnable(k, places, addrs, dtypes):
    """Whether every tensor's view meets the kernel's alignment (the runtime's rule)."""
    for i, (p, a) in enumerate(zip(places, addrs)):
        vb = need_bytes(k, dtypes, i)
        if a % vb or (p.rows > 1 and p.stride * ES[dtypes[i]] % vb):
            return False
    return True


def launch_case(k, e, case, ins_rows, lay, scalars, device="cuda"):
    """Lays ins_rows (template order) out as lay says in NaN-filled buffers, launches k
    into a poisoned view of a sentinel-filled buffer and judges it (suite.judge_tpl).
    Returns False when the kernel cannot take these views (skipped), else True."""
    torch = suite.torch
    dt = suite.tdtype(e.dtype)
    es = ins_rows[0].element_size()
    it = suite.idtype(es)
    m, n = ins_rows[0].shape
    g = suite.GUARD_BYTES // es
    dtypes = [t[2] for t in k.tensors]
    places, bufs, views = [], [], []
    for i, rows in enumerate(ins_rows):
        kk, pad = place_of(lay, i, False)
        p = Place(rows.shape[0], n, kk, pad, g)
        buf = torch.full((p.size,), float("nan"), device=device, dtype=dt)
        v = p.view(buf)
        v.copy_(rows)
        places.append(p)
        bufs.append(buf)
        views.append(v)
    kk, pad = place_of(lay, 0, True)
    po = Place(m, n, kk, pad, g)
    big = torch.full((po.size,), suite.SENTINEL[es], device=device, dtype=it)
    po.view(big).fill_(suite.POISON)
    y = po.view(big.view(dt))
    order = [t[1] for t in k.tensors]           # tensors in metadata order: inputs, then y
    all_places = places + [po]
    addrs = [v.data_ptr() for v in views] + [y.data_ptr()]
    if order != [False] * len(views) + [True]:
        raise RuntimeError(f"unexpected tensor order {k.tensors}")
    if not runnable(k, all_places, addrs, dtypes):
        return False
    befores = [b.view(it).clone() for b in bufs]
    c0 = suite.softgen.cache_info()["device_copies"]
    k(*views, out=y, **scalars)
    copies = suite.softgen.cache_info()["device_copies"] - c0
    chk = big.clone()
    po.view(chk).fill_(suite.SENTINEL[es])
    st = stats(e.template, views, y, e.dtype, scalars)
    st["guard"] = (chk != suite.SENTINEL[es]).sum()
    changed = torch.zeros((), device=device, dtype=torch.int64)
    for b, before in zip(bufs, befores):
        changed = changed + (b.view(it) != before).sum()
    st["input"] = changed
    vals = {key: v for key, v in zip(st.keys(), torch.stack(
        [v.double() for v in st.values()]).tolist())}
    suite.judge_tpl(case, e.dtype, vals, mixed=device == "cuda")
    if copies:
        case.failures.append(f"in place: the binding made {copies} aligned copies (the kernel "
                             f"says vector_bytes {k.vector_bytes}: it must take these views)")
    return True


# ---------------------------------------------------------------- one object

def run_object(e, gen, say):
    """(cases, skipped labels, the kernel's vector_bytes or None) of one manifest entry."""
    softgen = suite.softgen
    try:
        k = softgen.load(e.path)
    except Exception as ex:  # noqa: BLE001
        c = suite.Case(e, "load", 0)
        c.failures.append(f"load raised {type(ex).__name__}: {ex}")
        return [c], [], None
    bad = []
    if not k.n_min <= e.n <= k.n:  # a kernel for a range of N takes any N in it
        bad.append(f"metadata N {k.n_min}..{k.n} does not hold manifest N {e.n}")
    if k.template != e.template:
        bad.append(f"metadata template {k.template!r}, manifest {e.template!r}")
    if any(t[2] != e.dtype for t in k.tensors):
        bad.append(f"metadata tensors {k.tensors} are not all {e.dtype}")
    if k.layout != "rows":
        bad.append(f"layout {k.layout}, not rows")
    if not known(e.template):
        bad.append(f"alignment.py has no reference for template {e.template!r}")
    if bad:
        c = suite.Case(e, "metadata", 0)
        c.failures += bad
        return [c], [], None
    vec = 16 // ES[e.dtype]
    ninputs = sum(1 for t in k.tensors if not t[1])
    scalars = scalars_of(k, e.n)
    cases, skipped = [], []
    for label, lay, ms in layouts(vec, ninputs):
        if e.n <= 4 and len(ms) > 2:  # packed rows past their few-rows variants (1M rows)
            ms = ms + (PACKED_M,)
        elif e.n <= 256 and len(ms) > 2:  # flat rows of several a thread, past theirs
            ms = ms + (FLAT_M,)
        for m in ms:
            c = suite.Case(e, label, m)
            t = time.time()
            try:
                ins = make_case_inputs(e.template, m, e.n, e.dtype, gen)
                if not launch_case(k, e, c, ins, lay, scalars):
                    skipped.append(f"{label} M={m}")
                    continue
            except Exception as ex:  # noqa: BLE001 - a raising case is a failed case
                tb = traceback.format_exc().strip().splitlines()
                c.failures.append(f"raised {type(ex).__name__}: {ex} "
                                  f"({tb[-3].strip() if len(tb) > 2 else ''})")
            c.seconds = time.time() - t
            cases.append(c)
    if cases:
        cases[0].values["plan"] = (f"block={k.block},rows_per_block={k.rows_per_block},"
                                   f"vector_bytes={k.vector_bytes}")
    try:
        suite.torch.cuda.synchronize()
    except Exception as ex:  # noqa: BLE001 - a sticky device error
        if cases:
            cases[-1].failures.append(f"raised at synchronize: {type(ex).__name__}: {ex}")
    vb = k.vector_bytes
    del k
    return cases, skipped, vb


# ---------------------------------------------------------------- self-test

class StandIn:
    """A Kernel look-alike computing template tpl with torch (float64, rounded); mode
    breaks one property the checks must catch."""

    def __init__(self, tpl, n, dt, mode):
        self.template, self.n, self.mode, self.dt = tpl, n, mode, dt
        ins = {"softmax": ["x"], "softmax_backward": ["dy", "y"],
               "masked_softmax": ["x", "mask"]}[tpl]
        self.tensors = [(nm, False, dt) for nm in ins] + [("y", True, dt)]
        self.scalars = [("scale", "f32")] if tpl == "masked_softmax" else []
        self.vector_bytes = ES[dt]
        self.layout, self.block, self.rows_per_block = "rows", 0, 0

    @staticmethod
    def _aligned_down(x):
        torch = suite.torch
        es, (m, n), s = x.element_size(), x.shape, x.stride(0)
        rows = torch.arange(m, device=x.device)
        start = x.storage_offset() + rows * s
        start = start - (x.data_ptr() // es + rows * s) % (16 // es)
        flat = x.as_strided((x.untyped_storage().nbytes() // es,), (1,), 0)
        return flat[start[:, None] + torch.arange(n, device=x.device)[None, :]]

    def __call__(self, *xs, out=None, **scalars):
        torch = suite.torch
        if self.mode == "aligned-down read":   # each row read from the 16-byte boundary below
            xs = tuple(self._aligned_down(x) for x in xs)
        y = reference(self.template, xs, scalars).to(out.dtype)
        y = torch.where(torch.isnan(y), float("nan"), y)  # a canonical NaN, not the poison's bits
        if self.mode == "first unwritten":
            out[:, 1:] = y[:, 1:]
        elif self.mode == "overrun":           # one element past each row
            out.copy_(y)
            m, n = out.shape
            torch.as_strided(out, (m,), (out.stride(0),), out.storage_offset() + n).fill_(0.5)
        else:
            out.copy_(y)
        return out


def misaligned(lay, n, vec, ninputs):
    """Whether some input row of 300 (or a 3-row mask) starts off a 16-byte boundary."""
    for i in range(ninputs):
        k, pad = place_of(lay, i, False)
        if k % vec or (n + pad) % vec:
            return True
    return False


def selftest(seed, say):
    torch = suite.torch
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)
    cases = []
    for tpl in ("softmax", "softmax_backward", "masked_softmax"):
        for dt in ("f16", "f32"):
            for n in (1, 7, 33):
                vec = 16 // ES[dt]
                ninputs = 2 if tpl != "softmax" else 1
                lays = [l for l in layouts(vec, ninputs)
                        if l[0] in ("offset 1", "stride N+1", "out 1 in 2", "in2 0 others 1")]
                for mode, expect in (("ok", None), ("aligned-down read", ("nan", "rel")),
                                     ("first unwritten", ("written",)), ("overrun", ("guard",))):
                    if mode == "aligned-down read" and n == 1:
                        continue  # one-element rows: the element below is the view's pad too
                    k = StandIn(tpl, n, dt, mode)
                    e = suite._Pseudo(dt, n, mode, tpl)
                    for label, lay, _ in lays:
                        want = expect
                        if mode == "aligned-down read" and not misaligned(lay, n, vec, ninputs):
                            want = None   # e.g. N = 7, stride 8: every row is aligned
                        c, probe = suite.Case(e, f"{label}: expect {want or 'pass'}", 300), \
                            suite.Case(e, label, 300)
                        try:
                            ins = make_case_inputs(tpl, 300, n, dt, gen)
                            launch_case(k, e, probe, ins, lay, scalars_of(k, n))
                            c.values = dict(probe.values)
                            got = [f.split(":")[0] for f in probe.failures]
                            if want is None and probe.failures:
                                c.failures += [f"the checks reject a correct stand-in: {f}"
                                               for f in probe.failures]
                            elif want is not None and not set(want) & set(got):
                                c.failures.append(f"a '{mode}' stand-in was not caught by "
                                                  f"{' or '.join(want)} (failures: "
                                                  f"{probe.failures})")
                        except Exception as ex:  # noqa: BLE001
                            c.failures.append(f"raised {type(ex).__name__}: {ex}")
                        cases.append(c)
    torch.cuda.synchronize()
    return cases


# ---------------------------------------------------------------- reporting

def summarize(results):
    """{(template, dtype): counts} from [(entry, cases, skipped, vector_bytes)]."""
    table = {}
    for e, cases, skipped, vb in results:
        r = table.setdefault((e.template, e.dtype), {"objects": 0, "any": 0, "pass": 0,
                                                     "fail": 0, "skipped": 0, "not_run": 0,
                                                     "ratio": 0.0, "rel": 0.0})
        if cases is None:
            r["not_run"] += 1
            continue
        r["objects"] += 1
        r["any"] += vb == ES[e.dtype]
        for c in cases:
            r["pass" if c.ok else "fail"] += 1
            r["ratio"] = max(r["ratio"], c.values.get("ratio", 0.0))
            r["rel"] = max(r["rel"], c.values.get("rel", 0.0))
        r["skipped"] += len(skipped)
    return table


def format_table(table, md=False):
    head = ["template", "dtype", "objects", "any alignment", "cases", "pass", "fail",
            "skipped", "not run", "max rel err", "max rel/tol"]
    rows = [[t, d, str(r["objects"]), str(r["any"]), str(r["pass"] + r["fail"]), str(r["pass"]),
             str(r["fail"]), str(r["skipped"]), str(r["not_run"]),
             f"{r['rel']:.2e} (tol {suite.TOL[d]:.0e})", f"{r['ratio']:.2f}"]
            for (t, d), r in table.items()]
    return suite.render_table(head, rows, md)


def main_gpu(args):
    log, say = suite.open_log(args.outdir, "align.log")

    try:
        import torch
        import softgen
    except Exception as ex:  # noqa: BLE001
        say(f"alignment.py: cannot import torch/softgen: {ex!r}")
        return 2
    suite.torch, suite.softgen = torch, softgen
    if not torch.cuda.is_available():
        say("alignment.py: torch sees no CUDA device")
        return 2
    folder = os.path.join(args.objects, args.subdir)
    mpath = os.path.join(folder, "manifest.tsv")
    if not os.path.isfile(mpath):
        say(f"alignment.py: no {mpath}: run test/gpu/generate.sh (or generate-align.sh)")
        return 2
    with open(mpath) as f:
        entries = [suite.Entry(l, folder) for l in f if l.strip() and not l.startswith("#")]
    if args.filter:
        entries = [e for e in entries if re.search(args.filter, e.file)]
    # by N, every template and dtype at one N before the next: a run cut short by its time
    # budget leaves out the largest N, not whole templates
    entries = [e for _, e in sorted(enumerate(entries), key=lambda ie: (ie[1].n, ie[0]))]
    info = suite.device_info()
    say(f"alignment.py: {len(entries)} objects; {info['gpu']} ({info['cc']}), driver "
        f"{info['driver']}, torch {torch.__version__}; {info['date']}")
    selfcases = [] if args.no_selftest else selftest(args.seed, say)
    for c in selfcases:
        say(c.line(), out=not c.ok)
    self_failed = [c for c in selfcases if not c.ok]
    if selfcases:
        say(f"alignment.py: self-test of the checks (a correct torch stand-in passes; reads "
            f"from the 16-byte boundary, an unwritten first element and a write past each row "
            f"are caught): {len(selfcases) - len(self_failed)}/{len(selfcases)} as expected")

    t0 = time.time()
    results, shown, errors_in_row = [], 0, 0
    for i, e in enumerate(entries):
        if (args.max_seconds and time.time() - t0 > args.max_seconds) or errors_in_row >= 20:
            why = "time budget spent" if errors_in_row < 20 else "20 cases in a row raised"
            say(f"alignment.py: {why}: {len(entries) - i} objects not run")
            results += [(x, None, [], None) for x in entries[i:]]
            break
        gen = torch.Generator(device="cuda")
        gen.manual_seed(args.seed + i)
        cases, skipped, vb = run_object(e, gen, say)
        for c in cases:
            errors_in_row = errors_in_row + 1 if any("raised" in f for f in c.failures) else 0
            shown += not c.ok
            say(c.line(), out=not c.ok and shown <= 50)
        if skipped:
            say(f"SKIP {e.name}: kernel requires aligned rows (vector_bytes {vb}): "
                f"{len(skipped)} cases: {', '.join(skipped)}", out=False)
        results.append((e, cases, skipped, vb))
    elapsed = time.time() - t0
    table = summarize(results)
    cases = [c for _, cs, _, _ in results if cs for c in cs]
    failed = [c for c in cases if not c.ok]
    not_run = [e for e, cs, _, _ in results if cs is None]
    nskip = sum(len(s) for _, _, s, _ in results)
    nany = sum(vb == ES[e.dtype] for e, _, _, vb in results)
    text = format_table(table)
    say("")
    say(text)
    say(f"alignment.py: {len(cases) - len(failed)}/{len(cases)} cases passed, {len(failed)} "
        f"failed, {nskip} skipped (kernel requires aligned rows), {len(not_run)} objects not "
        f"run; {nany} of {len(results) - len(not_run)} objects take any alignment; "
        f"self-test {len(selfcases) - len(self_failed)}/{len(selfcases)}; {elapsed:.1f}s")
    ok = not failed and not not_run and not self_failed
    L = [f"### alignment.py: {'PASS' if ok else 'FAIL'}", "",
         f"- GPU: {info['gpu']} ({info['cc']}); driver {info['driver']}; torch {info['torch']}",
         f"- date: {info['date']}; {elapsed:.0f} s",
         f"- objects: {len(entries)} of align/ (every template x dtype, automatic plan); "
         f"{nany} take any element-aligned view (vector_bytes = element size); not run: "
         f"{len(not_run)}",
         f"- cases: {len(cases)}, passed {len(cases) - len(failed)}, failed {len(failed)}, "
         f"skipped {nskip} (kernel requires aligned rows: views the kernel's vectors do not "
         "divide, on objects with vector_bytes wider than the element)",
         "- every case: views at element offsets 1 .. vec - 1 of a 16-byte boundary, row "
         "strides N + 1 and N + 3, the output or the second input at another offset than the "
         "first input; M in {1, 2, 3, 300}; output poisoned, sentinel around and between its "
         "rows, NaN around the inputs; float64 reference; launched in place (no aligned copy)",
         f"- self-test of the checks: {len(selfcases) - len(self_failed)}/{len(selfcases)} "
         "as expected", "", format_table(table, md=True), ""]
    if failed or self_failed:
        L += [f"#### Failures ({len(failed) + len(self_failed)})", "", "```"]
        L += [c.line() for c in (self_failed + failed)[:200]]
        L += ["```", ""]
    if not_run:
        L += [f"Not run (time budget): {', '.join(e.file for e in not_run[:50])}"
              + (" ..." if len(not_run) > 50 else ""), ""]
    with open(os.path.join(args.outdir, "align.md"), "w") as f:
        f.write("\n".join(L))
    log.close()
    return 0 if ok else 1


# ---------------------------------------------------------------- --sanitize

class DevArray:
    """A view of runtime-allocated memory: __cuda_array_interface__ (v3) on a GPU,
    __array_interface__ for a host-target kernel (the runtime's host memory)."""

    def __init__(self, ptr, shape, strides_el, dt, host=False):
        self.dtype = "bfloat16" if dt == "bf16" else dt   # the binding reads bf16 from this
        self.device = 0
        iface = {"shape": tuple(shape), "typestr": {"f16": "<f2", "bf16": "<V2", "f32": "<f4"}[dt],
                 "data": (ptr, False), "strides": tuple(s * ES[dt] for s in strides_el),
                 "version": 3}
        if host:
            self.__array_interface__ = iface
        else:
            self.__cuda_array_interface__ = iface


def main_sanitize(path, seed, cols=0):
    """Runs the sanitizer cases of one align object; see the module's doc."""
    try:
        import torch
        import softgen
        from softgen import _kernel, _rt
    except Exception as ex:  # noqa: BLE001
        print(f"alignment.py: cannot import torch/softgen: {ex!r}")
        return 3
    suite.torch, suite.softgen = torch, softgen
    try:
        k = softgen.load(path)
    except Exception as ex:  # noqa: BLE001
        print(f"alignment.py: load: {type(ex).__name__}: {ex}")
        return 3
    tpl, dt, n = k.template, k.tensors[0][2], cols or k.n
    if not known(tpl) or any(t[2] != dt for t in k.tensors) or k.layout != "rows":
        print(f"alignment.py: {path}: template {tpl}, tensors {k.tensors}, layout {k.layout}: "
              "no reference here (rows layout, one dtype)")
        return 3
    lib = _rt.lib
    P, S, D = ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(_rt.Diag)
    for name, args in (("sgrt_mem_alloc", [P, S, ctypes.POINTER(P), D]),
                       ("sgrt_memcpy_htod", [P, P, P, S, D]),
                       ("sgrt_memcpy_dtoh", [P, P, P, S, D])):
        getattr(lib, name).restype, getattr(lib, name).argtypes = ctypes.c_int, args
    lib.sgrt_mem_free.restype, lib.sgrt_mem_free.argtypes = None, [P, P]
    rt = _kernel._runtime(k._backend, 0)

    def check(st, diag, what):
        if st:
            raise RuntimeError(f"{what}: {_rt.STATUS_NAMES[st]}: {diag.message.decode()}")

    es = ES[dt]
    it = suite.idtype(es)
    vec = 16 // es
    gen = torch.Generator()
    gen.manual_seed(seed)
    scalars = scalars_of(k, n)
    ninputs = sum(1 for t in k.tensors if not t[1])
    e = suite._Pseudo(dt, n, "sanitize", tpl)
    e.name = os.path.basename(path)
    runs, fails, skips = 0, 0, 0
    print(f"alignment.py --sanitize {e.name}: vector_bytes {k.vector_bytes}, block {k.block}, "
          f"rows_per_block {k.rows_per_block}, scalars {scalars}")
    for label, lay, _ in layouts(vec, ninputs):
        if label not in SANITIZE and label != f"offset {vec - 1}":
            continue
        for mrows in (3, 300 if n <= 8193 else 63)[:2 if SANITIZE.get(label) else 1]:
            ins_rows = make_case_inputs(tpl, mrows, n, dt, gen, device="cpu")
            places = [Place(r.shape[0], n, *place_of(lay, i, False), 0)
                      for i, r in enumerate(ins_rows)]
            po = Place(mrows, n, *place_of(lay, 0, True), 0)
            hosts = []
            for p, r in zip(places, ins_rows):
                h = torch.full((p.size,), float("nan"), dtype=suite.tdtype(dt))
                p.view(h).copy_(r)
                hosts.append(h)
            ho = torch.full((po.size,), suite.SENTINEL[es], dtype=it)
            po.view(ho).fill_(suite.POISON)
            ptrs = []
            c = suite.Case(e, label, mrows)
            try:
                for h in hosts + [ho]:
                    ptr, diag = P(), _rt.Diag()
                    nb = h.numel() * es
                    check(lib.sgrt_mem_alloc(rt, nb, ctypes.byref(ptr), ctypes.byref(diag)), diag,
                          "sgrt_mem_alloc")
                    ptrs.append(ptr.value)
                    check(lib.sgrt_memcpy_htod(rt, ptr, P(h.data_ptr()), nb, ctypes.byref(diag)),
                          diag, "sgrt_memcpy_htod")
                addrs = [ptrs[i] + p.base * es for i, p in enumerate(places + [po])]
                if not runnable(k, places + [po], addrs, [t[2] for t in k.tensors]):
                    print(f"skipped: {label} M={mrows}: kernel requires aligned rows "
                          f"(vector_bytes {k.vector_bytes})")
                    skips += 1
                    continue
                arrs = [DevArray(a, (p.rows, n), (p.stride, 1), dt, host=k.target == "host")
                        for a, p in zip(addrs, places + [po])]
                k(*arrs[:-1], out=arrs[-1], **scalars)
                diag = _rt.Diag()
                check(lib.sgrt_synchronize(rt, ctypes.byref(diag)), diag, "sgrt_synchronize")
                back = [torch.empty_like(h.view(it)) for h in hosts + [ho]]
                for b, ptr in zip(back, ptrs):
                    check(lib.sgrt_memcpy_dtoh(rt, P(b.data_ptr()), P(ptr), b.numel() * es,
                                               ctypes.byref(diag)), diag, "sgrt_memcpy_dtoh")
                views = [p.view(b.view(suite.tdtype(dt))) for p, b in zip(places, back)]
                y = po.view(back[-1].view(suite.tdtype(dt)))
                st = stats(tpl, views, y, dt, scalars)
                chk = back[-1].clone()
                po.view(chk).fill_(suite.SENTINEL[es])
                st["guard"] = (chk != suite.SENTINEL[es]).sum()
                st["input"] = sum(int((b != h.view(it)).sum()) for b, h in zip(back, hosts))
                vals = {key: float(v) for key, v in st.items()}
                suite.judge_tpl(c, dt, vals, mixed=False)
            except RuntimeError as ex:
                print(f"alignment.py: {label} M={mrows}: {ex}")
                return 3
            except Exception as ex:  # noqa: BLE001 - the binding refused: a failed case
                c.failures.append(f"raised {type(ex).__name__}: {ex}")
            finally:
                for ptr in ptrs:
                    lib.sgrt_mem_free(rt, P(ptr))
            runs += 1
            fails += not c.ok
            print(c.line())
    del k
    verdict = "PASS" if not fails and runs else "FAIL"
    print(f"check: {runs - fails}/{runs} launches passed, {skips} skipped (kernel requires "
          f"aligned rows) {verdict}")
    return 0 if verdict == "PASS" else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("objects", nargs="?", help="folder with align/manifest.tsv")
    ap.add_argument("--subdir", default="align",
                    help="the objects' subfolder (range: test/gpu/generate-range.sh's)")
    ap.add_argument("--cols", type=int, default=0,
                    help="--sanitize: the N to run a kernel for a range of N at (default its n)")
    ap.add_argument("outdir", nargs="?", help="folder for align.log and align.md")
    ap.add_argument("--filter", help="only objects whose file name matches this regex")
    ap.add_argument("--max-seconds", type=float, default=0,
                    help="stop starting objects after this long (the rest count as not run)")
    ap.add_argument("--no-selftest", action="store_true", help="skip the self-test")
    ap.add_argument("--sanitize", metavar="KERNEL", help="the compute-sanitizer driver")
    ap.add_argument("--seed", type=int, default=20260121)
    args = ap.parse_args()
    if args.sanitize:
        return main_sanitize(args.sanitize, args.seed, args.cols)
    if not args.objects or not args.outdir:
        ap.error("OBJECTS and OUTDIR are required (or --sanitize KERNEL)")
    return main_gpu(args)


if __name__ == "__main__":
    sys.exit(main())
