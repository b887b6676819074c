// A code object with a few-rows variant (N = 32768 f16: rows of 64 KB) serves
// both ops of the module from one gpu.binary: M = 2, at most the variant's
// max_rows (64), launches @K::@K_few (clusters of 8, 256 threads, rows in
// registers: no dynamic shared memory); M = 128 launches @K::@K (clusters of
// 4, 256 threads, rows in registers). sgrt_launch_geometry decides, as at run time (no device is
// known here: max_rows alone); the module verifies.
// RUN: rm -rf %t && %softgen %s --mlir-memory device --target nvptx --arch sm_90 --emit asm --out-dir %t -v 2>%t.err
// RUN: FileCheck %s < %t/few-rows.gpu.mlir
// RUN: FileCheck --check-prefix=VERBOSE %s < %t.err
// RUN: %mlir-opt %t/few-rows.gpu.mlir > /dev/null
// RUN: %softgen --inspect %t/softgen_softmax_f16_n32768.ptx | FileCheck --check-prefix=META %s

// CHECK: gpu.binary @softgen_softmax_f16_n32768 [
// CHECK-NOT: gpu.binary
// CHECK: func.func @few
// CHECK: gpu.launch_func  @softgen_softmax_f16_n32768::@softgen_softmax_f16_n32768_few clusters in (%c8, %c1, %c1) blocks in (%c16, %c1, %c1) threads in (%c256, %c1, %c1)  args(
// CHECK: func.func @many
// CHECK: gpu.launch_func  @softgen_softmax_f16_n32768::@softgen_softmax_f16_n32768 clusters in (%c4, %c1, %c1) blocks in (%c512, %c1, %c1) threads in (%c256, %c1, %c1)  args(
// VERBOSE: linalg.softmax 2x32768 f16 -> softgen_softmax_f16_n32768_few (grid 16, block 256, cluster 8)
// VERBOSE: linalg.softmax 128x32768 f16 -> softgen_softmax_f16_n32768 (grid 512, block 256, cluster 4)
// META: variant few kernel softgen_softmax_f16_n32768_few {{.*}} max_rows 64

func.func @few(%x: memref<2x32768xf16>, %y: memref<2x32768xf16>) {
  linalg.softmax dimension(1) ins(%x : memref<2x32768xf16>) outs(%y : memref<2x32768xf16>)
  return
}
func.func @many(%x: memref<128x32768xf16>, %y: memref<128x32768xf16>) {
  linalg.softmax dimension(1) ins(%x : memref<128x32768xf16>) outs(%y : memref<128x32768xf16>)
  return
}
