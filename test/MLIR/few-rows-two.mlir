// A code object with three few-rows variants (N = 128256 f16: rows of 250 KB)
// serves four ops of the module from one gpu.binary, the first variant whose
// max_rows holds the op's M: M = 2 launches @K::@K_few4 (clusters of 16, rows
// in registers, each block alone: 117248 bytes of dynamic shared memory), M = 8
// @K::@K_few32 (clusters of 16, rows in registers, no dynamic shared memory),
// M = 48 @K::@K_few (clusters of 8, staged: 32 KB), M = 100 @K::@K.
// RUN: rm -rf %t && %softgen %s --mlir-memory device --target nvptx --arch sm_90 --emit asm --out-dir %t -v 2>%t.err
// RUN: FileCheck %s < %t/few-rows-two.gpu.mlir
// RUN: FileCheck --check-prefix=VERBOSE %s < %t.err
// RUN: %mlir-opt %t/few-rows-two.gpu.mlir > /dev/null

// CHECK: gpu.binary @softgen_softmax_f16_n128256 [
// CHECK-NOT: gpu.binary
// CHECK: func.func @two
// CHECK: gpu.launch_func  @softgen_softmax_f16_n128256::@softgen_softmax_f16_n128256_few4 clusters in (%c16, %c1, %c1) blocks in (%c32, %c1, %c1) threads in (%c256, %c1, %c1)  dynamic_shared_memory_size %c117248_i32 args(
// CHECK: func.func @eight
// CHECK: gpu.launch_func  @softgen_softmax_f16_n128256::@softgen_softmax_f16_n128256_few32 clusters in (%c16, %c1, %c1) blocks in (%c128, %c1, %c1) threads in (%c256, %c1, %c1)  args(
// CHECK: func.func @fortyeight
// CHECK: gpu.launch_func  @softgen_softmax_f16_n128256::@softgen_softmax_f16_n128256_few clusters in (%c8, %c1, %c1) blocks in (%c384, %c1, %c1) threads in (%c256, %c1, %c1)  dynamic_shared_memory_size %c32768_i32 args(
// CHECK: func.func @many
// CHECK: gpu.launch_func  @softgen_softmax_f16_n128256::@softgen_softmax_f16_n128256 clusters in (%c8, %c1, %c1)
// VERBOSE: linalg.softmax 2x128256 f16 -> softgen_softmax_f16_n128256_few4 (grid 32, block 256, cluster 16)
// VERBOSE: linalg.softmax 8x128256 f16 -> softgen_softmax_f16_n128256_few32 (grid 128, block 256, cluster 16)
// VERBOSE: linalg.softmax 48x128256 f16 -> softgen_softmax_f16_n128256_few (grid 384, block 256, cluster 8)
// VERBOSE: linalg.softmax 100x128256 f16 -> softgen_softmax_f16_n128256 (grid 800, block 256, cluster 8)

func.func @two(%x: memref<2x128256xf16>, %y: memref<2x128256xf16>) {
  linalg.softmax dimension(1) ins(%x : memref<2x128256xf16>) outs(%y : memref<2x128256xf16>)
  return
}
func.func @eight(%x: memref<8x128256xf16>, %y: memref<8x128256xf16>) {
  linalg.softmax dimension(1) ins(%x : memref<8x128256xf16>) outs(%y : memref<8x128256xf16>)
  return
}
func.func @fortyeight(%x: memref<48x128256xf16>, %y: memref<48x128256xf16>) {
  linalg.softmax dimension(1) ins(%x : memref<48x128256xf16>) outs(%y : memref<48x128256xf16>)
  return
}
func.func @many(%x: memref<100x128256xf16>, %y: memref<100x128256xf16>) {
  linalg.softmax dimension(1) ins(%x : memref<100x128256xf16>) outs(%y : memref<100x128256xf16>)
  return
}
