# The Python binding and a grid-split variant ("variant grid"): sg_meta's
# variants are mirrored with their split and workspace (softgen/_rt.py; the
# field after the variants, n_min, reads right only when the layout matches),
# and launches go through the C runtime, which gives each stream its own
# workspace slot: stream 0x1234 the first slice (ws=+0), 0x5678 the second.
# UNSUPPORTED: asan
# RUN: rm -f %t.log && %seal %S/Inputs/softmax_f16_grid.ptx %t.ptx
# RUN: env PYTHONPATH=%pysrc SOFTGEN_RT_LIBRARY=%rtlib/libsoftgen_rt.so SOFTGEN_CUDA_LIBRARY=%fake_cuda FAKE_CUDA_LOG=%t.log FAKE_CUDA_NOEXEC=1 %python %s %S/Inputs %t.ptx | FileCheck %s
# RUN: FileCheck --check-prefix=LOG %s < %t.log
import sys

import softgen

sys.path.insert(0, sys.argv[1])
from fakearray import FakeArray  # noqa: E402

k = softgen.load(sys.argv[2])
m = softgen._rt.lib.sgrt_kernel_meta(k._get(0)).contents
v = m.variants[0]
print(k.kernel, m.nvariants, v.kernel.decode(), v.block, v.cluster, v.max_rows, v.split,
      v.workspace, m.n_min)
# CHECK: softgen_softmax_f16_n1024 1 softgen_softmax_f16_n1024_grid 256 1 2 4 1024 1024
for M, stream in ((1, 0x1234), (2, 0x5678), (2, 0x1234)):
    x, y = FakeArray((M, 1024), "<f2"), FakeArray((M, 1024), "<f2")
    k(x, out=y, stream=stream)
print("launched")
# CHECK-NEXT: launched
# LOG: cuLaunchKernelEx fn=softgen_softmax_f16_n1024_grid grid=4,1,1 {{.*}} stream=0x1234 {{.*}} attr0=2:1 ws=+0 {{.*}} M=1
# LOG-NEXT: cuLaunchKernelEx fn=softgen_softmax_f16_n1024_grid grid=8,1,1 {{.*}} stream=0x5678 {{.*}} attr0=2:1 ws=+1024 {{.*}} M=2
# LOG-NEXT: cuLaunchKernelEx fn=softgen_softmax_f16_n1024_grid grid=8,1,1 {{.*}} stream=0x1234 {{.*}} attr0=2:1 ws=+0 {{.*}} M=2
