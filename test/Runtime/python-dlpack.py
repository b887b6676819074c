# GPU arrays other than torch tensors are read through DLPack (__dlpack__,
# __dlpack_device__) when they export it: the dtype from DLPack's code (bfloat16
# is code 4: no "<V2" guess), strides in elements, the byte offset, the device id.
# Over the fake CUDA driver (its device memory is host memory).
# UNSUPPORTED: asan
# RUN: rm -f %t.log && rm -rf %t.in && %seal %S/Inputs %t.in
# RUN: env PYTHONPATH=%pysrc SOFTGEN_RT_LIBRARY=%rtlib/libsoftgen_rt.so SOFTGEN_CUDA_LIBRARY=%fake_cuda FAKE_CUDA_LOG=%t.log %python %s %S/Inputs %t.in | FileCheck %s
# RUN: FileCheck --check-prefix=LOG %s < %t.log
import random
import sys

import softgen

sys.path.insert(0, sys.argv[1])
from fakearray import DLPackArray, FakeArray, softmax_error  # noqa: E402

k = softgen.load(f"{sys.argv[2]}/softmax_f32.ptx")
M, N = 3, 1024
xf, yf = FakeArray((M, N)), FakeArray((M, N))
random.seed(0)
vals = [random.gauss(0, 2) for _ in range(M * N)]
xf.set(vals)
x, y = DLPackArray(xf), DLPackArray(yf)
r = k(x, out=y, stream=0x99)
print("returned out:", r is y, "exported:", x.exported > 0 and y.exported > 0)
print("max abs err ok:", softmax_error(vals, yf.get(M * N), M, N) < 1e-6)
# CHECK: returned out: True exported: True
# CHECK-NEXT: max abs err ok: True
# LOG: cuLaunchKernel fn=softgen_softmax_f32_n1024 {{.*}} stream=0x99 {{.*}} M=3 stride_x=1024 stride_y=1024

# strides in elements (a padded row), a byte offset into the allocation
xp = FakeArray((2, N), strides=(4 * 1088, 4))
k(DLPackArray(xp, strides=(1088, 1), byte_offset=256), out=DLPackArray(FakeArray((2, N))))
# LOG: cuLaunchKernel {{.*}} M=2 stride_x=1088 stride_y=1024


def expect(label, fn):
    try:
        fn()
        print(label, "-> no error")
    except Exception as e:  # noqa: BLE001
        print(label, "->", type(e).__name__, ":", e)


# a DLPack dtype softgen does not compute, a bfloat16 array for an f32 kernel, the
# device id checked against the other tensors
expect("f64", lambda: k(DLPackArray(xf, bits=64), out=y))
# CHECK: f64 -> TypeError : tensor 'x': typestr 'DLPack dtype code 2 of 64 bits' not supported
expect("bf16", lambda: k(DLPackArray(FakeArray((M, N), typestr="<f2"), code=4, bits=16), out=y))
# CHECK: bf16 -> ArgumentError : tensor 'x' (#0): dtype bf16 but the kernel takes f32
expect("devices", lambda: k(DLPackArray(xf, device=1), out=y))
# CHECK: devices -> ValueError : tensor 'y' is on device 0, others on 1
