// A dynamic reduced dim (the innermost, identity layouts): N at run time.
// The op gets one kernel per range of N (sg_plan_n_ranges: [1, 16], then
// (2^(k-1), 2^k] to 2^18, then one to 2^31-1), each taking N as its "cols"
// argument (and as the row stride of the dense rows), and the module picks
// the range of memref.dim's N with an scf.index_switch: the count of ranges
// below N; N = 0 (nothing to compute) the default, no launch; N over 2^31-1
// fails a cf.assert. M may be static or dynamic (the grid from M per range,
// by the runtime's rule). Host memory: each case copies back and ends the
// stream itself (no token leaves a region). run-lowered.test runs one.
// RUN: %softgen %s --mlir-memory device --emit asm -v -o %t.mlir 2>%t.err
// RUN: FileCheck %s < %t.mlir
// RUN: FileCheck --check-prefix=VERBOSE %s < %t.err
// RUN: %mlir-opt %t.mlir > /dev/null
// RUN: %softgen %s --emit asm -o %t.host.mlir
// RUN: FileCheck --check-prefix=HOST %s < %t.host.mlir
// RUN: %mlir-opt %t.host.mlir > /dev/null
// --mlir-max-n (the pass's max-n): a known bound on N compiles the ranges up
// to it only, the last ending there, and the assert names it
// RUN: %softgen %s --mlir-memory device --mlir-max-n 5000 --emit asm -v -o %t.bound.mlir 2>&1 | FileCheck --check-prefix=BOUND %s
// RUN: FileCheck --check-prefix=BOUND-MOD %s < %t.bound.mlir
// RUN: %mlir-opt %t.bound.mlir > /dev/null
// BOUND: linalg.softmax 4x? f16 -> 10 kernels for N from 1 to 5000, chosen by N (softgen_softmax_f16_n1to16 .. softgen_softmax_f16_n4097to5000; grids from M)
// BOUND-MOD-COUNT-20: gpu.binary @softgen_softmax_
// BOUND-MOD-NOT: gpu.binary
// BOUND-MOD: cf.assert %{{.+}}, "softgen: the reduced dim of the softmax at {{.*}} is over 5000, the longest row its kernels take"
// RUN: not %softgen %s --mlir-max-n 0 -o %t.none.mlir 2>&1 | FileCheck --check-prefix=BAD-BOUND %s
// BAD-BOUND: softgen: --mlir-max-n 0: N must be an integer from 1 to 2^31-1
// torch-mlir's decomposed chain (extf, max with indices, sub, exp, sum, div,
// truncf) with N dynamic: the same ranges
// RUN: %softgen %S/Inputs/torch_softmax_dyn_n_f16.mlir --emit asm -v -o %t.chain.mlir 2>&1 | FileCheck --check-prefix=CHAIN %s
// RUN: %mlir-opt %t.chain.mlir > /dev/null
// CHAIN: torch_softmax_dyn_n_f16.mlir:{{[0-9]+}}:{{[0-9]+}}: softmax (a chain of linalg ops) ?x? f16 -> 16 kernels for N from 1 to 2147483647

// VERBOSE: dynamic-n.mlir:[[@LINE+46]]:3: linalg.softmax 4x? f16 -> 16 kernels for N from 1 to 2147483647, chosen by N (softgen_softmax_f16_n1to16 .. softgen_softmax_f16_n262145to2147483647; grids from M)
// VERBOSE: dynamic-n.mlir:[[@LINE+49]]:3: linalg.softmax ?x? f32 -> 16 kernels for N from 1 to 2147483647

// CHECK-COUNT-32: gpu.binary @softgen_softmax_
// CHECK-LABEL: func.func @rows(
// CHECK: %[[N:.+]] = memref.dim %arg0, %c1 : memref<4x?xf16>
// CHECK: %[[N64:.+]] = arith.index_cast %[[N]] : index to i64
// CHECK: %[[FITS:.+]] = arith.cmpi ule, %[[N64]], %c2147483647_i64 : i64
// CHECK: cf.assert %[[FITS]], "softgen: the reduced dim of the softmax at {{.*}}dynamic-n.mlir:[[#@LINE+38]]:3 is over 2147483647
// CHECK: arith.cmpi ugt, %[[N]], %c16 : index
// CHECK: arith.cmpi ugt, %[[N]], %c131072 : index
// CHECK: %[[EMPTY:.+]] = arith.cmpi eq, %[[N]], %c0{{.*}} : index
// CHECK: %[[WHICH:.+]] = arith.select %[[EMPTY]], %c16{{(_[0-9]+)?}}, %{{.+}} : index
// CHECK: scf.index_switch %[[WHICH]]
// CHECK: case 0 {
// CHECK: gpu.launch_func @softgen_softmax_f16_n1to16::@softgen_softmax_f16_n1to16
// CHECK-SAME: args(%{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr, %c4_i64 : i64, %[[N64]] : i64, %[[N64]] : i64, %[[N64]] : i64)
// CHECK: case 6 {
// CHECK: gpu.launch_func @softgen_softmax_f16_n513to1024::@softgen_softmax_f16_n513to1024
// CHECK: case 15 {
// CHECK: gpu.launch_func @softgen_softmax_f16_n262145to2147483647::@softgen_softmax_f16_n262145to2147483647
// CHECK: default {
// CHECK-NEXT: }
// CHECK-LABEL: func.func @both(
// CHECK: %[[M:.+]] = arith.muli %c1{{.*}}, %{{.+}} : index
// CHECK: %[[N2:.+]] = memref.dim %arg0, %c1{{.*}} : memref<?x?xf32>
// CHECK: scf.index_switch
// CHECK: case 0 {
// CHECK: arith.ceildivui %[[M]], %c{{[0-9_]+}} : index
// CHECK: gpu.launch_func @softgen_softmax_f32_n1to16::@softgen_softmax_f32_n1to16

// host memory: the copies before the switch, each case's copy back and end
// HOST-LABEL: func.func @rows(
// HOST: %[[T:.+]] = gpu.wait async
// HOST: gpu.alloc async [%[[T]]] (%{{.+}}) : memref<4x?xf16>
// HOST: scf.index_switch
// HOST: case 0 {
// HOST: %[[L:.+]] = gpu.launch_func async [%{{.+}}] @softgen_softmax_f16_n1to16
// HOST: %[[C:.+]] = gpu.memcpy async [%[[L]]] %arg1, %{{.+}} : memref<4x?xf16>, memref<4x?xf16>
// HOST: gpu.wait [%{{.+}}]
// HOST: scf.yield
// HOST: default {
// HOST: gpu.dealloc async
// HOST: gpu.wait [%{{.+}}]

func.func @rows(%x: memref<4x?xf16>, %y: memref<4x?xf16>) {
  linalg.softmax dimension(1) ins(%x : memref<4x?xf16>) outs(%y : memref<4x?xf16>)
  return
}
func.func @both(%x: memref<?x?xf32>, %y: memref<?x?xf32>) {
  linalg.softmax dimension(1) ins(%x : memref<?x?xf32>) outs(%y : memref<?x?xf32>)
  return
}
