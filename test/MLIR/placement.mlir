// Where launches go. A softmax inside device code (a gpu.func here) cannot
// launch a kernel: left, reported. One in a nested module gets its gpu.binary
// in that module (the closest enclosing one, which becomes a
// gpu.container_module), as gpu.launch_func's symbol lookup needs. The host
// target is refused for MLIR: its kernels are not launched by gpu.launch_func.
// RUN: %softgen %s --mlir-memory device --emit asm -o %t.mlir 2>%t.err
// RUN: FileCheck --check-prefix=WARN %s < %t.err
// RUN: FileCheck %s < %t.mlir
// RUN: %mlir-opt %t.mlir > /dev/null
// RUN: not %softgen %s --mlir-memory device --target host -o %t.host.mlir 2>&1 | FileCheck --check-prefix=HOST %s
// RUN: not ls %t.host.mlir

// WARN: placement.mlir:[[@LINE+20]]:7: linalg.softmax left as it is: inside device code (a gpu.func, gpu.launch or gpu.module)
// WARN-NOT: warning
// HOST: softgen: error: the MLIR front end launches GPU kernels (gpu.launch_func): target nvptx or amdgpu, not 'host'

// CHECK: module attributes {gpu.container_module} {
// CHECK-NEXT: gpu.binary @softgen_softmax_f16_n256
// CHECK-NOT: gpu.binary
// CHECK: gpu.func @g(
// CHECK-NEXT: linalg.softmax
// CHECK: module @inner attributes {gpu.container_module} {
// CHECK-NEXT: gpu.binary @softgen_softmax_f32_n128
// CHECK: func.func @h(
// CHECK: gpu.launch_func @softgen_softmax_f32_n128::@softgen_softmax_f32_n128
// CHECK: func.func @top(
// CHECK: gpu.launch_func @softgen_softmax_f16_n256::@softgen_softmax_f16_n256
// CHECK-NOT: linalg.softmax

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @g(%x: memref<8x128xf32>, %y: memref<8x128xf32>) kernel {
      linalg.softmax dimension(1) ins(%x : memref<8x128xf32>) outs(%y : memref<8x128xf32>)
      gpu.return
    }
  }
  module @inner {
    func.func @h(%x: memref<8x128xf32>, %y: memref<8x128xf32>) {
      linalg.softmax dimension(1) ins(%x : memref<8x128xf32>) outs(%y : memref<8x128xf32>)
      return
    }
  }
  func.func @top(%x: memref<8x256xf16>, %y: memref<8x256xf16>) {
    linalg.softmax dimension(1) ins(%x : memref<8x256xf16>) outs(%y : memref<8x256xf16>)
    return
  }
}
