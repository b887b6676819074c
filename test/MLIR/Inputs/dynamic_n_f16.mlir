// A softmax over a dynamic reduced dim (and dynamic rows), on tensors: the
// input of run-lowered.test and test/gpu/mlir_e2e (N chosen at run time).
module {
  func.func @softmax_dyn(%x: tensor<?x?xf16>) -> tensor<?x?xf16> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %d0 = tensor.dim %x, %c0 : tensor<?x?xf16>
    %d1 = tensor.dim %x, %c1 : tensor<?x?xf16>
    %e = tensor.empty(%d0, %d1) : tensor<?x?xf16>
    %r = linalg.softmax dimension(1) ins(%x : tensor<?x?xf16>) outs(%e : tensor<?x?xf16>) -> tensor<?x?xf16>
    return %r : tensor<?x?xf16>
  }
}
