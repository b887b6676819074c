#!/usr/bin/env bash
# generate-mlir.sh [OUTDIR] - on the build machine (LLVM and MLIR 22, a softgen
# build): every case of test/gpu/mlir-cases.txt compiled by one mlir-opt
# pipeline, softgen's pass (the plugin: code objects embedded, ptxas, sm_90)
# then the upstream lowering (test/MLIR/Inputs/lower.sh with SOFTGEN_PLUGIN),
# to an object, into OUTDIR (default .gpu/mlir), with the cases file beside
# them. The GPU machine runs them with test/gpu/mlir_e2e.sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/.gpu/mlir}
build=${SOFTGEN_BUILD:-$root/build}
opt=${MLIR_OPT:-$(command -v mlir-opt || echo /usr/lib/llvm-22/bin/mlir-opt)}
export PATH="/usr/lib/llvm-22/bin:$PATH"
mkdir -p "$out"
grep -v '^#' "$root/test/gpu/mlir-cases.txt" | while read -r name golden func _; do
  [ -n "$name" ] || continue
  # JAX's @main renamed: the C program has one
  src="$root/test/MLIR/Inputs/goldens/$golden.mlir" # else an input of test/MLIR/Inputs
  [ -f "$src" ] || src="$root/test/MLIR/Inputs/$golden.mlir"
  sed 's/@main(/@jax_main(/' "$src" > "$out/$name.mlir"
  SOFTGEN_PLUGIN="$build/softgen-mlir-plugin.so" SOFTGEN_PASS_OPTIONS="emit=object arch=sm_90" \
    sh "$root/test/MLIR/Inputs/lower.sh" "$out/$name.mlir" "$out/$name.o" "$opt"
  # the softmax must run on the device: a chain left as it is lowers to CPU loops
  # that compute the same result
  grep -qE "mgpuLaunch(Cluster)?Kernel" "$out/$name.o.ll" ||
    { echo "generate-mlir.sh: $name: no kernel launch in the lowered module" >&2; exit 1; }
  echo "generate-mlir.sh: $name"
done
cp "$root/test/gpu/mlir-cases.txt" "$out/cases.txt"
