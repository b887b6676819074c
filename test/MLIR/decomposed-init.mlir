// The initial value of the decomposed max decides whether the chain is a
// softmax (lib/mlir/recognize.c): -inf and the type's lowest finite value are
// accepted for maxnumf and maximumf, NaN for maxnumf only (it skips NaN);
// maximumf from NaN gives NaN rows whatever x holds (it was once taken for a
// softmax all the same). Near misses stay linalg.generic ops.
// RUN: %softgen %s --emit asm -o %t.mlir 2>/dev/null
// RUN: FileCheck %s < %t.mlir
// RUN: %mlir-opt %t.mlir > /dev/null
// maximumf_nan: maximumf from NaN: NaN rows whatever x holds: no softmax
// CHECK-LABEL: func.func @maximumf_nan(
// CHECK-NOT: gpu.launch_func
// CHECK-COUNT-4: linalg.generic
// CHECK-NOT: gpu.launch_func
// CHECK: return
// maximumf_neg_nan: the same with a negative NaN
// CHECK-LABEL: func.func @maximumf_neg_nan(
// CHECK-NOT: gpu.launch_func
// CHECK-COUNT-4: linalg.generic
// CHECK-NOT: gpu.launch_func
// CHECK: return
// maxnumf_nan: maxnumf skips a NaN: its identity
// CHECK-LABEL: func.func @maxnumf_nan(
// CHECK: bufferization.to_buffer %arg0 : tensor<4x128xf32>
// CHECK: gpu.launch_func
// CHECK-NOT: linalg.generic
// CHECK: return
// maximumf_ninf: -inf: the identity of both
// CHECK-LABEL: func.func @maximumf_ninf(
// CHECK: bufferization.to_buffer %arg0 : tensor<4x256xbf16>
// CHECK: gpu.launch_func
// CHECK-NOT: linalg.generic
// CHECK: return
// maximumf_lowest_f16: the lowest finite f16 (a row of -inf reduces to it, then exps to 0: the same NaN row)
// CHECK-LABEL: func.func @maximumf_lowest_f16(
// CHECK: bufferization.to_buffer %arg0 : tensor<4x256xf16>
// CHECK: gpu.launch_func
// CHECK-NOT: linalg.generic
// CHECK: return
// maxnumf_lowest_f32: the lowest finite f32
// CHECK-LABEL: func.func @maxnumf_lowest_f32(
// CHECK: bufferization.to_buffer %arg0 : tensor<4x64xf32>
// CHECK: gpu.launch_func
// CHECK-NOT: linalg.generic
// CHECK: return
// maxnumf_not_lowest: a large negative value that is not the lowest: a row below it would reduce to it
// CHECK-LABEL: func.func @maxnumf_not_lowest(
// CHECK-NOT: gpu.launch_func
// CHECK-COUNT-4: linalg.generic
// CHECK-NOT: gpu.launch_func
// CHECK: return
// maximumf_f16_as_f32_lowest: f16 -65472, one step above the lowest
// CHECK-LABEL: func.func @maximumf_f16_as_f32_lowest(
// CHECK-NOT: gpu.launch_func
// CHECK-COUNT-4: linalg.generic
// CHECK-NOT: gpu.launch_func
// CHECK: return

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
func.func @maximumf_nan(%x: tensor<4x128xf32>) -> tensor<4x128xf32> {
  %init = arith.constant 0x7FC00000 : f32
  %zero = arith.constant 0.0 : f32
  %r0 = tensor.empty() : tensor<4xf32>
  %full = tensor.empty() : tensor<4x128xf32>
  %mi = linalg.fill ins(%init : f32) outs(%r0 : tensor<4xf32>) -> tensor<4xf32>
  %mx = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x128xf32>) outs(%mi : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %out : f32
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
  return %y : tensor<4x128xf32>
}
func.func @maximumf_neg_nan(%x: tensor<4x128xf32>) -> tensor<4x128xf32> {
  %init = arith.constant 0xFFC00000 : f32
  %zero = arith.constant 0.0 : f32
  %r0 = tensor.empty() : tensor<4xf32>
  %full = tensor.empty() : tensor<4x128xf32>
  %mi = linalg.fill ins(%init : f32) outs(%r0 : tensor<4xf32>) -> tensor<4xf32>
  %mx = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x128xf32>) outs(%mi : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %out : f32
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
  return %y : tensor<4x128xf32>
}
func.func @maxnumf_nan(%x: tensor<4x128xf32>) -> tensor<4x128xf32> {
  %init = arith.constant 0xFFC00000 : f32
  %zero = arith.constant 0.0 : f32
  %r0 = tensor.empty() : tensor<4xf32>
  %full = tensor.empty() : tensor<4x128xf32>
  %mi = linalg.fill ins(%init : f32) outs(%r0 : tensor<4xf32>) -> tensor<4xf32>
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
  return %y : tensor<4x128xf32>
}
func.func @maximumf_ninf(%x: tensor<4x256xbf16>) -> tensor<4x256xbf16> {
  %init = arith.constant 0xFF80 : bf16
  %zero = arith.constant 0.0 : bf16
  %r0 = tensor.empty() : tensor<4xbf16>
  %full = tensor.empty() : tensor<4x256xbf16>
  %mi = linalg.fill ins(%init : bf16) outs(%r0 : tensor<4xbf16>) -> tensor<4xbf16>
  %mx = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x256xbf16>) outs(%mi : tensor<4xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    %m = arith.maximumf %in, %out : bf16
    linalg.yield %m : bf16
  } -> tensor<4xbf16>
  %e = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%x, %mx : tensor<4x256xbf16>, tensor<4xbf16>) outs(%full : tensor<4x256xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %out: bf16):
    %s = arith.subf %a, %b : bf16
    %t = math.exp %s : bf16
    linalg.yield %t : bf16
  } -> tensor<4x256xbf16>
  %si = linalg.fill ins(%zero : bf16) outs(%r0 : tensor<4xbf16>) -> tensor<4xbf16>
  %sum = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%e : tensor<4x256xbf16>) outs(%si : tensor<4xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    %a = arith.addf %in, %out : bf16
    linalg.yield %a : bf16
  } -> tensor<4xbf16>
  %y = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%e, %sum : tensor<4x256xbf16>, tensor<4xbf16>) outs(%full : tensor<4x256xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %out: bf16):
    %d = arith.divf %a, %b : bf16
    linalg.yield %d : bf16
  } -> tensor<4x256xbf16>
  return %y : tensor<4x256xbf16>
}
func.func @maximumf_lowest_f16(%x: tensor<4x256xf16>) -> tensor<4x256xf16> {
  %init = arith.constant -65504.0 : f16
  %zero = arith.constant 0.0 : f16
  %r0 = tensor.empty() : tensor<4xf16>
  %full = tensor.empty() : tensor<4x256xf16>
  %mi = linalg.fill ins(%init : f16) outs(%r0 : tensor<4xf16>) -> tensor<4xf16>
  %mx = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x256xf16>) outs(%mi : tensor<4xf16>) {
  ^bb0(%in: f16, %out: f16):
    %m = arith.maximumf %in, %out : f16
    linalg.yield %m : f16
  } -> tensor<4xf16>
  %e = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%x, %mx : tensor<4x256xf16>, tensor<4xf16>) outs(%full : tensor<4x256xf16>) {
  ^bb0(%a: f16, %b: f16, %out: f16):
    %s = arith.subf %a, %b : f16
    %t = math.exp %s : f16
    linalg.yield %t : f16
  } -> tensor<4x256xf16>
  %si = linalg.fill ins(%zero : f16) outs(%r0 : tensor<4xf16>) -> tensor<4xf16>
  %sum = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%e : tensor<4x256xf16>) outs(%si : tensor<4xf16>) {
  ^bb0(%in: f16, %out: f16):
    %a = arith.addf %in, %out : f16
    linalg.yield %a : f16
  } -> tensor<4xf16>
  %y = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%e, %sum : tensor<4x256xf16>, tensor<4xf16>) outs(%full : tensor<4x256xf16>) {
  ^bb0(%a: f16, %b: f16, %out: f16):
    %d = arith.divf %a, %b : f16
    linalg.yield %d : f16
  } -> tensor<4x256xf16>
  return %y : tensor<4x256xf16>
}
func.func @maxnumf_lowest_f32(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %init = arith.constant 0xFF7FFFFF : f32
  %zero = arith.constant 0.0 : f32
  %r0 = tensor.empty() : tensor<4xf32>
  %full = tensor.empty() : tensor<4x64xf32>
  %mi = linalg.fill ins(%init : f32) outs(%r0 : tensor<4xf32>) -> tensor<4xf32>
  %mx = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x64xf32>) outs(%mi : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maxnumf %in, %out : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  %e = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%x, %mx : tensor<4x64xf32>, tensor<4xf32>) outs(%full : tensor<4x64xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.subf %a, %b : f32
    %t = math.exp %s : f32
    linalg.yield %t : f32
  } -> tensor<4x64xf32>
  %si = linalg.fill ins(%zero : f32) outs(%r0 : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%e : tensor<4x64xf32>) outs(%si : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  } -> tensor<4xf32>
  %y = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%e, %sum : tensor<4x64xf32>, tensor<4xf32>) outs(%full : tensor<4x64xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %d = arith.divf %a, %b : f32
    linalg.yield %d : f32
  } -> tensor<4x64xf32>
  return %y : tensor<4x64xf32>
}
func.func @maxnumf_not_lowest(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %init = arith.constant -3.2e38 : f32
  %zero = arith.constant 0.0 : f32
  %r0 = tensor.empty() : tensor<4xf32>
  %full = tensor.empty() : tensor<4x64xf32>
  %mi = linalg.fill ins(%init : f32) outs(%r0 : tensor<4xf32>) -> tensor<4xf32>
  %mx = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x64xf32>) outs(%mi : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maxnumf %in, %out : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  %e = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%x, %mx : tensor<4x64xf32>, tensor<4xf32>) outs(%full : tensor<4x64xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.subf %a, %b : f32
    %t = math.exp %s : f32
    linalg.yield %t : f32
  } -> tensor<4x64xf32>
  %si = linalg.fill ins(%zero : f32) outs(%r0 : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%e : tensor<4x64xf32>) outs(%si : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  } -> tensor<4xf32>
  %y = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%e, %sum : tensor<4x64xf32>, tensor<4xf32>) outs(%full : tensor<4x64xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %d = arith.divf %a, %b : f32
    linalg.yield %d : f32
  } -> tensor<4x64xf32>
  return %y : tensor<4x64xf32>
}
func.func @maximumf_f16_as_f32_lowest(%x: tensor<4x64xf16>) -> tensor<4x64xf16> {
  %init = arith.constant 0xFBFE : f16
  %zero = arith.constant 0.0 : f16
  %r0 = tensor.empty() : tensor<4xf16>
  %full = tensor.empty() : tensor<4x64xf16>
  %mi = linalg.fill ins(%init : f16) outs(%r0 : tensor<4xf16>) -> tensor<4xf16>
  %mx = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x64xf16>) outs(%mi : tensor<4xf16>) {
  ^bb0(%in: f16, %out: f16):
    %m = arith.maximumf %in, %out : f16
    linalg.yield %m : f16
  } -> tensor<4xf16>
  %e = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%x, %mx : tensor<4x64xf16>, tensor<4xf16>) outs(%full : tensor<4x64xf16>) {
  ^bb0(%a: f16, %b: f16, %out: f16):
    %s = arith.subf %a, %b : f16
    %t = math.exp %s : f16
    linalg.yield %t : f16
  } -> tensor<4x64xf16>
  %si = linalg.fill ins(%zero : f16) outs(%r0 : tensor<4xf16>) -> tensor<4xf16>
  %sum = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%e : tensor<4x64xf16>) outs(%si : tensor<4xf16>) {
  ^bb0(%in: f16, %out: f16):
    %a = arith.addf %in, %out : f16
    linalg.yield %a : f16
  } -> tensor<4xf16>
  %y = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%e, %sum : tensor<4x64xf16>, tensor<4xf16>) outs(%full : tensor<4x64xf16>) {
  ^bb0(%a: f16, %b: f16, %out: f16):
    %d = arith.divf %a, %b : f16
    linalg.yield %d : f16
  } -> tensor<4x64xf16>
  return %y : tensor<4x64xf16>
}
