"""Issue 9's torch-like API on the GPU (called by test/gpu/suite.py, section "torch API"):
softgen.softmax / log_softmax / softmax_backward / log_softmax_backward on torch tensors
against torch.softmax / log_softmax / _softmax_backward_data / _log_softmax_backward_data,
with a float64 reference.

Needs: torch with a CUDA device, python/softgen, and either libsoftgen.so (compile on first
use: set SOFTGEN_LIB_DIR) or, on the GPU machine without LLVM, the generated code objects:
run() preloads the manifest's automatic-plan objects (sets "auto" and "inner", the latter
of the inner layout) with softgen.preload.
Produces: a list of (name, ok, detail) cases; cache_info() says which path ran.

Cases per (dtype, N) where the objects exist (N in NS, for every template):
  fwd      softmax and log_softmax of x [4, 7, N] (x = 3 randn), dim=-1, against float64:
           rel err by norm <= max(TOL[dtype], 2 x the reference's own rounding error)
  match    softgen.softmax(x, -1) vs torch.softmax(x, -1), both in the dtype: same bound
  dim0     softmax(x2, dim=0) for x2 [N, 6] vs torch.softmax(x2, 0): the inner layout (x2
           read in place as [1, N, 6], no copy)
  dim1     every template over dim 1 of [3, N, 5] (the inner layout) against float64; a
           non-contiguous x (transposed inner dims: moved and copied) the same way
  cast     softmax(x, -1, dtype=torch.float32) on an f16/bf16 x vs torch's (f32 kernel)
  stream   softmax inside `with torch.cuda.stream(s)` on a non-default stream
  bwd      softmax_backward / log_softmax_backward (dy = randn, y from torch in the dtype)
           against float64: rel err by norm <= 4 x TOL (a sum over the row cancels)
  nan      a row of -inf gives a NaN row, as torch.softmax
Issue 19's cases (issue19() below, also run alone: python3 test/gpu/torch_api.py OBJECTS
--only issue19):
  mask     f16 / bf16 scores with an f32 mask (2 randn, a row of finfo(f32).min, a row
           with -inf keys) through masked, attention (causal) and safe_attention: output
           f32 as torch.result_type, the finfo(f32).min row uniform as in PyTorch (not
           NaN), NaN exactly where torch's, values against float64 of the f32 sum (the
           f32 biases unrounded); with dtype= the scores' dtype: NaN rows as torch's
  narrow   softmax / log_softmax(x f32, dtype=float16) with an element above 65504: the
           NaN row of torch (x cast first), the other rows within bounds; the same
           through attention_softmax (with scale: torch rounds x * scale, finite)
  offset   x[1:] of a flat buffer viewed as rows (unaligned): runs through an aligned
           copy (cache_info device_copies), also with such an out=, values as torch
  inner    softmax(x [3, N, 5] f16 / bf16, dim=1, dtype=float32): the inner layout with
           f32 out and an odd inner
  inplace  objects of several plans (registers, rows4, one thread a row, staged, staged
           ahead, clusters, 1024-thread blocks, inner layout, an attention variant)
           called with out= their input: bitwise the out-of-place result
  overlap  out= shifted by one row from x raises ArgumentError naming both; the two
           halves of a [M, 2N] tensor are accepted
"""
import os
import sys

TOL = {"f16": 1e-3, "bf16": 1e-2, "f32": 1e-5}
NS = [33, 1000, 4097, 8192, 32768]


def _rel(y, ref):
    ref = ref.double()
    d = (y.double() - ref)
    ok = torch.isfinite(ref)
    num = d[ok].norm().item()
    den = ref[ok].norm().item()
    return num / den if den else num


