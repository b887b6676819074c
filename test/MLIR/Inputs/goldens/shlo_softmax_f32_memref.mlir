// shlo_softmax_f32.mlir through mlir-opt-22 --one-shot-bufferize=bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
module @jit__lambda {
  func.func @main(%arg0: memref<4x1000xf32>) -> memref<4x1000xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 0xFF800000 : f32
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
    linalg.fill ins(%cst_0 : f32) outs(%alloc : memref<4xf32>)
    linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%arg0 : memref<4x1000xf32>) outs(%alloc : memref<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %0 = arith.maximumf %out, %in : f32
      linalg.yield %0 : f32
    }
    %alloc_1 = memref.alloc() {alignment = 64 : i64} : memref<4x1000xf32>
    linalg.generic {indexing_maps = [#map1, #map], iterator_types = ["parallel", "parallel"]} ins(%alloc : memref<4xf32>) outs(%alloc_1 : memref<4x1000xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    }
    %alloc_2 = memref.alloc() {alignment = 64 : i64} : memref<4x1000xf32>
    linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %alloc_1 : memref<4x1000xf32>, memref<4x1000xf32>) outs(%alloc_2 : memref<4x1000xf32>) {
    ^bb0(%in: f32, %in_7: f32, %out: f32):
      %0 = arith.subf %in, %in_7 : f32
      linalg.yield %0 : f32
    }
    %alloc_3 = memref.alloc() {alignment = 64 : i64} : memref<4x1000xf32>
    linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%alloc_2 : memref<4x1000xf32>) outs(%alloc_3 : memref<4x1000xf32>) {
    ^bb0(%in: f32, %out: f32):
      %0 = math.exp %in : f32
      linalg.yield %0 : f32
    }
    %alloc_4 = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
    linalg.fill ins(%cst : f32) outs(%alloc_4 : memref<4xf32>)
    linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%alloc_3 : memref<4x1000xf32>) outs(%alloc_4 : memref<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %0 = arith.addf %out, %in : f32
      linalg.yield %0 : f32
    }
    %alloc_5 = memref.alloc() {alignment = 64 : i64} : memref<4x1000xf32>
    linalg.generic {indexing_maps = [#map1, #map], iterator_types = ["parallel", "parallel"]} ins(%alloc_4 : memref<4xf32>) outs(%alloc_5 : memref<4x1000xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    }
    %alloc_6 = memref.alloc() {alignment = 64 : i64} : memref<4x1000xf32>
    linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%alloc_3, %alloc_5 : memref<4x1000xf32>, memref<4x1000xf32>) outs(%alloc_6 : memref<4x1000xf32>) {
    ^bb0(%in: f32, %in_7: f32, %out: f32):
      %0 = arith.divf %in, %in_7 : f32
      linalg.yield %0 : f32
    }
    return %alloc_6 : memref<4x1000xf32>
  }
}
