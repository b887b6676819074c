// Several linalg.softmax ops of different shapes, ranks and dtypes in one
// module: one gpu.binary per distinct kernel (dtype, N), one gpu.launch_func
// per op with the geometry of the entry its M launches (grid = ceil(M /
// rows_per_block), block): here, M of at most 1000 rows, the few-rows variant
// (_few: a row a block, or for N = 64 4 rows a block of one warp),
// the kernel's arguments in its metadata's order (x, y, M, stride x, stride
// y), every output verified by mlir-opt.
// RUN: rm -rf %t && %softgen %s --mlir-memory device --target nvptx --arch sm_90 --emit asm --out-dir %t | FileCheck --check-prefix=WROTE %s
// RUN: FileCheck %s < %t/multi.gpu.mlir
// RUN: %mlir-opt %t/multi.gpu.mlir > /dev/null
// RUN: %softgen --inspect %t/softgen_softmax_f16_n1024.ptx | FileCheck --check-prefix=META %s
// The kernel taken from the module is the CLI's kernel for the same problem, byte for byte.
// RUN: %softgen -D N=1000 --dtype bf16 --emit asm -o %t.cli.ptx
// RUN: cmp %t.cli.ptx %t/softgen_softmax_bf16_n1000.ptx
// The same through -o (the module only) and -v (one line per compiled op).
// RUN: %softgen %s --mlir-memory device --emit asm -o - -v 2>%t.err | %mlir-opt > /dev/null
// RUN: FileCheck --check-prefix=VERBOSE %s < %t.err

// WROTE-DAG: softgen: wrote {{.*}}/multi.gpu.mlir
// WROTE-DAG: softgen: wrote {{.*}}/softgen_softmax_f16_n1024.ptx
// WROTE-DAG: softgen: wrote {{.*}}/softgen_softmax_bf16_n1000.ptx
// WROTE-DAG: softgen: wrote {{.*}}/softgen_softmax_f32_n64.ptx
// WROTE-NOT: softgen: wrote

// META: kernel softgen_softmax_f16_n1024
// META: block 256
// META: rows_per_block 8
// META: arg tensor x
// META-NEXT: arg tensor y
// META-NEXT: arg rows
// META-NEXT: arg stride x
// META-NEXT: arg stride y

// VERBOSE: multi.mlir:[[@LINE+57]]:3: linalg.softmax 32x1024 f16 -> softgen_softmax_f16_n1024_few (grid 32, block 64, cluster 1)
// VERBOSE: multi.mlir:[[@LINE+57]]:3: linalg.softmax 100x1000 bf16 -> softgen_softmax_bf16_n1000_few (grid 100, block 64, cluster 1)
// VERBOSE: multi.mlir:[[@LINE+57]]:3: linalg.softmax 3x1024 f16 -> softgen_softmax_f16_n1024_few (grid 3, block 64, cluster 1)
// VERBOSE: multi.mlir:[[@LINE+61]]:3: linalg.softmax 1000x64 f32 -> softgen_softmax_f32_n64_few (grid 250, block 32, cluster 1)

