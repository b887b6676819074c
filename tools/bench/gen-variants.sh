#!/usr/bin/env bash
# gen-variants.sh - the kernels of the variants benchmark at the bench shapes
# (tools/bench/variants.py --bench-shapes).
#
#   tools/bench/gen-variants.sh BUILD OUTDIR [SHAPES]
#
# Needs: BUILD/softgen with ptxas (the build machine). SHAPES: "M N" lines
# (default ../shared/bench-shapes.txt beside the repository, else
# tools/bench/shapes.txt). Environment: DTYPES (default "f16 bf16 f32"), ARCH
# (--arch when set), CONSTRAINTS (a constraints file given to every kernel, for
# A/B runs), JOBS (parallel softgen runs, default nproc).
# Produces in OUTDIR, for every distinct N x dtype, the automatic plan of each
# variant template (<template>_<dtype>_<out dtype>_n<N>.cubin; variants.py
# preloads them by their metadata): scaled_softmax, masked_softmax,
# causal_softmax, attention_softmax, safe_attention_softmax, log_softmax,
# softmax_backward, log_softmax_backward, and for 16-bit dtypes softmax with
# f32 out. Refused kernels go to rejected.tsv with softgen's message.
# Exit status 2 on bad usage, 1 when a kernel is refused.
set -u
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 2 ] && [ $# -le 3 ] || { echo "usage: $0 BUILD OUTDIR [SHAPES]" >&2; exit 2; }
shapes=${3:-$here/../../../shared/bench-shapes.txt}
[ -f "$shapes" ] || shapes=$here/shapes.txt
sg=$(cd "$1" 2>/dev/null && pwd)/softgen out=$2
[ -x "$sg" ] || { echo "gen-variants.sh: no softgen at $1/softgen" >&2; exit 2; }
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
rm -f "$out"/*.cubin "$out"/rejected.tsv
same="scaled_softmax masked_softmax causal_softmax attention_softmax safe_attention_softmax
      log_softmax softmax_backward log_softmax_backward"
jobs=$(mktemp)
trap 'rm -f "$jobs"' EXIT
for dt in ${DTYPES:-f16 bf16 f32}; do
  for n in $(sed -e 's/#.*//' "$shapes" | awk 'NF >= 2 { print $2 }' | sort -nu); do
    for t in $same; do printf '%s %s %s %s\n' "$t" "$dt" "$dt" "$n" >>"$jobs"; done
    [ "$dt" = f32 ] || printf 'softmax %s f32 %s\n' "$dt" "$n" >>"$jobs"
  done
done
one() { # template dtype out-dtype N
  local f="$OUT/$1_$2_$3_n$4.cubin" err
  # shellcheck disable=SC2086 # ARCH_FLAG: words
  if ! err=$("$SG" "$1" -D N="$4" --dtype "$2" --out-dtype "$3" $ARCH_FLAG ${CONS:+--constraints "$CONS"} \
               --emit obj -o "$f" 2>&1 >/dev/null); then
    printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$(tr '\t\n' '  ' <<<"$err")" >>"$OUT/rejected.tsv"
  fi
}
export -f one
CONS=${CONSTRAINTS:-}
[ -z "$CONS" ] || CONS=$(cd "$(dirname "$CONS")" && pwd)/$(basename "$CONS")
[ -z "$CONS" ] || [ -f "$CONS" ] || { echo "gen-variants.sh: no constraints file $CONSTRAINTS" >&2; exit 2; }
export SG="$sg" OUT="$out" ARCH_FLAG="${ARCH:+--arch $ARCH}" CONS
xargs -P "${JOBS:-$(nproc 2>/dev/null || echo 2)}" -L 1 bash -c 'one "$@"' _ <"$jobs"
made=$(find "$out" -maxdepth 1 -name '*.cubin' | wc -l)
refused=$( [ -f "$out/rejected.tsv" ] && wc -l <"$out/rejected.tsv" || echo 0)
echo "gen-variants.sh: $made kernels in $out ($refused refused)"
[ "$refused" -eq 0 ]
