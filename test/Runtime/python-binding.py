# The Python binding (python/softgen) over the fake CUDA driver: arrays with
# __cuda_array_interface__ backed by host buffers (the double's device memory
# is host memory), launch log, results, and error mapping.
# An ASan-built libsoftgen_rt cannot load into an uninstrumented python:
# UNSUPPORTED: asan
# The code objects of Inputs carry the checksum placeholder: sealed into %t.in.
# RUN: rm -f %t.log && rm -rf %t.in && %seal %S/Inputs %t.in
# RUN: env PYTHONPATH=%pysrc SOFTGEN_RT_LIBRARY=%rtlib/libsoftgen_rt.so SOFTGEN_CUDA_LIBRARY=%fake_cuda FAKE_CUDA_LOG=%t.log %python %s %S/Inputs %t.in | FileCheck %s
# RUN: FileCheck --check-prefix=LOG %s < %t.log
import ctypes
import math
import random
import struct
import sys

import softgen

sys.path.insert(0, sys.argv[1])
INPUTS = sys.argv[2]  # sealed
from fakearray import FakeArray, softmax_error  # noqa: E402


k = softgen.load(f"{INPUTS}/softmax_f32.ptx")
print(k.kernel, k.template, k.n, k.tensors)
# CHECK: softgen_softmax_f32_n1024 softmax 1024 [('x', False, 'f32'), ('y', True, 'f32')]

M, N = 3, 1024
x, y = FakeArray((M, N)), FakeArray((M, N))
random.seed(0)
vals = [random.gauss(0, 2) for _ in range(M * N)]
x.set(vals)
r = k(x, out=y, stream=0x1234)
print("returned out:", r is y)
worst = softmax_error(vals, y.get(M * N), M, N)
print("max abs err ok:", worst < 1e-6)
# CHECK-NEXT: returned out: True
# CHECK-NEXT: max abs err ok: True
# LOG: cuLaunchKernel fn=softgen_softmax_f32_n1024 grid=1,1,1 block=256,1,1 smem=0 stream=0x1234 extra=0x0 args=5 x=0x{{[0-9a-f]+}} y=0x{{[0-9a-f]+}} M=3 stride_x=1024 stride_y=1024


def expect(label, fn):
    try:
        fn()
        print(label, "-> no error")
    except Exception as e:  # noqa: BLE001
        kinds = [c.__name__ for c in (softgen.ArgumentError, softgen.Error, ValueError, TypeError)
                 if isinstance(e, c)]
        print(label, "->", "/".join(kinds), ":", e)


# 3-D input viewed as rows; padded row stride
x3, y3 = FakeArray((2, 2, N)), FakeArray((2, 2, N))
k(x3, out=y3)
# LOG: cuLaunchKernel {{.*}} M=4 stride_x=1024 stride_y=1024
xp = FakeArray((2, N), strides=(4 * 1088, 4))
yp = FakeArray((2, N))
k(xp, out=yp, stream=None)
# LOG: cuLaunchKernel {{.*}} stream=0x0 {{.*}} M=2 stride_x=1088 stride_y=1024

