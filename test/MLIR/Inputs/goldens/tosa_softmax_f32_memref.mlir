// tosa_softmax_f32.mlir through mlir-opt-22 --one-shot-bufferize=bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
module {
  func.func @softmax_f32(%arg0: memref<4x1000xf32>) -> memref<4x1000xf32> {
    %cst = arith.constant 1.000000e+00 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %cst_1 = arith.constant -3.40282347E+38 : f32
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
    linalg.fill ins(%cst_1 : f32) outs(%alloc : memref<4xf32>)
    linalg.reduce ins(%arg0 : memref<4x1000xf32>) outs(%alloc : memref<4xf32>) dimensions = [1] 
      (%in: f32, %init: f32) {
        %0 = arith.maximumf %in, %init : f32
        linalg.yield %0 : f32
      }
    %expand_shape = memref.expand_shape %alloc [[0, 1]] output_shape [4, 1] : memref<4xf32> into memref<4x1xf32>
    %alloc_2 = memref.alloc() {alignment = 64 : i64} : memref<4x1000xf32>
    linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %expand_shape : memref<4x1000xf32>, memref<4x1xf32>) outs(%alloc_2 : memref<4x1000xf32>) {
    ^bb0(%in: f32, %in_8: f32, %out: f32):
      %0 = arith.subf %in, %in_8 : f32
      linalg.yield %0 : f32
    }
    %alloc_3 = memref.alloc() {alignment = 64 : i64} : memref<4x1000xf32>
    linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%alloc_2 : memref<4x1000xf32>) outs(%alloc_3 : memref<4x1000xf32>) {
    ^bb0(%in: f32, %out: f32):
      %0 = math.exp %in : f32
      linalg.yield %0 : f32
    }
    %alloc_4 = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
    linalg.fill ins(%cst_0 : f32) outs(%alloc_4 : memref<4xf32>)
    linalg.reduce ins(%alloc_3 : memref<4x1000xf32>) outs(%alloc_4 : memref<4xf32>) dimensions = [1] 
      (%in: f32, %init: f32) {
        %0 = arith.addf %in, %init : f32
        linalg.yield %0 : f32
      }
    %expand_shape_5 = memref.expand_shape %alloc_4 [[0, 1]] output_shape [4, 1] : memref<4xf32> into memref<4x1xf32>
    %alloc_6 = memref.alloc() {alignment = 64 : i64} : memref<4x1xf32>
    linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%expand_shape_5 : memref<4x1xf32>) outs(%alloc_6 : memref<4x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %0 = arith.divf %cst, %in : f32
      linalg.yield %0 : f32
    }
    %alloc_7 = memref.alloc() {alignment = 64 : i64} : memref<4x1000xf32>
    linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%alloc_3, %alloc_6 : memref<4x1000xf32>, memref<4x1xf32>) outs(%alloc_7 : memref<4x1000xf32>) {
    ^bb0(%in: f32, %in_8: f32, %out: f32):
      %0 = arith.mulf %in, %in_8 : f32
      linalg.yield %0 : f32
    }
    return %alloc_7 : memref<4x1000xf32>
  }
}
