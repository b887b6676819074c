# softgen.preload() reads only regular files of at most 256 MiB, opened without
# blocking: a FIFO named like a code object (given, or in a preloaded directory)
# or /dev/zero raises an Error naming it at once instead of hanging; regular
# files load as before. The hang guard: the RUN line's `timeout 20` (rc 124).
# An ASan-built runtime cannot load into an uninstrumented python:
# UNSUPPORTED: asan
# RUN: rm -rf %t && mkdir -p %t/dir %t/good
# RUN: %softgen -D N=128 --emit asm -o %t/good/k.ptx
# RUN: %softgen -D N=64 --emit asm -o %t/dir/a.ptx && mkfifo %t/dir/x.cubin
# RUN: truncate -s 268435457 %t/big.cubin
# RUN: bash -c 'env PYTHONPATH=%pysrc SOFTGEN_LIB_DIR=%rtlib SOFTGEN_CUDA_LIBRARY=/nonexistent/libcuda.so.1 timeout 20 %python %s %t; echo rc=$?' | FileCheck %s
import sys

import softgen

TMP = sys.argv[1]
for label, path in [("fifo in a directory", f"{TMP}/dir"), ("fifo", f"{TMP}/dir/x.cubin"),
                    ("zero", "/dev/zero"), ("big", f"{TMP}/big.cubin"),
                    ("good", f"{TMP}/good")]:
    try:
        print(label, "->", softgen.preload(path))
    except softgen.Error as e:
        print(label, "->", type(e).__name__, str(e).replace(TMP, "TMP"))
# CHECK: fifo in a directory -> Error TMP/dir/x.cubin: a code object must be a regular file, not a FIFO
# CHECK-NEXT: fifo -> Error TMP/dir/x.cubin: a code object must be a regular file, not a FIFO
# CHECK-NEXT: zero -> Error /dev/zero: a code object must be a regular file, not a character device
# CHECK-NEXT: big -> Error TMP/big.cubin: 268435457 bytes is over the 256 MiB limit for a code object
# CHECK-NEXT: good -> 1
# CHECK-NEXT: rc=0
