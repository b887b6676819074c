#!/usr/bin/env bash
# Issue 10: compute-sanitizer's synccheck reports "Divergent thread(s) in warp" for staged
# f32 262144 in clusters of 16 blocks of 512 threads (3 blocks a multiprocessor) from 64
# rows. The generated code has the same barrier and branch skeleton as kernels that are
# synccheck-clean (test/gpu/RESULTS.md, "Issue 10"); this script tells apart what is left:
# cluster size, blocks a multiprocessor, row count, and whether any warp really reaches a
# barrier with lanes missing (racecheck's sync trace prints each barrier's active mask).
#   test/gpu/cluster16.sh gen BUILD_DIR OUTDIR     build machine (softgen, ptxas)
#   test/gpu/cluster16.sh run OUTDIR [ROWS...]     GPU machine (default rows: 64)
# run needs compute-sanitizer and cuobjdump (PATH or /usr/local/cuda*/bin) and builds the
# runtime alone in $SOFTGEN_RT_BUILD (default /tmp/sgrt) unless $SGRUN names softgen-run.
# Prints one line per kernel and row count, then the racecheck trace summary; full logs in
# OUTDIR/logs. Sequential on purpose: parallel runs would change how blocks are placed.
# Stops starting runs $CLUSTER16_DEADLINE seconds (default 540) after it began.
set -uo pipefail
mode=${1:-} root=$(cd "$(dirname "$0")/../.." && pwd)
# name | N | -C texts ('|' apart) | what it isolates
kernels=(
  "c16x512_64k:262144:WorkgroupConstraint(N, 16384):the flagged plan (3 blocks/SM)"
  "c16x512_64k_online:262144:WorkgroupConstraint(N, 16384)|PipelineConstraint(online=1):flagged, one pass"
  "c16x512_128k:524288:WorkgroupConstraint(N, 32768)|PipelineConstraint(staging=1)|HardwareConstraint(threads_per_wave=32, waves_per_block=(16,1,1)):16 x 512, 1 block/SM"
  "c16x1024_64k:262144:WorkgroupConstraint(N, 16384)|WorkgroupConstraint(M, 1, 0)|HardwareConstraint(threads_per_wave=32, waves_per_block=(32,1,1)):16 x 1024, 2 blocks/SM"
  "c16x256_64k:262144:WorkgroupConstraint(N, 16384)|HardwareConstraint(threads_per_wave=32, waves_per_block=(8,1,1)):16 x 256, 3 blocks/SM"
  "c8x512_64k:131072::same code, portable 8 (3 blocks/SM)"
  "c8x1024_128k:262144::the current default (1 block/SM)"
)
case "$mode" in
gen)
  sg=${2:?usage: cluster16.sh gen BUILD_DIR OUTDIR}/softgen out=${3:?usage: cluster16.sh gen BUILD_DIR OUTDIR}
  mkdir -p "$out" || exit 2
  for k in "${kernels[@]}"; do
    IFS=: read -r name n cons _ <<<"$k"
    args=()
    IFS='|' read -ra cs <<<"$cons"
    for c in ${cs[@]+"${cs[@]}"}; do [ -n "$c" ] && args+=(-C "$c"); done
    "$sg" softmax -D N="$n" --dtype f32 ${args[@]+"${args[@]}"} --emit obj -o "$out/$name.cubin" || exit 1
    "$sg" softmax -D N="$n" --dtype f32 ${args[@]+"${args[@]}"} --print-config >"$out/$name.plan" || exit 1
  done
  echo "cluster16.sh: ${#kernels[@]} kernels in $out" ;;
run)
  out=$(cd "${2:?usage: cluster16.sh run OUTDIR [ROWS...]}" && pwd) || exit 2
  shift 2
  rows=("$@")
  [ ${#rows[@]} -gt 0 ] || rows=(64)
  end=$(($(date +%s) + ${CLUSTER16_DEADLINE:-540}))
  tool() { command -v "$1" || ls /usr/local/cuda*/bin/"$1" 2>/dev/null | head -1; }
  san=$(tool compute-sanitizer) dis=$(tool cuobjdump)
  [ -n "$san" ] || { echo "cluster16.sh: no compute-sanitizer" >&2; exit 2; }
  sgrun=${SGRUN:-}
  if [ -z "$sgrun" ]; then
    rt=${SOFTGEN_RT_BUILD:-/tmp/sgrt}
    cmake -S "$root" -B "$rt" -DSOFTGEN_RUNTIME_ONLY=ON >/dev/null && cmake --build "$rt" -j >/dev/null || exit 2
    sgrun=$rt/softgen-run
  fi
  mkdir -p "$out/logs"
  "$san" --version | tail -1
  printf '%-20s %5s %8s %-s\n' kernel rows errors "first reports (offset -> SASS)"
  for k in "${kernels[@]}"; do
    IFS=: read -r name _ <<<"$k"
    f=$out/$name.cubin
    [ -f "$f" ] || { echo "$name: missing (run gen first)"; continue; }
    [ -n "$dis" ] && "$dis" -sass "$f" >"$out/logs/$name.sass" 2>&1
    for m in "${rows[@]}"; do
      l=$out/logs/$name.m$m.synccheck
      left=$((end - 120 - $(date +%s)))   # keep 2 minutes for the trace
      [ "$left" -gt 20 ] || { printf '%-20s %5s %8s\n' "$name" "$m" "not run (time)"; continue; }
      timeout "$left" "$san" --tool synccheck --print-limit 1000 "$sgrun" --check --rows "$m" "$f" >"$l" 2>&1
      n=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) error.*/\1/p' "$l" | tail -1)
      offs=$(grep -o 'at softgen_[a-z0-9_]*+0x[0-9a-f]*' "$l" | sed 's/.*+/+/' | sort | uniq -c | sort -rn | head -3 |
        while read -r c o; do
          ins=$(grep -i "/\*$(printf '%04x' $((16#${o#+0x})))\*/" "$out/logs/$name.sass" 2>/dev/null |
            sed -E 's/.*\*\/ +//; s/ *;.*//' | head -1)
          printf '%s x%s -> %s; ' "$o" "$c" "${ins:-?}"
        done)
      who=$(grep -m1 -o 'by thread ([0-9,]*) in block ([0-9,]*)' "$l")
      chk=$(grep -c '^check: .*PASS' "$l")
      printf '%-20s %5s %8s %s%s%s\n' "$name" "$m" "${n:-?}" "$offs" "${who:+first $who}" \
        "$([ "$chk" = 1 ] || echo ' (check did not pass)')"
    done
  done
  # racecheck's sync trace: the active mask of every barrier and cluster barrier a warp runs
  l=$out/logs/c16x512_64k.m64.trace
  timeout $((end - $(date +%s) > 30 ? end - $(date +%s) : 30)) "$san" --tool racecheck --racecheck-trace-sync yes --print-limit 0 \
    "$sgrun" --check --rows 64 "$out/c16x512_64k.cubin" >"$l" 2>&1
  echo "racecheck trace, c16x512_64k, 64 rows (rc $?): $(grep -c 'active mask' "$l") barrier events," \
    "$(grep 'active mask' "$l" | grep -vc 'active mask: 0xffffffff') with lanes missing:"
  grep 'active mask' "$l" | grep -v 'active mask: 0xffffffff' | head -5
  gzip -f "$l" ;;
*)
  echo "usage: test/gpu/cluster16.sh gen BUILD_DIR OUTDIR | run OUTDIR [ROWS...]" >&2
  exit 2 ;;
esac
