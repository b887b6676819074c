// Dynamic dims before the reduced dim: M at run time (the product of the
// memref's dims there, times the static dims after it), and the grid the
// runtime's rule gives for it (sgrt_launch_geometry): a cluster per block of
// rows_per_block rows, at most 2^31 - 1 blocks, at least one cluster (M = 0:
// its blocks find no rows). Identity layouts only; static N. Device memory
// here; host memory stages the same copies with dynamic sizes
// (run-lowered.test runs one).
// RUN: %softgen %s --mlir-memory device --emit asm -v -o %t.mlir 2>%t.err
// RUN: FileCheck %s < %t.mlir
// RUN: FileCheck --check-prefix=VERBOSE %s < %t.err
// RUN: %mlir-opt %t.mlir > /dev/null
// torch-mlir's dynamic-batch chain bufferized (and through the deallocation
// pipeline, as a pipeline that runs the pass after them has it): its
// memref.dim ops read sizes, not the buffers, so the chain is still one
// RUN: %mlir-opt %S/Inputs/goldens/torch_softmax_dyn_f16.mlir -o %t.buf.mlir --pass-pipeline='builtin.module(one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},buffer-deallocation-pipeline)'
// RUN: %softgen %t.buf.mlir --emit asm -v -o %t.buf.out.mlir 2>&1 | FileCheck --check-prefix=BUF %s
// BUF: softmax (a chain of linalg ops) ?x1000 f16 -> softgen_softmax_f16_n1000 (grid from M

// VERBOSE: dynamic.mlir:[[@LINE+22]]:3: linalg.softmax ?x4 f32 -> softgen_softmax_f32_n4_inner (grid from M, block 256, cluster 1)
// VERBOSE: dynamic.mlir:[[@LINE+25]]:3: linalg.softmax left as it is: memref<?x128xf32, strided<[256, 1]>> has dynamic dims: softgen takes them (before the reduced dim, a run-time M) on identity layouts only
// VERBOSE: dynamic.mlir:[[@LINE+28]]:3: linalg.softmax left as it is: memref<?x16x0xf32> is empty (nothing to compute)

// CHECK-LABEL: func.func @inner(
// CHECK: %[[D0:.+]] = memref.dim %arg0, %c0{{.*}} : memref<?x?x4x64xf32>
// CHECK: %[[R0:.+]] = arith.muli %c64{{.*}}, %[[D0]] : index
// CHECK: %[[D1:.+]] = memref.dim %arg0, %c1{{.*}} : memref<?x?x4x64xf32>
// CHECK: %[[M:.+]] = arith.muli %[[R0]], %[[D1]] : index
// CHECK: %[[M64:.+]] = arith.index_cast %[[M]] : index to i64
// CHECK: %[[B:.+]] = arith.ceildivui %[[M]], %c256{{.*}} : index
// CHECK: %[[G0:.+]] = arith.muli %[[B]], %c1{{.*}} : index
// CHECK: %[[G1:.+]] = arith.minui %[[G0]], %c2147483647 : index
// CHECK: %[[G:.+]] = arith.maxui %[[G1]], %c1{{.*}} : index
// CHECK: gpu.launch_func @softgen_softmax_f32_n4_inner::@softgen_softmax_f32_n4_inner blocks in (%[[G]], %c1, %c1)
// CHECK-SAME: args(%{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr, %[[M64]] : i64
// CHECK-LABEL: func.func @strided(
// CHECK: linalg.softmax
// CHECK-LABEL: func.func @empty(
// CHECK: linalg.softmax

func.func @inner(%x: memref<?x?x4x64xf32>, %y: memref<?x?x4x64xf32>) {
  linalg.softmax dimension(2) ins(%x : memref<?x?x4x64xf32>) outs(%y : memref<?x?x4x64xf32>)
  return
}
func.func @strided(%x: memref<?x128xf32, strided<[256, 1]>>, %y: memref<?x128xf32>) {
  linalg.softmax dimension(1) ins(%x : memref<?x128xf32, strided<[256, 1]>>) outs(%y : memref<?x128xf32>)
  return
}
func.func @empty(%x: memref<?x16x0xf32>) {
  linalg.softmax dimension(1) ins(%x : memref<?x16x0xf32>) outs(%x : memref<?x16x0xf32>)
  return
}
