# Issue 10 faults through the Python binding (python/softgen) over the fake
# CUDA driver: no driver, another arch, corrupted code objects (from a real
# generated PTX and an ELF built here), a kernel the module lacks, device
# out-of-memory where it goes through the runtime (context, module, launch;
# k(x) allocates torch outputs through torch, not the runtime), and launch
# arguments that disagree with the metadata. Each raises softgen.Error (with
# .status the SG_ERR_* name) or, for what the binding rejects before the
# runtime, TypeError / ValueError; nothing crashes. One process per driver
# setting; every run must finish quickly (no timeout is configured in lit).
# Damaged objects are sealed again (Inputs/seal.py) to get past the checksum to
# the checks behind it; one is loaded as damaged to show the checksum's error.
# An ASan-built libsoftgen_rt cannot load into an uninstrumented python:
# UNSUPPORTED: asan
# RUN: rm -rf %t.dir && mkdir -p %t.dir
# RUN: %softgen softmax -D N=256 --emit asm -o %t.dir/k.ptx
# RUN: env PYTHONPATH=%pysrc SOFTGEN_RT_LIBRARY=%rtlib/libsoftgen_rt.so SOFTGEN_CUDA_LIBRARY=%t.dir/no-such-libcuda.so.1 SOFTGEN_HIP_LIBRARY=%t.dir/no-such-libamdhip64.so %python %s nodriver %t.dir/k.ptx | FileCheck --check-prefix=NODRV %s
# RUN: env PYTHONPATH=%pysrc SOFTGEN_RT_LIBRARY=%rtlib/libsoftgen_rt.so SOFTGEN_CUDA_LIBRARY=%fake_cuda FAKE_CUDA_LOG=%t.dir/log FAKE_CUDA_ARCH=sm_80 %python %s arch %t.dir/k.ptx | FileCheck --check-prefix=ARCH %s
# RUN: env PYTHONPATH=%pysrc SOFTGEN_RT_LIBRARY=%rtlib/libsoftgen_rt.so SOFTGEN_CUDA_LIBRARY=%fake_cuda FAKE_CUDA_LOG=%t.dir/log %python %s corrupt %t.dir/k.ptx | FileCheck --check-prefix=CORRUPT %s
# RUN: env PYTHONPATH=%pysrc SOFTGEN_RT_LIBRARY=%rtlib/libsoftgen_rt.so SOFTGEN_CUDA_LIBRARY=%fake_cuda FAKE_CUDA_LOG=%t.dir/log %python %s oom %t.dir/k.ptx | FileCheck --check-prefix=OOM %s
# RUN: env PYTHONPATH=%pysrc SOFTGEN_RT_LIBRARY=%rtlib/libsoftgen_rt.so SOFTGEN_CUDA_LIBRARY=%fake_cuda FAKE_CUDA_LOG=%t.dir/log %python %s args %t.dir/k.ptx | FileCheck --check-prefix=ARGS %s
import ctypes
import os
import sys

import softgen

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "Inputs"))
from seal import seal  # noqa: E402

mode, PTX = sys.argv[1], sys.argv[2]
ptx = open(PTX, "rb").read()


def expect(label, fn):
    try:
        fn()
        print(label, "-> no error")
    except Exception as e:  # noqa: BLE001
        kinds = [c.__name__ for c in (softgen.ArgumentError, softgen.Error, ValueError, TypeError)
                 if isinstance(e, c)]
        print(label, "->", "/".join(kinds), ":", getattr(e, "status", "-"), ":", e)


class FakeArray:
    """A row-major array in 256-byte aligned host memory, seen through CAI."""

    def __init__(self, shape, typestr="<f2", strides=None, null=False):
        n = 1
        for s in shape:
            n *= s
        self.raw = ctypes.create_string_buffer(n * int(typestr[2:]) * 2 + 512)
        self.ptr = 0 if null else (ctypes.addressof(self.raw) + 255) // 256 * 256
        self.shape, self.typestr, self.strides = tuple(shape), typestr, strides

    @property
    def __cuda_array_interface__(self):
        return {"shape": self.shape, "typestr": self.typestr, "data": (self.ptr, False),
                "strides": self.strides, "version": 3}


