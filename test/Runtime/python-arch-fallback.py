# Architectures softgen does not list run the PTX of the newest listed one at or
# below them (sg_arch_for_device), which their driver compiles at load; listed
# ones (sm_86, sm_120) get their own code. The choice shows in the kernel's repr.
# Over the fake CUDA driver, which reports the arch FAKE_CUDA_ARCH names.
# UNSUPPORTED: asan
# RUN: rm -rf %t.cache && env PYTHONPATH=%pysrc SOFTGEN_LIB_DIR=%rtlib SOFTGEN_CACHE_DIR=%t.cache SOFTGEN_CUDA_LIBRARY=%fake_cuda FAKE_CUDA_ARCH=sm_86 FAKE_CUDA_LOG=%t.86 %python %s %S/Inputs | FileCheck --check-prefix=SM86 %s
# RUN: env PYTHONPATH=%pysrc SOFTGEN_LIB_DIR=%rtlib SOFTGEN_CACHE_DIR=%t.cache SOFTGEN_CUDA_LIBRARY=%fake_cuda FAKE_CUDA_ARCH=sm_120 FAKE_CUDA_LOG=%t.120 %python %s %S/Inputs | FileCheck --check-prefix=SM120 %s
# RUN: env PYTHONPATH=%pysrc SOFTGEN_LIB_DIR=%rtlib SOFTGEN_CACHE_DIR=%t.cache SOFTGEN_CUDA_LIBRARY=%fake_cuda FAKE_CUDA_ARCH=sm_130 FAKE_CUDA_LOG=%t.130 %python %s %S/Inputs | FileCheck --check-prefix=SM130 %s
# RUN: FileCheck --check-prefix=LOG130 %s < %t.130
# RUN: env PYTHONPATH=%pysrc SOFTGEN_LIB_DIR=%rtlib SOFTGEN_CACHE_DIR=%t.cache SOFTGEN_CUDA_LIBRARY=%fake_cuda FAKE_CUDA_ARCH=sm_75 %python %s %S/Inputs | FileCheck --check-prefix=SM75 %s
import random
import sys

import softgen

sys.path.insert(0, sys.argv[1])
from fakearray import FakeArray, softmax_error  # noqa: E402

try:
    k = softgen.compile("softmax", N=1024, dtype="f32")
except softgen.Error as e:
    print("compile:", e)
    sys.exit(0)
print(repr(k))
print("kind:", softgen.cache_info()["last"]["kind"] if k.device_arch != k.arch else "native")
# SM86: <softgen.Kernel softgen_softmax_f32_n1024 softmax n=1024 sm_86 layout=rows
# SM86-NEXT: kind: native
# SM120: <softgen.Kernel softgen_softmax_f32_n1024 softmax n=1024 sm_120 layout=rows
# SM120-NEXT: kind: native
# SM130: <softgen.Kernel softgen_softmax_f32_n1024 softmax n=1024 sm_121 (PTX, JIT-compiled by the driver for sm_130) layout=rows
# SM130-NEXT: kind: asm
# SM75: compile: unknown arch 'sm_75' for target nvptx (expected one of sm_80,

# compile on first use takes the same arch, and the PTX runs (the runtime's rule:
# PTX runs on any later device)
M, N = 3, 1024
x, y = FakeArray((M, N)), FakeArray((M, N))
random.seed(0)
vals = [random.gauss(0, 2) for _ in range(M * N)]
x.set(vals)
softgen.softmax(x, out=y)
print("max abs err ok:", softmax_error(vals, y.get(M * N), M, N) < 1e-6)
# SM86: max abs err ok: True
# SM120: max abs err ok: True
# SM130: max abs err ok: True
# LOG130: cuModuleLoadData kind=text
# LOG130: cuLaunchKernel fn=softgen_softmax_f32_n1024
