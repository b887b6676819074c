#!/usr/bin/env bash
# gen-range.sh - the kernels for a range of N (a run-time N, softgen -D N=MIN:MAX)
# against the exact-N kernels at the same shapes: what the MLIR front end's
# dynamic reduced dim costs (tools/bench/RESULTS.md "A run-time N").
#   tools/bench/gen-range.sh BUILD_DIR OUTDIR [ARCH]
# Produces OUTDIR/range.manifest for softgen-bench (file<TAB>M<TAB>N): per dtype
# (f16, f32) and N of NS, the exact kernel and the kernel of the range that holds
# N (the ranges of sg_plan_n_ranges, plan/policy.c, as `softgen --print-n-ranges`
# prints them), at M = 2^25 / N rows (64 MiB of f16 input) and, for N >= 32768, at
# M = 16 (few rows).
set -euo pipefail
build=${1:?usage: gen-range.sh BUILD_DIR OUTDIR [ARCH]}
out=${2:?usage: gen-range.sh BUILD_DIR OUTDIR [ARCH]}
arch=${3:-sm_90}
sg="$(cd "$build" && pwd)/softgen"
mkdir -p "$out"
out=$(cd "$out" && pwd)
ns=${NS:-"7 100 129 1000 1025 1500 2048 4097 6000 8192 12289 32768 50257 65536 100003 131072 262144 300007 1048576"}
ranges=$("$sg" --print-n-ranges)
range_of() { # N -> MIN:MAX of the policy's range that holds it
  local r
  for r in $ranges; do
    if [ "$1" -le "${r#*:}" ]; then echo "$r"; return; fi
  done
  echo "gen-range.sh: no range holds N = $1" >&2; return 1
}
m=$out/range.manifest
printf '# softgen-bench manifest: file<TAB>M<TAB>N; exact and range kernels\n' >"$m"
for dt in f16 f32; do
  for n in $ns; do
    r=$(range_of "$n")
    exact="softmax_${dt}_n${n}.cubin" ranged="softmax_${dt}_n${r%:*}to${r#*:}.cubin"
    [ -f "$out/$exact" ] || "$sg" -D "N=$n" --dtype "$dt" --arch "$arch" --emit obj -o "$out/$exact"
    [ -f "$out/$ranged" ] || "$sg" -D "N=$r" --dtype "$dt" --arch "$arch" --emit obj -o "$out/$ranged"
    rows=$(( (1 << 25) / n )); [ "$rows" -ge 1 ] || rows=1
    for mm in $rows $([ "$n" -ge 32768 ] && echo 16); do
      printf '%s\t%s\t%s\n%s\t%s\t%s\n' "$exact" "$mm" "$n" "$ranged" "$mm" "$n" >>"$m"
    done
  done
done
echo "gen-range.sh: $(grep -vc '^#' "$m") runs in $m"
