#!/usr/bin/env bash
# ptxas-matrix.sh SOFTGEN PTXAS TMPDIR: compiles the constraint-set x dtype x N
# matrix for every NVPTX arch to a cubin (softgen runs PTXAS on its PTX: a cubin
# assembled by hand would carry the PTX's checksum, which the cubin's bytes do
# not match) and reads the metadata back from the cubin. One line per case: ok /
# rejected (softgen's plan) / FAIL (ptxas, or no metadata).
sg=$1 ptxas=$2 t=$3
sets=("" "WaveConstraint(M, 1)" "WorkgroupConstraint(M, 4, 0)"
      "HardwareConstraint(threads_per_wave=32, waves_per_block=(4,1,1), vector_shapes={M: 1, N: 1})")
for arch in sm_80 sm_89 sm_90 sm_90a sm_100; do
  for dt in f16 bf16 f32; do
    for n in 1 33 1000 1025 8192 32768; do
      for c in "${sets[@]}"; do
        args=(-D N="$n" --dtype "$dt" --arch "$arch" --emit obj --ptxas "$ptxas" -o "$t/k.cubin")
        [ -n "$c" ] && args+=(-C "$c")
        if "$sg" "${args[@]}" 2>"$t/err"; then
          if "$sg" --inspect "$t/k.cubin" 2>"$t/inspect.err" | grep -q "^n $n$"; then
            echo "ok $arch $dt $n [$c]"
          else
            echo "FAIL $arch $dt $n [$c]: $(head -3 "$t/inspect.err")"
          fi
        elif grep -q ptxas "$t/err"; then
          echo "FAIL $arch $dt $n [$c]: $(head -3 "$t/err")"
        else
          echo "rejected $arch $dt $n [$c]: $(cat "$t/err")"
        fi
      done
    done
  done
done
