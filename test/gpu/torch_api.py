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
"""
import os

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
    info = softgen.cache_info()
    say(f"torch API: {sum(c[1] for c in cases)}/{len(cases)} passed; kernels: "
        f"{info['prebuilt_hits']} prebuilt, {info['compiles']} compiled "
        f"({info['disk_hits']} from the disk cache), {info['memory_hits']} reused in memory")
    return cases
