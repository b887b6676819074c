// Derived by hand from goldens/torch_softmax_dyn_f16.mlir (torch-mlir's decomposed
// softmax with a dynamic batch): its N made dynamic too (?x1000 -> ?x?, the empty
// tensors' sizes from tensor.dim), a frontend chain with a run-time N.
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
#map2 = affine_map<(d0, d1) -> (d0, 0)>
module {
  func.func @softmax_dyn_n_f16(%arg0: tensor<?x?xf16>) -> tensor<?x?xf16> {
    %c0 = arith.constant 0 : index
    %c0_i64 = arith.constant 0 : i64
    %cst = arith.constant 0xFF800000 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %dim = tensor.dim %arg0, %c0 : tensor<?x?xf16>
    %c1 = arith.constant 1 : index
    %dim1 = tensor.dim %arg0, %c1 : tensor<?x?xf16>
    %0 = tensor.empty(%dim, %dim1) : tensor<?x?xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<?x?xf16>) outs(%0 : tensor<?x?xf32>) {
    ^bb0(%in: f16, %out: f32):
      %15 = arith.extf %in : f16 to f32
      linalg.yield %15 : f32
    } -> tensor<?x?xf32>
    %2 = tensor.empty(%dim) : tensor<?xi64>
    %3 = linalg.fill ins(%c0_i64 : i64) outs(%2 : tensor<?xi64>) -> tensor<?xi64>
    %4 = tensor.empty(%dim) : tensor<?xf32>
    %5 = linalg.fill ins(%cst : f32) outs(%4 : tensor<?xf32>) -> tensor<?xf32>
    %6:2 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "reduction"]} ins(%1 : tensor<?x?xf32>) outs(%5, %3 : tensor<?xf32>, tensor<?xi64>) {
    ^bb0(%in: f32, %out: f32, %out_1: i64):
      %15 = linalg.index 1 : index
      %16 = arith.index_cast %15 : index to i64
      %17 = arith.maximumf %in, %out : f32
      %18 = arith.cmpf ogt, %in, %out : f32
      %19 = arith.select %18, %16, %out_1 : i64
      linalg.yield %17, %19 : f32, i64
    } -> (tensor<?xf32>, tensor<?xi64>)
    %expanded = tensor.expand_shape %6#0 [[0, 1]] output_shape [%dim, 1] : tensor<?xf32> into tensor<?x1xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%1, %expanded : tensor<?x?xf32>, tensor<?x1xf32>) outs(%0 : tensor<?x?xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %15 = arith.subf %in, %in_1 : f32
      linalg.yield %15 : f32
    } -> tensor<?x?xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%7 : tensor<?x?xf32>) outs(%0 : tensor<?x?xf32>) {
    ^bb0(%in: f32, %out: f32):
      %15 = math.exp %in : f32
      linalg.yield %15 : f32
    } -> tensor<?x?xf32>
    %9 = tensor.empty(%dim) : tensor<?x1xf32>
    %10 = linalg.fill ins(%cst_0 : f32) outs(%9 : tensor<?x1xf32>) -> tensor<?x1xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["parallel", "reduction"]} ins(%8 : tensor<?x?xf32>) outs(%10 : tensor<?x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %15 = arith.addf %in, %out : f32
      linalg.yield %15 : f32
    } -> tensor<?x1xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%8, %11 : tensor<?x?xf32>, tensor<?x1xf32>) outs(%0 : tensor<?x?xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %15 = arith.divf %in, %in_1 : f32
      linalg.yield %15 : f32
    } -> tensor<?x?xf32>
    %13 = tensor.empty(%dim, %dim1) : tensor<?x?xf16>
    %14 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%12 : tensor<?x?xf32>) outs(%13 : tensor<?x?xf16>) {
    ^bb0(%in: f32, %out: f16):
      %15 = arith.truncf %in : f32 to f16
      linalg.yield %15 : f16
    } -> tensor<?x?xf16>
    return %14 : tensor<?x?xf16>
  }
}
