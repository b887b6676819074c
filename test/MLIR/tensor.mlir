// Tensor-form softmax compiles in one run, before bufferization. The input
// becomes a buffer (bufferization.to_buffer), the output a memref.alloc of the
// module, returned as the result (bufferization.to_tensor restrict writable,
// which one-shot bufferization takes as it is); the op and its tensor.empty go.
// Host memory (the default, as upstream lowers host code to the CPU): the
// launch reads a copy of the input in device memory and writes a device
// buffer copied back, one async chain on one stream that gpu-to-llvm lowers;
// the copies are freed. Device memory (--mlir-memory device): the kernel reads
// and writes the module's buffers in place. 64 rows launch the code object's
// few-rows variant (_few: a row a block of 64 threads, grid 64).
// RUN: rm -rf %t && mkdir %t
// RUN: %softgen %s --emit asm -o %t/t.mlir -v 2>&1 | FileCheck --check-prefix=VERBOSE %s
// RUN: FileCheck %s < %t/t.mlir
// RUN: %mlir-opt %t/t.mlir > /dev/null
// RUN: %mlir-opt %t/t.mlir --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" | FileCheck --check-prefix=BUF %s
// RUN: %softgen %s --mlir-memory device --emit asm -o %t/d.mlir
// RUN: FileCheck --check-prefix=DEVICE %s < %t/d.mlir
// RUN: %mlir-opt %t/d.mlir > /dev/null

// VERBOSE: tensor.mlir:[[@LINE+43]]:8: linalg.softmax 64x512 f32 -> softgen_softmax_f32_n512_few (grid 64, block 64, cluster 1; input and output copied through the device)
// VERBOSE-NOT: left as it is

// CHECK: gpu.binary @softgen_softmax_f32_n512
// CHECK-LABEL: func.func @t(
// CHECK-NOT: tensor.empty
// CHECK: %[[XB:.+]] = bufferization.to_buffer %arg0 : tensor<64x512xf32> to memref<64x512xf32>
// CHECK-NEXT: %[[YH:.+]] = memref.alloc() {alignment = 64 : i64} : memref<64x512xf32>
// CHECK-NEXT: %[[T0:.+]] = gpu.wait async
// CHECK-NEXT: %[[XD:.+]], %[[T1:.+]] = gpu.alloc async [%[[T0]]] () : memref<64x512xf32>
// CHECK-NEXT: %[[T2:.+]] = gpu.memcpy async [%[[T1]]] %[[XD]], %[[XB]] : memref<64x512xf32>, memref<64x512xf32>
// CHECK-NEXT: %[[YD:.+]], %[[T3:.+]] = gpu.alloc async [%[[T2]]] () : memref<64x512xf32>
// CHECK-NOT: cf.assert
// CHECK: memref.extract_aligned_pointer_as_index %[[XD]]
// CHECK: memref.extract_aligned_pointer_as_index %[[YD]]
// CHECK: %[[T4:.+]] = gpu.launch_func async [%[[T3]]] @softgen_softmax_f32_n512::@softgen_softmax_f32_n512_few blocks in
// CHECK-NEXT: %[[T5:.+]] = gpu.memcpy async [%[[T4]]] %[[YH]], %[[YD]]
// CHECK-NEXT: %[[T6:.+]] = gpu.dealloc async [%[[T5]]] %[[XD]]
// CHECK-NEXT: %[[T7:.+]] = gpu.dealloc async [%[[T6]]] %[[YD]]
// CHECK-NEXT: gpu.wait [%[[T7]]]
// CHECK-NEXT: %[[R:.+]] = bufferization.to_tensor %[[YH]] restrict writable : memref<64x512xf32> to tensor<64x512xf32>
// CHECK-NOT: linalg.softmax
// CHECK: return %[[R]]

// BUF-LABEL: func.func @t(%arg0: memref<64x512xf32>) -> memref<64x512xf32>
// BUF: %[[YH:.+]] = memref.alloc() {alignment = 64 : i64} : memref<64x512xf32>
// BUF: gpu.launch_func async
// BUF: return %[[YH]]

// DEVICE-LABEL: func.func @t(
// DEVICE: %[[XB:.+]] = bufferization.to_buffer %arg0 : tensor<64x512xf32> to memref<64x512xf32>
// DEVICE-NEXT: %[[YB:.+]] = memref.alloc() {alignment = 64 : i64} : memref<64x512xf32>
// DEVICE-NOT: gpu.alloc
// DEVICE: memref.extract_aligned_pointer_as_index %[[XB]]
// DEVICE: cf.assert {{.*}}"softgen: the input of the softmax at
// DEVICE: memref.extract_aligned_pointer_as_index %[[YB]]
// DEVICE-NOT: cf.assert
// DEVICE: gpu.launch_func @softgen_softmax_f32_n512::@softgen_softmax_f32_n512_few blocks in
// DEVICE-NEXT: %[[R:.+]] = bufferization.to_tensor %[[YB]] restrict writable : memref<64x512xf32> to tensor<64x512xf32>
// DEVICE: return %[[R]]

func.func @t(%x: tensor<64x512xf32>) -> tensor<64x512xf32> {
  %e = tensor.empty() : tensor<64x512xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<64x512xf32>) outs(%e : tensor<64x512xf32>) -> tensor<64x512xf32>
  return %r : tensor<64x512xf32>
}