if mode == "nodriver":
    expect("load, no driver", lambda: softgen.load(PTX, backend="cuda"))
    expect("load, auto", lambda: softgen.load(PTX))
    # NODRV: load, no driver -> Error : SG_ERR_NO_DRIVER : SG_ERR_NO_DRIVER: cannot open SOFTGEN_CUDA_LIBRARY='{{.*}}no-such-libcuda.so.1'
    # NODRV-NEXT: load, auto -> Error : SG_ERR_NO_DRIVER : SG_ERR_NO_DRIVER: no GPU driver: cuda: cannot open {{.*}}; hip: cannot open SOFTGEN_HIP_LIBRARY

elif mode == "arch":
    expect("sm_90 ptx on sm_80", lambda: softgen.load(PTX))
    expect("sm_90 ptx bytes on sm_80", lambda: softgen.load(ptx))
    # ARCH: sm_90 ptx on sm_80 -> ArgumentError/Error/ValueError : SG_ERR_MISMATCH : {{.*}}k.ptx: code object is for sm_90 but device 0 is sm_80 (PTX needs at least that compute capability)
    # ARCH-NEXT: sm_90 ptx bytes on sm_80 -> ArgumentError/Error/ValueError : SG_ERR_MISMATCH : code object is for sm_90 but device 0 is sm_80

elif mode == "corrupt":
    n = len(ptx)
    entry = ptx.find(b".entry ")  # "half": halfway through the first kernel
    half = (entry + ptx.find(b"\n}\n", entry)) // 2
    for cut in (0, 1, 100, half, n - 2):
        expect(f"ptx cut at {cut if cut < 200 else ('half' if cut == half else 'len-2')}",
               lambda: softgen.load(seal(ptx[:cut])))
    expect("ptx cut at half, as cut", lambda: softgen.load(ptx[:half]))
    # CORRUPT: ptx cut at 0 -> Error : SG_ERR_PARSE : SG_ERR_PARSE: code object is empty
    # CORRUPT-NEXT: ptx cut at 1 -> Error : SG_ERR_PARSE : SG_ERR_PARSE: no softgen metadata
    # CORRUPT-NEXT: ptx cut at 100 -> Error : SG_ERR_PARSE : SG_ERR_PARSE: no softgen metadata
    # CORRUPT-NEXT: ptx cut at half -> Error : SG_ERR_DRIVER : SG_ERR_DRIVER: cuModuleLoadData failed: CUDA_ERROR_INVALID_PTX (218)
    # CORRUPT-NEXT: ptx cut at len-2 -> Error : SG_ERR_DRIVER : SG_ERR_DRIVER: cuModuleLoadData failed: CUDA_ERROR_INVALID_PTX (218)
    # CORRUPT-NEXT: ptx cut at half, as cut -> Error : SG_ERR_PARSE : SG_ERR_PARSE: code object's checksum does not match its bytes: the code object is damaged or was edited after softgen wrote it: regenerate it with softgen

    def flipped(pos, mask):
        b = bytearray(ptx)
        b[pos] ^= mask
        return bytes(b)

    body = ptx.index(b"{", ptx.index(b"softgen_meta[")) + 1
    expect("ptx meta byte flipped", lambda: softgen.load(seal(flipped(body, 0x01))))
    expect("ptx .version flipped",
           lambda: softgen.load(seal(flipped(ptx.index(b".version"), 0x80))))
    expect("ptx entry renamed",
           lambda: softgen.load(seal(flipped(ptx.index(b".entry softgen_") + 7, 0x01))))
    # CORRUPT-NEXT: ptx meta byte flipped -> Error : SG_ERR_PARSE : SG_ERR_PARSE: metadata does not start with 'softgen-meta 1'
    # CORRUPT-NEXT: ptx .version flipped -> Error : SG_ERR_DRIVER : SG_ERR_DRIVER: cuModuleLoadData failed: CUDA_ERROR_INVALID_PTX (218)
    # CORRUPT-NEXT: ptx entry renamed -> Error : SG_ERR_DRIVER : SG_ERR_DRIVER: cuModuleGetFunction failed: CUDA_ERROR_NOT_FOUND (500) (kernel 'softgen_softmax_f16_n256')

    # An ELF64 image (header, the metadata text, one 64-byte section header
    # at the end), given as exact-size bytes: the driver would read what the
    # header declares, so the runtime refuses a shorter buffer.
    meta = ptx[body:ptx.index(b"}", body)]
    text = bytes(int(v) for v in meta.replace(b"\n", b" ").split(b","))
    elf = bytearray(64)
    elf[:7] = b"\x7fELF\x02\x01\x01"
    elf[40:48] = (64 + len(text)).to_bytes(8, "little")  # e_shoff
    elf[58:62] = (64).to_bytes(2, "little") + (1).to_bytes(2, "little")  # e_shentsize, e_shnum
    elf = seal(bytes(elf) + text + bytes(64))
    print("elf intact:", softgen.load(elf).kernel)
    expect("elf cut at len-1", lambda: softgen.load(seal(elf[:-1])))
    expect("elf cut at 32", lambda: softgen.load(elf[:32]))
    big = bytearray(elf)
    big[47] ^= 0x80
    expect("elf shoff flipped", lambda: softgen.load(seal(bytes(big))))
    # CORRUPT-NEXT: elf intact: softgen_softmax_f16_n256
    # CORRUPT-NEXT: elf cut at len-1 -> Error : SG_ERR_PARSE : SG_ERR_PARSE: code object is truncated or damaged: its ELF header describes [[LEN:[0-9]+]] bytes, got {{[0-9]+}}
    # CORRUPT-NEXT: elf cut at 32 -> Error : SG_ERR_PARSE : SG_ERR_PARSE: no softgen metadata
    # CORRUPT-NEXT: elf shoff flipped -> Error : SG_ERR_PARSE : SG_ERR_PARSE: code object is truncated or damaged: its ELF header describes {{[0-9]+}} bytes, got [[LEN]]

