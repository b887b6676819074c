#!/usr/bin/env bash
# Compiles the constraint sets of the NVPTX GPU matrix (test/gpu/generate.sh)
# for one AMD arch, for every dtype and a few N:
#   matrix.sh SOFTGEN ARCH WORKDIR
# Prints one line per case: "built ..." (a .hsaco whose notes name the arch and
# the kernel, with no private segment and no spills), "rejected ...: REASON" (exit status 1 and a softgen error), or
# "FAILED ..." (anything else), then a summary line.
set -u
sg=$1 arch=$2 dir=$3
mkdir -p "$dir"
declare -A sets=(
  [auto]=""
  [wave1]="WaveConstraint(M, 1)"
  [rows4]="WorkgroupConstraint(M, 4, 0)"
  # the NVPTX set names threads_per_wave=32; AMD's counterpart is 64
  [vec1]="HardwareConstraint(threads_per_wave=64, waves_per_block=(4,1,1), vector_shapes={M: 1, N: 1})"
  # NVPTX's wave size as given: RDNA runs it, CDNA must reject it
  [wave32]="HardwareConstraint(threads_per_wave=32)"
  # the later sets of generate.sh, threads_per_wave=32 written as 64 (same
  # block sizes: half the waves); '|' separates several -C texts
  [vec2]="HardwareConstraint(threads_per_wave=64, vector_shapes={M: 1, N: 2})"
  [rowinwave]="WaveConstraint(N, N)"
  [b1024]="HardwareConstraint(threads_per_wave=64, waves_per_block=(16,1,1))"
  [w2r1]="HardwareConstraint(threads_per_wave=64, waves_per_block=(1,1,1))|WorkgroupConstraint(M, 1, 0)"
  [w16r1]="HardwareConstraint(threads_per_wave=64, waves_per_block=(8,1,1))|WorkgroupConstraint(M, 1, 0)"
  [t1]="WaveConstraint(M, 64)"
)
built=0 rejected=0 failed=0
for set in auto wave1 rows4 vec1 wave32 vec2 rowinwave b1024 w2r1 w16r1 t1; do
  sb=$built sr=$rejected sf=$failed
  for dt in f16 bf16 f32; do
    for n in 1 33 1000 1025 8192 32768; do
      c=()
      if [ -n "${sets[$set]}" ]; then
        IFS='|' read -ra texts <<<"${sets[$set]}"
        for t in "${texts[@]}"; do c+=(-C "$t"); done
      fi
      case="$arch $set $dt N=$n"
      obj="$dir/$arch-$set-$dt-$n.hsaco"
      "$sg" softmax -D N="$n" --dtype "$dt" --target amdgpu --arch "$arch" "${c[@]}" \
        --emit obj -o "$obj" >/dev/null 2>"$dir/err"
      rc=$?
      notes=$( [ $rc -eq 0 ] && llvm-readelf --notes "$obj" 2>/dev/null)
      if [ $rc -eq 0 ] && grep -q "amdhsa.target: *amdgcn-amd-amdhsa--$arch\$" <<<"$notes" &&
         grep -q "\.name: *softgen_softmax_${dt}_n${n}\$" <<<"$notes" &&
         grep -q "\.private_segment_fixed_size: 0\$" <<<"$notes" &&
         grep -q "\.sgpr_spill_count: 0\$" <<<"$notes" &&
         grep -q "\.vgpr_spill_count: 0\$" <<<"$notes"; then
        echo "built $case"
        built=$((built + 1))
      elif [ $rc -eq 1 ] && grep -q '^softgen: error: ..' "$dir/err"; then
        echo "rejected $case: $(head -1 "$dir/err")"
        rejected=$((rejected + 1))
      else
        echo "FAILED $case (exit $rc): $(head -3 "$dir/err")"
        failed=$((failed + 1))
      fi
      rm -f "$obj"
    done
  done
  echo "set $arch $set: $((built - sb)) built, $((rejected - sr)) rejected, $((failed - sf)) failed"
done
echo "summary $arch: $built built, $rejected rejected with a reason, $failed failed"
