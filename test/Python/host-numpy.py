# The Python binding on a machine without a GPU: numpy arrays through the host
# target (kernels JIT-compiled in process by libsoftgen, launched by the
# runtime's host backend). No driver is opened: CUDA and HIP point nowhere.
#   numerics  every shipped template x f16, f32 x N in (1, 7, 1000, 4096, 70000)
#             against a float64 reference (docs/numerics.md: relative error by
#             norm per row within f32 1e-5 / f16 1e-3, or the dtype's rounding
#             floor plus a bound of the f32 arithmetic, as test/Host/numerics.c;
#             NaN and +-inf exactly where the reference has them; softmax row
#             sums), on rows of normal, large, all -inf, one +inf, one NaN,
#             half -inf, one finite, near-max and tiny values; outputs poisoned
#             with NaN first (out=), inputs unchanged, numpy in -> numpy out
#   layout    row strides (aligned: in place; misaligned: an aligned copy), gaps
#             between output rows untouched, leading dims, empty arrays, threads
#   errors    wrong dtype, wrong N or dtype for a loaded kernel, a non-contiguous
#             last dim, dim, read-only out, a GPU array, the thread count
#   aot       compile(target="host"), emit="shared" -> save -> load
#   prebuilt  a `softgen --target host --emit so` library preloaded, without the
#             compiler library (a machine with the runtime only)
# REQUIRES: numpy
# An ASan-built libsoftgen cannot load into an uninstrumented python:
# UNSUPPORTED: asan
# RUN: rm -rf %t && mkdir -p %t
# RUN: env PYTHONPATH=%pysrc SOFTGEN_LIB_DIR=%rtlib SOFTGEN_CUDA_LIBRARY=/nonexistent/libcuda.so.1 SOFTGEN_HIP_LIBRARY=/nonexistent/libamdhip64.so SOFTGEN_HOST_THREADS=2 %python %s numerics %t | FileCheck --check-prefix=NUM %s
# RUN: env PYTHONPATH=%pysrc SOFTGEN_LIB_DIR=%rtlib SOFTGEN_CUDA_LIBRARY=/nonexistent/libcuda.so.1 SOFTGEN_HIP_LIBRARY=/nonexistent/libamdhip64.so %python %s api %t | FileCheck --check-prefix=API %s
# RUN: %softgen softmax -D N=4096 --target host --emit so -o %t/k.so
# RUN: env PYTHONPATH=%pysrc SOFTGEN_RT_LIBRARY=%rtlib/libsoftgen_rt.so SOFTGEN_LIBRARY=/nonexistent/libsoftgen.so SOFTGEN_CUDA_LIBRARY=/nonexistent/libcuda.so.1 %python %s prebuilt %t | FileCheck --check-prefix=PRE %s
import math
import sys

import numpy as np

import softgen

MODE, TMP = sys.argv[1], sys.argv[2]
F64, EPS32, APPROX = np.float64, 2.0 ** -24, 2.0 ** -21
TOL = {"f16": 1e-3, "f32": 1e-5}
NP = {"f16": np.float16, "f32": np.float32}
FUNCS = {"softmax": softgen.softmax, "log_softmax": softgen.log_softmax,
         "softmax_backward": softgen.softmax_backward,
         "log_softmax_backward": softgen.log_softmax_backward}
KINDS = ["normal", "large", "all_-inf", "one_+inf", "one_nan", "half_-inf", "one_finite",
         "near_max", "tiny"]
rng = np.random.default_rng(7)


def rows(n, dt):
    """One row per kind (test/Host/numerics.c's make_row), rounded to dt, as float64."""
    fmax = float(np.finfo(NP[dt]).max)
    x = rng.standard_normal((len(KINDS), n))
    sign = np.where(rng.standard_normal(n) < 0, -1.0, 1.0)
    x[1] = x[1] * 1e30 if dt == "f32" else sign * (0.5 + 0.4 * rng.random(n)) * fmax
    x[2] = -np.inf
    x[3, (3 * 37) % n] = np.inf
    x[4, (4 * 53) % n] = np.nan
    x[5, ::2] = -np.inf
    keep = x[6, (6 * 29) % n]
    x[6] = -np.inf
    x[6, (6 * 29) % n] = keep
    x[7] = (0.85 + 0.05 * rng.random(n)) * fmax
    x[8] *= 1e-4
    with np.errstate(over="ignore"):
        return x.astype(NP[dt]).astype(F64)


