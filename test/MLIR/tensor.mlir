// Tensor-form softmax is reported with how to bufferize it and left alone;
// bufferized as the message says, the same module compiles.
// RUN: rm -rf %t && mkdir %t
// RUN: %softgen %s --emit asm -o %t/as-is.mlir 2>&1 | FileCheck --check-prefix=WARN %s
// RUN: FileCheck --check-prefix=ASIS %s < %t/as-is.mlir
// RUN: %mlir-opt %t/as-is.mlir > /dev/null
// RUN: %mlir-opt %s --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" -o %t/bufferized.mlir
// RUN: %softgen %t/bufferized.mlir --emit asm -o - 2>&1 | FileCheck --check-prefix=BUF %s
// RUN: %softgen %t/bufferized.mlir --emit asm -o - | %mlir-opt > /dev/null

// WARN: tensor.mlir:[[@LINE+15]]:8: linalg.softmax left as it is: tensor operands: bufferize first, e.g. mlir-opt --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map", then run softgen on the memref form
// ASIS-NOT: gpu.binary
// ASIS: linalg.softmax dimension(1) ins(%{{.*}} : tensor<64x512xf32>)

// BUF-NOT: warning
// BUF: gpu.binary @softgen_softmax_f32_n512
// BUF: %[[ALLOC:.+]] = memref.alloc()
// BUF: memref.extract_aligned_pointer_as_index %arg0
// BUF: memref.extract_aligned_pointer_as_index %[[ALLOC]]
// BUF: gpu.launch_func @softgen_softmax_f32_n512::@softgen_softmax_f32_n512
// BUF-NOT: linalg.softmax
// BUF: return %[[ALLOC]]

func.func @t(%x: tensor<64x512xf32>) -> tensor<64x512xf32> {
  %e = tensor.empty() : tensor<64x512xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<64x512xf32>) outs(%e : tensor<64x512xf32>) -> tensor<64x512xf32>
  return %r : tensor<64x512xf32>
}
