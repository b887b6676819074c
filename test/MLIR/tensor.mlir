// Tensor-form softmax compiles in one run, before bufferization: the input
// becomes a buffer (bufferization.to_buffer), the output a device buffer
// (gpu.alloc, not a host allocation), the kernel writes it and the result is
// that buffer as a tensor (bufferization.to_tensor restrict writable), which
// one-shot bufferization then takes as it is; the op and its tensor.empty go.
// RUN: rm -rf %t && mkdir %t
// RUN: %softgen %s --emit asm -o %t/t.mlir -v 2>&1 | FileCheck --check-prefix=VERBOSE %s
// RUN: FileCheck %s < %t/t.mlir
// RUN: %mlir-opt %t/t.mlir > /dev/null
// RUN: %mlir-opt %t/t.mlir --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" | FileCheck --check-prefix=BUF %s

// VERBOSE: tensor.mlir:[[@LINE+25]]:8: linalg.softmax 64x512 f32 -> softgen_softmax_f32_n512
// VERBOSE-NOT: left as it is

// CHECK: gpu.binary @softgen_softmax_f32_n512
// CHECK-LABEL: func.func @t(
// CHECK-NOT: tensor.empty
// CHECK: %[[XB:.+]] = bufferization.to_buffer %arg0 : tensor<64x512xf32> to memref<64x512xf32>
// CHECK-NEXT: %[[YB:.+]] = gpu.alloc  () : memref<64x512xf32>
// CHECK: memref.extract_aligned_pointer_as_index %[[XB]]
// CHECK: cf.assert {{.*}}"softgen: the input of the softmax at
// CHECK: memref.extract_aligned_pointer_as_index %[[YB]]
// CHECK-NOT: cf.assert
// CHECK: gpu.launch_func @softgen_softmax_f32_n512::@softgen_softmax_f32_n512
// CHECK-NEXT: %[[R:.+]] = bufferization.to_tensor %[[YB]] restrict writable : memref<64x512xf32> to tensor<64x512xf32>
// CHECK-NOT: linalg.softmax
// CHECK: return %[[R]]

// BUF-LABEL: func.func @t(%arg0: memref<64x512xf32>) -> memref<64x512xf32>
// BUF-NOT: memref.alloc
// BUF: %[[YB:.+]] = gpu.alloc  () : memref<64x512xf32>
// BUF: gpu.launch_func
// BUF: return %[[YB]]

func.func @t(%x: tensor<64x512xf32>) -> tensor<64x512xf32> {
  %e = tensor.empty() : tensor<64x512xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<64x512xf32>) outs(%e : tensor<64x512xf32>) -> tensor<64x512xf32>
  return %r : tensor<64x512xf32>
}
