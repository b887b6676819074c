// torch_log_softmax_f32.mlir through mlir-opt-22 --one-shot-bufferize=bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
#map2 = affine_map<(d0, d1) -> (d0, 0)>
module {
  func.func @log_softmax_f32(%arg0: memref<4x1000xf32>) -> memref<4x1000xf32> {
    %c0_i64 = arith.constant 0 : i64
    %cst = arith.constant 0xFF800000 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<4xi64>
    linalg.fill ins(%c0_i64 : i64) outs(%alloc : memref<4xi64>)
    %alloc_1 = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
    linalg.fill ins(%cst : f32) outs(%alloc_1 : memref<4xf32>)
    linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "reduction"]} ins(%arg0 : memref<4x1000xf32>) outs(%alloc_1, %alloc : memref<4xf32>, memref<4xi64>) {
    ^bb0(%in: f32, %out: f32, %out_5: i64):
      %0 = linalg.index 1 : index
      %1 = arith.index_cast %0 : index to i64
      %2 = arith.maximumf %in, %out : f32
      %3 = arith.cmpf ogt, %in, %out : f32
      %4 = arith.select %3, %1, %out_5 : i64
      linalg.yield %2, %4 : f32, i64
    }
    %expand_shape = memref.expand_shape %alloc_1 [[0, 1]] output_shape [4, 1] : memref<4xf32> into memref<4x1xf32>
    %alloc_2 = memref.alloc() {alignment = 64 : i64} : memref<4x1000xf32>
    %alloc_3 = memref.alloc() {alignment = 64 : i64} : memref<4x1000xf32>
    linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %expand_shape : memref<4x1000xf32>, memref<4x1xf32>) outs(%alloc_3 : memref<4x1000xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %0 = arith.subf %in, %in_5 : f32
      linalg.yield %0 : f32
    }
    linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%alloc_3 : memref<4x1000xf32>) outs(%alloc_2 : memref<4x1000xf32>) {
    ^bb0(%in: f32, %out: f32):
      %0 = math.exp %in : f32
      linalg.yield %0 : f32
    }
    %alloc_4 = memref.alloc() {alignment = 64 : i64} : memref<4x1xf32>
    linalg.fill ins(%cst_0 : f32) outs(%alloc_4 : memref<4x1xf32>)
    linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["parallel", "reduction"]} ins(%alloc_2 : memref<4x1000xf32>) outs(%alloc_4 : memref<4x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %0 = arith.addf %in, %out : f32
      linalg.yield %0 : f32
    }
    linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%alloc_4 : memref<4x1xf32>) outs(%alloc_4 : memref<4x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %0 = math.log %in : f32
      linalg.yield %0 : f32
    }
    linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%alloc_3, %alloc_4 : memref<4x1000xf32>, memref<4x1xf32>) outs(%alloc_2 : memref<4x1000xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %0 = arith.subf %in, %in_5 : f32
      linalg.yield %0 : f32
    }
    return %alloc_2 : memref<4x1000xf32>
  }
}