def run(objects, say):
    """Runs the cases; objects: the generated folder (manifest.tsv) or None."""
    global torch
    import torch
    import softgen
    cases = []
    if objects and os.path.exists(os.path.join(objects, "manifest.tsv")):
        files = []
        with open(os.path.join(objects, "manifest.tsv")) as f:
            for line in f:
                parts = line.rstrip("\n").split("\t")
                if len(parts) >= 5 and parts[4] in ("auto", "inner"):
                    files.append(os.path.join(objects, parts[0]))
        vdir = os.path.join(objects, "variants")  # dtype= kernels (f16 in, f32 out)
        if os.path.isdir(vdir):
            files.append(vdir)
        n = softgen.preload(*files)
        say(f"torch API: preloaded {n} automatic-plan objects; compiler: "
            f"{softgen.version() or 'absent (prebuilt objects only)'}")
    tdt = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}
    g = torch.Generator(device="cuda")
    g.manual_seed(9)

    def case(name, fn):
        try:
            ok, detail = fn()
        except Exception as e:  # noqa: BLE001 - a case that raises fails
            ok, detail = False, f"raised {type(e).__name__}: {e}"
        cases.append((name, ok, detail))
        say(f"torch API: {'PASS' if ok else 'FAIL'} {name}: {detail}", out=not ok)

    def bound(ref64, dt):
        floor = _rel(ref64.to(tdt[dt]), ref64)
        return max(TOL[dt], 2 * floor)

    for dt in ("f16", "bf16", "f32"):
        for n in NS:
            x = (3 * torch.randn(4, 7, n, device="cuda", generator=g)).to(tdt[dt])
            for fn, ref in (("softmax", torch.softmax), ("log_softmax", torch.log_softmax)):
                def fwd(fn=fn, ref=ref, x=x):
                    y = getattr(softgen, fn)(x, -1)
                    r64 = ref(x.double(), -1)
                    e, b = _rel(y, r64), bound(r64, dt)
                    return y.dtype == x.dtype and y.shape == x.shape and e <= b, \
                        f"rel {e:.2e} <= {b:.2e}"
                case(f"{fn} {dt} N={n} fwd", fwd)

            def match(x=x):
                y, t = softgen.softmax(x, -1), torch.softmax(x, -1)
                e, b = _rel(y, t), bound(torch.softmax(x.double(), -1), dt)
                return e <= 2 * b, f"vs torch in {dt}: rel {e:.2e} <= {2 * b:.2e}"
            case(f"softmax {dt} N={n} match", match)

            def dim0():
                x2 = torch.randn(n, 6, device="cuda", generator=g).to(tdt[dt])
                y = softgen.softmax(x2, dim=0)
                r64 = torch.softmax(x2.double(), 0)
                e, b = _rel(y, r64), bound(r64, dt)
                return y.shape == x2.shape and e <= b, f"rel {e:.2e} <= {b:.2e}"
            case(f"softmax {dt} N={n} dim0", dim0)

            for fn, ref in (("softmax", torch.softmax), ("log_softmax", torch.log_softmax)):
                def dim1(fn=fn, ref=ref):
                    x3 = (2 * torch.randn(3, n, 5, device="cuda", generator=g)).to(tdt[dt])
                    xt = x3.transpose(0, 2)  # [5, N, 3], inner dims not contiguous: copied
                    res = []
                    for xx in (x3, xt):
                        y = getattr(softgen, fn)(xx, dim=1)
                        r64 = ref(xx.double(), 1)
                        res.append((_rel(y, r64), bound(r64, dt), y.shape == xx.shape))
                    ok = all(e <= b and sh for e, b, sh in res)
                    return ok, "; ".join(f"rel {e:.2e} <= {b:.2e}" for e, b, _ in res)
                case(f"{fn} {dt} N={n} dim1", dim1)
            for fn, fwdf, ref in (
                    ("softmax_backward", torch.softmax, torch._softmax_backward_data),
                    ("log_softmax_backward", torch.log_softmax,
                     torch._log_softmax_backward_data)):
                def bwd1(fn=fn, fwdf=fwdf, ref=ref):
                    x3 = torch.randn(3, n, 5, device="cuda", generator=g)
                    y = fwdf(x3.to(tdt[dt]), 1)
                    dy = torch.randn(3, n, 5, device="cuda", generator=g).to(tdt[dt])
                    dx = getattr(softgen, fn)(dy, y, dim=1)
                    r64 = ref(dy.double(), y.double(), 1, torch.float64)
                    e = _rel(dx, r64)
                    b = 4 * max(TOL[dt], _rel(r64.to(tdt[dt]), r64))
                    return dx.dtype == y.dtype and e <= b, f"rel {e:.2e} <= {b:.2e}"
                case(f"{fn} {dt} N={n} dim1", bwd1)

            if dt != "f32":
                def cast(x=x):
                    y = softgen.softmax(x, -1, dtype=torch.float32)
                    t = torch.softmax(x, -1, dtype=torch.float32)
                    e = _rel(y, t)
                    return y.dtype == torch.float32 and e <= 1e-5, f"rel {e:.2e} <= 1e-05"
                case(f"softmax {dt} N={n} cast", cast)

            def stream(x=x):
                s = torch.cuda.Stream()
                s.wait_stream(torch.cuda.current_stream())
                with torch.cuda.stream(s):
                    y = softgen.softmax(x, -1)
                s.synchronize()
                r64 = torch.softmax(x.double(), -1)
                e, b = _rel(y, r64), bound(r64, dt)
                return e <= b, f"on a side stream: rel {e:.2e} <= {b:.2e}"
            case(f"softmax {dt} N={n} stream", stream)

            for fn, fwdf, ref in (
                    ("softmax_backward", torch.softmax, torch._softmax_backward_data),
                    ("log_softmax_backward", torch.log_softmax,
                     torch._log_softmax_backward_data)):
                def bwd(fn=fn, fwdf=fwdf, ref=ref, x=x):
                    y = fwdf(x, -1)
                    dy = torch.randn(x.shape, device="cuda", generator=g).to(tdt[dt])
                    dx = getattr(softgen, fn)(dy, y)
                    r64 = ref(dy.double(), y.double(), -1, torch.float64)
                    e = _rel(dx, r64)
                    b = 4 * max(TOL[dt], _rel(r64.to(tdt[dt]), r64))
                    return dx.dtype == x.dtype and e <= b, f"rel {e:.2e} <= {b:.2e}"
                case(f"{fn} {dt} N={n} bwd", bwd)

            def nan_rows(x=x):
                xn = x.clone()
                xn[0, 0] = float("-inf")
                y = softgen.softmax(xn, -1)
                t = torch.softmax(xn.double(), -1)
                same = torch.equal(torch.isnan(y), torch.isnan(t))
                return same and bool(torch.isnan(y[0, 0]).all()), "NaN exactly where torch's"
            case(f"softmax {dt} N={n} nan", nan_rows)
    issue19(objects, say, case, g, tdt)
    info = softgen.cache_info()
    say(f"torch API: {sum(c[1] for c in cases)}/{len(cases)} passed; kernels: "
        f"{info['prebuilt_hits']} prebuilt, {info['compiles']} compiled "
        f"({info['disk_hits']} from the disk cache), {info['memory_hits']} reused in memory")
    return cases


