#!/usr/bin/env bash
# gen-sweep.sh - the kernels of the user-shaped sweep (issue 21) for sweep.py.
#
#   tools/bench/gen-sweep.sh BUILD OUTDIR [SHAPES]
#
# Needs: BUILD/softgen (a full build, with LLVM and ptxas: the build machine) and
# gen.sh beside this file. SHAPES defaults to tools/bench/shapes-sweep.txt.
# Produces in OUTDIR, through gen.sh (same variables: DTYPES, ARCH, SOFTGEN_FLAGS):
# <dtype>_n<N>.cubin for every distinct N x dtype, peers.manifest (what sweep.py
# --kernels reads), bench.manifest (softgen-bench), rejected.tsv, gen.tsv; then
# prints the folder's size, the kernel count and the rejections grouped by reason.
# Then OUTDIR.tgz (the folder as one gzip'd tar, its name the folder's): it travels
# to the GPU machine with the first half of the peer wheels (45 MiB) and the tree
# (2 MiB) in one transfer of at most 64 MiB, so it must stay under LIMIT_MIB
# (default 16; the sweep's 582 kernels took 21.4 MiB, 6.1 MiB as the tarball).
# Exit status: 0, 1 when the tarball is over LIMIT_MIB (or cannot be written), 2 on
# bad usage (gen.sh's).
set -u

here=$(cd "$(dirname "$0")" && pwd)
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  echo "usage: $0 BUILD OUTDIR [SHAPES]" >&2
  exit 2
fi
outdir=$2
shapes=${3:-$here/shapes-sweep.txt}
limit=${LIMIT_MIB:-16}

t0=$(date +%s)
log=$(mktemp) || exit 2
"$here/gen.sh" "$1" "$outdir" "$shapes" 2>"$log" # one line per rejection: summarised below
rc=$?
if [ $rc -ne 0 ]; then
  cat "$log" >&2
  rm -f "$log"
  exit $rc
fi
rm -f "$log"
t1=$(date +%s)

mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; } # bytes -> MiB, one decimal
ncubin=$(find "$outdir" -maxdepth 1 -name '*.cubin' | wc -l)
nrej=$(grep -vc '^#' "$outdir/rejected.tsv")
echo "gen-sweep.sh: $ncubin kernels, $nrej rejected, $(mib "$(du -sb "$outdir" | cut -f1)") MiB in $outdir ($((t1 - t0)) s)"
if [ "$nrej" -gt 0 ]; then
  echo "gen-sweep.sh: rejections by reason, numbers as # (count: reason; dtype:N ...):"
  grep -v '^#' "$outdir/rejected.tsv" |
    awk -F'\t' '{ r = $3; sub(/: split the row.*|: allow more.*/, "", r); gsub(/[0-9]+/, "#", r)
                  c[r]++; w[r] = w[r] " " $1 ":" $2 }
                END { for (r in c) printf "  %d: %s;%s\n", c[r], r, w[r] }' | sort -rn
fi
tgz=${outdir%/}.tgz
parent=$(dirname "$outdir") base=$(basename "$outdir")
if ! tar czf "$tgz.tmp" -C "$parent" "$base" || ! mv "$tgz.tmp" "$tgz"; then
  rm -f "$tgz.tmp"
  echo "gen-sweep.sh: cannot write $tgz" >&2
  exit 1
fi
tbytes=$(wc -c <"$tgz")
tmib=$(mib "$tbytes")
echo "gen-sweep.sh: $tgz, $tmib MiB (carry it; on the GPU machine: tar xzf $tgz -C /tmp)"
if awk -v b="$tbytes" -v l="$limit" 'BEGIN { exit !(b > l * 1048576) }'; then
  echo "gen-sweep.sh: $tgz is $tmib MiB, over LIMIT_MIB=$limit" >&2
  exit 1
fi
exit 0
