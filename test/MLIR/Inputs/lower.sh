#!/bin/sh
# lower.sh IN.mlir OUT.o [MLIR_OPT] - lowers a module that softgen rewrote to an
# object with upstream passes only, as a compiler would: its functions get C
# interfaces (llvm.emit_c_interface, for Inputs/run_lowered.c), tensors are
# bufferized, host code goes to the CPU, the launches to mgpu* calls
# (gpu-to-llvm; libsoftgen_mgpu.so implements them). Writes OUT.o and, beside
# it, OUT.o.ll. Tools: mlir-opt (or MLIR_OPT), mlir-translate, llc (LLVM 22).
# With SOFTGEN_PLUGIN=softgen-mlir-plugin.so, IN is the frontend's module and
# softgen's pass runs in the same pipeline (SOFTGEN_PASS_OPTIONS: its options,
# default emit=asm), after bufferization and the buffer deallocation pipeline
# (which refuses GPU ops: gpu.launch_func has no declared memory effects), so
# that the module frees what it allocates.
set -eu
in=$1 out=$2 opt=${3:-mlir-opt}
softgen= load=
if [ -n "${SOFTGEN_PLUGIN:-}" ]; then
  softgen="buffer-deallocation-pipeline,softgen-lower-softmax{${SOFTGEN_PASS_OPTIONS:-emit=asm}},"
  load="--load-pass-plugin=$SOFTGEN_PLUGIN"
fi
pipeline="builtin.module(one-shot-bufferize{bufferize-function-boundaries \
function-boundary-type-conversion=identity-layout-map},${softgen}convert-linalg-to-loops,\
expand-strided-metadata,lower-affine,convert-scf-to-cf,finalize-memref-to-llvm,\
convert-math-to-llvm,convert-cf-to-llvm,convert-arith-to-llvm,convert-func-to-llvm,\
gpu-to-llvm,reconcile-unrealized-casts)"
sed 's/^\(  func\.func @[A-Za-z_0-9]*(.*) -> .*\) {$/\1 attributes {llvm.emit_c_interface} {/' \
  "$in" | "$opt" $load --pass-pipeline="$pipeline" | mlir-translate --mlir-to-llvmir -o "$out.ll"
llc -O2 -filetype=obj -relocation-model=pic "$out.ll" -o "$out"
