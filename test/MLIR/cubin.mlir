// With ptxas, the gpu.object holds the .cubin (`bin`), the same bytes as the
// kernel file written beside the module.
// REQUIRES: ptxas
// RUN: rm -rf %t && %softgen %s --mlir-memory device --emit obj --ptxas %ptxas --out-dir %t
// RUN: FileCheck %s < %t/cubin.gpu.mlir
// RUN: %mlir-opt %t/cubin.gpu.mlir > /dev/null
// RUN: %softgen --inspect %t/softgen_softmax_bf16_n4096.cubin | FileCheck --check-prefix=META %s
// CHECK: gpu.binary @softgen_softmax_bf16_n4096 [#gpu.object<#nvvm.target<chip = "sm_90">, bin = "\7FELF
// CHECK: gpu.launch_func @softgen_softmax_bf16_n4096::@softgen_softmax_bf16_n4096
// META: kernel softgen_softmax_bf16_n4096
func.func @f(%x: memref<8x4096xbf16>) {
  linalg.softmax dimension(1) ins(%x : memref<8x4096xbf16>) outs(%x : memref<8x4096xbf16>)
  return
}