def reference(tpl, a, b):
    """float64 reference; a = x (forward) or dy, b = y (backward)."""
    with np.errstate(all="ignore"):
        if tpl in ("softmax", "log_softmax"):
            mx = a.max(axis=1, keepdims=True)  # NaN when the row has one
            e = np.exp(a - mx)
            s = e.sum(axis=1, keepdims=True)
            return a - mx - np.log(s) if tpl == "log_softmax" else e / s
        if tpl == "log_softmax_backward":
            return a - np.exp(b) * a.sum(axis=1, keepdims=True)
        return b * (a - (a * b).sum(axis=1, keepdims=True))


def allowance(tpl, a, b, ref, n):
    """A bound of the f32 arithmetic's error per element (numerics.c's allowance)."""
    gamma = ((n + 63) / 64 + 8) * EPS32
    with np.errstate(all="ignore"):
        if tpl == "softmax":
            return np.abs(ref) * (gamma + 2 * APPROX)
        if tpl == "log_softmax":
            mx = a.max(axis=1, keepdims=True)
            ls = np.abs(a - mx - ref)
            return 2 * EPS32 * (np.abs(a) + np.abs(mx) + ls) + gamma + APPROX * (1 + ls)
        t = a if tpl == "log_softmax_backward" else a * b
        s, sa = t.sum(axis=1, keepdims=True), np.abs(t).sum(axis=1, keepdims=True)
        if tpl == "log_softmax_backward":
            return np.exp(b) * (gamma * sa + 2 * APPROX * np.abs(s)) + \
                2 * EPS32 * (np.abs(a) + np.exp(b) * np.abs(s))
        return np.abs(b) * (gamma * sa + 2 * EPS32 * (np.abs(a) + np.abs(s))) + \
            EPS32 * np.abs(ref)


def problems(tpl, dt, a, b, y):
    """What is wrong with output y (numpy, dtype dt) against the reference."""
    out, n = [], a.shape[1]
    ref = reference(tpl, a, b)
    with np.errstate(all="ignore"):
        rr = ref.astype(NP[dt]).astype(F64)
        allow = allowance(tpl, a, b, ref, n)
    y = y.astype(F64)
    for r in range(a.shape[0]):
        kind = KINDS[r % len(KINDS)]
        nan = np.isnan(y[r]) != np.isnan(ref[r])
        if nan.any():
            c = int(np.argmax(nan))
            out.append(f"nan: {kind} row {r} col {c}: output {y[r, c]}, reference {ref[r, c]}")
            continue
        bad_inf = np.where(np.isinf(rr[r]), y[r] != rr[r], np.isinf(y[r])) & ~np.isnan(ref[r])
        if bad_inf.any():
            c = int(np.argmax(bad_inf))
            out.append(f"inf: {kind} row {r} col {c}: output {y[r, c]}, reference {ref[r, c]}")
            continue
        fin = ~np.isnan(ref[r]) & ~np.isinf(rr[r])
        if not fin.any():
            continue
        d, f = y[r][fin] - ref[r][fin], ref[r][fin]
        floor = math.sqrt(float(((rr[r][fin] - f) ** 2).sum()))
        den = math.sqrt(float((f * f).sum()))
        norm = den if den > 0 else 1.0
        tol = max(TOL[dt], 2 * floor / norm + math.sqrt(float((allow[r][fin] ** 2).sum())) / norm)
        rel = math.sqrt(float((d * d).sum())) / norm
        if not rel <= tol:
            out.append(f"rel: {kind} row {r}: ||y - ref|| / ||ref|| = {rel:.3e} over {tol:.1e}")
        if tpl == "softmax":
            stol = 1e-3 if dt == "f32" else 1e-3 + 1.0 / 2048
            serr = abs(y[r][fin].sum() - (1 if dt == "f32" else rr[r][fin].sum()))
            if not serr <= stol:
                out.append(f"sum: {kind} row {r}: |sum(y) - sum(ref)| = {serr:.3e} over {stol:.1e}")
    return out


