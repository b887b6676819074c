#!/usr/bin/env bash
# generate-mlir.sh [OUTDIR] - on the build machine (LLVM and MLIR 22, a softgen
# build): every case of test/gpu/mlir-cases.txt rewritten by softgen (code
# objects embedded: ptxas, sm_90) and lowered to an object by
# test/MLIR/Inputs/lower.sh, into OUTDIR (default .gpu/mlir), with the cases
# file beside them. The GPU machine runs them with test/gpu/mlir_e2e.sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/.gpu/mlir}
build=${SOFTGEN_BUILD:-$root/build}
opt=${MLIR_OPT:-$(command -v mlir-opt || echo /usr/lib/llvm-22/bin/mlir-opt)}
export PATH="/usr/lib/llvm-22/bin:$PATH"
mkdir -p "$out"
grep -v '^#' "$root/test/gpu/mlir-cases.txt" | while read -r name golden func _; do
  [ -n "$name" ] || continue
  "$build/softgen" --emit obj --arch sm_90 "$root/test/MLIR/Inputs/goldens/$golden.mlir" \
    -o "$out/$name.mlir"
  [ "$func" != jax_main ] || sed -i 's/@main(/@jax_main(/' "$out/$name.mlir"
  sh "$root/test/MLIR/Inputs/lower.sh" "$out/$name.mlir" "$out/$name.o" "$opt"
  echo "generate-mlir.sh: $name"
done
cp "$root/test/gpu/mlir-cases.txt" "$out/cases.txt"
