# Two Python threads calling softgen.softmax on numpy arrays at once share the
# process's host runtime and its CPU thread pool (issue 19, item 1: wrong rows
# and deadlocks with SOFTGEN_HOST_THREADS=2 before launches were serialized on
# the runtime). Each thread makes CALLS calls on its own rows, N = 1000 f32
# (first calls compile the kernel, from both threads at once), and checks each
# output against a float64 reference; `timeout` turns a deadlock into a
# failure. A third thread meanwhile changes the pool size (set_host_threads).
# REQUIRES: numpy
# An ASan-built libsoftgen cannot load into an uninstrumented python:
# UNSUPPORTED: asan
# RUN: env PYTHONPATH=%pysrc SOFTGEN_LIB_DIR=%rtlib SOFTGEN_CUDA_LIBRARY=/nonexistent/libcuda.so.1 SOFTGEN_HIP_LIBRARY=/nonexistent/libamdhip64.so SOFTGEN_HOST_THREADS=2 timeout 120 %python %s 2 100 | FileCheck %s
# CHECK: threads=2 calls=100 wrong=0 errors=0
import sys
import threading

import numpy as np

import softgen

THREADS, CALLS = int(sys.argv[1]), int(sys.argv[2])
N, ROWS = 1000, 64
wrong, errors = [0] * THREADS, [0] * THREADS
start = threading.Barrier(THREADS)


def reference(x):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def caller(i):
    rng = np.random.default_rng(100 + i)
    x = (rng.standard_normal((ROWS, N)) * 3 + i).astype(np.float32)
    ref = reference(x)
    start.wait()
    for c in range(CALLS):
        try:
            y = softgen.softmax(x)
        except Exception as e:  # noqa: BLE001: counted and shown, the test fails
            errors[i] += 1
            if errors[i] == 1:
                print(f"thread {i} call {c}: {type(e).__name__}: {e}", file=sys.stderr)
            continue
        # per row, relative by norm (docs/numerics.md); a NaN (unwritten) fails too
        err = np.linalg.norm(y.astype(np.float64) - ref, axis=1) / np.linalg.norm(ref, axis=1)
        if not np.all(err <= 1e-5):
            wrong[i] += 1
            if wrong[i] == 1:
                print(f"thread {i} call {c}: row error {err.max()}", file=sys.stderr)


done = threading.Event()


def resizer():
    n = 0
    while not done.is_set():
        softgen.set_host_threads(2 + n % 2)
        n += 1
        done.wait(0.001)


ts = [threading.Thread(target=caller, args=(i,)) for i in range(THREADS)]
rs = threading.Thread(target=resizer)
for t in ts:
    t.start()
rs.start()
for t in ts:
    t.join()
done.set()
rs.join()
print(f"threads={THREADS} calls={CALLS} wrong={sum(wrong)} errors={sum(errors)}")
