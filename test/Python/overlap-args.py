# Issue 19 through the Python binding on the host target (numpy arrays, kernels
# JIT-compiled in process; no GPU, no driver):
#   overlap   out= in place of an input (softmax, log_softmax, the backward passes
#             with out= dy or y, rows of 1 to 70000 elements, the inner layout, a
#             masked kernel with out= x) equals the out-of-place result; out=
#             shifted by one row, or by an element, is refused naming both arrays
#             (also when the arrays go through aligned copies); the two halves of
#             a [M, 2N] buffer are accepted and the untouched half kept
#   mask      a masked kernel T = f16, U = f32 reads an f32 mask unrounded: a row
#             masked with finfo(f32).min is uniform (PyTorch), f32 biases are not
#             rounded to f16; an f16 -> f32 inner-layout kernel over [3, N, 5]
#             (odd inner) runs (the input's own alignment)
#   ints      every integer that crosses into C: N (2**64 + 5, bools, floats, 0,
#             2**31), scalars (bools, f32 overflow, i64 beyond 2**53, floats for
#             i64), set_host_threads, device, array shapes past int64
# REQUIRES: numpy
# UNSUPPORTED: asan
# RUN: env PYTHONPATH=%pysrc SOFTGEN_LIB_DIR=%rtlib SOFTGEN_CUDA_LIBRARY=/nonexistent/libcuda.so.1 SOFTGEN_HIP_LIBRARY=/nonexistent/libamdhip64.so SOFTGEN_HOST_THREADS=3 %python %s | FileCheck %s
import numpy as np

import softgen

rng = np.random.default_rng(19)
F64 = np.float64


def expect(label, fn):
    try:
        fn()
        print(label, "-> no error")
    except Exception as e:  # noqa: BLE001
        kinds = [c.__name__ for c in (softgen.ArgumentError, softgen.Error, TypeError, ValueError)
                 if isinstance(e, c)]
        print(label, "->", "/".join(kinds), ":", e)


def aligned(shape, dt):
    """A 64-byte aligned array (numpy aligns to 16 only)."""
    count, size = int(np.prod(shape)), np.dtype(dt).itemsize
    buf = np.empty(count * size + 64, np.uint8)
    off = -buf.ctypes.data % 64
    return buf[off:off + count * size].view(dt).reshape(shape)


def same(p, q):
    return p.shape == q.shape and p.dtype == q.dtype and np.array_equal(p, q, equal_nan=True)


# ---- overlap: in place equals out of place ----
for dt in (np.float16, np.float32):
    for n in (1, 7, 1000, 70000):
        x = aligned((5, n), dt)
        x[...] = 3 * rng.standard_normal((5, n))
        dy = aligned((5, n), dt)
        dy[...] = rng.standard_normal((5, n))
        res = []
        for fn in ("softmax", "log_softmax"):
            want = getattr(softgen, fn)(x)
            xi = aligned((5, n), dt)
            xi[...] = x
            r = getattr(softgen, fn)(xi, out=xi)
            res.append(r is xi and same(xi, want))
        y = softgen.softmax(x)
        for fn in ("softmax_backward", "log_softmax_backward"):
            want = getattr(softgen, fn)(dy, y)
            for which in (0, 1):  # out= dy, then out= y
                a, b = aligned((5, n), dt), aligned((5, n), dt)
                a[...], b[...] = dy, y
                getattr(softgen, fn)(a, b, out=(a, b)[which])
                res.append(same((a, b)[which], want))
        print(f"in place {np.dtype(dt).name} N={n}: {sum(res)}/{len(res)} equal")
# CHECK: in place float16 N=1: 6/6 equal
# CHECK: in place float16 N=7: 6/6 equal
# CHECK: in place float16 N=1000: 6/6 equal
# CHECK: in place float16 N=70000: 6/6 equal
# CHECK: in place float32 N=1: 6/6 equal
# CHECK: in place float32 N=7: 6/6 equal
# CHECK: in place float32 N=1000: 6/6 equal
# CHECK: in place float32 N=70000: 6/6 equal

