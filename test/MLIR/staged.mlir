// A row staged in shared memory (N = 32768 f16: 64 KB) is launched with the
// kernel's dynamic shared memory (meta "dsmem"): gpu.launch_func's
// dynamic_shared_memory_size operand; the module still verifies (M = 128:
// over the few-rows variant's max_rows, 64).
// RUN: rm -rf %t && %softgen %s --mlir-memory device --target nvptx --arch sm_90 --emit asm --out-dir %t > /dev/null
// RUN: FileCheck %s < %t/staged.gpu.mlir
// RUN: %mlir-opt %t/staged.gpu.mlir > /dev/null
// CHECK: gpu.launch_func  @softgen_softmax_f16_n32768::@softgen_softmax_f16_n32768 blocks in (%{{.*}}) threads in (%c512, %{{.*}}) dynamic_shared_memory_size %c65536_i32 args(
func.func @f(%x: memref<128x32768xf16>, %y: memref<128x32768xf16>) {
  linalg.softmax dimension(1) ins(%x : memref<128x32768xf16>) outs(%y : memref<128x32768xf16>)
  return
}