expect("no out", lambda: k(x))
# CHECK: no out -> TypeError : out= is required unless the input is a torch, CuPy or numpy array
expect("wrong N", lambda: k(FakeArray((2, 512)), out=FakeArray((2, 512))))
# CHECK: wrong N -> ArgumentError/Error/ValueError : tensor 'x' (#0): cols 512 but the kernel was generated for n = 1024
expect("f16 input", lambda: k(FakeArray((2, N), "<f2"), out=y))
# CHECK: f16 input -> ArgumentError/Error/ValueError : tensor 'x' (#0): dtype f16 but the kernel takes f32
expect("f64 input", lambda: k(FakeArray((2, N), "<f8"), out=y))
# CHECK: f64 input -> TypeError : tensor 'x': typestr '<f8' not supported
expect("rows differ", lambda: k(FakeArray((2, N)), out=FakeArray((3, N))))
# CHECK: rows differ -> ArgumentError/Error/ValueError : tensor 'y' (#1): rows 3 but tensor 'x' has 2
expect("column stride", lambda: k(FakeArray((2, N), strides=(4, 8)), out=y))
# CHECK: column stride -> ValueError : tensor 'x': rows must be contiguous (last-dim stride 2, need 1)
expect("1-D", lambda: k(FakeArray((N,)), out=y))
# CHECK: 1-D -> ValueError : tensor 'x': need a [M, N] array (or more dims), got shape (1024,)
expect("misaligned", lambda: k(FakeArray((2, N), offset=4), out=FakeArray((2, N))))
# CHECK: misaligned -> ArgumentError/Error/ValueError : tensor 'x' (#0): data 0x{{[0-9a-f]+}} is not aligned to the kernel's vector_bytes 16
expect("two inputs", lambda: k(x, x, out=y))
# CHECK: two inputs -> TypeError : softgen_softmax_f32_n1024 takes 1 input(s) (x), got 2
expect("not an array", lambda: k([1.0, 2.0], out=y))
# CHECK: not an array -> TypeError : tensor 'x': list is neither a torch tensor nor has __cuda_array_interface__
expect("devices differ", lambda: k(FakeArray((2, N), device=0), out=FakeArray((2, N), device=1)))
# CHECK: devices differ -> ValueError : tensor 'y' is on device 1, others on 0
expect("missing file", lambda: softgen.load(f"{INPUTS}/does-not-exist.cubin"))
# CHECK: missing file -> Error : SG_ERR_IO: cannot open '{{.*}}does-not-exist.cubin': No such file or directory
expect("bad metadata", lambda: softgen.load(f"{INPUTS}/no-end.ptx"))
# CHECK: bad metadata -> Error : SG_ERR_PARSE: {{.*}}no-end.ptx: metadata has no 'end' line (truncated?)
expect("amdgpu on cuda", lambda: softgen.load(f"{INPUTS}/softmax_f16.hsaco", backend="cuda"))
# CHECK: amdgpu on cuda -> ArgumentError/Error/ValueError : {{.*}}softmax_f16.hsaco: code object targets 'amdgpu' but the cuda backend runs 'nvptx' code objects
kb = softgen.load(open(f"{INPUTS}/softmax_bf16.ptx", "rb").read())
print(kb)
# CHECK: <softgen.Kernel softgen_softmax_bf16_n1024 softmax n=1024 sm_90 layout=rows tensors=[('x', False, 'bf16'), ('y', True, 'bf16')]>
expect("dim on a rows kernel", lambda: k(x, out=y, dim=0))
# CHECK: dim on a rows kernel -> TypeError : softgen_softmax_f32_n1024 has the rows layout (it reduces the last dim): no dim=

# An inner-layout kernel (f16, N = 1024): [outer, N, inner] arrays with dim=;
# the binding passes inner, the outer strides and the strides along N.
ki = softgen.load(f"{INPUTS}/softmax_f16_inner.ptx")
print(ki.layout, ki)
# CHECK: inner <softgen.Kernel softgen_softmax_f16_n1024_inner softmax n=1024 sm_90 layout=inner
xi, yi = FakeArray((2, 1024, 3), "<f2"), FakeArray((2, 1024, 3), "<f2")
ki(xi, out=yi)
ki(FakeArray((3, 2, 1024, 5), "<f2"), out=FakeArray((3, 2, 1024, 5), "<f2"), dim=2)
ki(FakeArray((1024, 8), "<f2", strides=(32, 2)), out=FakeArray((1024, 8), "<f2"), dim=0)
# LOG: cuLaunchKernel fn=softgen_softmax_f16_n1024_inner {{.*}} M=6 stride_x=3072 stride_y=3072 inner=3 nstride_x=3 nstride_y=3
# LOG: cuLaunchKernel fn=softgen_softmax_f16_n1024_inner {{.*}} M=30 stride_x=5120 stride_y=5120 inner=5 nstride_x=5 nstride_y=5
# LOG: cuLaunchKernel fn=softgen_softmax_f16_n1024_inner {{.*}} M=8 stride_x=16376 stride_y=8192 inner=8 nstride_x=16 nstride_y=8
expect("inner without dim", lambda: ki(FakeArray((2, 1024), "<f2"), out=FakeArray((2, 1024), "<f2")))
# CHECK: inner without dim -> TypeError : softgen_softmax_f16_n1024_inner has the inner layout: give dim= (the reduced dim of the 2-d input)
expect("inner not contiguous", lambda: ki(FakeArray((2, 1024, 3), "<f2", strides=(12288, 12, 4)),
                                          out=yi, dim=1))
# CHECK: inner not contiguous -> ValueError : tensor 'x': the dims after dim 1 of shape (2, 1024, 3) are not contiguous (strides (6144, 6, 2))
expect("inner of another N", lambda: ki(FakeArray((2, 512, 3), "<f2"), out=FakeArray((2, 512, 3), "<f2"), dim=1))
# CHECK: inner of another N -> ArgumentError/Error/ValueError : tensor 'x' (#0): cols 512 but the kernel was generated for n = 1024
print("done")
# CHECK: done
