// Targets and code-object formats: AMDGPU (#rocdl.target, the .hsaco as
// `bin`), NVPTX with ptxas (the .cubin as `bin`), and a row split over a
// thread-block cluster on sm_90 (`clusters in`, grid = 2 x M).
// RUN: rm -rf %t && %softgen %s --mlir-memory device --target amdgpu --arch gfx942 --out-dir %t | FileCheck --check-prefix=AMD-WROTE %s
// RUN: FileCheck --check-prefix=AMD %s < %t/targets.gpu.mlir
// RUN: %mlir-opt %t/targets.gpu.mlir > /dev/null
// RUN: %softgen --inspect %t/softgen_softmax_f16_n65536.hsaco | FileCheck --check-prefix=AMD-META %s
// RUN: %softgen %s --mlir-memory device --target nvptx --arch sm_90 --emit asm -o - | FileCheck --check-prefix=CLUSTER %s
// RUN: %softgen %s --mlir-memory device --target nvptx --arch sm_90 --emit asm -o - | %mlir-opt > /dev/null

// AMD-WROTE: wrote {{.*}}softgen_softmax_f16_n65536.hsaco
// AMD: gpu.binary @softgen_softmax_f16_n65536 [#gpu.object<#rocdl.target<chip = "gfx942">, bin = "\7FELF
// AMD: gpu.launch_func @softgen_softmax_f16_n65536::@softgen_softmax_f16_n65536 blocks in
// AMD-NOT: clusters in
// AMD-META: target amdgpu
// AMD-META: arch gfx942

// 65536 f16 on sm_90: rows in registers over clusters of 8 blocks of 256
// threads (8192 columns each, plan/policy.c cluster_registers), no dynamic
// shared memory; M = 128 (over the few-rows variant's max_rows, 64:
// few-rows.mlir)
// CLUSTER: gpu.binary @softgen_softmax_f16_n65536 [#gpu.object<#nvvm.target<chip = "sm_90">, assembly = "
// CLUSTER: %[[ONE:.+]] = arith.constant 1 : index
// CLUSTER-NEXT: %[[G:.+]] = arith.constant 1024 : index
// CLUSTER-NEXT: %[[B:.+]] = arith.constant 256 : index
// CLUSTER-NEXT: %[[C:.+]] = arith.constant 8 : index
// CLUSTER: gpu.launch_func @softgen_softmax_f16_n65536::@softgen_softmax_f16_n65536 clusters in (%[[C]], %[[ONE]], %[[ONE]]) blocks in (%[[G]], %[[ONE]], %[[ONE]]) threads in (%[[B]], %[[ONE]], %[[ONE]])  args(

func.func @f(%x: memref<128x65536xf16>, %y: memref<128x65536xf16>) {
  linalg.softmax dimension(1) ins(%x : memref<128x65536xf16>) outs(%y : memref<128x65536xf16>)
  return
}