x3 = aligned((4, 33, 8), np.float32)  # the inner layout: dim 1, read in place
x3[...] = rng.standard_normal(x3.shape)
want = softgen.softmax(x3, dim=1)
softgen.softmax(x3, dim=1, out=x3)
print("in place inner layout:", same(x3, want))
# CHECK-NEXT: in place inner layout: True

km = softgen.compile("masked_softmax", N=256, dtype="f32", target="host")
xm = aligned((6, 256), np.float32)
xm[...] = rng.standard_normal(xm.shape)
mask = aligned((2, 256), np.float32)
mask[...] = np.where(rng.random((2, 256)) < 0.2, -np.inf, 0.5)
want = km(xm, mask, scale=0.5)
km(xm, mask, out=xm, scale=0.5)
print("in place masked:", same(xm, want))
# CHECK-NEXT: in place masked: True
mbuf = aligned((6, 256), np.float32)
mbuf[:2] = mask
expect("y over the mask's 2 repeating rows", lambda: km(xm, mbuf[:2], out=mbuf, scale=1.0))
# CHECK-NEXT: y over the mask's 2 repeating rows -> ArgumentError/Error/ValueError : tensor 'y' (#2) overlaps input 'mask' (#1)

# ---- overlap: refused ----
for n, dt in ((64, np.float32), (1000, np.float16)):
    buf = aligned((9, n), dt)
    buf[...] = rng.standard_normal(buf.shape)
    keep = buf.copy()
    expect(f"shifted one row N={n}", lambda: softgen.softmax(buf[:8], out=buf[1:]))
    print("  untouched:", same(buf, keep))
    expect(f"shifted one row back N={n}", lambda: softgen.softmax(buf[1:], out=buf[:8]))
# CHECK-NEXT: shifted one row N=64 -> ArgumentError/Error/ValueError : tensor 'y' (#1) overlaps input 'x' (#0): an output must be the same view as an input (in place: same data, dtype, rows and strides) or share no memory with any other tensor
# CHECK-NEXT:   untouched: True
# CHECK-NEXT: shifted one row back N=64 -> ArgumentError/Error/ValueError : tensor 'y' (#1) overlaps input 'x' (#0)
# CHECK-NEXT: shifted one row N=1000 -> ArgumentError/Error/ValueError : tensor 'y' (#1) overlaps input 'x' (#0)
# CHECK-NEXT:   untouched: True
# CHECK-NEXT: shifted one row back N=1000 -> ArgumentError/Error/ValueError : tensor 'y' (#1) overlaps input 'x' (#0)

# misaligned views go through aligned copies: the originals' overlap is still refused
buf = np.zeros(8 * 64 + 1 + 64, np.float32)
xs = buf[1:1 + 8 * 64].reshape(8, 64)
ys = buf[1 + 64:1 + 9 * 64].reshape(8, 64)
c0 = softgen.cache_info()["host_copies"]
expect("shifted one row, misaligned", lambda: softgen.softmax(xs, out=ys))
print("  copies made:", softgen.cache_info()["host_copies"] - c0)
# CHECK-NEXT: shifted one row, misaligned -> ArgumentError/Error/ValueError : tensor 'y' (#1) overlaps input 'x' (#0)
# CHECK-NEXT:   copies made: 0
xs[...] = rng.standard_normal(xs.shape)
want = softgen.softmax(xs.copy())
c0 = softgen.cache_info()["host_copies"]
softgen.softmax(xs, out=xs)
print("in place, misaligned (through copies):", same(xs, want),
      softgen.cache_info()["host_copies"] - c0, "copies")
# CHECK-NEXT: in place, misaligned (through copies): True 2 copies
expect("backward, out= dy shifted", lambda: softgen.softmax_backward(xs[:7], xs[:7], out=xs[1:]))
# CHECK-NEXT: backward, out= dy shifted -> ArgumentError/Error/ValueError : tensor 'dx' (#2) overlaps input 'dy' (#0)

