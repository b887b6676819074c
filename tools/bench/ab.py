#!/usr/bin/env python3
"""ab.py - the paired summary of an A/B run of compare.sh (any machine).

    tools/bench/ab.py CMP_TXT OLD NEW [--bands N,N,...] [--show K] [--low] [--by-n]

CMP_TXT is compare.sh's output (its table "dtype M N name ..." and one line per
dtype x M x N). OLD and NEW name the sets to compare, each a comma-separated
list of rounds of one kernel set (e.g. a,a2 and b,b2): a shape's ratio is the
mean of NEW's rounds over the mean of OLD's, both ratios to the copy measured in
their own runs; with --low, the lowest of NEW's rounds over the lowest of OLD's
(a round whose copy measured slow gives one ratio far above the others: seen at
1.5-3 x on shapes of a few microseconds; the lowest drops it). Shapes where a
round has no value ('-': failed or not built) are left out and counted.

Prints, per dtype (the table's first column, e.g. f16 or log_softmax:f16): the
shapes, the geomean of new / old, its minimum and maximum; the same per band of
N (--bands: the lower bounds, default 1,512,2048,8192,16384,65536); the K
shapes that lost most and gained most (--show, default 8), with old and new
ratios to the copy; with --by-n, one line per dtype x N: the geomean of new /
old over its M and each M's new / old; and, where OLD has two rounds or more,
the spread between its first two (median and 90th percentile of |old_1 / old_2
- 1|), the noise to read the rest against. Exit status 0; 2 on bad usage, an unreadable file,
a set name not in the table, or no shape with every round present.
"""
import argparse
import math
import sys


def geomean(v):
    return math.exp(sum(math.log(x) for x in v) / len(v))


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q * len(v)))]


def parse(path):
    names, rows = None, []
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) >= 4 and w[:3] == ["dtype", "M", "N"]:
                names, rows = w[3:], []  # the last table in the file counts
            elif names and len(w) == 3 + len(names) and w[1].isdigit() and w[2].isdigit():
                vals = [None if x == "-" else float(x) for x in w[3:]]
                rows.append((w[0], int(w[1]), int(w[2]), dict(zip(names, vals))))
    return names, rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cmp_txt")
    ap.add_argument("old", help="comma-separated rounds of the old set (e.g. a,a2)")
    ap.add_argument("new", help="comma-separated rounds of the new set (e.g. b,b2)")
    ap.add_argument("--bands", default="1,512,2048,8192,16384,65536",
                    help="lower bounds of the bands of N (default %(default)s)")
    ap.add_argument("--show", type=int, default=8, help="shapes listed each way (default 8)")
    ap.add_argument("--low", action="store_true",
                    help="a set's ratio is the lowest of its rounds, not their mean")
    ap.add_argument("--by-n", action="store_true",
                    help="one line per dtype x N: geomean over M and each M's new / old")
    a = ap.parse_args()
    try:
        names, rows = parse(a.cmp_txt)
    except OSError as e:
        print(f"ab.py: cannot read {a.cmp_txt}: {e.strerror}", file=sys.stderr)
        return 2
    if not names:
        print(f"ab.py: {a.cmp_txt}: no compare.sh table (a line 'dtype M N name ...')",
              file=sys.stderr)
        return 2
    old, new = a.old.split(","), a.new.split(",")
    for n in old + new:
        if n not in names:
            print(f"ab.py: no set '{n}' in {a.cmp_txt} (its sets: {' '.join(names)})",
                  file=sys.stderr)
            return 2
    try:
        bands = sorted({int(b) for b in a.bands.split(",")})
    except ValueError:
        print(f"ab.py: --bands wants integers, got '{a.bands}'", file=sys.stderr)
        return 2
    if a.show < 0:
        print("ab.py: --show wants a count of 0 or more", file=sys.stderr)
        return 2

    pairs, skipped, spread = [], 0, []
    for dt, m, n, v in rows:
        if any(v[k] is None or v[k] <= 0 for k in old + new):
            skipped += 1
            continue
        if a.low:
            o, w = min(v[k] for k in old), min(v[k] for k in new)
        else:
            o = sum(v[k] for k in old) / len(old)
            w = sum(v[k] for k in new) / len(new)
        pairs.append((dt, m, n, o, w, w / o))
        if len(old) > 1:
            spread.append(abs(v[old[0]] / v[old[1]] - 1))
    if not pairs:
        print(f"ab.py: no shape in {a.cmp_txt} has every round of {a.old} and {a.new}",
              file=sys.stderr)
        return 2

    print(f"new = {a.new} over old = {a.old}{' (the lowest round of each)' if a.low else ''}:"
          f" {len(pairs)} shapes"
          f"{f', {skipped} left out (a round missing)' if skipped else ''}")
    if spread:
        print(f"round spread of {old[0]} against {old[1]}: median {pct(spread, 0.5):.3f}, "
              f"p90 {pct(spread, 0.9):.3f}")
    for dt in sorted({p[0] for p in pairs}):
        mine = [p for p in pairs if p[0] == dt]
        r = [p[5] for p in mine]
        print(f"{dt}: {len(r)} shapes, geomean {geomean(r):.3f} (min {min(r):.3f}, max {max(r):.3f});"
              f" old {geomean([p[3] for p in mine]):.3f}, new {geomean([p[4] for p in mine]):.3f} of the copy")
        for i, lo in enumerate(bands):
            hi = bands[i + 1] if i + 1 < len(bands) else None
            b = [p[5] for p in mine if p[2] >= lo and (hi is None or p[2] < hi)]
            if b:
                span = f"N {lo}-{hi - 1}" if hi else f"N >= {lo}"
                print(f"  {span}: {len(b)} shapes, geomean {geomean(b):.3f} "
                      f"(min {min(b):.3f}, max {max(b):.3f})")
        for n in sorted({p[2] for p in mine}) if a.by_n else []:
            at = sorted((p[1], p[5]) for p in mine if p[2] == n)
            print(f"  N = {n}: x {geomean([r for _, r in at]):.3f}  "
                  + " ".join(f"{m}:{r:.2f}" for m, r in at))
    if a.show:
        ranked = sorted(pairs, key=lambda p: p[5])
        for title, part in (("lost most", ranked[:a.show]), ("gained most", ranked[::-1][:a.show])):
            print(f"{title}:")
            for dt, m, n, o, w, r in part:
                print(f"  {dt} {m} x {n}: {r:.3f} ({o:.3f} -> {w:.3f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
