#!/usr/bin/env bash
# compare.sh - softgen-bench over several kernel sets, side by side (GPU machine).
#
#   tools/bench/compare.sh OUTDIR RUNTIME_BUILD NAME=DIR [NAME=DIR ...] [-- BENCH_FLAGS]
#
# Each DIR is an output folder of gen.sh (its bench.manifest). Writes
# OUTDIR/NAME.csv per set and prints, last, one line per dtype x M x N: each
# set's ratio to the device copy measured in its own run, and the geometric
# mean and minimum per set and dtype (other templates than softmax as
# TEMPLATE:dtype; softgen-bench checks softmax and log_softmax outputs only).
# Used to choose between plan variants (tools/bench/RESULTS.md, "Experiments").
set -u
if [ $# -lt 3 ]; then
  echo "usage: $0 OUTDIR RUNTIME_BUILD NAME=DIR ... [-- BENCH_FLAGS]" >&2
  exit 2
fi
out=$1 rt=$2
shift 2
sets=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  sets+=("$1")
  shift
done
[ "${1:-}" = "--" ] && shift
mkdir -p "$out" || exit 2
names=()
for s in "${sets[@]}"; do
  name=${s%%=*} dir=${s#*=}
  names+=("$name")
  "$rt/softgen-bench" --manifest "$dir/bench.manifest" --csv "$out/$name.csv" "$@" \
    >"$out/$name.txt" 2>&1 || echo "compare.sh: softgen-bench exited $? on $name (see $out/$name.txt)"
done
python3 - "$out" "${names[@]}" <<'PY'
import csv, math, re, sys
out, names = sys.argv[1], sys.argv[2:]
data = {}
for n in names:
    try:
        for r in csv.DictReader(open(f"{out}/{n}.csv")):
            # "-": a template softgen-bench has no check for (tools/gpu checks those)
            ok = r["status"] == "ok" and r["check"] in ("ok", "-")
            tpl = re.sub(r"^softgen_(.*)_(f16|bf16|f32)_n\d+.*$", r"\1", r["kernel"])
            dt = r["dtype"] if tpl == "softmax" else f"{tpl}:{r['dtype']}"
            data.setdefault((dt, int(r["N"]), int(r["M"])), {})[n] = float(r["ratio"]) if ok else None
    except OSError:
        pass
print("dtype M N " + " ".join(names))
for k in sorted(data, key=lambda k: (k[0], k[1], k[2])):
    print(f"{k[0]} {k[2]} {k[1]} " + " ".join(
        "-" if data[k].get(n) is None else f"{data[k][n]:.3f}" for n in names))
for dt in sorted({k[0] for k in data}):
    line = []
    for n in names:
        v = [data[k][n] for k in data if k[0] == dt and data[k].get(n)]
        line.append(f"{n}: geomean {math.exp(sum(map(math.log, v)) / len(v)):.3f} min {min(v):.3f} ({len(v)})" if v else f"{n}: -")
    print(dt + "  " + "; ".join(line))
PY