// CHECK-LABEL: module attributes {gpu.container_module} {
// CHECK-NEXT: gpu.binary @softgen_softmax_f16_n1024 [#gpu.object<#nvvm.target<chip = "sm_90">, assembly = "{{.*}}.entry softgen_softmax_f16_n1024
// CHECK-NEXT: gpu.binary @softgen_softmax_bf16_n1000 [#gpu.object<#nvvm.target<chip = "sm_90">, assembly = "
// CHECK-NEXT: gpu.binary @softgen_softmax_f32_n64 [#gpu.object<#nvvm.target<chip = "sm_90">, assembly = "
// CHECK-NOT: gpu.binary
// CHECK-NOT: linalg.softmax
// CHECK-LABEL: func.func @model(
// 4x8x1024 f16, dim 2: M = 32, a row a block of 64 threads -> 32 blocks
// CHECK: %[[ONE:.+]] = arith.constant 1 : index
// CHECK-NEXT: %[[G:.+]] = arith.constant 32 : index
// CHECK-NEXT: %[[B:.+]] = arith.constant 64 : index
// CHECK-NEXT: %[[XI:.+]] = memref.extract_aligned_pointer_as_index %arg0 : memref<4x8x1024xf16> -> index
// CHECK-NEXT: %[[XL:.+]] = arith.index_cast %[[XI]] : index to i64
// the base's 16-byte alignment, which the kernel's vectors need, asserted
// (the arguments come from outside: nothing says it)
// CHECK-NEXT: %[[A16:.+]] = arith.constant 16 : i64
// CHECK-NEXT: %[[REM:.+]] = arith.remui %[[XL]], %[[A16]] : i64
// CHECK-NEXT: %[[ZERO:.+]] = arith.constant 0 : i64
// CHECK-NEXT: %[[OK:.+]] = arith.cmpi eq, %[[REM]], %[[ZERO]] : i64
// CHECK-NEXT: cf.assert %[[OK]], "softgen: the input of the softmax at {{.*}}multi.mlir:{{[0-9]+}}:3 is not 16-byte aligned, as its kernel needs"
// CHECK-NEXT: %[[X:.+]] = llvm.inttoptr %[[XL]] : i64 to !llvm.ptr
// CHECK-NEXT: %[[YI:.+]] = memref.extract_aligned_pointer_as_index %arg1 : memref<4x8x1024xf16> -> index
// CHECK-NEXT: %[[YL:.+]] = arith.index_cast %[[YI]] : index to i64
// CHECK-COUNT-4: arith.
// CHECK-NEXT: cf.assert {{.*}}"softgen: the output of the softmax at
// CHECK-NEXT: %[[Y:.+]] = llvm.inttoptr %[[YL]] : i64 to !llvm.ptr
// CHECK-NEXT: %[[M:.+]] = arith.constant 32 : i64
// CHECK-NEXT: %[[SX:.+]] = arith.constant 1024 : i64
// CHECK-NEXT: %[[SY:.+]] = arith.constant 1024 : i64
// CHECK-NEXT: gpu.launch_func @softgen_softmax_f16_n1024::@softgen_softmax_f16_n1024_few blocks in (%[[G]], %[[ONE]], %[[ONE]]) threads in (%[[B]], %[[ONE]], %[[ONE]]) args(%[[X]] : !llvm.ptr, %[[Y]] : !llvm.ptr, %[[M]] : i64, %[[SX]] : i64, %[[SY]] : i64)
// 100x1000 bf16: a row a block of 64 threads -> 100 blocks
// CHECK: arith.constant 100 : index
// CHECK-NEXT: arith.constant 64 : index
// CHECK: arith.constant 100 : i64
// CHECK: gpu.launch_func @softgen_softmax_bf16_n1000::@softgen_softmax_bf16_n1000_few blocks in
// 3x1024 f16 shares the first kernel: 3 blocks
// CHECK: arith.constant 3 : index
// CHECK-NEXT: arith.constant 64 : index
// CHECK: arith.constant 3 : i64
// CHECK: gpu.launch_func @softgen_softmax_f16_n1024::@softgen_softmax_f16_n1024_few blocks in
// CHECK-LABEL: func.func @other(
// 10x100x64 f32 with a unit dim after the reduced one: M = 1000, 4 rows a block of 32 threads -> 250 blocks
// CHECK: arith.constant 250 : index
// CHECK-NEXT: arith.constant 32 : index
// CHECK: arith.constant 1000 : i64
// CHECK-NEXT: arith.constant 64 : i64
// CHECK: gpu.launch_func @softgen_softmax_f32_n64::@softgen_softmax_f32_n64_few blocks in
// CHECK: return

func.func @model(%x: memref<4x8x1024xf16>, %y: memref<4x8x1024xf16>,
                 %a: memref<100x1000xbf16>, %b: memref<100x1000xbf16>,
                 %c: memref<3x1024xf16>, %d: memref<3x1024xf16>) {
  linalg.softmax dimension(2) ins(%x : memref<4x8x1024xf16>) outs(%y : memref<4x8x1024xf16>)
  linalg.softmax dimension(1) ins(%a : memref<100x1000xbf16>) outs(%b : memref<100x1000xbf16>)
  linalg.softmax dimension(1) ins(%c : memref<3x1024xf16>) outs(%d : memref<3x1024xf16>)
  return
}

func.func @other(%x: memref<10x100x64x1xf32>, %y: memref<10x100x64x1xf32>) {
  linalg.softmax dimension(2) ins(%x : memref<10x100x64x1xf32>) outs(%y : memref<10x100x64x1xf32>)
  return
}
