// The pass plugin (lib/mlir/plugin.cpp) in mlir-opt: softgen-lower-softmax
// inside a pass pipeline, with its options; the same rewrite as the CLI's
// (a linalg.softmax on memrefs, a torch-style chain on tensors), ops left
// alone as warnings at their locations, bad options as errors. (ASan builds:
// mlir-opt would need the sanitizer runtime to load the plugin.)
// UNSUPPORTED: asan
// RUN: %mlir-opt --load-pass-plugin=%mlir-plugin --pass-pipeline='builtin.module(softgen-lower-softmax{emit=asm arch=sm_90 memory=device})' %s -o %t.mlir 2>%t.err
// RUN: FileCheck %s < %t.mlir
// RUN: FileCheck --check-prefix=WARN %s < %t.err
// RUN: %mlir-opt %t.mlir > /dev/null
// RUN: %mlir-opt --load-pass-plugin=%mlir-plugin --pass-pipeline='builtin.module(softgen-lower-softmax{target=amdgpu arch=gfx942})' %s 2>&1 | FileCheck --check-prefix=AMD %s
// RUN: not %mlir-opt --load-pass-plugin=%mlir-plugin --pass-pipeline='builtin.module(softgen-lower-softmax{emit=bin})' %s 2>&1 | FileCheck --check-prefix=EMIT %s
// RUN: not %mlir-opt --load-pass-plugin=%mlir-plugin --pass-pipeline='builtin.module(softgen-lower-softmax{target=host})' %s 2>&1 | FileCheck --check-prefix=HOST %s
// RUN: not %mlir-opt --load-pass-plugin=%mlir-plugin --pass-pipeline='builtin.module(softgen-lower-softmax{arch=sm_12345})' %s 2>&1 | FileCheck --check-prefix=ARCH %s
// RUN: %mlir-opt --load-pass-plugin=%mlir-plugin --help | FileCheck --check-prefix=HELP %s

// CHECK: module attributes {gpu.container_module} {
// CHECK-NEXT: gpu.binary @softgen_softmax_f32_n256 [#gpu.object<#nvvm.target<chip = "sm_90">, assembly = "
// CHECK-NEXT: gpu.binary @softgen_softmax_f16_n1024 [#gpu.object<#nvvm.target<chip = "sm_90">, assembly = "
// CHECK-LABEL: func.func @memrefs(
// CHECK: gpu.launch_func @softgen_softmax_f32_n256::@softgen_softmax_f32_n256
// CHECK-NOT: linalg.softmax
// CHECK-LABEL: func.func @chain(
// CHECK-NOT: linalg.generic
// CHECK: gpu.launch_func @softgen_softmax_f16_n1024::@softgen_softmax_f16_n1024
// CHECK-NEXT: %[[R:.+]] = bufferization.to_tensor
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
// CHECK-LABEL: func.func @dynamic(
// CHECK: linalg.softmax

// WARN: plugin.mlir:[[@LINE+58]]:8: warning: softgen: linalg.softmax left as it is: the reduced dim 1 of tensor<4x?x2xf16> is dynamic and not the innermost
// WARN-NOT: warning

// AMD: gpu.binary @softgen_softmax_f32_n256 [#gpu.object<#rocdl.target<chip = "gfx942">, bin = "
// EMIT: error: softgen-lower-softmax: emit=bin is not one of auto, object, asm
// HOST: error: softgen: the MLIR front end launches GPU kernels (gpu.launch_func): target nvptx or amdgpu, not 'host'
// ARCH: error: softgen:
// ARCH-SAME: sm_12345
// HELP: --softgen-lower-softmax
// HELP-NEXT: --arch=
// HELP: --emit=
// HELP: --target=

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
func.func @memrefs(%x: memref<64x256xf32>, %y: memref<64x256xf32>) {
  linalg.softmax dimension(1) ins(%x : memref<64x256xf32>) outs(%y : memref<64x256xf32>)
  return
}
func.func @chain(%x: tensor<8x1024xf16>) -> tensor<8x1024xf16> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<8xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%e0 : tensor<8xf32>) -> tensor<8xf32>
  %m = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x1024xf16>) outs(%mi : tensor<8xf32>) {
  ^bb0(%a: f16, %acc: f32):
    %w = arith.extf %a : f16 to f32
    %r = arith.maximumf %w, %acc : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %e1 = tensor.empty() : tensor<8x1024xf32>
  %ex = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x, %m : tensor<8x1024xf16>, tensor<8xf32>) outs(%e1 : tensor<8x1024xf32>) {
  ^bb0(%a: f16, %b: f32, %o: f32):
    %w = arith.extf %a : f16 to f32
    %d = arith.subf %w, %b : f32
    %v = math.exp %d : f32
    linalg.yield %v : f32
  } -> tensor<8x1024xf32>
  %si = linalg.fill ins(%zero : f32) outs(%e0 : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<8x1024xf32>) outs(%si : tensor<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %e2 = tensor.empty() : tensor<8x1024xf16>
  %y = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]}
      ins(%ex, %s : tensor<8x1024xf32>, tensor<8xf32>) outs(%e2 : tensor<8x1024xf16>) {
  ^bb0(%a: f32, %b: f32, %o: f16):
    %d = arith.divf %a, %b : f32
    %t = arith.truncf %d : f32 to f16
    linalg.yield %t : f16
  } -> tensor<8x1024xf16>
  return %y : tensor<8x1024xf16>
}
func.func @dynamic(%x: tensor<4x?x2xf16>) -> tensor<4x?x2xf16> {
  %r = linalg.softmax dimension(1) ins(%x : tensor<4x?x2xf16>) outs(%x : tensor<4x?x2xf16>) -> tensor<4x?x2xf16>
  return %r : tensor<4x?x2xf16>
}
