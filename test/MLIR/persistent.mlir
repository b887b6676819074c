// A persistent kernel (rows in flight 2: it prefetches its next row block) is
// launched as the runtime would launch it with no resident-blocks cap
// (sgrt_launch_geometry with resident 0): one block per row block, here
// ceil(100000 / 8) = 12500. The device is not known when the module is
// compiled; any grid of whole clusters is correct (the kernel strides over row
// blocks), the runtime's cap only spares blocks that would wait.
// RUN: rm -rf %t && mkdir %t
// RUN: %softgen -D N=1024 -C 'PipelineConstraint(rows_in_flight=2)' --print-config | FileCheck --check-prefix=PLAN %s
// PLAN: rows_per_block    8
// PLAN: rows_in_flight    2 ({{.*}}persistent grid)
// RUN: %softgen -v %s --mlir-memory device --emit asm -C 'PipelineConstraint(rows_in_flight=2)' -o %t/p.mlir 2>&1 | FileCheck --check-prefix=GRID %s
// GRID: linalg.softmax 100000x1024 f16 -> softgen_softmax_f16_n1024 (grid 12500, block 256, cluster 1)
// RUN: FileCheck %s < %t/p.mlir
// RUN: %mlir-opt %t/p.mlir > /dev/null
// CHECK: %[[G:.*]] = arith.constant 12500 : index
// CHECK: gpu.launch_func @softgen_softmax_f16_n1024::@softgen_softmax_f16_n1024 blocks in (%[[G]],
func.func @f(%x: memref<100000x1024xf16>, %y: memref<100000x1024xf16>) {
  linalg.softmax dimension(1) ins(%x : memref<100000x1024xf16>) outs(%y : memref<100000x1024xf16>)
  return
}
