#!/usr/bin/env python3
"""sweep-shapes.py - the shapes of the user-shaped sweep (issue 21), from a fixed seed.

    python3 tools/bench/sweep-shapes.py [--seed 21] [--count 256] [-o FILE] [--summary]

Needs: Python 3 alone (the standard library's random.Random, from which only
random() is used: its sequence for a given seed is the same on every Python 3).
Produces: "M N" lines (the format of shapes.txt, '#' comments) on stdout or in
FILE (tools/bench/shapes-sweep.txt is this script's output with the defaults),
each with a comment naming its kind; --summary prints to stderr the count, the
N range, the share of odd or prime N, the M x N span and the kinds.

Two parts:
  random      --count shapes. N is log-uniform over [1, 2^18] (log2 N uniform on
              [0, 18]), then made one of five kinds, each drawn with a fixed
              chance: prime (the next prime, 1/6), odd (1/8), even (1/6; any even
              N, so that many are not a multiple of 8), mult8 (a multiple of 8,
              3/8; below 8 the nearest power of two, labelled pow2) and pow2 (the
              nearest power of two, 1/6): with N = 1 (odd) that makes about a
              third odd or prime, as many real sizes are.
              M: log2(M x N) uniform on [max(12, log2 N), 30], M = round(2^t / N),
              at least 1, with M x N <= 2^30, so that M x N spans 2^12..2^30
              elements (one row of up to 2^18 cannot be smaller than N).
              A repeated (M, N) is drawn again.
  vocab       M in {1, 2, 4, 8, 16, 32, 64, 128} x the vocabulary sizes of real
              models (VOCAB below: LLM decode and sampling, few rows of long rows).
"""
import argparse
import math
import random
import sys

MAX_LOG_N = 18           # N <= 2^18
MIN_LOG_ELEMS = 12       # M x N from 2^12 ...
MAX_LOG_ELEMS = 30       # ... to 2^30 elements
VOCAB_M = [1, 2, 4, 8, 16, 32, 64, 128]
# (N, model): vocabulary sizes as the models' configurations give them (vocab_size,
# or the tokenizer's n_vocab for cl100k); all <= 2^18
VOCAB = [
    (30522, "BERT-base (bert-base-uncased)"),
    (32000, "Llama-2, Mistral-7B v0.1"),
    (32768, "Mistral-7B v0.3"),
    (49152, "StarCoder2, SmolLM"),
    (50257, "GPT-2"),
    (50304, "Pythia / GPT-NeoX (GPT-2's 50257 padded to a multiple of 64)"),
    (51865, "Whisper (multilingual)"),
    (65024, "Falcon-7B"),
    (100277, "cl100k_base (the GPT-3.5 / GPT-4 tokenizer)"),
    (100352, "Phi-4, DBRX (cl100k padded)"),
    (128256, "Llama-3"),
    (129280, "DeepSeek-V3"),
    (151936, "Qwen2 / Qwen2.5 0.5B-1.5B"),
    (152064, "Qwen2 / Qwen2.5 7B"),
    (201088, "gpt-oss (o200k_harmony)"),
    (250880, "BLOOM"),
    (256000, "Gemma, Gemma-2"),
]
KINDS = [("prime", 1 / 6), ("odd", 1 / 8), ("even", 1 / 6), ("mult8", 3 / 8), ("pow2", 1 / 6)]


def is_prime(n):
    if n < 2:
        return False
    if n % 2 == 0:
        return n == 2
    f = 3
    while f * f <= n:
        if n % f == 0:
            return False
        f += 2
    return True


def shape_n(x, kind):
    """The N of kind near the real x in [1, 2^18]."""
    top = 1 << MAX_LOG_N
    r = max(1, min(top, int(round(x))))
    if kind == "prime":
        n = max(2, r)
        while n <= top and not is_prime(n):
            n += 1
        if n > top:  # no prime in (r, 2^18]: the largest below
            n = top - 1
            while not is_prime(n):
                n -= 1
        return n
    if kind == "odd":
        return r if r % 2 else (r + 1 if r + 1 <= top else r - 1)
    if kind == "even":
        return max(2, r + (r % 2))
    if kind == "mult8" and x >= 8:
        return min(top, max(8, int(round(x / 8)) * 8))
    # pow2, and mult8 below 8
    return 1 << max(0, min(MAX_LOG_N, int(round(math.log2(x)))))