def inputs(tpl, n, dt):
    """The call's arguments (numpy, dtype dt) and their float64 values."""
    x = rows(n, dt)
    if tpl in ("softmax", "log_softmax"):
        return [x.astype(NP[dt])], x, None
    fwd = "log_softmax" if tpl.startswith("log") else "softmax"
    with np.errstate(over="ignore"):
        y = reference(fwd, x, None).astype(NP[dt])
        dy = rng.standard_normal(x.shape).astype(NP[dt])
    return [dy, y], dy.astype(F64), y.astype(F64)


def same(p, q):
    return p.shape == q.shape and p.dtype == q.dtype and np.array_equal(p, q, equal_nan=True)


def expect(label, fn):
    try:
        fn()
        print(label, "-> no error")
    except Exception as e:  # noqa: BLE001
        kinds = [c.__name__ for c in (softgen.ArgumentError, softgen.UnsupportedError,
                                      softgen.Error, TypeError, ValueError, IndexError)
                 if isinstance(e, c)]
        print(label, "->", "/".join(kinds), ":", e)


def aligned_empty(shape, dt, fill):
    """A 64-byte aligned array (numpy's own allocator guarantees 16 bytes)."""
    count = int(np.prod(shape))
    size = np.dtype(dt).itemsize
    buf = np.empty(count * size + 64, np.uint8)
    off = -buf.ctypes.data % 64
    a = buf[off:off + count * size].view(dt).reshape(shape)
    a[...] = fill
    return a


def copies():
    return softgen.cache_info()["host_copies"]


if MODE == "numerics":
    passed = failed = 0
    for tpl, fn in FUNCS.items():
        for dt in ("f16", "f32"):
            for n in (1, 7, 1000, 4096, 70000):
                args, a, b = inputs(tpl, n, dt)
                kept = [t.copy() for t in args]
                y = fn(*args)
                poisoned = np.full(y.shape, np.nan, NP[dt])
                r = fn(*args, out=poisoned)
                bad = problems(tpl, dt, a, b, poisoned)
                if not (type(y) is np.ndarray and y.dtype == NP[dt] and y.shape == a.shape):
                    bad.append(f"output is {type(y).__name__} {y.dtype} {y.shape}")
                if r is not poisoned:
                    bad.append("out= was not returned")
                if not same(y, poisoned):
                    bad.append("the allocated and the given output differ")
                if not all(same(k, t) for k, t in zip(kept, args)):
                    bad.append("an input changed")
                print(f"{'not ok' if bad else 'ok'} - {tpl} {dt} N={n}" +
                      "".join(f"\n  {p}" for p in bad[:4]))
                failed += bool(bad)
                passed += not bad
    info = softgen.cache_info()
    print(f"{passed} passed, {failed} failed; compiles {info['compiles']} kind "
          f"{info['last']['kind']} target {info['last']['target']}")
    # NUM-NOT: not ok
    # NUM: ok - softmax f16 N=1
    # NUM: ok - softmax f32 N=70000
    # NUM: ok - log_softmax_backward f32 N=70000
    # NUM: {{^}}40 passed, 0 failed; compiles 40 kind jit target host

