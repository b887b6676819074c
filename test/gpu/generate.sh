#!/usr/bin/env bash
# Generates the GPU suite's code objects on the build machine (which has LLVM):
#   test/gpu/generate.sh BUILD_DIR OUT_DIR [ARCH]        (ARCH default sm_90: H100/H200)
# Needs: BUILD_DIR/softgen (and ptxas for .cubin). Produces, in OUT_DIR (old objects
# there are removed first):
#   <name>.cubin, and <name>_ptx.ptx for a few (loaded through the driver's JIT);
#   manifest.tsv  one line per object: file, template, dtype, N, constraint set name;
#   sets.tsv      constraint set name -> the -C text(s) it passes ('|' separates them);
#   rejected.txt  every (dtype, N, set) the compiler rejected, with its message;
#   info.txt      softgen version, git commit, date, arch, counts (provenance).
# Which N: every N of issue 3, then larger N (odd, 1.5x, powers of two up to 2^20, 8 x odd
# or 4 x odd: 40008, 163608, 1048580, whose clusters split unevenly, and 17817: odd
# 16-bit rows staged that hold their exps unasked) as
# long as the generator accepts them; each N with the automatic plan and every
# user-given constraint set below (sets that a given N breaks are only recorded).
# The other templates (log_softmax, softmax_backward, log_softmax_backward) at a handful of
# N (ns_tpl below, those the generator accepts), automatic plan only: <template>_<dtype>_n<N>_auto;
# their rejections are recorded as "(template T, dtype ...)" so that run.sh's table of
# rejected softmax N reads softmax lines only.
# The inner layout (softgen --layout inner: softmax over dim N of [outer, N, inner]
# tensors, no copy): every template x dtype at the N of ns_inner, automatic plan,
# set "inner": <template>_<dtype>_n<N>_inner.cubin (suite.py launches them on
# [outer, N, inner] tensors with dim=1; torch_api.py preloads them for softgen.softmax
# over a dim other than the last).
# The alignment matrix (issue 21; test/gpu/alignment.py): every template x dtype at odd, prime
# and 2^k +- 1 N, automatic plan, in OUT_DIR/align/ with its own manifest.tsv (set "align"):
# test/gpu/generate-align.sh, run at the end; its rejections are appended to rejected.txt.
set -euo pipefail
build=${1:?usage: generate.sh BUILD_DIR OUT_DIR [ARCH]} out=${2:?usage: generate.sh BUILD_DIR OUT_DIR [ARCH]}
arch=${3:-sm_90}
here=$(cd "$(dirname "$0")" && pwd)
sg="$(cd "$build" && pwd)/softgen"
[ -x "$sg" ] || { echo "generate.sh: no softgen at $sg" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -f "$out"/*.cubin "$out"/*.ptx "$out"/manifest.tsv "$out"/rejected.txt "$out"/sets.tsv \
  "$out"/info.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# one softgen for the whole run: a copy, so that a rebuild of BUILD_DIR meanwhile
# (which relinks its softgen: "Permission denied" for the calls in between) cannot
# drop objects; it finds the templates it was built with
mkdir -p "$tmp/bin"
cp "$sg" "$tmp/bin/softgen"
sg="$tmp/bin/softgen"

ns_issue="1 2 3 4 6 7 31 32 33 100 127 128 129 192 1000 1023 1024 1025 4097 8192 16384 32768"
ns_large="17817 32769 40008 49152 65535 65536 65537 98304 131072 163608 196608 262144 524288 1048576 1048580"
templates="log_softmax softmax_backward log_softmax_backward"
ns_tpl="1 2 33 128 1000 1025 4097 8192 32768 40008 65536 131072 163608 262144"
ns_inner="1 7 33 1000 4097 8192 32768"

# Constraint sets: the automatic plan, plus user-given ones that force other paths.
# Several -C texts are separated by '|'.
set_names="auto wave1 rows4 vec1 vec2 rowinwave b1024 w2r1 w16r1 t1 staged ahead inflight2 hold pack2"
declare -A sets=(
  [auto]=""                                             # softgen's own choice
  [wave1]="WaveConstraint(M, 1)"                        # at least a wave per row
  [rows4]="WorkgroupConstraint(M, 4, 0)"                # 4 rows per block
  [vec1]="HardwareConstraint(threads_per_wave=32, waves_per_block=(4,1,1), vector_shapes={M: 1, N: 1})"
  [vec2]="HardwareConstraint(threads_per_wave=32, vector_shapes={M: 1, N: 2})"
  [rowinwave]="WaveConstraint(N, N)"                    # a row within one wave (sub-wave rows)
  [b1024]="HardwareConstraint(threads_per_wave=32, waves_per_block=(32,1,1))"  # 1024-thread blocks
  [w2r1]="HardwareConstraint(threads_per_wave=32, waves_per_block=(2,1,1))|WorkgroupConstraint(M, 1, 0)"
  [w16r1]="HardwareConstraint(threads_per_wave=32, waves_per_block=(16,1,1))|WorkgroupConstraint(M, 1, 0)"
  [t1]="WaveConstraint(M, 32)"                          # one thread per row
  [staged]="PipelineConstraint(staging=1)"              # rows in shared memory at every N
  [ahead]="PipelineConstraint(staging=1, rows_in_flight=2)"  # staged, the next row copied ahead
  [inflight2]="PipelineConstraint(rows_in_flight=2)"    # the next row block ahead (short rows: flat)
  [hold]="PipelineConstraint(staging=1, hold=1)"        # staged, pass one's exps held in registers
  [pack2]="HardwareConstraint(vector_shapes={M: 2})|PipelineConstraint(rows_in_flight=2)"  # 2 rows a vector, prefetched (N <= 4)
)
# A few objects also as PTX (driver JIT): "dtype N set"; LARGEST = the largest f32 N.
ptx_list="f32:1000:auto f16:1025:auto bf16:129:rows4 f16:33:t1 f32:LARGEST:auto"

for s in $set_names; do printf '%s\t%s\n' "$s" "${sets[$s]}" >>"$out/sets.tsv"; done
printf 'inner\t(--layout inner)\n' >>"$out/sets.tsv"

# Which large N the generator accepts (automatic plan), per dtype.
declare -A ns
largest_f32=0
: >"$tmp/rejected.large"
for dt in f16 bf16 f32; do
  ns[$dt]=$ns_issue
  for n in $ns_large; do
    if "$sg" softmax -D N="$n" --dtype "$dt" --arch "$arch" --print-config >/dev/null 2>"$tmp/err"; then
      ns[$dt]="${ns[$dt]} $n"
    else
      printf 'rejected softmax_%s_n%s_auto (dtype %s, N=%s, set auto): %s\n' "$dt" "$n" "$dt" "$n" \
        "$(tr '\n' ' ' <"$tmp/err")" >>"$tmp/rejected.large"
    fi
  done
done
for n in ${ns[f32]}; do [ "$n" -gt "$largest_f32" ] && largest_f32=$n; done
# The same for the other templates, at the N of $ns_tpl.
declare -A tns
for t in $templates; do
  for dt in f16 bf16 f32; do
    tns[$t:$dt]=""
    for n in $ns_tpl; do
      if "$sg" "$t" -D N="$n" --dtype "$dt" --arch "$arch" --print-config >/dev/null 2>"$tmp/err"; then
        tns[$t:$dt]="${tns[$t:$dt]} $n"
      else
        printf 'rejected %s_%s_n%s_auto (template %s, dtype %s, N=%s, set auto): %s\n' "$t" "$dt" \
          "$n" "$t" "$dt" "$n" "$(tr '\n' ' ' <"$tmp/err")" >>"$tmp/rejected.large"
      fi
    done
  done
done

# The job list, in manifest order: name, template, dtype, N, set, ext, other softgen
# flags ('-': none; no spaces), constraint text.
jobs="$tmp/jobs"
: >"$jobs"
for dt in f16 bf16 f32; do
  for n in ${ns[$dt]}; do
    for s in $set_names; do
      printf 'softmax_%s_n%s_%s\tsoftmax\t%s\t%s\t%s\tcubin\t-\t%s\n' "$dt" "$n" "$s" "$dt" "$n" "$s" "${sets[$s]}" >>"$jobs"
    done
  done
done
for p in $ptx_list; do
  IFS=: read -r dt n s <<<"$p"
  [ "$n" = LARGEST ] && n=$largest_f32
  printf 'softmax_%s_n%s_%s_ptx\tsoftmax\t%s\t%s\t%s\tptx\t-\t%s\n' "$dt" "$n" "$s" "$dt" "$n" "$s" "${sets[$s]}" >>"$jobs"
done
for t in $templates; do
  for dt in f16 bf16 f32; do
    for n in ${tns[$t:$dt]}; do
      printf '%s_%s_n%s_auto\t%s\t%s\t%s\tauto\tcubin\t-\t\n' "$t" "$dt" "$n" "$t" "$dt" "$n" >>"$jobs"
    done
  done
done
for t in softmax $templates; do
  for dt in f16 bf16 f32; do
    for n in $ns_inner; do
      printf '%s_%s_n%s_inner\t%s\t%s\t%s\tinner\tcubin\t--layout=inner\t\n' "$t" "$dt" "$n" "$t" \
        "$dt" "$n" >>"$jobs"
    done
  done
done

job() { # one job line -> $tmp/<name>.ok (manifest line) or $tmp/<name>.rej
  local name tpl dt n s ext cons flags c=() parts p emit=obj what
  IFS=$'\t' read -r name tpl dt n s ext flags cons <<<"$1"
  [ "$flags" = - ] && flags=""
  IFS='|' read -ra parts <<<"$cons"
  for p in ${parts[@]+"${parts[@]}"}; do [ -n "$p" ] && c+=(-C "$p"); done
  [ "$ext" = ptx ] && emit=asm
  # shellcheck disable=SC2086 # flags: words
  if "$SG" "$tpl" -D N="$n" --dtype "$dt" --arch "$ARCH" ${c[@]+"${c[@]}"} $flags --emit "$emit" \
       -o "$OUT/$name.$ext" >/dev/null 2>"$TMP/$name.err"; then
    printf '%s.%s\t%s\t%s\t%s\t%s\n' "$name" "$ext" "$tpl" "$dt" "$n" "$s" >"$TMP/$name.ok"
  else
    rm -f "$OUT/$name.$ext"
    what=""
    [ "$tpl" = softmax ] || what="template $tpl, "
    printf 'rejected %s (%sdtype %s, N=%s, set %s): %s\n' "$name" "$what" "$dt" "$n" "$s" \
      "$(tr '\n' ' ' <"$TMP/$name.err")" >"$TMP/$name.rej"
  fi
}
export -f job
export SG="$sg" ARCH="$arch" OUT="$out" TMP="$tmp"
jobs_n=$(nproc 2>/dev/null || echo 2)
tr '\n' '\0' <"$jobs" | xargs -0 -P "$jobs_n" -n 1 bash -c 'job "$1"' _

: >"$out/manifest.tsv"
cp "$tmp/rejected.large" "$out/rejected.txt"
while IFS=$'\t' read -r name _; do
  if [ -f "$tmp/$name.ok" ]; then cat "$tmp/$name.ok" >>"$out/manifest.tsv"
  elif [ -f "$tmp/$name.rej" ]; then cat "$tmp/$name.rej" >>"$out/rejected.txt"
  else echo "generate.sh: job $name left no result" >&2; exit 1
  fi
done <"$jobs"

# Every N of the issue must at least have its automatic plan.
missing=0
for dt in f16 bf16 f32; do
  for n in $ns_issue; do
    if ! grep -q "^softmax_${dt}_n${n}_auto\.cubin	" "$out/manifest.tsv"; then
      echo "generate.sh: the automatic plan for $dt N=$n was rejected" >&2
      missing=1
    fi
  done
done

# Issue 7's variants for test/gpu/variants.py (preloaded by metadata, no manifest): the
# attention family at the N of variants.py, and softmax / log_softmax with U = f32.
rm -rf "$out/variants"
mkdir -p "$out/variants"
vjobs="$tmp/vjobs"
: >"$vjobs"
for n in 128 1000 4097 32768 131072; do
  for dt in f16 bf16 f32; do
    for t in scaled_softmax masked_softmax causal_softmax attention_softmax safe_softmax \
             safe_attention_softmax; do
      printf '%s\t%s\t%s\t%s\n' "$t" "$dt" "$dt" "$n" >>"$vjobs"
    done
    [ "$dt" = f32 ] && continue
    for t in softmax log_softmax; do printf '%s\t%s\tf32\t%s\n' "$t" "$dt" "$n" >>"$vjobs"; done
  done
done
for n in 33 8192; do # the rest of torch_api.py's N, for its cast case
  for dt in f16 bf16; do
    for t in softmax log_softmax; do printf '%s\t%s\tf32\t%s\n' "$t" "$dt" "$n" >>"$vjobs"; done
  done
done
# Issue 19 (torch_api.py, "issue 19" cases): f16 / bf16 scores with an f32 mask promote to
# f32 (the mask in U), and dtype=float32 over dim 1 of [3, N, 5] (inner layout, f32 out).
for n in 128 1000 4097; do
  for dt in f16 bf16; do
    for t in masked_softmax attention_softmax safe_attention_softmax; do
      printf '%s\t%s\tf32\t%s\n' "$t" "$dt" "$n" >>"$vjobs"
    done
  done
done
for n in 33 1000; do
  for dt in f16 bf16; do printf 'softmax\t%s\tf32\t%s\tinner\n' "$dt" "$n" >>"$vjobs"; done
done
vjob() {
  local t dt u n layout flags=() tag=""
  IFS=$'\t' read -r t dt u n layout <<<"$1"
  [ "${layout:-}" = inner ] && flags=(--layout inner) tag=_inner
  "$SG" "$t" -D N="$n" --dtype "$dt" --out-dtype "$u" --arch "$ARCH" ${flags[@]+"${flags[@]}"} \
    --emit obj -o "$OUT/variants/${t}_${dt}_${u}_n$n$tag.cubin" 2>>"$TMP/variants.err" ||
    echo "rejected variant $t $dt->$u N=$n $layout" >>"$TMP/variants.rej"
}
export -f vjob
tr '\n' '\0' <"$vjobs" | xargs -0 -P "$jobs_n" -n 1 bash -c 'vjob "$1"' _
[ -f "$tmp/variants.rej" ] && cat "$tmp/variants.rej" "$tmp/variants.err" >>"$out/rejected.txt"

# Issue 21's alignment matrix (OUT_DIR/align/, its own manifest; suite.py does not read it)
if SOFTGEN_GEN_JOBS=${SOFTGEN_GEN_JOBS:-$jobs_n} "$here/generate-align.sh" "$tmp/bin" "$out" "$arch"; then
  cat "$out/align/rejected.txt" >>"$out/rejected.txt"
else
  echo "generate.sh: generate-align.sh failed" >&2
  missing=1
fi

commit=$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ "$commit" != unknown ] && [ -n "$(git -C "$here" status --porcelain -- lib include tools kernels-templates 2>/dev/null)" ]; then
  commit="$commit+dirty"
fi
{
  echo "softgen: $("$sg" --version 2>&1 | tr '\n' ' ')"
  echo "commit: $commit"
  echo "generated: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
  echo "arch: $arch"
  echo "objects: $(wc -l <"$out/manifest.tsv") ($(grep -c '\.ptx	' "$out/manifest.tsv" || true) ptx)"
  echo "rejected: $(wc -l <"$out/rejected.txt")"
  echo "variants: $(ls "$out/variants" | wc -l) objects in variants/"
  for dt in f16 bf16 f32; do echo "N $dt: ${ns[$dt]}"; done
  for t in $templates; do
    echo "$t (auto plan only): $(for dt in f16 bf16 f32; do printf '%s N =%s; ' "$dt" "${tns[$t:$dt]}"; done)"
  done
  echo "inner layout (every template and dtype, set inner): N = $ns_inner"
  if [ -f "$out/align/info.txt" ]; then head -1 "$out/align/info.txt"; fi
} >"$out/info.txt"
echo "generated $(wc -l <"$out/manifest.tsv") code objects in $out" \
  "($(wc -l <"$out/rejected.txt") rejected, see rejected.txt); largest f32 N: $largest_f32"
exit "$missing"
