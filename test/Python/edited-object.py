# The Python binding on an edited host code object (issue 19, item 3: a
# changed vector_bytes with a misaligned numpy array crashed Python): loading
# it, from a file or from bytes, raises softgen.Error (SG_ERR_PARSE, the
# checksum) and the process goes on; the object as written loads and runs.
# REQUIRES: numpy
# An ASan-built libsoftgen_rt cannot load into an uninstrumented python:
# UNSUPPORTED: asan
# RUN: rm -rf %t && mkdir -p %t
# RUN: %softgen softmax -D N=1000 --dtype f32 --target host --emit so -o %t/k.so
# RUN: %python %S/../Runtime/Inputs/edit_meta.py %t/k.so %t/vb.so vector_bytes "vector_bytes 4"
# RUN: env PYTHONPATH=%pysrc SOFTGEN_RT_LIBRARY=%rtlib/libsoftgen_rt.so SOFTGEN_LIBRARY=/nonexistent/libsoftgen.so SOFTGEN_CUDA_LIBRARY=/nonexistent/libcuda.so.1 %python %s %t | FileCheck %s
# CHECK: as written: ok
# CHECK-NEXT: edited, file: Error SG_ERR_PARSE {{.*}}vb.so: code object's checksum does not match its bytes: the code object is damaged or was edited after softgen wrote it: regenerate it with softgen
# CHECK-NEXT: edited, bytes: Error SG_ERR_PARSE SG_ERR_PARSE: code object's checksum does not match its bytes
# CHECK-NEXT: still running
import sys

import numpy as np

import softgen

d = sys.argv[1]
x = np.random.default_rng(0).standard_normal((7, 1000)).astype(np.float32)
ref = np.exp(x - x.max(1, keepdims=True))
ref /= ref.sum(1, keepdims=True)
y = softgen.load(f"{d}/k.so")(x[1:])  # rows of a view: not aligned to 64 bytes
print("as written:", "ok" if np.allclose(y, ref[1:], rtol=1e-5, atol=1e-7) else "wrong")
for label, obj in (("file", f"{d}/vb.so"), ("bytes", open(f"{d}/vb.so", "rb").read())):
    try:
        softgen.load(obj)(x[1:])
        print(f"edited, {label}: loaded")
    except softgen.Error as e:
        print(f"edited, {label}: Error {e.status} {e}")
print("still running")