def issue19(objects, say, case, g, tdt):
    """Issue 19's cases (the module docstring), reported through case(name, fn)."""
    import softgen
    f32 = torch.float32
    fmin = torch.finfo(f32).min

    def bound(ref64, dt, k=1):
        return k * max(TOL[dt], 2 * _rel(ref64.to(tdt[dt]), ref64))

    def nan_same(y, t):
        return torch.equal(torch.isnan(y), torch.isnan(t))

    L = 8
    for dt in ("f16", "bf16"):
        for n in (128, 1000, 4097):
            x = (3 * torch.randn(2, 3, L, n, device="cuda", generator=g)).to(tdt[dt])
            mask = 2 * torch.randn(L, n, device="cuda", generator=g)
            mask[1] = fmin                      # fully masked, PyTorch's usual way
            mask[3, ::4] = float("-inf")        # some keys removed
            keep = torch.ones(L, n, dtype=torch.bool, device="cuda").tril(0)
            for what, kw in (("masked", {}), ("attention", {"causal": True}),
                             ("safe_attention", {"causal": True, "safe": True})):
                def promo(kw=kw, x=x, mask=mask):
                    y = softgen.attention_softmax(x, scale=0.125, mask=mask, **kw)
                    s32 = x * 0.125 + mask           # torch: promoted to f32
                    if kw.get("causal"):
                        s32 = s32.masked_fill(~keep, float("-inf"))
                    t = torch.softmax(s32, -1)
                    r64 = torch.softmax(s32.double(), -1)
                    if kw.get("safe"):
                        dead = (s32 == float("-inf")).all(-1, keepdim=True)
                        t, r64 = t.masked_fill(dead, 0.0), r64.masked_fill(dead, 0.0)
                    row1 = y[..., 1, :].double()
                    kept = 2 if kw.get("causal") else n  # query 1 keeps keys 0..1 when causal
                    uniform = bool((row1[..., :kept] - 1.0 / kept).abs().max() < 1e-6)
                    e, b = _rel(y, r64), bound(r64, "f32")
                    ok = (y.dtype == f32 and nan_same(y, t) and uniform and
                          not torch.isnan(y[..., 1, :]).any() and e <= b)
                    return ok, (f"dtype {y.dtype}; finfo(f32).min row uniform {uniform}; NaN as "
                                f"torch {nan_same(y, t)}; rel {e:.2e} <= {b:.2e}")
                case(f"issue19 mask {what} {dt} + f32 N={n}", promo)

            def promo_dtype(x=x, mask=mask):
                y = softgen.attention_softmax(x, scale=0.125, mask=mask, dtype=tdt[dt])
                t = torch.softmax(x * 0.125 + mask, -1, dtype=tdt[dt])  # the sum rounded
                r64 = torch.softmax((x * 0.125 + mask).to(tdt[dt]).double(), -1)
                e, b = _rel(y, r64), bound(r64, dt)
                ok = y.dtype == tdt[dt] and nan_same(y, t) and e <= b
                return ok, f"dtype {y.dtype}; NaN as torch {nan_same(y, t)}; rel {e:.2e} <= {b:.2e}"
            case(f"issue19 mask dtype={dt} {dt} + f32 N={n}", promo_dtype)

    for n in NS:
        x = 3 * torch.randn(4, 7, n, device="cuda", generator=g)
        x[0, 2, n // 3] = 70000.0  # above f16's 65504: inf once cast
        for fn, tfn in (("softmax", torch.softmax), ("log_softmax", torch.log_softmax)):
            def narrow(fn=fn, tfn=tfn, x=x):
                y = getattr(softgen, fn)(x, -1, dtype=torch.float16)
                t = tfn(x, -1, dtype=torch.float16)
                r64 = tfn(x.to(torch.float16).double(), -1)
                e, b = _rel(y, r64), bound(r64, "f16")
                ok = (y.dtype == torch.float16 and nan_same(y, t) and
                      bool(torch.isnan(y[0, 2]).all()) and e <= b)
                return ok, (f"NaN row as torch {nan_same(y, t)}, row NaN "
                            f"{bool(torch.isnan(y[0, 2]).all())}; rel {e:.2e} <= {b:.2e}")
            case(f"issue19 narrow {fn} f32->f16 N={n}", narrow)

        def narrow_attention(x=x):
            res = []
            for scale in (None, 0.125):  # with scale, torch rounds x * scale: finite
                y = softgen.attention_softmax(x, scale=scale, dtype=torch.float16)
                s = x if scale is None else x * scale
                t = torch.softmax(s, -1, dtype=torch.float16)
                r64 = torch.softmax(s.to(torch.float16).double(), -1)
                res.append((nan_same(y, t), _rel(y, r64), bound(r64, "f16"),
                            bool(torch.isnan(t[0, 2]).all())))
            ok = all(a and e <= b for a, e, b, _ in res) and res[0][3] and not res[1][3]
            return ok, "; ".join(f"NaN as torch {a} (row NaN {r}), rel {e:.2e} <= {b:.2e}"
                                 for a, e, b, r in res)
        case(f"issue19 narrow attention_softmax f32->f16 N={n}", narrow_attention)

        for dt in ("f16", "bf16", "f32"):
            def offset(dt=dt, n=n):
                buf = torch.randn(1 + 4 * 7 * n, device="cuda", generator=g).to(tdt[dt])
                xo = buf[1:].view(4, 7, n)           # 2 or 4 bytes past an aligned base
                c0 = softgen.cache_info()["device_copies"]
                y = softgen.softmax(xo, -1)
                obuf = torch.full((1 + 4 * 7 * n,), float("nan"), device="cuda", dtype=tdt[dt])
                yo = obuf[1:].view(4, 7, n)
                softgen.softmax(xo, -1, out=yo)
                copies = softgen.cache_info()["device_copies"] - c0
                r64 = torch.softmax(xo.double(), -1)
                e, b = _rel(y, r64), bound(r64, dt)
                e2 = _rel(yo, r64)
                k = softgen.functional._kernel("softmax", n, dt, 0, "auto")
                want = 0 if xo.data_ptr() % (k.vector_bytes or 1) == 0 else 3
                ok = e <= b and e2 <= b and torch.equal(y, yo) and copies == want and \
                    bool(torch.isnan(obuf[:1]).all())
                return ok, (f"rel {e:.2e}, out= {e2:.2e} <= {b:.2e}; device copies {copies} "
                            f"(want {want}: x twice, out= once, for {k.vector_bytes}-byte "
                            "vectors)")
            case(f"issue19 offset x[1:] {dt} N={n}", offset)

    for dt in ("f16", "bf16"):
        for n in (33, 1000):
            def inner(dt=dt, n=n):
                x3 = (2 * torch.randn(3, n, 5, device="cuda", generator=g)).to(tdt[dt])
                y = softgen.softmax(x3, dim=1, dtype=f32)
                r64 = torch.softmax(x3.double(), 1)
                e = _rel(y, r64)
                return y.dtype == f32 and e <= 1e-5, f"rel {e:.2e} <= 1e-05"
            case(f"issue19 inner {dt}->f32 [3, N, 5] dim=1 N={n}", inner)

    # in place: several plans, bitwise the out-of-place result
    picks = []
    if objects and os.path.exists(os.path.join(objects, "manifest.tsv")):
        want = {("f16", "1000", "auto"), ("f32", "1000", "rows4"), ("f16", "33", "t1"),
                ("f16", "1000", "staged"), ("f16", "8192", "ahead"), ("f16", "8192", "b1024"),
                ("f32", "8192", "w16r1"), ("f16", "65536", "auto"), ("f16", "262144", "staged"),
                ("f32", "262144", "ahead"), ("f32", "1000", "inner"), ("f16", "33", "rowinwave")}
        with open(os.path.join(objects, "manifest.tsv")) as f:
            for line in f:
                p = line.rstrip("\n").split("\t")
                if len(p) >= 5 and p[1] == "softmax" and (p[2], p[3], p[4]) in want:
                    picks.append(os.path.join(objects, p[0]))
        att = os.path.join(objects, "variants", "safe_attention_softmax_f16_f16_n32768.cubin")
        if os.path.exists(att):
            picks.append(att)
    for path in picks:
        def inplace(path=path):
            k = softgen.load(path)
            dt, n = k.tensors[0][2], k.n
            rows = 300
            x = (3 * torch.randn(rows, n, device="cuda", generator=g)).to(tdt[dt])
            kw, ins = {}, []
            if k.layout == "inner":
                x = x.view(rows // 4, 4, n).transpose(1, 2).contiguous()  # [75, N, 4]
                kw["dim"] = 1
            if k.scalars:
                kw.update(scale=0.125, L=20, offset=-2)
                m = torch.randn(20, n, device="cuda", generator=g).to(tdt[dt])
                m[::3, ::5] = float("-inf")
                ins = [m]
            want = k(x, *ins, **kw)
            xi = x.clone()
            k(xi, *ins, out=xi, **kw)
            torch.cuda.synchronize()
            same = torch.equal(torch.nan_to_num(xi, 7.0), torch.nan_to_num(want, 7.0))
            return same, f"{k.kernel} (block {k.block}, rows/block {k.rows_per_block}, cluster " \
                         f"{k.cluster}): in place bitwise equal {same}"
        case(f"issue19 inplace {os.path.basename(path)}", inplace)

    def overlap():
        n = 1000
        buf = torch.randn(9, n, device="cuda", generator=g).to(torch.float16)
        keep = buf.clone()
        try:
            softgen.softmax(buf[:8], out=buf[1:])
            refused, msg = False, "no error"
        except softgen.ArgumentError as e:
            msg = str(e)
            refused = "tensor 'y' (#1) overlaps input 'x' (#0)" in msg
        wide = torch.randn(8, 2 * n, device="cuda", generator=g).to(torch.float16)
        left = wide[:, :n].clone()
        softgen.softmax(wide[:, :n], out=wide[:, n:])
        halves = torch.equal(wide[:, :n], left) and \
            _rel(wide[:, n:], torch.softmax(left.double(), -1)) <= 2e-3
        ok = refused and torch.equal(buf, keep) and halves
        return ok, f"shifted: {msg[:80]}; untouched {torch.equal(buf, keep)}; halves {halves}"
    case("issue19 overlap", overlap)


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser(description="softgen's torch API on the GPU (suite.py runs "
                                 "it as its 'torch API' section)")
    ap.add_argument("objects", nargs="?", help="test/gpu/generate.sh's folder (manifest.tsv)")
    ap.add_argument("--only", choices=["issue19"], help="run only these cases")
    args = ap.parse_args()

    def say(msg, out=True):
        if out:
            print(msg, flush=True)
    if args.only:
        import torch
        import softgen
        if args.objects:
            vdir = os.path.join(args.objects, "variants")
            files = []
            if os.path.exists(os.path.join(args.objects, "manifest.tsv")):
                with open(os.path.join(args.objects, "manifest.tsv")) as f:
                    for line in f:
                        p = line.rstrip("\n").split("\t")
                        if len(p) >= 5 and p[4] in ("auto", "inner"):
                            files.append(os.path.join(args.objects, p[0]))
            if os.path.isdir(vdir):
                files.append(vdir)
            softgen.preload(*files)
        cases = []

        def case(name, fn):
            try:
                ok, detail = fn()
            except Exception as e:  # noqa: BLE001 - a case that raises fails
                ok, detail = False, f"raised {type(e).__name__}: {e}"
            cases.append((name, ok, detail))
            say(f"torch API: {'PASS' if ok else 'FAIL'} {name}: {detail}")
        g = torch.Generator(device="cuda")
        g.manual_seed(19)
        tdt = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}
        issue19(args.objects, say, case, g, tdt)
    else:
        cases = run(args.objects, say)
    failed = sum(not c[1] for c in cases)
    print(f"{len(cases) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
