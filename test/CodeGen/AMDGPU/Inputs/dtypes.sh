#!/usr/bin/env bash
# For every AMD arch and dtype: the plan's vector line, then the distinct
# mnemonics of the instructions dtypes.test looks for (global 16-byte memory
# operations, conversions, the bf16 round-to-nearest-even pieces).
#   dtypes.sh SOFTGEN
set -u
sg=$1
for a in gfx90a gfx942 gfx950 gfx1100 gfx1201; do
  for d in f16 bf16 f32; do
    echo "== $a $d"
    "$sg" softmax -D N=4096 --dtype "$d" --target amdgpu --arch "$a" --print-config | grep vector
    "$sg" softmax -D N=4096 --dtype "$d" --target amdgpu --arch "$a" --emit asm -o - |
      grep -E '^\s(global_(load|store)_(dwordx4|b128)|v_cvt_f32_f16|v_cvt_pk_bf16_f32|v_bfe_u32 .*, 16, 1$|v_add3_u32 )' |
      awk '{print $1}' | sort -u
  done
done
