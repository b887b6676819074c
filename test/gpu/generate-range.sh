#!/usr/bin/env bash
# Generates the code objects of kernels for a range of N (softgen -D N=MIN:MAX:
# N a run-time argument) for the GPU alignment matrix (test/gpu/alignment.py
# --subdir range), on the build machine:
#   test/gpu/generate-range.sh BUILD_DIR OUT_DIR [ARCH]
# Produces OUT_DIR/range/: every template x dtype x range of RANGE_LIST (some
# of the ranges the MLIR front end uses, sg_plan_n_ranges: registers, over
# clusters, and the tiled range of the longest rows), <template>_<dtype>_n<MIN>to<MAX>.cubin, and
# manifest.tsv (file, template, dtype, N, set "range") with one line per N the
# matrix runs it at: the range's ends, the one above its start and an odd N
# between (the tiled range: 262145, 262146, 300007, 1048576); rejected.txt.
set -euo pipefail
build=${1:?usage: generate-range.sh BUILD_DIR OUT_DIR [ARCH]}
out=${2:?usage: generate-range.sh BUILD_DIR OUT_DIR [ARCH]}
arch=${3:-sm_90}
sg="$(cd "$build" && pwd)/softgen"
[ -x "$sg" ] || { echo "generate-range.sh: no softgen at $sg" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
dir="$(mkdir -p "$out" && cd "$out" && pwd)/range"
rm -rf "$dir"
mkdir -p "$dir"
ranges=${RANGE_LIST:-"1:16 65:128 513:1024 4097:8192 32769:65536 131073:262144 262145:2147483647"}
: >"$dir/manifest.tsv"
: >"$dir/rejected.txt"
for f in "$here"/../../kernels-templates/*.sgt; do
  t=$(basename "$f" .sgt)
  for dt in f16 bf16 f32; do
    for r in $ranges; do
      lo=${r%:*} hi=${r#*:} name="${t}_${dt}_n${lo}to${hi}"
      if err=$("$sg" -D "N=$r" --dtype "$dt" --arch "$arch" --emit obj \
          -o "$dir/$name.cubin" "$t" 2>&1); then
        if [ "$hi" -gt 1000000 ]; then ns="$lo $((lo + 1)) 300007 1048576"
        else ns="$lo $((lo + 1)) $(( (lo + hi) / 2 | 1 )) $hi"; fi
        for n in $ns; do
          printf '%s.cubin\t%s\t%s\t%s\trange\n' "$name" "$t" "$dt" "$n" >>"$dir/manifest.tsv"
        done
      else
        printf '%s %s %s: %s\n' "$t" "$dt" "$r" "$err" >>"$dir/rejected.txt"
      fi
    done
  done
done
echo "generate-range.sh: $(ls "$dir"/*.cubin | wc -l) objects, $(wc -l <"$dir/manifest.tsv") cases," \
  "$(wc -l <"$dir/rejected.txt") rejected, in $dir"
