#!/usr/bin/env bash
# range.sh OUTDIR - on the GPU machine: the kernels for a range of N (N at run
# time; softgen -D N=MIN:MAX). Objects from test/gpu/generate-range.sh (in
# .gpu/range, or $SOFTGEN_GPU_OBJECTS/range) and tools/bench/gen-range.sh (in
# .gpu/range-bench). Builds the runtime (cmake -DSOFTGEN_RUNTIME_ONLY=ON in
# $SOFTGEN_RT_BUILD, /tmp/sgrt), then:
#   1 alignment.py --subdir range: every template x dtype x range at the N of
#     its manifest, rows at every alignment, against float64 (OUTDIR/align.md)
#   2 compute-sanitizer memcheck, racecheck, synccheck, initcheck on a range
#     kernel in registers and on the tiled one, each at an N inside its range
#   3 softgen-bench on .gpu/range-bench/range.manifest: each shape's exact-N
#     and range kernel, against the copy (OUTDIR/range-bench.csv)
# Budget: RANGE_ALIGN_SECONDS (default 200) for stage 1. RANGE_STAGES (default
# "1 2 3") picks stages.
set -uo pipefail
out=${1:?usage: test/gpu/range.sh OUTDIR}
mkdir -p "$out" && out=$(cd "$out" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
objs=$(cd "${SOFTGEN_GPU_OBJECTS:-.gpu}" && pwd) || exit 2
rt=${SOFTGEN_RT_BUILD:-/tmp/sgrt}
cmake -S . -B "$rt" -DSOFTGEN_RUNTIME_ONLY=ON -DCMAKE_BUILD_TYPE=Release > "$out/build.log" 2>&1 &&
  cmake --build "$rt" -j "$(nproc)" >> "$out/build.log" 2>&1 ||
  { echo "range.sh: build failed"; tail -20 "$out/build.log"; exit 1; }
export SOFTGEN_RT_LIBRARY="$rt/libsoftgen_rt.so" PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}"
status=0 stages=" ${RANGE_STAGES:-1 2 3} "
if [[ $stages == *" 1 "* ]]; then
  echo "== 1 alignment.py --subdir range"
  python3 test/gpu/alignment.py "$objs" "$out" --subdir range \
    --max-seconds "${RANGE_ALIGN_SECONDS:-200}" > "$out/align.out" 2>&1 || status=1
  tail -4 "$out/align.out"
fi
if [[ $stages == *" 2 "* ]]; then
  echo "== 2 compute-sanitizer (alignment.py --sanitize: views at element offsets, strides N+1)"
  san=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
  sanone() { # KERNEL N TOOL
    if timeout 200 "$san" --tool "$3" --error-exitcode 97 python3 test/gpu/alignment.py \
        --sanitize "$objs/range/$1.cubin" --cols "$2" > "$out/san.$1.$3.log" 2>&1; then
      echo "$1 N=$2 $3: clean"
    else
      echo "$1 N=$2 $3: FAIL (rc $?, see san.$1.$3.log)"
    fi
  }
  for kc in softmax_f16_n513to1024:701 softmax_bf16_n32769to65536:50257 \
    softmax_f32_n262145to2147483647:300007; do
    for tool in memcheck racecheck synccheck initcheck; do
      sanone "${kc%:*}" "${kc#*:}" "$tool" > "$out/san.$kc.$tool.res" &
    done
  done
  wait
  cat "$out"/san.*.res
  ! grep -q FAIL "$out"/san.*.res || status=1
fi
if [[ $stages == *" 3 "* ]]; then
  echo "== 3 softgen-bench: exact-N and range kernels"
  "$rt/softgen-bench" --manifest "$objs/range-bench/range.manifest" --csv "$out/range-bench.csv" \
    > "$out/range-bench.txt" 2>&1 || status=1
  cat "$out/range-bench.txt"
fi
exit $status
