// Softmax decomposed into linalg.generic ops (max -> sub -> exp -> sum -> div,
// as frontends and MLIR's decompose_interface emit it) is recognised
// (lib/mlir/recognize.c) and compiled in one run, on tensors: the fused
// sub+exp form with maxnumf and reduced maps, and the separate sub / exp form
// with maximumf, -inf and keep-dim maps (d0, 0). The chain's ops go. A chain
// whose intermediate is used elsewhere stays as it is.
// RUN: rm -rf %t && mkdir %t
// RUN: %softgen %s --emit asm -o %t/out.mlir -v 2>%t.err
// RUN: FileCheck %s < %t/out.mlir
// RUN: FileCheck --check-prefix=VERBOSE %s < %t.err
// RUN: %mlir-opt %t/out.mlir > /dev/null

// VERBOSE: decomposed.mlir:[[@LINE+52]]:8: softmax (a chain of linalg ops) 64x512 f32 -> softgen_softmax_f32_n512
// VERBOSE: decomposed.mlir:[[@LINE+86]]:8: softmax (a chain of linalg ops) 8x1024 f16 -> softgen_softmax_f16_n1024
// VERBOSE-NOT: softmax

// CHECK: gpu.binary @softgen_softmax_f32_n512
// CHECK: gpu.binary @softgen_softmax_f16_n1024
// CHECK-LABEL: func.func @fused(
// CHECK-NOT: linalg.generic
// CHECK: bufferization.to_buffer %arg0 : tensor<64x512xf32> to memref<64x512xf32>
// CHECK: gpu.launch_func async [%{{.*}}] @softgen_softmax_f32_n512::@softgen_softmax_f32_n512
// CHECK: gpu.wait [
// CHECK-NEXT: %[[R:.+]] = bufferization.to_tensor
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
// CHECK-LABEL: func.func @separate(
// CHECK-NOT: linalg.generic
// CHECK: gpu.launch_func async [%{{.*}}] @softgen_softmax_f16_n1024::@softgen_softmax_f16_n1024
// CHECK: gpu.wait [
// CHECK-NEXT: %[[R:.+]] = bufferization.to_tensor
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
// CHECK-LABEL: func.func @shared(
// CHECK-NOT: gpu.launch_func
// CHECK-COUNT-4: linalg.generic
// CHECK-NOT: gpu.launch_func

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
#keep = affine_map<(d0, d1) -> (d0, 0)>
func.func @fused(%arg0: tensor<64x512xf32>) -> tensor<64x512xf32> {
  %0 = tensor.empty() : tensor<64x512xf32>
  %1 = tensor.empty() : tensor<64xf32>
  %cst = arith.constant 0xFFC00000 : f32
  %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<64xf32>) -> tensor<64xf32>
  %3 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<64x512xf32>) outs(%2 : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %8 = arith.maxnumf %in, %out : f32
    linalg.yield %8 : f32
  } -> tensor<64xf32>
  %4 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %3 : tensor<64x512xf32>, tensor<64xf32>) outs(%0 : tensor<64x512xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %8 = arith.subf %in, %in_1 : f32
    %9 = math.exp %8 : f32
    linalg.yield %9 : f32
  } -> tensor<64x512xf32>
  %cst_0 = arith.constant 0.000000e+00 : f32
  %5 = linalg.fill ins(%cst_0 : f32) outs(%1 : tensor<64xf32>) -> tensor<64xf32>
  %6 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%4 : tensor<64x512xf32>) outs(%5 : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %8 = arith.addf %in, %out : f32
    linalg.yield %8 : f32
  } -> tensor<64xf32>
  %7 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%4, %6 : tensor<64x512xf32>, tensor<64xf32>) outs(%0 : tensor<64x512xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %8 = arith.divf %in, %in_1 : f32
    linalg.yield %8 : f32
  } -> tensor<64x512xf32>
  return %7 : tensor<64x512xf32>
}

func.func @separate(%x: tensor<8x1024xf16>) -> tensor<8x1024xf16> {
  %ninf = arith.constant 0xFC00 : f16
  %zero = arith.constant 0.0 : f16
  %r0 = tensor.empty() : tensor<8x1xf16>
  %full = tensor.empty() : tensor<8x1024xf16>
  %mi = linalg.fill ins(%ninf : f16) outs(%r0 : tensor<8x1xf16>) -> tensor<8x1xf16>
  %mx = linalg.generic {indexing_maps = [#map, #keep], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<8x1024xf16>) outs(%mi : tensor<8x1xf16>) {
  ^bb0(%in: f16, %out: f16):
    %m = arith.maximumf %out, %in : f16
    linalg.yield %m : f16
  } -> tensor<8x1xf16>
  %sub = linalg.generic {indexing_maps = [#map, #keep, #map], iterator_types = ["parallel", "parallel"]} ins(%x, %mx : tensor<8x1024xf16>, tensor<8x1xf16>) outs(%full : tensor<8x1024xf16>) {
  ^bb0(%a: f16, %b: f16, %out: f16):
    %s = arith.subf %a, %b : f16
    linalg.yield %s : f16
  } -> tensor<8x1024xf16>
  %exp = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%sub : tensor<8x1024xf16>) outs(%full : tensor<8x1024xf16>) {
  ^bb0(%a: f16, %out: f16):
    %e = math.exp %a : f16
    linalg.yield %e : f16
  } -> tensor<8x1024xf16>
  %si = linalg.fill ins(%zero : f16) outs(%r0 : tensor<8x1xf16>) -> tensor<8x1xf16>
  %sum = linalg.generic {indexing_maps = [#map, #keep], iterator_types = ["parallel", "reduction"]} ins(%exp : tensor<8x1024xf16>) outs(%si : tensor<8x1xf16>) {
  ^bb0(%in: f16, %out: f16):
    %a = arith.addf %in, %out : f16
    linalg.yield %a : f16
  } -> tensor<8x1xf16>
  %y = linalg.generic {indexing_maps = [#map, #keep, #map], iterator_types = ["parallel", "parallel"]} ins(%exp, %sum : tensor<8x1024xf16>, tensor<8x1xf16>) outs(%full : tensor<8x1024xf16>) {
  ^bb0(%a: f16, %b: f16, %out: f16):
    %d = arith.divf %a, %b : f16
    linalg.yield %d : f16
  } -> tensor<8x1024xf16>
  return %y : tensor<8x1024xf16>
}

// The row sums are returned too: the chain cannot go.
func.func @shared(%x: tensor<4x128xf32>) -> (tensor<4x128xf32>, tensor<4xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %r0 = tensor.empty() : tensor<4xf32>
  %full = tensor.empty() : tensor<4x128xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%r0 : tensor<4xf32>) -> tensor<4xf32>
  %mx = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x128xf32>) outs(%mi : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maxnumf %in, %out : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  %e = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%x, %mx : tensor<4x128xf32>, tensor<4xf32>) outs(%full : tensor<4x128xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.subf %a, %b : f32
    %t = math.exp %s : f32
    linalg.yield %t : f32
  } -> tensor<4x128xf32>
  %si = linalg.fill ins(%zero : f32) outs(%r0 : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%e : tensor<4x128xf32>) outs(%si : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  } -> tensor<4xf32>
  %y = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%e, %sum : tensor<4x128xf32>, tensor<4xf32>) outs(%full : tensor<4x128xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %d = arith.divf %a, %b : f32
    linalg.yield %d : f32
  } -> tensor<4x128xf32>
  return %y, %sum : tensor<4x128xf32>, tensor<4xf32>
}
