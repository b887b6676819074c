// Ops softgen cannot take are left in the module, each reported with its
// location and reason; the others still compile, and the output verifies.
// RUN: rm -rf %t && %softgen %s --mlir-memory device --emit asm --out-dir %t 2>%t.err | FileCheck --check-prefix=WROTE %s
// RUN: FileCheck --check-prefix=WARN %s < %t.err
// RUN: FileCheck %s < %t/unsupported.gpu.mlir
// RUN: %mlir-opt %t/unsupported.gpu.mlir > /dev/null

// WROTE: softgen: wrote {{.*}}unsupported.gpu.mlir
// WROTE-NEXT: softgen: wrote {{.*}}softgen_softmax_f32_n128.ptx
// WROTE-NOT: wrote

// WARN: unsupported.mlir:[[@LINE+33]]:3: linalg.softmax left as it is: element type f64 is not supported (softgen takes f16, bf16, f32)
// WARN-NEXT: unsupported.mlir:[[@LINE+33]]:3: linalg.softmax left as it is: element type i32 is not supported
// WARN-NEXT: unsupported.mlir:[[@LINE+33]]:3: linalg.softmax left as it is: the reduced dim 1 of memref<8x?x4xf32> is dynamic and not the innermost: a run-time N takes rows (the dims after the reduced dim of size 1)
// WARN-NEXT: unsupported.mlir:[[@LINE+33]]:3: linalg.softmax left as it is: memref<8x4x?xf32> has dynamic dims after the reduced dim 1: the MLIR front end takes those static (the dims before it may be dynamic)
// WARN-NEXT: unsupported.mlir:[[@LINE+33]]:3: linalg.softmax left as it is: the input (memref<8x128xf32, strided<[256, 2]>>) is not contiguous in the dims after the reduced dim 0 (the inner layout reads them as one)
// WARN-NEXT: unsupported.mlir:[[@LINE+33]]:3: linalg.softmax left as it is: the input (memref<2x8x128xf32, strided<[1024, 64, 1]>>) has a stride along the reduced dim 1 that is dynamic, out of range or under the 128 elements of the dims after it
// WARN-NEXT: unsupported.mlir:[[@LINE+33]]:3: linalg.softmax left as it is: the input (memref<8x128xf32, strided<[128, 1], offset: ?>>) has a dynamic offset
// WARN-NEXT: unsupported.mlir:[[@LINE+33]]:3: linalg.softmax left as it is: the output (memref<8x128xf32, strided<[1, 8]>>) is not contiguous along the reduced dim 1 (stride 8)
// WARN-NEXT: unsupported.mlir:[[@LINE+33]]:3: linalg.softmax left as it is: the input's row stride (516 bytes) or offset (0 bytes) is not a multiple of the kernel's vector width (16 bytes)
// WARN-NEXT: unsupported.mlir:[[@LINE+33]]:3: linalg.softmax left as it is: the input (memref<8x128xf32, 3>) is not in the default or global memory space
// WARN-NOT: warning

// CHECK: gpu.binary @softgen_softmax_f32_n128
// CHECK-NOT: gpu.binary
// CHECK: linalg.softmax dimension(1) ins(%{{.*}} : memref<8x16xf64>)
// CHECK: linalg.softmax dimension(1) ins(%{{.*}} : memref<8x16xi32>)
// CHECK: linalg.softmax dimension(1) ins(%{{.*}} : memref<8x?x4xf32>)
// CHECK: linalg.softmax dimension(1) ins(%{{.*}} : memref<8x4x?xf32>)
// CHECK: linalg.softmax dimension(0) ins(%{{.*}} : memref<8x128xf32, strided<[256, 2]>>)
// CHECK: linalg.softmax dimension(1) ins(%{{.*}} : memref<2x8x128xf32, strided<[1024, 64, 1]>>)
// CHECK: linalg.softmax dimension(1) ins(%{{.*}} : memref<8x128xf32, strided<[128, 1], offset: ?>>)
// CHECK: linalg.softmax dimension(1) ins(%{{.*}} : memref<8x128xf32>) outs(%{{.*}} : memref<8x128xf32, strided<[1, 8]>>)
// CHECK: linalg.softmax dimension(1) ins(%{{.*}} : memref<8x128xf32, strided<[129, 1]>>)
// CHECK: linalg.softmax dimension(1) ins(%{{.*}} : memref<8x128xf32, 3>)
// CHECK: gpu.launch_func @softgen_softmax_f32_n128::@softgen_softmax_f32_n128
// CHECK-NOT: linalg.softmax

func.func @f(%f64: memref<8x16xf64>, %i32: memref<8x16xi32>, %dn: memref<8x?x4xf32>,
             %dm: memref<8x4x?xf32>, %a: memref<8x128xf32>,
             %si: memref<8x128xf32, strided<[256, 2]>>, %b: memref<2x8x128xf32, strided<[1024, 64, 1]>>,
             %off: memref<8x128xf32, strided<[128, 1], offset: ?>>,
             %col: memref<8x128xf32, strided<[1, 8]>>, %odd: memref<8x128xf32, strided<[129, 1]>>,
             %ws: memref<8x128xf32, 3>) {
  linalg.softmax dimension(1) ins(%f64 : memref<8x16xf64>) outs(%f64 : memref<8x16xf64>)
  linalg.softmax dimension(1) ins(%i32 : memref<8x16xi32>) outs(%i32 : memref<8x16xi32>)
  linalg.softmax dimension(1) ins(%dn : memref<8x?x4xf32>) outs(%dn : memref<8x?x4xf32>)
  linalg.softmax dimension(1) ins(%dm : memref<8x4x?xf32>) outs(%dm : memref<8x4x?xf32>)
  linalg.softmax dimension(0) ins(%si : memref<8x128xf32, strided<[256, 2]>>) outs(%a : memref<8x128xf32>)
  linalg.softmax dimension(1) ins(%b : memref<2x8x128xf32, strided<[1024, 64, 1]>>) outs(%b : memref<2x8x128xf32, strided<[1024, 64, 1]>>)
  linalg.softmax dimension(1) ins(%off : memref<8x128xf32, strided<[128, 1], offset: ?>>) outs(%a : memref<8x128xf32>)
  linalg.softmax dimension(1) ins(%a : memref<8x128xf32>) outs(%col : memref<8x128xf32, strided<[1, 8]>>)
  linalg.softmax dimension(1) ins(%odd : memref<8x128xf32, strided<[129, 1]>>) outs(%a : memref<8x128xf32>)
  linalg.softmax dimension(1) ins(%ws : memref<8x128xf32, 3>) outs(%a : memref<8x128xf32>)
  linalg.softmax dimension(1) ins(%a : memref<8x128xf32>) outs(%a : memref<8x128xf32>)
  return
}
