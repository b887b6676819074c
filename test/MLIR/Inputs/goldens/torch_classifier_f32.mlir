// torch-mlir torch_mlir.fx.export_and_import(..., output_type='linalg-on-tensors'), torch 2.15.0+cu132
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
#map2 = affine_map<(d0, d1) -> (d0)>
#map3 = affine_map<(d0, d1) -> (d0, 0)>
module {
  func.func @classifier_f32(%arg0: tensor<8x256xf32>, %arg1: tensor<32000x256xf32>, %arg2: tensor<32000xf32>) -> tensor<8x32000xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %c0_i64 = arith.constant 0 : i64
    %cst_0 = arith.constant 0xFF800000 : f32
    %0 = tensor.empty() : tensor<256x32000xf32>
    %transposed = linalg.transpose ins(%arg1 : tensor<32000x256xf32>) outs(%0 : tensor<256x32000xf32>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<8x32000xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<8x32000xf32>) -> tensor<8x32000xf32>
    %3 = linalg.matmul ins(%arg0, %transposed : tensor<8x256xf32>, tensor<256x32000xf32>) outs(%2 : tensor<8x32000xf32>) -> tensor<8x32000xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%3, %arg2 : tensor<8x32000xf32>, tensor<32000xf32>) outs(%1 : tensor<8x32000xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %16 = arith.addf %in, %in_1 : f32
      linalg.yield %16 : f32
    } -> tensor<8x32000xf32>
    %5 = tensor.empty() : tensor<8xi64>
    %6 = linalg.fill ins(%c0_i64 : i64) outs(%5 : tensor<8xi64>) -> tensor<8xi64>
    %7 = tensor.empty() : tensor<8xf32>
    %8 = linalg.fill ins(%cst_0 : f32) outs(%7 : tensor<8xf32>) -> tensor<8xf32>
    %9:2 = linalg.generic {indexing_maps = [#map, #map2, #map2], iterator_types = ["parallel", "reduction"]} ins(%4 : tensor<8x32000xf32>) outs(%8, %6 : tensor<8xf32>, tensor<8xi64>) {
    ^bb0(%in: f32, %out: f32, %out_1: i64):
      %16 = linalg.index 1 : index
      %17 = arith.index_cast %16 : index to i64
      %18 = arith.maximumf %in, %out : f32
      %19 = arith.cmpf ogt, %in, %out : f32
      %20 = arith.select %19, %17, %out_1 : i64
      linalg.yield %18, %20 : f32, i64
    } -> (tensor<8xf32>, tensor<8xi64>)
    %expanded = tensor.expand_shape %9#0 [[0, 1]] output_shape [8, 1] : tensor<8xf32> into tensor<8x1xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%4, %expanded : tensor<8x32000xf32>, tensor<8x1xf32>) outs(%1 : tensor<8x32000xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %16 = arith.subf %in, %in_1 : f32
      linalg.yield %16 : f32
    } -> tensor<8x32000xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%10 : tensor<8x32000xf32>) outs(%1 : tensor<8x32000xf32>) {
    ^bb0(%in: f32, %out: f32):
      %16 = math.exp %in : f32
      linalg.yield %16 : f32
    } -> tensor<8x32000xf32>
    %12 = tensor.empty() : tensor<8x1xf32>
    %13 = linalg.fill ins(%cst : f32) outs(%12 : tensor<8x1xf32>) -> tensor<8x1xf32>
    %14 = linalg.generic {indexing_maps = [#map, #map3], iterator_types = ["parallel", "reduction"]} ins(%11 : tensor<8x32000xf32>) outs(%13 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %16 = arith.addf %in, %out : f32
      linalg.yield %16 : f32
    } -> tensor<8x1xf32>
    %15 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%11, %14 : tensor<8x32000xf32>, tensor<8x1xf32>) outs(%1 : tensor<8x32000xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %16 = arith.divf %in, %in_1 : f32
      linalg.yield %16 : f32
    } -> tensor<8x32000xf32>
    return %15 : tensor<8x32000xf32>
  }
}