# the two halves of [M, 2N]: they interleave without sharing a byte
for n in (64, 1000):
    wide = aligned((8, 2 * n), np.float32)
    wide[:, :n] = rng.standard_normal((8, n))
    wide[:, n:] = -7
    left = wide[:, :n].copy()
    softgen.softmax(wide[:, :n], out=wide[:, n:])
    print(f"halves N={n}: right is softmax(left)", same(wide[:, n:], softgen.softmax(left)),
          "left kept", same(wide[:, :n], left))
    expect(f"halves one element apart N={n}",
           lambda: softgen.softmax(wide[:, :n], out=wide[:, n - 16:2 * n - 16]))
# CHECK-NEXT: halves N=64: right is softmax(left) True left kept True
# CHECK-NEXT: halves one element apart N=64 -> ArgumentError/Error/ValueError : tensor 'y' (#1) overlaps input 'x' (#0)
# CHECK-NEXT: halves N=1000: right is softmax(left) True left kept True
# CHECK-NEXT: halves one element apart N=1000 -> ArgumentError/Error/ValueError : tensor 'y' (#1) overlaps input 'x' (#0)

# ---- the mask in the output's dtype ----
N = 1000
kf = softgen.compile("masked_softmax", N=N, dtype="f16", out_dtype="f32", target="host")
print("mask dtype", kf.tensors)
# CHECK-NEXT: mask dtype [('x', False, 'f16'), ('mask', False, 'f32'), ('y', True, 'f32')]
x = (3 * rng.standard_normal((6, N))).astype(np.float16)
mask = (2 * rng.standard_normal((3, N))).astype(np.float32)  # biases f16 would round
mask[1] = np.finfo(np.float32).min  # a fully masked row, as in PyTorch's masks
y = kf(x, mask, scale=0.5)
s32 = x.astype(np.float32) * np.float32(0.5) + np.tile(mask, (2, 1))  # PyTorch: f32 sum
s = s32.astype(F64)
ref = np.exp(s - s.max(1, keepdims=True))
ref /= ref.sum(1, keepdims=True)
uniform = np.abs(y[[1, 4]] - 1.0 / N).max()
print("masked rows uniform:", bool(uniform < 1e-9), "finite:", bool(np.isfinite(y).all()))
print("biased rows match f32 biases:", bool(np.abs(y - ref).max() / ref.max() < 1e-5))
# CHECK-NEXT: masked rows uniform: True finite: True
# CHECK-NEXT: biased rows match f32 biases: True
live = [0, 2, 3, 5]  # the rows an f16 mask would not turn all -inf (NaN)
mask16 = mask[[0, 2]].astype(np.float16).astype(F64)  # what a mask rounded to f16 would give
s16 = x[live].astype(F64) * 0.5 + np.tile(mask16, (2, 1))
r16 = np.exp(s16 - s16.max(1, keepdims=True))
r16 /= r16.sum(1, keepdims=True)
print("an f16-rounded mask would differ:",
      bool(np.abs(r16 - ref[live]).max() / ref[live].max() > 1e-4))
# CHECK-NEXT: an f16-rounded mask would differ: True

# f16 -> f32 over dim 1 of [3, N, 5] (odd inner): each tensor's own alignment
ki = softgen.compile("softmax", N=33, dtype="f16", out_dtype="f32", target="host",
                     layout="inner")
x3 = rng.standard_normal((3, 33, 5)).astype(np.float16)
y3 = ki(x3, dim=1)
e = np.exp(x3.astype(F64) - x3.astype(F64).max(1, keepdims=True))
print("inner f16 -> f32, inner 5:", y3.dtype, bool(np.abs(y3 - e / e.sum(1, keepdims=True)).max()
                                                   < 1e-6))
# CHECK-NEXT: inner f16 -> f32, inner 5: float32 True

