// A softmax over a non-innermost dim becomes a kernel of the inner layout
// (softgen --layout inner): the operands read in place as [outer, N, inner],
// the launch passing M = outer x inner, the outer strides, inner and the
// strides along N; outer dims collapse; padded strides along N are taken.
// RUN: %softgen %s --mlir-memory device --emit asm -o - | FileCheck %s
// RUN: %softgen %s --mlir-memory device --emit asm -o - | %mlir-opt > /dev/null

// CHECK: gpu.binary @softgen_softmax_f32_n8_inner
// CHECK: gpu.binary @softgen_softmax_f16_n64_inner
// CHECK-LABEL: func.func @dim0
// CHECK: %[[M:.+]] = arith.constant 128 : i64
// CHECK-NEXT: %[[SX:.+]] = arith.constant 1024 : i64
// CHECK-NEXT: %[[SY:.+]] = arith.constant 1024 : i64
// CHECK-NEXT: %[[I:.+]] = arith.constant 128 : i64
// CHECK-NEXT: %[[NX:.+]] = arith.constant 128 : i64
// CHECK-NEXT: %[[NY:.+]] = arith.constant 128 : i64
// CHECK-NEXT: gpu.launch_func @softgen_softmax_f32_n8_inner::@softgen_softmax_f32_n8_inner blocks in ({{.*}}) threads in ({{.*}}) args({{.*}}, %[[M]] : i64, %[[SX]] : i64, %[[SY]] : i64, %[[I]] : i64, %[[NX]] : i64, %[[NY]] : i64)
// CHECK-LABEL: func.func @dim1
// CHECK: arith.constant 96 : i64
// CHECK-NEXT: arith.constant 1024 : i64
// CHECK-NEXT: arith.constant 1024 : i64
// CHECK-NEXT: arith.constant 8 : i64
// CHECK-NEXT: arith.constant 16 : i64
// CHECK-NEXT: arith.constant 16 : i64
// CHECK-NEXT: gpu.launch_func @softgen_softmax_f16_n64_inner::@softgen_softmax_f16_n64_inner
// CHECK-LABEL: func.func @collapse
// CHECK: arith.constant 48 : i64
// CHECK-NEXT: arith.constant 64 : i64
// CHECK-NEXT: arith.constant 64 : i64
// CHECK-NEXT: arith.constant 8 : i64
// CHECK-NEXT: arith.constant 8 : i64
// CHECK-NEXT: arith.constant 8 : i64
// CHECK-NEXT: gpu.launch_func @softgen_softmax_f32_n8_inner::@softgen_softmax_f32_n8_inner
// CHECK-NOT: linalg.softmax

func.func @dim0(%x: memref<8x128xf32>, %y: memref<8x128xf32>) {
  linalg.softmax dimension(0) ins(%x : memref<8x128xf32>) outs(%y : memref<8x128xf32>)
  return
}

// [12, 64, 8] viewed in a buffer whose inner rows are padded to 16 elements
func.func @dim1(%x: memref<12x64x8xf16, strided<[1024, 16, 1]>>) {
  linalg.softmax dimension(1) ins(%x : memref<12x64x8xf16, strided<[1024, 16, 1]>>) outs(%x : memref<12x64x8xf16, strided<[1024, 16, 1]>>)
  return
}

// outer dims 2 x 3 collapse into 6 outer indices of stride 64
func.func @collapse(%x: memref<2x3x8x8xf32>) {
  linalg.softmax dimension(2) ins(%x : memref<2x3x8x8xf32>) outs(%x : memref<2x3x8x8xf32>)
  return
}
