// jax 0.10.2: jax.jit(f).lower(...).as_text() (StableHLO), then
// iree-compile --compile-to=input (IREE's StableHLO input conversion to linalg);
// util.func / util.return renamed func.func / func.return
module @jit__lambda {
  func.func @main(%arg0: tensor<4x1000xbf16>) -> tensor<4x1000xbf16> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 0xFF80 : bf16
    %0 = tensor.empty() : tensor<4xbf16>
    %1 = linalg.fill ins(%cst_0 : bf16) outs(%0 : tensor<4xbf16>) -> tensor<4xbf16>
    %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<4x1000xbf16>) outs(%1 : tensor<4xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      %20 = arith.maximumf %out, %in : bf16
      linalg.yield %20 : bf16
    } -> tensor<4xbf16>
    %3 = tensor.empty() : tensor<4x1000xbf16>
    %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<4xbf16>) outs(%3 : tensor<4x1000xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      linalg.yield %in : bf16
    } -> tensor<4x1000xbf16>
    %5 = tensor.empty() : tensor<4x1000xbf16>
    %6 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg0, %4 : tensor<4x1000xbf16>, tensor<4x1000xbf16>) outs(%5 : tensor<4x1000xbf16>) {
    ^bb0(%in: bf16, %in_1: bf16, %out: bf16):
      %20 = arith.subf %in, %in_1 : bf16
      linalg.yield %20 : bf16
    } -> tensor<4x1000xbf16>
    %7 = tensor.empty() : tensor<4x1000xbf16>
    %8 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%6 : tensor<4x1000xbf16>) outs(%7 : tensor<4x1000xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      %20 = math.exp %in : bf16
      linalg.yield %20 : bf16
    } -> tensor<4x1000xbf16>
    %9 = tensor.empty() : tensor<4x1000xf32>
    %10 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%8 : tensor<4x1000xbf16>) outs(%9 : tensor<4x1000xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %20 = arith.extf %in : bf16 to f32
      linalg.yield %20 : f32
    } -> tensor<4x1000xf32>
    %11 = tensor.empty() : tensor<4xf32>
    %12 = linalg.fill ins(%cst : f32) outs(%11 : tensor<4xf32>) -> tensor<4xf32>
    %13 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%10 : tensor<4x1000xf32>) outs(%12 : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %20 = arith.addf %out, %in : f32
      linalg.yield %20 : f32
    } -> tensor<4xf32>
    %14 = tensor.empty() : tensor<4xbf16>
    %15 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%13 : tensor<4xf32>) outs(%14 : tensor<4xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %20 = arith.truncf %in : f32 to bf16
      linalg.yield %20 : bf16
    } -> tensor<4xbf16>
    %expanded = tensor.expand_shape %15 [[0, 1]] output_shape [4, 1] : tensor<4xbf16> into tensor<4x1xbf16>
    %16 = tensor.empty() : tensor<4x1000xbf16>
    %17 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%expanded : tensor<4x1xbf16>) outs(%16 : tensor<4x1000xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      linalg.yield %in : bf16
    } -> tensor<4x1000xbf16>
    %18 = tensor.empty() : tensor<4x1000xbf16>
    %19 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%8, %17 : tensor<4x1000xbf16>, tensor<4x1000xbf16>) outs(%18 : tensor<4x1000xbf16>) {
    ^bb0(%in: bf16, %in_1: bf16, %out: bf16):
      %20 = arith.divf %in, %in_1 : bf16
      linalg.yield %20 : bf16
    } -> tensor<4x1000xbf16>
    func.return %19 : tensor<4x1000xbf16>
  }
}
