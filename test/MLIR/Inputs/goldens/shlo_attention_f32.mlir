// jax 0.10.2: jax.jit(f).lower(...).as_text() (StableHLO), then
// iree-compile --compile-to=input (IREE's StableHLO input conversion to linalg);
// util.func / util.return renamed func.func / func.return
module @jit__lambda {
  func.func @main(%arg0: tensor<2x4x64x32xf32>, %arg1: tensor<2x4x64x32xf32>, %arg2: tensor<2x4x64x32xf32>) -> tensor<2x4x64x32xf32> {
    %cst = arith.constant 0xFF800000 : f32
    %cst_0 = arith.constant 1.250000e-01 : f32
    %cst_1 = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<2x4x32x64xf32>
    %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg1 : tensor<2x4x64x32xf32>) outs(%0 : tensor<2x4x32x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<2x4x32x64xf32>
    %collapsed = tensor.collapse_shape %arg0 [[0, 1], [2], [3]] : tensor<2x4x64x32xf32> into tensor<8x64x32xf32>
    %collapsed_2 = tensor.collapse_shape %1 [[0, 1], [2], [3]] : tensor<2x4x32x64xf32> into tensor<8x32x64xf32>
    %2 = tensor.empty() : tensor<8x64x64xf32>
    %3 = linalg.fill ins(%cst_1 : f32) outs(%2 : tensor<8x64x64xf32>) -> tensor<8x64x64xf32>
    %4 = linalg.batch_matmul ins(%collapsed, %collapsed_2 : tensor<8x64x32xf32>, tensor<8x32x64xf32>) outs(%3 : tensor<8x64x64xf32>) -> tensor<8x64x64xf32>
    %expanded = tensor.expand_shape %4 [[0, 1], [2], [3]] output_shape [2, 4, 64, 64] : tensor<8x64x64xf32> into tensor<2x4x64x64xf32>
    %5 = tensor.empty() : tensor<2x4x64x64xf32>
    %6 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded : tensor<2x4x64x64xf32>) outs(%5 : tensor<2x4x64x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %26 = arith.mulf %in, %cst_0 : f32
      linalg.yield %26 : f32
    } -> tensor<2x4x64x64xf32>
    %7 = tensor.empty() : tensor<2x4x64xf32>
    %8 = linalg.fill ins(%cst : f32) outs(%7 : tensor<2x4x64xf32>) -> tensor<2x4x64xf32>
    %9 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%6 : tensor<2x4x64x64xf32>) outs(%8 : tensor<2x4x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %26 = arith.maximumf %out, %in : f32
      linalg.yield %26 : f32
    } -> tensor<2x4x64xf32>
    %10 = tensor.empty() : tensor<2x4x64x64xf32>
    %11 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%9 : tensor<2x4x64xf32>) outs(%10 : tensor<2x4x64x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<2x4x64x64xf32>
    %12 = tensor.empty() : tensor<2x4x64x64xf32>
    %13 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%6, %11 : tensor<2x4x64x64xf32>, tensor<2x4x64x64xf32>) outs(%12 : tensor<2x4x64x64xf32>) {
    ^bb0(%in: f32, %in_6: f32, %out: f32):
      %26 = arith.subf %in, %in_6 : f32
      linalg.yield %26 : f32
    } -> tensor<2x4x64x64xf32>
    %14 = tensor.empty() : tensor<2x4x64x64xf32>
    %15 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%13 : tensor<2x4x64x64xf32>) outs(%14 : tensor<2x4x64x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %26 = math.exp %in : f32
      linalg.yield %26 : f32
    } -> tensor<2x4x64x64xf32>
    %16 = tensor.empty() : tensor<2x4x64xf32>
    %17 = linalg.fill ins(%cst_1 : f32) outs(%16 : tensor<2x4x64xf32>) -> tensor<2x4x64xf32>
    %18 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%15 : tensor<2x4x64x64xf32>) outs(%17 : tensor<2x4x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %26 = arith.addf %out, %in : f32
      linalg.yield %26 : f32
    } -> tensor<2x4x64xf32>
    %19 = tensor.empty() : tensor<2x4x64x64xf32>
    %20 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%18 : tensor<2x4x64xf32>) outs(%19 : tensor<2x4x64x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<2x4x64x64xf32>
    %21 = tensor.empty() : tensor<2x4x64x64xf32>
    %22 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%15, %20 : tensor<2x4x64x64xf32>, tensor<2x4x64x64xf32>) outs(%21 : tensor<2x4x64x64xf32>) {
    ^bb0(%in: f32, %in_6: f32, %out: f32):
      %26 = arith.divf %in, %in_6 : f32
      linalg.yield %26 : f32
    } -> tensor<2x4x64x64xf32>
    %collapsed_3 = tensor.collapse_shape %22 [[0, 1], [2], [3]] : tensor<2x4x64x64xf32> into tensor<8x64x64xf32>
    %collapsed_4 = tensor.collapse_shape %arg2 [[0, 1], [2], [3]] : tensor<2x4x64x32xf32> into tensor<8x64x32xf32>
    %23 = tensor.empty() : tensor<8x64x32xf32>
    %24 = linalg.fill ins(%cst_1 : f32) outs(%23 : tensor<8x64x32xf32>) -> tensor<8x64x32xf32>
    %25 = linalg.batch_matmul ins(%collapsed_3, %collapsed_4 : tensor<8x64x64xf32>, tensor<8x64x32xf32>) outs(%24 : tensor<8x64x32xf32>) -> tensor<8x64x32xf32>
    %expanded_5 = tensor.expand_shape %25 [[0, 1], [2], [3]] output_shape [2, 4, 64, 32] : tensor<8x64x32xf32> into tensor<2x4x64x32xf32>
    func.return %expanded_5 : tensor<2x4x64x32xf32>
  }
}
