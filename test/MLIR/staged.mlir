// A row staged in shared memory (N = 24584 f16: 48 KB, which no cluster of 2
// or 4 holds in registers within 48 values a thread, nor the capped split of 2
// at 56 values, its chunks 86 % filled) is launched with the
// kernel's dynamic shared memory (meta "dsmem"): gpu.launch_func's
// dynamic_shared_memory_size operand; the module still verifies (M = 128:
// over the few-rows variant's max_rows, 64).
// RUN: rm -rf %t && %softgen %s --mlir-memory device --target nvptx --arch sm_90 --emit asm --out-dir %t > /dev/null
// RUN: FileCheck %s < %t/staged.gpu.mlir
// RUN: %mlir-opt %t/staged.gpu.mlir > /dev/null
// CHECK: gpu.launch_func  @softgen_softmax_f16_n24584::@softgen_softmax_f16_n24584 blocks in (%{{.*}}) threads in (%c256, %{{.*}}) dynamic_shared_memory_size %c53248_i32 args(
func.func @f(%x: memref<128x24584xf16>, %y: memref<128x24584xf16>) {
  linalg.softmax dimension(1) ins(%x : memref<128x24584xf16>) outs(%y : memref<128x24584xf16>)
  return
}
