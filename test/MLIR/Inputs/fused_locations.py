"""Writes a module whose linalg.softmax ops carry a location of 16 levels of
fused locations, 16 distinct ones a level, each fusing the 16 of the level
below (a DAG of 256 locations standing for 16^16 paths), and no file:line:col
anywhere: test/MLIR/fused-locations.test.

    fused_locations.py OUT.mlir"""
import sys

W = D = 16
lines = ['#l0_%d = loc("n0_%d")' % (j, j) for j in range(W)]
for k in range(1, D):
    for j in range(W):
        below = ", ".join("#l%d_%d" % (k - 1, i) for i in range(W))
        lines.append('#l%d_%d = loc(fused<"%d_%d">[%s])' % (k, j, k, j, below))
lines.append("""func.func @f(%x: memref<64x256xf32>, %y: memref<64x256xf32>, %t: tensor<8x32xf16>)
    -> tensor<8x32xf16> {
  linalg.softmax dimension(1) ins(%x : memref<64x256xf32>) outs(%y : memref<64x256xf32>) loc(#l15_0)
  %e = tensor.empty() : tensor<8x32xf16>
  %r = linalg.softmax dimension(1) ins(%t : tensor<8x32xf16>) outs(%e : tensor<8x32xf16>) -> tensor<8x32xf16> loc(#l15_1)
  return %r : tensor<8x32xf16>
}""")
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
