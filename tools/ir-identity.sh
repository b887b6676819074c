#!/usr/bin/env bash
# The generated code of a fixed set of kernels, as one fingerprint per kernel:
# a refactoring that must not change behaviour leaves every line the same.
#   tools/ir-identity.sh BUILD_DIR OUT.tsv         fingerprints of BUILD_DIR/softgen
#   tools/ir-identity.sh --compare A.tsv B.tsv     lists the kernels that differ; exit 1 if any
# Needs: BUILD_DIR/softgen (no ptxas: the objects are not compared, the PTX and IR are).
# Produces: OUT.tsv, one line per kernel: its id, then the SHA-256 of its LLVM IR as
# built (.ll), after O3 (.opt.ll), of its assembly (.ptx / .s) and of its plan
# (--print-config), or "rejected" and the SHA-256 of the error message (a rejection must
# stay the same rejection).
# The set: every template x dtype x a spread of N on nvptx sm_90, a few constraint sets
# that force the other row strategies (staged, copied ahead, several rows a block, a
# thread a row, a wave a row, a cluster), sm_80 (no clusters), the inner layout, f16 in
# and f32 out, amdgpu gfx942 and gfx1100 (wave 32), and the host target at fixed arches
# (x86-64-v3, v4: not "native", so that the set is the same on every machine).
set -euo pipefail
if [ "${1:-}" = "--compare" ]; then
  a=${2:?usage: ir-identity.sh --compare A.tsv B.tsv} b=${3:?usage: ir-identity.sh --compare A.tsv B.tsv}
  if diff <(sort "$a") <(sort "$b") >/dev/null; then
    echo "ir-identity: $(wc -l <"$a") kernels, all identical"
    exit 0
  fi
  echo "ir-identity: these kernels differ (< $a, > $b):"
  diff <(sort "$a") <(sort "$b") | grep '^[<>]' | cut -f1 | sort | uniq -c | sed 's/^ *[0-9]* / /'
  exit 1
fi
build=${1:?usage: ir-identity.sh BUILD_DIR OUT.tsv} out=${2:?usage: ir-identity.sh BUILD_DIR OUT.tsv}
sg="$(cd "$build" && pwd)/softgen"
[ -x "$sg" ] || { echo "ir-identity.sh: no softgen at $sg" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

templates="softmax log_softmax softmax_backward log_softmax_backward safe_softmax scaled_softmax
  masked_softmax causal_softmax attention_softmax safe_attention_softmax"
jobs="$tmp/jobs"
: >"$jobs"
job() { # job ID ARGS...: one kernel
  printf '%s\t%s\n' "$1" "${*:2}" >>"$jobs"
}
for t in $templates; do
  for dt in f16 bf16 f32; do
    for n in 1 7 64 100 1000 1024 4097 8192 32768 131072 262144; do
      job "nvptx/sm_90/$t/$dt/$n" "$t --dtype $dt -D N=$n"
    done
    for n in 100 4097 65536; do
      job "nvptx/sm_80/$t/$dt/$n" "$t --dtype $dt -D N=$n --arch sm_80"
      job "amdgpu/gfx942/$t/$dt/$n" "$t --dtype $dt -D N=$n --target amdgpu --arch gfx942"
      job "host/x86-64-v3/$t/$dt/$n" "$t --dtype $dt -D N=$n --target host --arch x86-64-v3"
    done
  done
done
for t in softmax log_softmax softmax_backward; do
  for dt in f16 f32; do
    for n in 1 33 1000 8192 32768; do
      job "nvptx/sm_90/inner/$t/$dt/$n" "$t --dtype $dt -D N=$n --layout inner"
      job "host/x86-64-v4/inner/$t/$dt/$n" "$t --dtype $dt -D N=$n --layout inner --target host --arch x86-64-v4"
    done
  done
done
for t in softmax log_softmax masked_softmax; do
  for n in 128 4096 65536; do
    job "nvptx/sm_90/$t/f16-f32/$n" "$t --dtype f16 --out-dtype f32 -D N=$n"
    job "amdgpu/gfx1100/$t/bf16/$n" "$t --dtype bf16 -D N=$n --target amdgpu --arch gfx1100"
  done
done
for t in softmax masked_softmax causal_softmax softmax_backward; do
  for dt in f16 f32; do
    for n in 1000 8192 65536; do
      job "nvptx/sm_90/$t/$dt/$n/staged" "$t --dtype $dt -D N=$n -C PipelineConstraint(staging=1)"
      job "nvptx/sm_90/$t/$dt/$n/ahead" "$t --dtype $dt -D N=$n -C PipelineConstraint(staging=1,rows_in_flight=2)"
      job "nvptx/sm_90/$t/$dt/$n/prefetch" "$t --dtype $dt -D N=$n -C PipelineConstraint(rows_in_flight=2)"
    done
    for n in 33 1000; do
      job "nvptx/sm_90/$t/$dt/$n/rows4" "$t --dtype $dt -D N=$n -C WorkgroupConstraint(M,4,0)"
      job "nvptx/sm_90/$t/$dt/$n/thread" "$t --dtype $dt -D N=$n -C WaveConstraint(M,32)"
      job "nvptx/sm_90/$t/$dt/$n/wave" "$t --dtype $dt -D N=$n -C WaveConstraint(M,1)"
    done
    job "nvptx/sm_90/$t/$dt/16384/cluster4" "$t --dtype $dt -D N=16384 -C WorkgroupConstraint(N,4096,1)"
  done
done

# one kernel: its fingerprint line (the arguments hold no spaces but between words)
export sg tmp
fingerprint() {
  local id=$1 args=$2 dir
  dir="$tmp/$(printf '%s' "$id" | tr '/' '_')"
  mkdir -p "$dir"
  # shellcheck disable=SC2086
  if "$sg" $args --no-cache --emit llvm,llvm-opt,asm --out-dir "$dir" >"$dir/log" 2>&1; then
    local f ll="" opt="" asm=""
    for f in "$dir"/*; do
      case "$f" in
        *.opt.ll) opt=$(sha256sum <"$f" | cut -c1-64) ;;
        *.ll) ll=$(sha256sum <"$f" | cut -c1-64) ;;
        *.ptx | *.s) asm=$(sha256sum <"$f" | cut -c1-64) ;;
      esac
    done
    # shellcheck disable=SC2086
    cfg=$("$sg" $args --no-cache --print-config 2>&1 | sha256sum | cut -c1-64)
    printf '%s\t%s\t%s\t%s\t%s\n' "$id" "$ll" "$opt" "$asm" "$cfg"
  else
    printf '%s\trejected\t%s\n' "$id" "$(sed 's/^softgen: //' "$dir/log" | sha256sum | cut -c1-64)"
  fi
  rm -rf "$dir"
}
export -f fingerprint
tr '\t' '\n' <"$jobs" | xargs -d '\n' -n 2 -P "$(nproc 2>/dev/null || echo 2)" \
  bash -c 'fingerprint "$0" "$1"' | sort >"$out"
echo "ir-identity: $(wc -l <"$out") kernels ($(grep -c $'\trejected\t' "$out" || true) rejected) -> $out"