elif mode == "oom":
    os.environ["FAKE_CUDA_FAIL"] = "cuDevicePrimaryCtxRetain:2"
    expect("context", lambda: softgen.load(PTX))
    os.environ["FAKE_CUDA_FAIL"] = "cuModuleLoadData:2"
    expect("module", lambda: softgen.load(PTX))
    del os.environ["FAKE_CUDA_FAIL"]
    k = softgen.load(PTX)
    x, y = FakeArray((4, 256)), FakeArray((4, 256))
    os.environ["FAKE_CUDA_FAIL"] = "cuLaunchKernel:2"
    expect("launch", lambda: k(x, out=y))
    del os.environ["FAKE_CUDA_FAIL"]
    expect("launch after", lambda: k(x, out=y))
    # OOM: context -> Error : SG_ERR_DRIVER : SG_ERR_DRIVER: cuda: cuDevicePrimaryCtxRetain failed: CUDA_ERROR_OUT_OF_MEMORY (2)
    # OOM-NEXT: module -> Error : SG_ERR_DRIVER : SG_ERR_DRIVER: {{.*}}k.ptx: cuModuleLoadData failed: CUDA_ERROR_OUT_OF_MEMORY (2)
    # OOM-NEXT: launch -> Error : SG_ERR_DRIVER : SG_ERR_DRIVER: cuLaunchKernel failed: CUDA_ERROR_OUT_OF_MEMORY (2)
    # OOM-NEXT: launch after -> no error

