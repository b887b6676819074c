#!/usr/bin/env bash
# gen-inner.sh - the kernels of the inner-layout benchmark (tools/bench/inner.py).
#
#   tools/bench/gen-inner.sh BUILD OUTDIR [SHAPES]
#
# Needs: BUILD/softgen with ptxas (the build machine). SHAPES: "outer N inner"
# lines (default tools/bench/shapes-inner.txt). Environment: DTYPES (default
# "f16 bf16 f32"), ARCH (--arch when set).
# Produces in OUTDIR, for every distinct N x dtype: <dtype>_n<N>_inner.cubin
# (softgen --layout inner) and <dtype>_n<N>.cubin (the rows kernel the copy path
# runs: movedim + contiguous), and inner.manifest, "file<TAB>dtype<TAB>N<TAB>layout"
# per kernel; refused kernels go to rejected.tsv. Exit status 2 on bad usage.
set -u
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 2 ] && [ $# -le 3 ] || { echo "usage: $0 BUILD OUTDIR [SHAPES]" >&2; exit 2; }
sg=$1/softgen out=$2 shapes=${3:-$here/shapes-inner.txt}
[ -x "$sg" ] || { echo "gen-inner.sh: no softgen at $sg" >&2; exit 2; }
mkdir -p "$out" || exit 2
arch=()
[ -n "${ARCH:-}" ] && arch=(--arch "$ARCH")
printf '# inner.py manifest: file<TAB>dtype<TAB>N<TAB>layout\n' >"$out/inner.manifest"
printf '# dtype\tN\tlayout\treason\n' >"$out/rejected.tsv"
for dt in ${DTYPES:-f16 bf16 f32}; do
  for n in $(sed -e 's/#.*//' "$shapes" | awk 'NF >= 3 { print $2 }' | sort -nu); do
    for layout in inner rows; do
      f=${dt}_n${n}$([ $layout = inner ] && echo _inner).cubin
      if err=$("$sg" -D "N=$n" --dtype "$dt" --layout $layout "${arch[@]}" --emit obj \
          -o "$out/$f" 2>&1 >/dev/null); then
        printf '%s\t%s\t%s\t%s\n' "$f" "$dt" "$n" $layout >>"$out/inner.manifest"
      else
        printf '%s\t%s\t%s\t%s\n' "$dt" "$n" $layout "$(tr '\t\n' '  ' <<<"$err")" >>"$out/rejected.tsv"
      fi
    done
  done
done
echo "gen-inner.sh: $(grep -vc '^#' "$out/inner.manifest") kernels in $out" \
  "($(grep -vc '^#' "$out/rejected.tsv") rejected)"