# ---- integers that cross into C ----
expect("N=2**64+5", lambda: softgen.compile("softmax", N=2 ** 64 + 5, target="host"))
# CHECK-NEXT: N=2**64+5 -> ValueError : N must be 1 to 2^31-1, got 18446744073709551621
expect("N=2**31", lambda: softgen.compile("softmax", N=2 ** 31, target="host"))
# CHECK-NEXT: N=2**31 -> ValueError : N must be 1 to 2^31-1, got 2147483648
expect("N=0", lambda: softgen.compile("softmax", N=0, target="host"))
# CHECK-NEXT: N=0 -> ValueError : N must be 1 to 2^31-1, got 0
expect("N=True", lambda: softgen.compile("softmax", N=True, target="host"))
# CHECK-NEXT: N=True -> TypeError : N must be an integer, got bool True
expect("N=64.0", lambda: softgen.compile("softmax", N=64.0, target="host"))
# CHECK-NEXT: N=64.0 -> TypeError : N must be an integer, got float 64.0
expect("N=np.bool_", lambda: softgen.compile("softmax", N=np.True_, target="host"))
# CHECK-NEXT: N=np.bool_ -> TypeError : N must be an integer, got bool{{_?}} True
print("N=np.int64(48):", softgen.compile("softmax", N=np.int64(48), target="host").n)
# CHECK-NEXT: N=np.int64(48): 48
kc = softgen.compile("causal_softmax", N=64, dtype="f32", target="host")
xc = np.zeros((4, 64), np.float32)
expect("scale=True", lambda: kc(xc, scale=True, L=4, offset=0))
# CHECK-NEXT: scale=True -> TypeError : scalar 'scale' (f32) must be a real number, got bool
expect("scale=1e39", lambda: kc(xc, scale=1e39, L=4, offset=0))
# CHECK-NEXT: scale=1e39 -> ValueError : scalar 'scale' (f32): 1e+39 is out of f32's range
expect("scale='2'", lambda: kc(xc, scale="2", L=4, offset=0))
# CHECK-NEXT: scale='2' -> TypeError : scalar 'scale' (f32) must be a real number, got str
expect("offset=2**53+1", lambda: kc(xc, scale=1.0, L=4, offset=2 ** 53 + 1))
# CHECK-NEXT: offset=2**53+1 -> ValueError : scalar 'offset' (i64) must be within +-2^53, got 9007199254740993
expect("offset=1.5", lambda: kc(xc, scale=1.0, L=4, offset=1.5))
# CHECK-NEXT: offset=1.5 -> TypeError : scalar 'offset' (i64) must be an integer, got float 1.5
expect("L=False", lambda: kc(xc, scale=1.0, L=False, offset=0))
# CHECK-NEXT: L=False -> TypeError : scalar 'L' (i64) must be an integer, got bool False
print("scalars as numpy:", kc(xc, scale=np.float32(0.5), L=np.int64(4), offset=np.int32(0)).shape)
# CHECK-NEXT: scalars as numpy: (4, 64)
expect("threads=True", lambda: softgen.set_host_threads(True))
# CHECK-NEXT: threads=True -> TypeError : threads must be an int, got bool
expect("threads=2**32+1", lambda: softgen.set_host_threads(2 ** 32 + 1))
# CHECK-NEXT: threads=2**32+1 -> ValueError : threads must be 1 to 256, got 4294967297
softgen.set_host_threads(np.int32(2))
print("threads=np.int32(2): ok")
# CHECK-NEXT: threads=np.int32(2): ok
expect("device=2**32", lambda: softgen.compile("softmax", N=64, target="host", device=2 ** 32))
# CHECK-NEXT: device=2**32 -> ValueError : device must be 0 to 2147483647, got 4294967296


class Huge:  # an array claiming more rows than int64 holds: never dereferenced
    __array_interface__ = {"shape": (2 ** 64 + 8, 64), "typestr": "<f4", "data": (4096, False),
                           "strides": None, "version": 3}


expect("shape past int64", lambda: kc(Huge(), out=xc, scale=1.0, L=4, offset=0))
# CHECK-NEXT: shape past int64 -> ValueError : tensor 'x': rows must be within int64, got 18446744073709551624
