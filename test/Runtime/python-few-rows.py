# The Python binding launches through the C runtime, so a code object's few-rows
# variant is taken as there (sgrt_launch_geometry): f32 N = 8192 (32 KB rows)
# over the fake CUDA driver, which computes softmax on the host: M = 1 launches
# softgen_softmax_f32_n8192_few in clusters of 8, M = 65 (over max_rows, 64) the
# kernel (clusters of 2); both results match. sg_meta's variants are mirrored (softgen/_rt.py:
# the field after them, n_min, reads right only when their layout matches).
# UNSUPPORTED: asan
# RUN: %softgen -D N=8192 --dtype f32 --emit asm -o %t.ptx
# RUN: rm -f %t.log
# RUN: env PYTHONPATH=%pysrc SOFTGEN_RT_LIBRARY=%rtlib/libsoftgen_rt.so SOFTGEN_CUDA_LIBRARY=%fake_cuda FAKE_CUDA_LOG=%t.log %python %s %S/Inputs %t.ptx | FileCheck %s
# RUN: FileCheck --check-prefix=LOG %s < %t.log
import random
import sys

import softgen

sys.path.insert(0, sys.argv[1])
from fakearray import FakeArray, softmax_error  # noqa: E402

k = softgen.load(sys.argv[2])
m = softgen._rt.lib.sgrt_kernel_meta(k._get(0)).contents
v = m.variants[m.nvariants - 1]  # the clusters of 8 (a grid-split variant may come first)
print(k.kernel, v.kernel.decode(), v.cluster, v.max_rows, v.split, v.workspace, m.n_min)
# CHECK: softgen_softmax_f32_n8192 softgen_softmax_f32_n8192_few 8 64 0 0 8192
N = 8192
random.seed(0)
for M in (1, 65):
    x, y = FakeArray((M, N)), FakeArray((M, N))
    vals = [random.gauss(0, 2) for _ in range(M * N)]
    x.set(vals)
    k(x, out=y)
    print(M, "max abs err ok:", softmax_error(vals, y.get(M * N), M, N) < 1e-6)
# CHECK-NEXT: 1 max abs err ok: True
# CHECK-NEXT: 65 max abs err ok: True
# LOG: cuLaunchKernelEx fn=softgen_softmax_f32_n8192_few grid=8,1,1 block=256,1,1 smem=0 {{.*}} attr0=4:8,1,1 {{.*}} M=1
# LOG: cuLaunchKernelEx fn=softgen_softmax_f32_n8192 grid=130,1,1 {{.*}} attr0=4:2,1,1 {{.*}} M=65
