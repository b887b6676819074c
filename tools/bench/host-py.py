"""host-py.py - the Python binding on the CPU (tools/bench/RESULTS.md): softgen.softmax
on numpy arrays (host target, JIT-ed in process) against numpy's own softmax and,
where torch is importable, torch.softmax on CPU tensors, in one process.

    PYTHONPATH=python python3 tools/bench/host-py.py [--mb 64] [--runs 11] [--threads T]

Needs: numpy; libsoftgen.so and libsoftgen_rt.so (build/, or SOFTGEN_LIB_DIR);
torch optional. Produces: a markdown table on stdout. Per shape (N, M with M x N
f32 = --mb MiB) and dtype: the median of --runs calls after one warm-up, timed
with time.perf_counter around the call (host launches are synchronous); GB/s
counts bytes read + written. "softgen" takes x as numpy allocates it (16-byte
aligned: the binding copies it to an aligned buffer first, see docs/python.md),
"aligned x" a 64-byte aligned copy of it (launched in place). numpy's softmax (np.exp(x - max) / sum, f32) has
no f16 column (numpy computes f16 exp at f16 precision). Also the time of one
call on a small array (8 x 1000 f32): the binding's overhead per call.
"""
import argparse
import statistics
import time

import numpy as np

import softgen

try:
    import torch
except ImportError:
    torch = None


def median_s(fn, runs):
    fn()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def aligned_copy(x):
    buf = np.empty(x.nbytes + 64, np.uint8)
    off = -buf.ctypes.data % 64
    a = buf[off:off + x.nbytes].view(x.dtype).reshape(x.shape)
    a[...] = x
    return a


def np_softmax(x, out):
    m = x.max(axis=1, keepdims=True)
    np.subtract(x, m, out=out)
    np.exp(out, out=out)
    out /= out.sum(axis=1, keepdims=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=int, default=64)
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--threads", type=int, default=0, help="0: the runtime's default")
    a = ap.parse_args()
    if a.threads:
        softgen.set_host_threads(a.threads)
        if torch is not None:
            torch.set_num_threads(a.threads)
    rng = np.random.default_rng(0)
    print("| N | M | dtype | softgen GB/s | softgen, aligned x GB/s | numpy GB/s | torch GB/s |")
    print("|---|---|---|---|---|---|---|")
    for n in (1024, 8192, 32768, 262144):
        m = a.mb * (1 << 20) // 4 // n
        for name, dt in (("f32", np.float32), ("f16", np.float16)):
            x = rng.standard_normal((m, n), dtype=np.float32).astype(dt)
            y = softgen.softmax(x)
            gb = 2 * x.nbytes / 1e9
            sg = gb / median_s(lambda: softgen.softmax(x, out=y), a.runs)
            xa = aligned_copy(x)
            sga = gb / median_s(lambda: softgen.softmax(xa, out=y), a.runs)
            del xa
            npc = "-"
            if dt is np.float32:
                npc = f"{gb / median_s(lambda: np_softmax(x, y), a.runs):.2f}"
            tc = "-"
            if torch is not None:
                tx = torch.from_numpy(x)  # torch.softmax allocates its output
                tc = f"{gb / median_s(lambda: torch.softmax(tx, -1), a.runs):.2f}"
            print(f"| {n} | {m} | {name} | {sg:.2f} | {sga:.2f} | {npc} | {tc} |", flush=True)
    x = rng.standard_normal((8, 1000), dtype=np.float32)
    y = softgen.softmax(x)
    us = 1e6 * median_s(lambda: softgen.softmax(x, out=y), max(a.runs, 101))
    print(f"\nsoftgen.softmax on 8 x 1000 f32: {us:.1f} us per call"
          + ("" if torch is not None else "; torch is not importable: no torch column"))


if __name__ == "__main__":
    main()
