# softgen's torch-like Python API (python/softgen/functional.py) over the fake
# CUDA driver (device memory is host memory; the double computes softmax rows):
# compile on first use for the device's arch, reuse from memory, from the
# on-disk cache in the same and in a later process, errors as exceptions,
# ahead-of-time compile, prebuilt kernels on a machine without the compiler.
# (torch is exercised on a GPU by test/gpu/suite.py; here it is absent.)
# An ASan-built libsoftgen cannot load into an uninstrumented python:
# UNSUPPORTED: asan
# RUN: rm -rf %t.cache %t.kernels %t.log && mkdir -p %t.kernels
# RUN: env PYTHONPATH=%pysrc SOFTGEN_LIB_DIR=%rtlib SOFTGEN_CACHE=1 SOFTGEN_CACHE_DIR=%t.cache SOFTGEN_CUDA_LIBRARY=%fake_cuda FAKE_CUDA_ARCH=sm_80 FAKE_CUDA_LOG=%t.log %python %s %S/../Runtime/Inputs first %t.kernels | FileCheck %s
# RUN: FileCheck --check-prefix=LOG %s < %t.log
# A later process: the kernel comes from the on-disk cache.
# RUN: env PYTHONPATH=%pysrc SOFTGEN_LIB_DIR=%rtlib SOFTGEN_CACHE=1 SOFTGEN_CACHE_DIR=%t.cache SOFTGEN_CUDA_LIBRARY=%fake_cuda FAKE_CUDA_ARCH=sm_80 FAKE_CUDA_LOG=%t.log2 %python %s %S/../Runtime/Inputs again %t.kernels | FileCheck --check-prefix=AGAIN %s
# No compiler library: prebuilt kernels from SOFTGEN_KERNEL_PATH, else a clear error.
# RUN: env PYTHONPATH=%pysrc SOFTGEN_RT_LIBRARY=%rtlib/libsoftgen_rt.so SOFTGEN_LIBRARY=/nonexistent/libsoftgen.so SOFTGEN_KERNEL_PATH=%t.kernels SOFTGEN_CUDA_LIBRARY=%fake_cuda FAKE_CUDA_ARCH=sm_80 FAKE_CUDA_LOG=%t.log3 %python %s %S/../Runtime/Inputs prebuilt %t.kernels | FileCheck --check-prefix=PREBUILT %s
import math
import random
import sys

sys.path.insert(0, sys.argv[1])
from fakearray import FakeArray, softmax_error  # noqa: E402

import softgen  # noqa: E402

MODE, KDIR = sys.argv[2], sys.argv[3]
M, N = 3, 1000


def expect(label, fn):
    try:
        fn()
        print(label, "-> no error")
    except Exception as e:  # noqa: BLE001
        kinds = [c.__name__ for c in (softgen.UnsupportedError, softgen.Error, NotImplementedError,
                                      TypeError, ValueError, IndexError) if isinstance(e, c)]
        print(label, "->", "/".join(kinds), ":", e)


def inner_error(vals, got, shape, d):
    """max |got - softmax over dim d| of row-major vals of shape (float64 reference)."""
    d %= len(shape)
    inner = 1
    for e in shape[d + 1:]:
        inner *= e
    n = shape[d]
    outer = len(vals) // (n * inner)
    worst = 0.0
    for o in range(outer):
        for i in range(inner):
            at = [o * n * inner + k * inner + i for k in range(n)]
            row = [vals[a] for a in at]
            mx = max(row)
            e = [math.exp(v - mx) for v in row]
            s = sum(e)
            worst = max(worst, max(abs(got[a] - v / s) for a, v in zip(at, e)))
    return worst


def check_softmax(x_vals, y):
    return softmax_error(x_vals, y.get(M * N), M, N) < 1e-6


random.seed(1)
vals = [random.gauss(0, 3) for _ in range(M * N)]
x, y = FakeArray((M, N)), FakeArray((M, N))
x.set(vals)

