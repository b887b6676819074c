#!/usr/bin/env bash
# Generates the GPU suite's code objects on the build machine (which has LLVM):
#   test/gpu/generate.sh BUILD_DIR OUT_DIR [ARCH]
# writes OUT_DIR/<case>.cubin (.ptx for a few) and OUT_DIR/manifest.tsv with one
# line per object: file, template, dtype, N, constraint set name.
set -euo pipefail
build=$1 out=$2 arch=${3:-sm_90}
sg="$build/softgen"
mkdir -p "$out"
: >"$out/manifest.tsv"
ns="1 2 3 31 32 33 100 127 128 129 192 1000 1023 1024 1025 4097 8192 16384 32768"
# constraint sets: auto, plus user-given ones that force other paths
declare -A sets=(
  [auto]=""
  [wave1]="WaveConstraint(M, 1)"
  [rows4]="WorkgroupConstraint(M, 4, 0)"
  [vec1]="HardwareConstraint(threads_per_wave=32, waves_per_block=(4,1,1), vector_shapes={M: 1, N: 1})"
)
gen() { # name template dtype n set
  local name=$1 tpl=$2 dt=$3 n=$4 set=$5 c=()
  [ -n "${sets[$set]}" ] && c=(-C "${sets[$set]}")
  if "$sg" "$tpl" -D N="$n" --dtype "$dt" --arch "$arch" "${c[@]}" --emit obj -o "$out/$name.cubin" \
       >/dev/null 2>"$out/$name.err"; then
    printf '%s\t%s\t%s\t%s\t%s\n' "$name.cubin" "$tpl" "$dt" "$n" "$set" >>"$out/manifest.tsv"
    rm -f "$out/$name.err"
  else
    printf 'rejected %s: %s\n' "$name" "$(cat "$out/$name.err")" >>"$out/rejected.txt"
    rm -f "$out/$name.err"
  fi
}
for dt in f16 bf16 f32; do
  for n in $ns; do
    gen "softmax_${dt}_n${n}_auto" softmax "$dt" "$n" auto
  done
  for n in 1 33 1000 1025 8192; do
    for s in wave1 rows4 vec1; do gen "softmax_${dt}_n${n}_$s" softmax "$dt" "$n" "$s"; done
  done
done
# one PTX, loaded through the driver's JIT
"$sg" softmax -D N=1000 --dtype f32 --arch "$arch" --emit asm -o "$out/softmax_f32_n1000_ptx.ptx" >/dev/null
printf 'softmax_f32_n1000_ptx.ptx\tsoftmax\tf32\t1000\tptx\n' >>"$out/manifest.tsv"
echo "generated $(wc -l <"$out/manifest.tsv") code objects in $out"
