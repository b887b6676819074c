// torch-mlir export_and_import(..., output_type='tosa'), then
// mlir-opt-22 --pass-pipeline='builtin.module(func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith,tosa-to-tensor),canonicalize)'
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
module {
  func.func @softmax_f16(%arg0: tensor<4x1000xf16>) -> tensor<4x1000xf16> {
    %cst = arith.constant 1.000000e+00 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %cst_1 = arith.constant -3.40282347E+38 : f32
    %0 = tensor.empty() : tensor<4x1000xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<4x1000xf16>) outs(%0 : tensor<4x1000xf32>) {
    ^bb0(%in: f16, %out: f32):
      %16 = arith.extf %in : f16 to f32
      linalg.yield %16 : f32
    } -> tensor<4x1000xf32>
    %2 = tensor.empty() : tensor<4xf32>
    %3 = linalg.fill ins(%cst_1 : f32) outs(%2 : tensor<4xf32>) -> tensor<4xf32>
    %reduced = linalg.reduce ins(%1 : tensor<4x1000xf32>) outs(%3 : tensor<4xf32>) dimensions = [1] 
      (%in: f32, %init: f32) {
        %16 = arith.maximumf %in, %init : f32
        linalg.yield %16 : f32
      }
    %expanded = tensor.expand_shape %reduced [[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
    %4 = tensor.empty() : tensor<4x1000xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%1, %expanded : tensor<4x1000xf32>, tensor<4x1xf32>) outs(%4 : tensor<4x1000xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %16 = arith.subf %in, %in_4 : f32
      linalg.yield %16 : f32
    } -> tensor<4x1000xf32>
    %6 = tensor.empty() : tensor<4x1000xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%5 : tensor<4x1000xf32>) outs(%6 : tensor<4x1000xf32>) {
    ^bb0(%in: f32, %out: f32):
      %16 = math.exp %in : f32
      linalg.yield %16 : f32
    } -> tensor<4x1000xf32>
    %8 = tensor.empty() : tensor<4xf32>
    %9 = linalg.fill ins(%cst_0 : f32) outs(%8 : tensor<4xf32>) -> tensor<4xf32>
    %reduced_2 = linalg.reduce ins(%7 : tensor<4x1000xf32>) outs(%9 : tensor<4xf32>) dimensions = [1] 
      (%in: f32, %init: f32) {
        %16 = arith.addf %in, %init : f32
        linalg.yield %16 : f32
      }
    %expanded_3 = tensor.expand_shape %reduced_2 [[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
    %10 = tensor.empty() : tensor<4x1xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%expanded_3 : tensor<4x1xf32>) outs(%10 : tensor<4x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %16 = arith.divf %cst, %in : f32
      linalg.yield %16 : f32
    } -> tensor<4x1xf32>
    %12 = tensor.empty() : tensor<4x1000xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%7, %11 : tensor<4x1000xf32>, tensor<4x1xf32>) outs(%12 : tensor<4x1000xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %16 = arith.mulf %in, %in_4 : f32
      linalg.yield %16 : f32
    } -> tensor<4x1000xf32>
    %14 = tensor.empty() : tensor<4x1000xf16>
    %15 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%13 : tensor<4x1000xf32>) outs(%14 : tensor<4x1000xf16>) {
    ^bb0(%in: f32, %out: f16):
      %16 = arith.truncf %in : f32 to f16
      linalg.yield %16 : f16
    } -> tensor<4x1000xf16>
    return %15 : tensor<4x1000xf16>
  }
}
