// torch-mlir export_and_import(..., output_type='tosa'), then
// mlir-opt-22 --pass-pipeline='builtin.module(func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith,tosa-to-tensor),canonicalize)'
#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map2 = affine_map<(d0, d1, d2, d3) -> (0, 0, 0, 0)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
module {
  func.func @attention_f16(%arg0: tensor<2x4x64x32xf16>, %arg1: tensor<2x4x64x32xf16>, %arg2: tensor<2x4x64x32xf16>) -> tensor<2x4x64x32xf16> {
    %cst = arith.constant 1.000000e+00 : f32
    %cst_0 = arith.constant -3.40282347E+38 : f32
    %cst_1 = arith.constant 0.000000e+00 : f32
    %cst_2 = arith.constant dense<1.250000e-01> : tensor<1x1x1x1xf16>
    %0 = tensor.empty() : tensor<2x4x32x64xf16>
    %transposed = linalg.transpose ins(%arg1 : tensor<2x4x64x32xf16>) outs(%0 : tensor<2x4x32x64xf16>) permutation = [0, 1, 3, 2] 
    %collapsed = tensor.collapse_shape %arg0 [[0, 1], [2], [3]] : tensor<2x4x64x32xf16> into tensor<8x64x32xf16>
    %collapsed_3 = tensor.collapse_shape %transposed [[0, 1], [2], [3]] : tensor<2x4x32x64xf16> into tensor<8x32x64xf16>
    %1 = tensor.empty() : tensor<8x64x64xf32>
    %2 = linalg.fill ins(%cst_1 : f32) outs(%1 : tensor<8x64x64xf32>) -> tensor<8x64x64xf32>
    %3 = linalg.batch_matmul ins(%collapsed, %collapsed_3 : tensor<8x64x32xf16>, tensor<8x32x64xf16>) outs(%2 : tensor<8x64x64xf32>) -> tensor<8x64x64xf32>
    %4 = tensor.empty() : tensor<8x64x64xf16>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%3 : tensor<8x64x64xf32>) outs(%4 : tensor<8x64x64xf16>) {
    ^bb0(%in: f32, %out: f16):
      %29 = arith.truncf %in : f32 to f16
      linalg.yield %29 : f16
    } -> tensor<8x64x64xf16>
    %expanded = tensor.expand_shape %5 [[0, 1], [2], [3]] output_shape [2, 4, 64, 64] : tensor<8x64x64xf16> into tensor<2x4x64x64xf16>
    %6 = tensor.empty() : tensor<2x4x64x64xf16>
    %7 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded, %cst_2 : tensor<2x4x64x64xf16>, tensor<1x1x1x1xf16>) outs(%6 : tensor<2x4x64x64xf16>) {
    ^bb0(%in: f16, %in_10: f16, %out: f16):
      %29 = arith.mulf %in, %in_10 : f16
      linalg.yield %29 : f16
    } -> tensor<2x4x64x64xf16>
    %8 = tensor.empty() : tensor<2x4x64x64xf32>
    %9 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%7 : tensor<2x4x64x64xf16>) outs(%8 : tensor<2x4x64x64xf32>) {
    ^bb0(%in: f16, %out: f32):
      %29 = arith.extf %in : f16 to f32
      linalg.yield %29 : f32
    } -> tensor<2x4x64x64xf32>
    %10 = tensor.empty() : tensor<2x4x64xf32>
    %11 = linalg.fill ins(%cst_0 : f32) outs(%10 : tensor<2x4x64xf32>) -> tensor<2x4x64xf32>
    %reduced = linalg.reduce ins(%9 : tensor<2x4x64x64xf32>) outs(%11 : tensor<2x4x64xf32>) dimensions = [3] 
      (%in: f32, %init: f32) {
        %29 = arith.maximumf %in, %init : f32
        linalg.yield %29 : f32
      }
    %expanded_4 = tensor.expand_shape %reduced [[0], [1], [2, 3]] output_shape [2, 4, 64, 1] : tensor<2x4x64xf32> into tensor<2x4x64x1xf32>
    %12 = tensor.empty() : tensor<2x4x64x64xf32>
    %13 = linalg.generic {indexing_maps = [#map1, #map3, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%9, %expanded_4 : tensor<2x4x64x64xf32>, tensor<2x4x64x1xf32>) outs(%12 : tensor<2x4x64x64xf32>) {
    ^bb0(%in: f32, %in_10: f32, %out: f32):
      %29 = arith.subf %in, %in_10 : f32
      linalg.yield %29 : f32
    } -> tensor<2x4x64x64xf32>
    %14 = tensor.empty() : tensor<2x4x64x64xf32>
    %15 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%13 : tensor<2x4x64x64xf32>) outs(%14 : tensor<2x4x64x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %29 = math.exp %in : f32
      linalg.yield %29 : f32
    } -> tensor<2x4x64x64xf32>
    %16 = tensor.empty() : tensor<2x4x64xf32>
    %17 = linalg.fill ins(%cst_1 : f32) outs(%16 : tensor<2x4x64xf32>) -> tensor<2x4x64xf32>
    %reduced_5 = linalg.reduce ins(%15 : tensor<2x4x64x64xf32>) outs(%17 : tensor<2x4x64xf32>) dimensions = [3] 
      (%in: f32, %init: f32) {
        %29 = arith.addf %in, %init : f32
        linalg.yield %29 : f32
      }
    %expanded_6 = tensor.expand_shape %reduced_5 [[0], [1], [2, 3]] output_shape [2, 4, 64, 1] : tensor<2x4x64xf32> into tensor<2x4x64x1xf32>
    %18 = tensor.empty() : tensor<2x4x64x1xf32>
    %19 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_6 : tensor<2x4x64x1xf32>) outs(%18 : tensor<2x4x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %29 = arith.divf %cst, %in : f32
      linalg.yield %29 : f32
    } -> tensor<2x4x64x1xf32>
    %20 = tensor.empty() : tensor<2x4x64x64xf32>
    %21 = linalg.generic {indexing_maps = [#map1, #map3, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%15, %19 : tensor<2x4x64x64xf32>, tensor<2x4x64x1xf32>) outs(%20 : tensor<2x4x64x64xf32>) {
    ^bb0(%in: f32, %in_10: f32, %out: f32):
      %29 = arith.mulf %in, %in_10 : f32
      linalg.yield %29 : f32
    } -> tensor<2x4x64x64xf32>
    %22 = tensor.empty() : tensor<2x4x64x64xf16>
    %23 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%21 : tensor<2x4x64x64xf32>) outs(%22 : tensor<2x4x64x64xf16>) {
    ^bb0(%in: f32, %out: f16):
      %29 = arith.truncf %in : f32 to f16
      linalg.yield %29 : f16
    } -> tensor<2x4x64x64xf16>
    %collapsed_7 = tensor.collapse_shape %23 [[0, 1], [2], [3]] : tensor<2x4x64x64xf16> into tensor<8x64x64xf16>
    %collapsed_8 = tensor.collapse_shape %arg2 [[0, 1], [2], [3]] : tensor<2x4x64x32xf16> into tensor<8x64x32xf16>
    %24 = tensor.empty() : tensor<8x64x32xf32>
    %25 = linalg.fill ins(%cst_1 : f32) outs(%24 : tensor<8x64x32xf32>) -> tensor<8x64x32xf32>
    %26 = linalg.batch_matmul ins(%collapsed_7, %collapsed_8 : tensor<8x64x64xf16>, tensor<8x64x32xf16>) outs(%25 : tensor<8x64x32xf32>) -> tensor<8x64x32xf32>
    %27 = tensor.empty() : tensor<8x64x32xf16>
    %28 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%26 : tensor<8x64x32xf32>) outs(%27 : tensor<8x64x32xf16>) {
    ^bb0(%in: f32, %out: f16):
      %29 = arith.truncf %in : f32 to f16
      linalg.yield %29 : f16
    } -> tensor<8x64x32xf16>
    %expanded_9 = tensor.expand_shape %28 [[0, 1], [2], [3]] output_shape [2, 4, 64, 32] : tensor<8x64x32xf16> into tensor<2x4x64x32xf16>
    return %expanded_9 : tensor<2x4x64x32xf16>
  }
}
