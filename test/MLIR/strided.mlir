// Strided memrefs: rows of a wider buffer (row stride 2048 for N = 1024) and
// a static offset, added to the aligned pointer in bytes; row dims that
// collapse (2x4 rows of stride 2048 -> 8 rows). So few rows launch the
// few-rows variant (_few), a row a block, with the same arguments.
// RUN: %softgen %s --mlir-memory device --emit asm -o - | FileCheck %s
// RUN: %softgen %s --mlir-memory device --emit asm -o - | %mlir-opt > /dev/null

// CHECK-LABEL: func.func @sub
// CHECK: %[[XI:.+]] = memref.extract_aligned_pointer_as_index %arg0
// CHECK-NEXT: %[[XL:.+]] = arith.index_cast %[[XI]] : index to i64
// CHECK-NEXT: %[[OFF:.+]] = arith.constant 256 : i64
// CHECK-NEXT: %[[XA:.+]] = arith.addi %[[XL]], %[[OFF]] : i64
// the alignment the kernel needs is asserted on the address it gets (offset included)
// CHECK-NEXT: %[[A16:.+]] = arith.constant 16 : i64
// CHECK-NEXT: arith.remui %[[XA]], %[[A16]] : i64
// CHECK: cf.assert
// CHECK-NEXT: %[[X:.+]] = llvm.inttoptr %[[XA]] : i64 to !llvm.ptr
// CHECK: %[[YI:.+]] = memref.extract_aligned_pointer_as_index %arg1
// CHECK-NEXT: %[[YL:.+]] = arith.index_cast %[[YI]] : index to i64
// CHECK: cf.assert
// CHECK-NEXT: %[[Y:.+]] = llvm.inttoptr %[[YL]] : i64 to !llvm.ptr
// CHECK-NEXT: %[[M:.+]] = arith.constant 16 : i64
// CHECK-NEXT: %[[SX:.+]] = arith.constant 2048 : i64
// CHECK-NEXT: %[[SY:.+]] = arith.constant 1024 : i64
// CHECK-NEXT: gpu.launch_func @softgen_softmax_f16_n1024::@softgen_softmax_f16_n1024_few {{.*}} args(%[[X]] : !llvm.ptr, %[[Y]] : !llvm.ptr, %[[M]] : i64, %[[SX]] : i64, %[[SY]] : i64)
// CHECK-LABEL: func.func @collapse
// CHECK: arith.constant 8 : i64
// CHECK-NEXT: arith.constant 2048 : i64
// CHECK-NEXT: arith.constant 2048 : i64
// CHECK-NEXT: gpu.launch_func @softgen_softmax_f16_n1024::@softgen_softmax_f16_n1024_few blocks in

func.func @sub(%x: memref<16x1024xf16, strided<[2048, 1], offset: 128>>, %y: memref<16x1024xf16>) {
  linalg.softmax dimension(1) ins(%x : memref<16x1024xf16, strided<[2048, 1], offset: 128>>) outs(%y : memref<16x1024xf16>)
  return
}

func.func @collapse(%x: memref<2x4x1024xf16, strided<[8192, 2048, 1]>>) {
  linalg.softmax dimension(2) ins(%x : memref<2x4x1024xf16, strided<[8192, 2048, 1]>>) outs(%x : memref<2x4x1024xf16, strided<[8192, 2048, 1]>>)
  return
}
