#!/usr/bin/env bash
# For each arch x N x constraint set: compares the plan's shared_memory bytes
# (--print-config) with the code object's .group_segment_fixed_size note.
#   lds-plan.sh SOFTGEN WORKDIR
# Prints "same ARCH N BYTES" or "DIFFERENT ..." per compiled case and
# "rejected ..." for plans softgen refuses.
set -u
sg=$1 dir=$2
mkdir -p "$dir"
for a in gfx90a gfx942 gfx950 gfx1100 gfx1201; do
  for n in 128 1000 1024 4097 8192 32768; do
    for c in '' 'WorkgroupConstraint(M, 4, 0)' 'HardwareConstraint(threads_per_wave=64, waves_per_block=(8,1,1))'; do
      args=(softmax -D N="$n" --target amdgpu --arch "$a")
      [ -n "$c" ] && args+=(-C "$c")
      if ! "$sg" "${args[@]}" --emit obj -o "$dir/k.hsaco" >/dev/null 2>"$dir/err"; then
        echo "rejected $a N=$n '$c': $(head -1 "$dir/err")"
        continue
      fi
      plan=$("$sg" "${args[@]}" --print-config | sed -n 's/^  shared_memory *\([0-9]*\) bytes.*/\1/p')
      lds=$(llvm-readelf --notes "$dir/k.hsaco" | sed -n 's/^ *\.group_segment_fixed_size: *//p')
      if [ -n "$plan" ] && [ "$plan" = "$lds" ]; then
        echo "same $a $n $plan"
      else
        echo "DIFFERENT $a N=$n '$c': plan '$plan', notes '$lds'"
      fi
    done
  done
done