if MODE == "first":
    print("version", softgen.version())
    # CHECK: version ('{{[0-9.]+}}', '22.{{.*}}')
    r = softgen.softmax(x, out=y)
    info = softgen.cache_info()
    print("first call: returned out", r is y, "correct", check_softmax(vals, y))
    print("compiles", info["compiles"], "disk hits", info["disk_hits"], "arch", info["last"]["arch"],
          "kind", info["last"]["kind"], "stored", info["last"]["cache_stores"])
    # CHECK-NEXT: first call: returned out True correct True
    # CHECK-NEXT: compiles 1 disk hits 0 arch sm_80 kind {{object|asm}} stored 1
    softgen.softmax(x, -1, out=y)
    info = softgen.cache_info()
    print("second call: compiles", info["compiles"], "memory hits", info["memory_hits"])
    # CHECK-NEXT: second call: compiles 1 memory hits 1
    softgen.cache_clear()
    softgen.softmax(x, dim=1, out=y)
    info = softgen.cache_info()
    print("after cache_clear: compiles", info["compiles"], "disk hits", info["disk_hits"])
    # CHECK-NEXT: after cache_clear: compiles 2 disk hits 1
    # the other templates, on the array interface's stream
    softgen.log_softmax(FakeArray((M, N), stream=0x77), out=y)
    dx = FakeArray((M, N))
    softgen.softmax_backward(x, y, out=dx)
    softgen.log_softmax_backward(x, y, out=dx)
    print("templates compiled", softgen.cache_info()["compiles"])
    # CHECK-NEXT: templates compiled 5
    # 3 rows: each code object's few-rows variant (_few: a row a block of 128
    # threads, 2 vectors a thread), one block a row
    # LOG: cuLaunchKernel fn=softgen_softmax_f32_n1000_few grid=3,1,1 block=128,1,1 {{.*}} M=3
    # LOG: cuLaunchKernel fn=softgen_log_softmax_f32_n1000_few grid=3,1,1 block=128,1,1 {{.*}} stream=0x77 {{.*}} M=3
    # LOG: cuLaunchKernel fn=softgen_softmax_backward_f32_n1000_few grid=3,1,1 block=128,1,1 {{.*}} args=7 dy={{.*}} y={{.*}} dx={{.*}} M=3
    # LOG: cuLaunchKernel fn=softgen_log_softmax_backward_f32_n1000_few grid=3,1,1 block=128,1,1 {{.*}} M=3

    # Errors: softgen's message in a Python exception.
    expect("bad constraint", lambda: softgen.compile("softmax", N=64, arch="sm_90", target="nvptx",
                                                     constraints="WorkgroupConstraint(N, 3)"))
    # CHECK-NEXT: bad constraint -> Error : SG_ERR_CONSTRAINT: <constraints 1>:1:1: WorkgroupConstraint(N, 3): the tile does not divide the row (N = 64)
    expect("no template", lambda: softgen.compile("nosuch", N=64, arch="sm_90", target="nvptx"))
    # CHECK-NEXT: no template -> Error : SG_ERR_IO: {{.*}}kernels-templates/nosuch.sgt: cannot open: No such file or directory
    expect("bad arch", lambda: softgen.compile("softmax", N=64, arch="sm_1", target="nvptx"))
    # CHECK-NEXT: bad arch -> Error/ValueError : unknown arch 'sm_1' for target nvptx
    expect("dim 0 strided", lambda: softgen.softmax(FakeArray((3, 4, 5), strides=(160, 40, 8)),
                                                    dim=1, out=FakeArray((3, 4, 5))))
    # CHECK-NEXT: dim 0 strided -> UnsupportedError/Error/NotImplementedError : softmax: dim=1 is not the last dim and the dims after it are not contiguous{{.*}}
    expect("dim 2", lambda: softgen.softmax(x, dim=2, out=y))
    # CHECK-NEXT: dim 2 -> IndexError : dim 2 out of range for 2 dims
    expect("no out", lambda: softgen.softmax(x))
    # CHECK-NEXT: no out -> TypeError : softmax: out= is required for FakeArray (only torch, CuPy and numpy outputs are allocated)
    expect("dtype cast", lambda: softgen.softmax(x, dtype="float16", out=y))
    # CHECK-NEXT: dtype cast -> TypeError : softmax: dtype=float16 but the array is f32 (only torch inputs are cast)
    expect("bad dtype", lambda: softgen.softmax(x, dtype="float64", out=y))
    # CHECK-NEXT: bad dtype -> TypeError : dtype 'float64' not supported (float16, bfloat16, float32)
    expect("shapes", lambda: softgen.softmax_backward(x, FakeArray((M, 8)), out=y))
    # CHECK-NEXT: shapes -> ValueError : softmax_backward: shapes differ: (3, 1000) and (3, 8)

    # Another dim than the last: an inner-layout kernel reads the array in place as
    # [outer, N, inner] (the double computes in that layout from the arguments
    # the binding passed: inner, the outer stride and the stride along N).
    for shape, d in (((3, 1000), 0), ((2, 5, 7), 1), ((4, 3, 2, 5), -3), ((4, 3, 2, 5), 2)):
        cnt = 1
        for e in shape:
            cnt *= e
        xv = [random.gauss(0, 3) for _ in range(cnt)]
        xa, ya = FakeArray(shape), FakeArray(shape)
        xa.set(xv)
        softgen.softmax(xa, dim=d, out=ya)
        print("inner", shape, d, "correct", inner_error(xv, ya.get(cnt), shape, d) < 1e-6)
    # CHECK-NEXT: inner (3, 1000) 0 correct True
    # CHECK-NEXT: inner (2, 5, 7) 1 correct True
    # CHECK-NEXT: inner (4, 3, 2, 5) -3 correct True
    # CHECK-NEXT: inner (4, 3, 2, 5) 2 correct True
    print("inner compiles", softgen.cache_info()["compiles"])
    # CHECK-NEXT: inner compiles 8
    # LOG: cuLaunchKernel fn=softgen_softmax_f32_n3_inner {{.*}} M=1000 stride_x=3000 stride_y=3000 inner=1000 nstride_x=1000 nstride_y=1000
    # LOG: cuLaunchKernel fn=softgen_softmax_f32_n5_inner {{.*}} M=14 stride_x=35 stride_y=35 inner=7 nstride_x=7 nstride_y=7
    # LOG: cuLaunchKernel fn=softgen_softmax_f32_n3_inner {{.*}} M=40 stride_x=30 stride_y=30 inner=10 nstride_x=10 nstride_y=10
    # LOG: cuLaunchKernel fn=softgen_softmax_f32_n2_inner {{.*}} M=60 stride_x=10 stride_y=10 inner=5 nstride_x=5 nstride_y=5
    k = softgen.compile("softmax", N=5, dtype="f32", arch="sm_80", target="nvptx", layout="inner")
    print("inner kernel", k.kernel, k.layout)
    # CHECK-NEXT: inner kernel softgen_softmax_f32_n5_inner inner
    expect("inner kernel without dim", lambda: k(FakeArray((2, 3, 5, 7)), out=FakeArray((2, 3, 5, 7))))
    # CHECK-NEXT: inner kernel without dim -> TypeError : softgen_softmax_f32_n5_inner has the inner layout: give dim= (the reduced dim of the 4-d input)
    xa, ya = FakeArray((2, 5, 7)), FakeArray((2, 5, 7))
    xa.set([random.gauss(0, 1) for _ in range(70)])
    k(xa, out=ya)
    print("inner kernel on [2, 5, 7]", inner_error(xa.get(70), ya.get(70), (2, 5, 7), 1) < 1e-6)
    # CHECK-NEXT: inner kernel on [2, 5, 7] True
    expect("bad layout", lambda: softgen.compile("softmax", N=5, arch="sm_80", target="nvptx",
                                                 layout="columns"))
    # CHECK-NEXT: bad layout -> ValueError : layout must be one of ['rows', 'inner'], not 'columns'

    # Ahead of time: compile for another arch without touching the device, save,
    # and a template given as text.
    k = softgen.compile("softmax", N=512, dtype="bf16", arch="sm_90", target="nvptx")
    print("aot", k.kernel, k.arch, k.tensors, len(k.image) > 0)
    # CHECK-NEXT: aot softgen_softmax_bf16_n512 sm_90 [('x', False, 'bf16'), ('y', True, 'bf16')] True
    k = softgen.compile("kernel twice(x: in[M, N] T, y: out[M, N] T)\n  a = read(x)\n"
                        "  b = add(a, a)\n  write(b, y)\n", N=256, dtype="f32", arch="sm_80",
                        target="nvptx", emit="asm")
    print("text template", k.kernel, k.template)
    # CHECK-NEXT: text template softgen_twice_f32_n256 twice
    softgen.compile("softmax", N=N, dtype="f32", arch="sm_80", target="nvptx").save(
        f"{KDIR}/softmax_f32_n1000.bin.cubin")
    print("saved")
    # CHECK-NEXT: saved
elif MODE == "again":
    softgen.softmax(x, out=y)
    info = softgen.cache_info()
    print("new process: compiles", info["compiles"], "disk hits", info["disk_hits"],
          "correct", check_softmax(vals, y))
    # AGAIN: new process: compiles 1 disk hits 1 correct True
else:
    softgen.softmax(x, out=y)
    info = softgen.cache_info()
    print("prebuilt: hits", info["prebuilt_hits"], "compiles", info["compiles"],
          "correct", check_softmax(vals, y))
    # PREBUILT: prebuilt: hits 1 compiles 0 correct True
    print("version without the compiler:", softgen.version())
    # PREBUILT-NEXT: version without the compiler: None
    expect("not prebuilt", lambda: softgen.softmax(FakeArray((M, 64)), out=FakeArray((M, 64))))
    # PREBUILT-NEXT: not prebuilt -> Error : SG_ERR_{{[A-Z]+}}: no compiler: cannot load the compiler library /nonexistent/libsoftgen.so: {{.*}} (set SOFTGEN_LIB_DIR, or use prebuilt code objects with softgen.preload)
