#!/usr/bin/env bash
# gen.sh - generate the benchmark kernels and their manifests (issue 5).
#
#   tools/bench/gen.sh BUILD OUTDIR [SHAPES]
#
# Needs: BUILD/softgen (a full build, with LLVM and ptxas: the build machine).
# SHAPES defaults to tools/bench/shapes.txt ("M N" lines, '#' comments).
# Environment: DTYPES (default "f16 bf16 f32"), ARCH (passed as --arch when set;
# softgen's default is sm_90, which H100 and H200 are), SOFTGEN_FLAGS (more
# softgen options, e.g. constraints, word-split).
# Produces in OUTDIR, for every distinct N x dtype of SHAPES:
#   <dtype>_n<N>.cubin     softgen -D N=<N> --dtype <dtype> --emit obj
#   bench.manifest         "file<TAB>M" per shape x dtype    (softgen-bench --manifest)
#   peers.manifest         "file<TAB>dtype<TAB>N" per kernel (peers.py --manifest)
#   rejected.tsv           "dtype<TAB>N<TAB>reason" for each kernel softgen refused
#   gen.tsv                "dtype<TAB>N<TAB>status<TAB>ms" (wall time of each softgen call)
# Paths in the manifests are relative to OUTDIR; both readers resolve them so.
# Exit status: 0 (also when some kernels were rejected: see rejected.tsv),
# 2 on bad usage or a missing softgen.
set -u

here=$(cd "$(dirname "$0")" && pwd)
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  echo "usage: $0 BUILD OUTDIR [SHAPES]" >&2
  exit 2
fi
build=$1
outdir=$2
shapes=${3:-$here/shapes.txt}
softgen=$build/softgen
dtypes=${DTYPES:-f16 bf16 f32}
if [ ! -x "$softgen" ]; then
  echo "gen.sh: no softgen executable at $softgen (build the full project first)" >&2
  exit 2
fi
if [ ! -r "$shapes" ]; then
  echo "gen.sh: cannot read shapes file $shapes" >&2
  exit 2
fi
mkdir -p "$outdir" || exit 2

arch_flag=()
if [ -n "${ARCH:-}" ]; then
  arch_flag=(--arch "$ARCH")
fi
# shellcheck disable=SC2206
extra=(${SOFTGEN_FLAGS:-})

# shapes: "M N" pairs, in file order
mapfile -t pairs < <(sed -e 's/#.*//' "$shapes" | awk 'NF >= 2 { print $1, $2 }')
if [ ${#pairs[@]} -eq 0 ]; then
  echo "gen.sh: no shapes in $shapes" >&2
  exit 2
fi

bench=$outdir/bench.manifest
peers=$outdir/peers.manifest
rejected=$outdir/rejected.tsv
times=$outdir/gen.tsv
printf '# softgen-bench manifest: file<TAB>M (from %s)\n' "$(basename "$shapes")" >"$bench"
printf '# peers.py manifest: file<TAB>dtype<TAB>N\n' >"$peers"
printf '# dtype\tN\treason\n' >"$rejected"
printf '# dtype\tN\tstatus\tms\n' >"$times"

declare -A status # "dtype N" -> ok | rejected
nok=0
nrej=0
for dt in $dtypes; do
  for pair in "${pairs[@]}"; do
    read -r m n <<<"$pair"
    key="$dt $n"
    name=${dt}_n${n}.cubin
    if [ -z "${status[$key]:-}" ]; then
      t0=$(date +%s%N)
      err=$("$softgen" -D "N=$n" --dtype "$dt" "${arch_flag[@]}" "${extra[@]}" --emit obj \
        -o "$outdir/$name" 2>&1 >/dev/null)
      rc=$?
      t1=$(date +%s%N)
      ms=$(((t1 - t0) / 1000000))
      if [ $rc -eq 0 ] && [ -s "$outdir/$name" ]; then
        status[$key]=ok
        nok=$((nok + 1))
        printf '%s\t%s\tok\t%s\n' "$dt" "$n" "$ms" >>"$times"
        printf '%s\t%s\t%s\n' "$name" "$dt" "$n" >>"$peers"
      else
        status[$key]=rejected
        nrej=$((nrej + 1))
        reason=$(printf '%s' "$err" | tr '\t\n' '  ' | sed -e 's/^softgen: error: //' -e 's/ *$//')
        [ -n "$reason" ] || reason="softgen exited $rc without a message"
        printf '%s\t%s\t%s\n' "$dt" "$n" "$reason" >>"$rejected"
        printf '%s\t%s\trejected\t%s\n' "$dt" "$n" "$ms" >>"$times"
        rm -f "$outdir/$name"
        echo "gen.sh: rejected $dt N=$n: $reason" >&2
      fi
    fi
    if [ "${status[$key]}" = ok ]; then
      printf '%s\t%s\n' "$name" "$m" >>"$bench"
    fi
  done
done
echo "gen.sh: $nok kernels in $outdir, $nrej rejected (see $rejected); manifests: $bench, $peers"
exit 0