elif MODE == "api":
    N = 1000
    x = rows(N, "f32").astype(np.float32)
    x[~np.isfinite(x)] = 0  # finite rows: the layout cases compare with a plain call
    x[1] = rng.standard_normal(N)
    x[7] = rng.standard_normal(N)
    want = softgen.softmax(x)
    info = softgen.cache_info()
    softgen.softmax(x, dim=1)
    print("again: compiles", softgen.cache_info()["compiles"] - info["compiles"],
          "memory hits", softgen.cache_info()["memory_hits"] - info["memory_hits"])
    # API: again: compiles 0 memory hits 1
    print("reference ok", not problems("softmax", "f32", x.astype(F64), None, want))
    # API-NEXT: reference ok True

    # Row strides: 1008 f32 = 4032 bytes, a multiple of 64: launched in place.
    M = x.shape[0]
    xin = aligned_empty((M, 1008), np.float32, 7.0)
    xin[:, :N] = x
    yout = aligned_empty((M, 1008), np.float32, -5.0)
    c0 = copies()
    softgen.softmax(xin[:, :N], out=yout[:, :N])
    print("strided aligned: equal", same(yout[:, :N], want), "gaps kept",
          bool((yout[:, N:] == -5).all()), "copies", copies() - c0)
    # API-NEXT: strided aligned: equal True gaps kept True copies 0
    # Misaligned (one element in, a stride of 1003): through aligned copies.
    xin = np.full((M, 1003), 7.0, np.float32)
    xin[:, 1:N + 1] = x
    yout = np.full((M, 1003), -5.0, np.float32)
    c0 = copies()
    softgen.softmax(xin[:, 1:N + 1], out=yout[:, 3:N + 3])
    print("strided misaligned: equal", same(yout[:, 3:N + 3], want), "gaps kept",
          bool((yout[:, :3] == -5).all() and (yout[:, N + 3:] == -5).all()),
          "copies", copies() - c0)
    # API-NEXT: strided misaligned: equal True gaps kept True copies 2
    y3 = softgen.softmax(x[:8].reshape(2, 4, N))
    print("leading dims", y3.shape, same(y3.reshape(8, N), want[:8]))
    # API-NEXT: leading dims (2, 4, 1000) True
    print("empty", softgen.softmax(np.zeros((0, N), np.float32)).shape,
          softgen.log_softmax(np.zeros((3, 0), np.float16)).shape)
    # API-NEXT: empty (0, 1000) (3, 0)

    # Threads: the same results on 1 and 3 threads, many rows.
    big = rng.standard_normal((3001, 7)).astype(np.float32)
    softgen.set_host_threads(1)
    one = softgen.log_softmax(big)
    softgen.set_host_threads(3)
    three = softgen.log_softmax(big)
    print("threads 1 and 3 agree", same(one, three), "ok",
          not problems("log_softmax", "f32", big.astype(F64), None, three))
    # API-NEXT: threads 1 and 3 agree True ok True
    expect("threads 0", lambda: softgen.set_host_threads(0))
    # API-NEXT: threads 0 -> ValueError : threads must be 1 to 256, got 0
    expect("threads 257", lambda: softgen.set_host_threads(257))
    # API-NEXT: threads 257 -> ValueError : threads must be 1 to 256, got 257
    expect("threads str", lambda: softgen.set_host_threads("2"))
    # API-NEXT: threads str -> TypeError : threads must be an int, got str

    # Errors, in the GPU path's classes.
    expect("f64", lambda: softgen.softmax(x.astype(np.float64)))
    # API-NEXT: f64 -> TypeError : softmax input: typestr '<f8' not supported ('<f2', '<f4', bfloat16)
    expect("int", lambda: softgen.softmax(np.zeros((2, 8), np.int32)))
    # API-NEXT: int -> TypeError : softmax input: typestr '<i4' not supported ('<f2', '<f4', bfloat16)
    expect("dtype cast", lambda: softgen.softmax(x, dtype=np.float16))
    # API-NEXT: dtype cast -> TypeError : softmax: dtype=<class 'numpy.float16'> but the array is f32 (only torch inputs are cast)
    expect("last dim stride", lambda: softgen.softmax(np.zeros((4, 2 * N), np.float32)[:, ::2]))
    # API-NEXT: last dim stride -> UnsupportedError/Error : softmax input: rows must be contiguous (last-dim stride 2, need 1): softgen's kernels need a contiguous last dim (a torch tensor is copied automatically)
    y0 = softgen.softmax(x, dim=0)  # the inner layout: [1, M, N] read in place, no copy
    e0 = np.exp(x.astype(F64) - x.astype(F64).max(0))
    print("dim 0", y0.shape, bool(np.abs(y0 - e0 / e0.sum(0)).max() < 1e-5))
    # API-NEXT: dim 0 (9, 1000) True
    expect("dim 2", lambda: softgen.softmax(x, dim=2))
    # API-NEXT: dim 2 -> IndexError : dim 2 out of range for 2 dims
    expect("1-D", lambda: softgen.softmax(x[0]))
    # API-NEXT: 1-D -> ValueError : softmax input: need a [M, N] array (or more dims), got shape (1000,)
    expect("leading dims", lambda: softgen.softmax(np.zeros((4, 3, 8), np.float32)[::2]))
    # API-NEXT: leading dims -> ValueError : softmax input: leading dims of shape (2, 3, 8) cannot be viewed as rows (strides (48, 8, 1))
    expect("shapes", lambda: softgen.softmax_backward(x, x[:, :8]))
    # API-NEXT: shapes -> ValueError : softmax_backward: shapes differ: (9, 1000) and (9, 8)
    ro = np.empty_like(x)
    ro.flags.writeable = False
    expect("read-only out", lambda: softgen.softmax(x, out=ro))
    # API-NEXT: read-only out -> ValueError : tensor 'y': the array is read-only
    expect("cuda backend", lambda: softgen.softmax(x, backend="cuda"))
    # API-NEXT: cuda backend -> ValueError : softmax: the arrays are in host memory; backend='cuda' runs on a GPU (host arrays take backend 'auto' or 'host')

    # A kernel compiled ahead of time (JIT), then called with the wrong arrays.
    k = softgen.compile("softmax", N=N, dtype="f32", target="host")
    print("aot", k.kernel, k.target, k.arch, k.tensors, same(k(x), want))
    # API-NEXT: aot softgen_softmax_f32_n1000 host native [('x', False, 'f32'), ('y', True, 'f32')] True
    expect("wrong dtype", lambda: k(x.astype(np.float16)))
    # API-NEXT: wrong dtype -> ArgumentError/Error/ValueError : tensor 'x' (#0): dtype f16 but the kernel takes f32
    expect("wrong N", lambda: k(np.zeros((3, 512), np.float32)))
    # API-NEXT: wrong N -> ArgumentError/Error/ValueError : tensor 'x' (#0): cols 512 but the kernel was generated for n = 1000
    expect("kernel last dim stride", lambda: k(np.zeros((3, 2 * N), np.float32)[:, ::2]))
    # API-NEXT: kernel last dim stride -> ValueError : tensor 'x': rows must be contiguous (last-dim stride 2, need 1)

    class GpuArray:  # a device array: never dereferenced
        __cuda_array_interface__ = {"shape": (3, N), "typestr": "<f4", "data": (0x1000, False),
                                    "strides": None, "version": 3}
    expect("gpu array", lambda: k(GpuArray(), out=np.empty((3, N), np.float32)))
    # API-NEXT: gpu array -> ValueError : tensor 'x' is not in host memory but softgen_softmax_f32_n1000 runs on the CPU (target host): pass a numpy array or a CPU tensor
    expect("image", lambda: k.image)
    # API-NEXT: image -> UnsupportedError/Error : softgen_softmax_f32_n1000 was JIT-compiled in this process and has no code object; compile(..., target='host', emit='shared') makes a shared library
    expect("emit object", lambda: softgen.compile("softmax", N=N, dtype="f32", target="host",
                                                  emit="object"))
    # API-NEXT: emit object -> ValueError : emit must be 'auto' (JIT) or 'shared' for target host
    expect("bad arch", lambda: softgen.compile("softmax", N=N, target="host", arch="sm_90"))
    # API-NEXT: bad arch -> ArgumentError/Error/ValueError : unknown arch 'sm_90' for target host {{.*}}

    # A shared library: compiled, saved, loaded from the file and from bytes.
    so = softgen.compile("log_softmax", N=N, dtype="f32", target="host", emit="shared")
    so.save(f"{TMP}/ls.so")
    for k2 in (softgen.load(f"{TMP}/ls.so"), softgen.load(so.image)):
        print("shared", k2.kernel, k2.target, same(k2(x), softgen.log_softmax(x)))
    # API-NEXT: shared softgen_log_softmax_f32_n1000 host True
    # API-NEXT: shared softgen_log_softmax_f32_n1000 host True

else:  # prebuilt: the CLI's library (f16, N = 4096), no compiler library
    print("preloaded", softgen.preload(f"{TMP}/k.so"), "version", softgen.version())
    # PRE: preloaded 1 version None
    x = rng.standard_normal((5, 4096)).astype(np.float16)
    y = softgen.softmax(x)
    info = softgen.cache_info()
    print("prebuilt hits", info["prebuilt_hits"], "compiles", info["compiles"], "ok",
          not problems("softmax", "f16", x.astype(F64), None, y))
    # PRE-NEXT: prebuilt hits 1 compiles 0 ok True
    k = softgen.load(f"{TMP}/k.so")
    print("load", k.kernel, k.target, same(k(x), y))
    # PRE-NEXT: load softgen_softmax_f16_n4096 host True
    expect("not prebuilt", lambda: softgen.softmax(x[:, :64]))
    # PRE-NEXT: not prebuilt -> Error : SG_ERR_{{[A-Z]+}}: no compiler: cannot load the compiler library /nonexistent/libsoftgen.so: {{.*}}