elif mode == "args":
    k = softgen.load(PTX)
    N = 256
    x, y = FakeArray((4, N)), FakeArray((4, N))
    expect("agrees", lambda: k(x, out=y))
    expect("f32 input", lambda: k(FakeArray((4, N), "<f4"), out=y))
    expect("f32 output", lambda: k(x, out=FakeArray((4, N), "<f4")))
    expect("i32 input", lambda: k(FakeArray((4, N), "<i4"), out=y))
    expect("wrong N", lambda: k(FakeArray((4, 128)), out=FakeArray((4, 128))))
    expect("N differs in/out", lambda: k(x, out=FakeArray((4, 512))))
    expect("column stride 2", lambda: k(FakeArray((4, N), strides=(4 * N, 4)), out=y))
    expect("leading dims not rows", lambda: k(FakeArray((2, 2, N), strides=(8 * N, 2 * N, 2)),
                                              out=FakeArray((2, 2, N))))
    expect("row stride misaligned", lambda: k(FakeArray((4, N), strides=(2 * (N + 1), 2)),
                                              out=y))
    expect("row stride < N", lambda: k(FakeArray((4, N), strides=(2 * 128, 2)), out=y))
    expect("rows differ", lambda: k(x, out=FakeArray((5, N))))
    expect("null data", lambda: k(FakeArray((4, N), null=True), out=y))
    expect("no inputs", lambda: k(out=y))
    expect("two inputs", lambda: k(x, x, out=y))
    expect("two outputs", lambda: k(x, out=[y, y]))
    expect("zero rows", lambda: k(FakeArray((0, N)), out=FakeArray((0, N))))
    # ARGS: agrees -> no error
    # ARGS-NEXT: f32 input -> ArgumentError/Error/ValueError : SG_ERR_MISMATCH : tensor 'x' (#0): dtype f32 but the kernel takes f16
    # ARGS-NEXT: f32 output -> ArgumentError/Error/ValueError : SG_ERR_MISMATCH : tensor 'y' (#1): dtype f32 but the kernel takes f16
    # ARGS-NEXT: i32 input -> TypeError : - : tensor 'x': typestr '<i4' not supported
    # ARGS-NEXT: wrong N -> ArgumentError/Error/ValueError : SG_ERR_MISMATCH : tensor 'x' (#0): cols 128 but the kernel was generated for n = 256
    # ARGS-NEXT: N differs in/out -> ArgumentError/Error/ValueError : SG_ERR_MISMATCH : tensor 'y' (#1): cols 512 but the kernel was generated for n = 256
    # ARGS-NEXT: column stride 2 -> ValueError : - : tensor 'x': rows must be contiguous (last-dim stride 2, need 1)
    # ARGS-NEXT: leading dims not rows -> ValueError : - : tensor 'x': leading dims of shape (2, 2, 256) cannot be viewed as rows
    # ARGS-NEXT: row stride misaligned -> ArgumentError/Error/ValueError : SG_ERR_MISMATCH : tensor 'x' (#0): row_stride 257 (514 bytes) is not a multiple of the kernel's vector_bytes
    # ARGS-NEXT: row stride < N -> ArgumentError/Error/ValueError : SG_ERR_INVALID_ARGUMENT : tensor 'x' (#0): row_stride 128 is less than cols 256
    # ARGS-NEXT: rows differ -> ArgumentError/Error/ValueError : SG_ERR_INVALID_ARGUMENT : tensor 'y' (#1): rows 5 but tensor 'x' has 4
    # ARGS-NEXT: null data -> ArgumentError/Error/ValueError : SG_ERR_INVALID_ARGUMENT : tensor 'x' (#0): data is NULL with 4 rows
    # ARGS-NEXT: no inputs -> TypeError : - : softgen_softmax_f16_n256 takes 1 input(s) (x), got 0
    # ARGS-NEXT: two inputs -> TypeError : - : softgen_softmax_f16_n256 takes 1 input(s) (x), got 2
    # ARGS-NEXT: two outputs -> TypeError : - : softgen_softmax_f16_n256 has 1 output(s), got 2
    # ARGS-NEXT: zero rows -> no error
print("done")
# NODRV: done
# ARCH: done
# CORRUPT: done
# OOM: done
# ARGS: done
