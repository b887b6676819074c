// Memrefs in the global address space, as the GPU dialect names it
// (#gpu.address_space<global>) or as the integer 1, are device memory the
// kernel reads: compiled. Workgroup (shared) memory is not: left, reported.
// RUN: %softgen %s --mlir-memory device --emit asm -o %t.mlir 2>%t.err
// RUN: FileCheck --check-prefix=WARN %s < %t.err
// RUN: FileCheck %s < %t.mlir
// RUN: %mlir-opt %t.mlir > /dev/null

// WARN: address-space.mlir:[[@LINE+16]]:3: linalg.softmax left as it is: the input (memref<8x128xf32, #gpu.address_space<workgroup>>) is not in the default or global memory space
// WARN-NOT: warning

// CHECK-LABEL: func.func @f(
// CHECK: gpu.launch_func @softgen_softmax_f32_n128::@softgen_softmax_f32_n128
// CHECK: gpu.launch_func @softgen_softmax_f32_n128::@softgen_softmax_f32_n128
// CHECK: linalg.softmax dimension(1) ins(%{{.*}} : memref<8x128xf32, #gpu.address_space<workgroup>>)
// CHECK-NOT: linalg.softmax
// CHECK: return

func.func @f(%g: memref<8x128xf32, #gpu.address_space<global>>,
             %one: memref<8x128xf32, 1>,
             %w: memref<8x128xf32, #gpu.address_space<workgroup>>,
             %a: memref<8x128xf32>) {
  linalg.softmax dimension(1) ins(%g : memref<8x128xf32, #gpu.address_space<global>>) outs(%a : memref<8x128xf32>)
  linalg.softmax dimension(1) ins(%a : memref<8x128xf32>) outs(%one : memref<8x128xf32, 1>)
  linalg.softmax dimension(1) ins(%w : memref<8x128xf32, #gpu.address_space<workgroup>>) outs(%a : memref<8x128xf32>)
  return
}
