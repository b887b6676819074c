// torch-mlir torch_mlir.fx.export_and_import(..., output_type='linalg-on-tensors'), torch 2.15.0+cu132
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
module {
  func.func @near_normalize_f32(%arg0: tensor<4x1000xf32>) -> tensor<4x1000xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<4x1xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<4x1xf32>) -> tensor<4x1xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<4x1000xf32>) outs(%1 : tensor<4x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %5 = arith.addf %in, %out : f32
      linalg.yield %5 : f32
    } -> tensor<4x1xf32>
    %3 = tensor.empty() : tensor<4x1000xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %2 : tensor<4x1000xf32>, tensor<4x1xf32>) outs(%3 : tensor<4x1000xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %5 = arith.divf %in, %in_0 : f32
      linalg.yield %5 : f32
    } -> tensor<4x1000xf32>
    return %4 : tensor<4x1000xf32>
  }
}
