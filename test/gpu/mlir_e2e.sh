#!/usr/bin/env bash
# mlir_e2e.sh OUTDIR - on the GPU machine (a C compiler, cmake, the driver,
# python3 with torch; no LLVM, no MLIR): the lowered modules of
# test/gpu/generate-mlir.sh (in .gpu/mlir, or $SOFTGEN_GPU_MLIR) linked against
# libsoftgen_mgpu.so (built here: cmake -DSOFTGEN_RUNTIME_ONLY=ON) and run by
# test/MLIR/Inputs/run_lowered.c; test/gpu/mlir_e2e.py then compares each
# result with PyTorch in float64. Writes OUTDIR/mlir_e2e.md (the table) and
# OUTDIR/mlir_e2e.log; exit status 0 iff every case ran and passed.
set -uo pipefail
out=${1:?usage: test/gpu/mlir_e2e.sh OUTDIR}
mkdir -p "$out" && out=$(cd "$out" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
cases=$(cd "${SOFTGEN_GPU_MLIR:-$root/.gpu/mlir}" && pwd) || exit 2
rt=${SOFTGEN_RT_BUILD:-/tmp/sgrt}
log=$out/mlir_e2e.log
{
  cmake -S "$root" -B "$rt" -DSOFTGEN_RUNTIME_ONLY=ON -DCMAKE_BUILD_TYPE=Release > /dev/null &&
    cmake --build "$rt" -j "$(nproc)" --target softgen_mgpu_shared > /dev/null &&
    cc -O1 -c "$root/test/MLIR/Inputs/run_lowered.c" -o "$rt/run_lowered.o"
} >> "$log" 2>&1 || { echo "mlir_e2e.sh: build failed (see $log)"; tail -20 "$log"; exit 1; }
status=0
grep -v '^#' "$cases/cases.txt" | while read -r name golden func model specs; do
  [ -n "$name" ] || continue
  mkdir -p "$out/$name"
  echo "== $name ($golden, $func)" >> "$log"
  cc "$rt/run_lowered.o" "$cases/$name.o" -rdynamic -L"$rt" -Wl,-rpath,"$rt" -lsoftgen_mgpu \
    -lm -ldl -o "$rt/$name" >> "$log" 2>&1 &&
    # shellcheck disable=SC2086 # the specs are words
    "$rt/$name" "$func" "$out/$name" $specs >> "$log" 2>&1 ||
    echo "mlir_e2e.sh: $name failed (see $log)"
done
python3 "$root/test/gpu/mlir_e2e.py" "$cases/cases.txt" "$out" > "$out/mlir_e2e.md" 2>> "$log" ||
  status=1
cat "$out/mlir_e2e.md"
exit $status