def pick_kind(u):
    acc = 0.0
    for kind, p in KINDS:
        acc += p
        if u < acc:
            return kind
    return KINDS[-1][0]


def random_shapes(seed, count):
    rng = random.Random(seed)
    seen, out = set(), []
    while len(out) < count:
        x = 2.0 ** (rng.random() * MAX_LOG_N)
        kind = pick_kind(rng.random())
        n = shape_n(x, kind)
        if kind == "mult8" and x < 8:
            kind = "pow2"
        lo = max(MIN_LOG_ELEMS, math.log2(n))
        t = lo + rng.random() * (MAX_LOG_ELEMS - lo)
        m = max(1, int(round(2.0 ** t / n)))
        m = min(m, (1 << MAX_LOG_ELEMS) // n)
        if (m, n) in seen:
            continue
        seen.add((m, n))
        out.append((m, n, kind))
    return out


def vocab_shapes():
    return [(m, n, "vocab " + model) for n, model in VOCAB for m in VOCAB_M]


def summary(rows, out):
    rnd = [r for r in rows if not r[2].startswith("vocab")]
    voc = [r for r in rows if r[2].startswith("vocab")]
    ns = [n for _, n, _ in rnd]
    elems = [m * n for m, n, _ in rnd]
    oddp = sum(1 for n in ns if n % 2 or is_prime(n))
    kinds = {}
    for _, _, k in rnd:
        kinds[k] = kinds.get(k, 0) + 1
    octs = [0] * (MAX_LOG_N + 1)
    for n in ns:
        octs[int(math.log2(n))] += 1
    allns = sorted({n for _, n, _ in rows})
    print(f"shapes: {len(rows)} ({len(rnd)} random + {len(voc)} vocab = "
          f"{len(VOCAB)} sizes x {len(VOCAB_M)} M); distinct N: {len(allns)}", file=out)
    print(f"random N: {min(ns)} .. {max(ns)} (log2 {math.log2(min(ns)):.1f} .. "
          f"{math.log2(max(ns)):.1f}); per octave [2^k, 2^k+1): "
          + " ".join(str(c) for c in octs), file=out)
    print(f"random N odd or prime: {oddp} of {len(ns)} ({100 * oddp / len(ns):.0f}%); "
          f"multiple of 8: {sum(1 for n in ns if n % 8 == 0)}; kinds: "
          + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())), file=out)
    print(f"random M x N: 2^{math.log2(min(elems)):.1f} .. 2^{math.log2(max(elems)):.1f} "
          f"elements; M: {min(m for m, _, _ in rnd)} .. {max(m for m, _, _ in rnd)}; "
          f"M x N per 2-octave band from 2^12: "
          + " ".join(str(sum(1 for e in elems if lo <= math.log2(e) < lo + 2 or
                             (lo == 28 and math.log2(e) >= 30)))
                     for lo in range(12, 30, 2)), file=out)
    vn = sorted({n for _, n, _ in voc})
    print(f"vocab N: {', '.join(str(n) for n in vn)} (max {max(vn)} <= 2^18: "
          f"{max(vn) <= 1 << MAX_LOG_N}); odd: {sum(1 for n in vn if n % 2)}; "
          f"not a multiple of 8: {sum(1 for n in vn if n % 8)}", file=out)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seed", type=int, default=21)
    p.add_argument("--count", type=int, default=256, help="random shapes (256)")
    p.add_argument("-o", "--output", help="write here (default: stdout)")
    p.add_argument("--summary", action="store_true", help="print a summary to stderr")
    args = p.parse_args(argv)
    rows = sorted(random_shapes(args.seed, args.count), key=lambda r: (r[1], r[0]))
    rows += vocab_shapes()
    lines = [
        "# The user-shaped sweep of issue 21: M N per line, '#' comments (shapes.txt's format).",
        f"# Made by: python3 tools/bench/sweep-shapes.py --seed {args.seed} --count {args.count}"
        " -o tools/bench/shapes-sweep.txt",
        f"# {args.count} random shapes: N log-uniform over [1, 2^18] made prime, odd, even,",
        "# a multiple of 8 or a power of two (about a third odd or prime), log2(M x N) uniform",
        "# over [max(12, log2 N), 30]; then M in {1..128} x vocabulary sizes of real models.",
        "# Each line's comment is its kind (the generator's docstring says how it was drawn).",
    ]
    lines += [f"{m} {n}  # {kind}" for m, n, kind in rows]
    text = "\n".join(lines) + "\n"
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    if args.summary:
        summary(rows, sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
