// Where the operands live, in the default host-memory mode. Known device
// memory is read and written in place: a gpu.alloc's buffer (through a view)
// and a memref in the global address space. Anything else may be host memory:
// copied to device memory and back around the launch (an identity layout
// needed: a strided view is left, with why and what to do). The plugin's
// memory option is checked too.
// RUN: %softgen %s --emit asm -o %t.mlir 2>%t.err
// RUN: FileCheck %s < %t.mlir
// RUN: FileCheck --check-prefix=WARN %s < %t.err
// RUN: %mlir-opt %t.mlir > /dev/null
// RUN: not %softgen %s --mlir-memory shared -o %t.bad.mlir 2>&1 | FileCheck --check-prefix=BAD %s
// RUN: not ls %t.bad.mlir

// WARN: memory.mlir:[[@LINE+33]]:3: linalg.softmax left as it is: the input (memref<8x128xf32, strided<[256, 1]>>) may be host memory (nothing says it is device memory), and a copy to the device needs an identity layout; with device memory (--mlir-memory device, memory=device) the kernel reads it in place
// WARN-NOT: warning
// BAD: unknown --mlir-memory 'shared' (expected host or device)

// CHECK-LABEL: func.func @device(
// CHECK-NOT: gpu.memcpy
// CHECK: gpu.launch_func @softgen_softmax_f32_n128::@softgen_softmax_f32_n128
// CHECK-NOT: gpu.memcpy
// CHECK: gpu.launch_func @softgen_softmax_f32_n128::@softgen_softmax_f32_n128
// CHECK-NOT: gpu.memcpy
// CHECK-LABEL: func.func @host(
// CHECK: %[[Y:.+]] = memref.alloc() : memref<8x128xf32>
// CHECK: gpu.memcpy async [%{{.*}}] %{{.*}}, %arg0
// CHECK: gpu.launch_func async
// CHECK-NEXT: gpu.memcpy async [%{{.*}}] %[[Y]], %{{.*}}
// CHECK: gpu.wait [
// CHECK: return %[[Y]]
// CHECK-LABEL: func.func @strided(
// CHECK: linalg.softmax

func.func @device(%g: memref<8x128xf32, #gpu.address_space<global>>) {
  %a = gpu.alloc () : memref<1024xf32>
  %v = memref.expand_shape %a [[0, 1]] output_shape [8, 128] : memref<1024xf32> into memref<8x128xf32>
  linalg.softmax dimension(1) ins(%v : memref<8x128xf32>) outs(%v : memref<8x128xf32>)
  linalg.softmax dimension(1) ins(%g : memref<8x128xf32, #gpu.address_space<global>>) outs(%v : memref<8x128xf32>)
  return
}
func.func @host(%x: memref<8x128xf32>) -> memref<8x128xf32> {
  %y = memref.alloc() : memref<8x128xf32>
  linalg.softmax dimension(1) ins(%x : memref<8x128xf32>) outs(%y : memref<8x128xf32>)
  return %y : memref<8x128xf32>
}
func.func @strided(%x: memref<8x128xf32, strided<[256, 1]>>, %y: memref<8x128xf32>) {
  linalg.softmax dimension(1) ins(%x : memref<8x128xf32, strided<[256, 1]>>) outs(%y : memref<8x128xf32>)
  return
}
