#!/usr/bin/env bash
# The code objects of the alignment matrix (issue 21, "Correctness"; test/gpu/alignment.py),
# generated on the build machine (LLVM, ptxas). generate.sh runs it; alone it is
#   test/gpu/generate-align.sh BUILD_DIR OUT_DIR [ARCH]     (ARCH default sm_90)
# ($ALIGN_NS: other N than the list below)
# Needs: BUILD_DIR/softgen, ptxas, kernels-templates/*.sgt. Produces, in OUT_DIR/align/ (the
# folder is emptied first; the rest of OUT_DIR is not touched):
#   <template>_<dtype>_n<N>_align.cubin  every template of kernels-templates/ x f16, bf16, f32 x
#                 the N of ns_align below, the automatic plan (set "align"; U = T, so a mask
#                 has the scores' dtype);
#   manifest.tsv  one line per object, as generate.sh's: file (relative to align/), template,
#                 dtype, N, set "align";
#   rejected.txt  what the generator rejected, in generate.sh's format (generate.sh appends it to
#                 OUT_DIR/rejected.txt), and any object dropped for size ("dropped for size");
#   info.txt      counts, N and the total size.
# Size: the objects travel to the GPU machine with the others (one transfer of at most 64 MiB),
# so the .cubin files of align/ are kept under ALIGN_MAX_BYTES (default 24 MiB): past that the
# largest N of the non-softmax templates are dropped, largest first, and recorded as dropped.
# Parallel jobs: $SOFTGEN_GEN_JOBS, default the online CPUs.
set -euo pipefail
build=${1:?usage: generate-align.sh BUILD_DIR OUT_DIR [ARCH]}
out=${2:?usage: generate-align.sh BUILD_DIR OUT_DIR [ARCH]}
arch=${3:-sm_90}
here=$(cd "$(dirname "$0")" && pwd)
sg="$(cd "$build" && pwd)/softgen"
[ -x "$sg" ] || { echo "generate-align.sh: no softgen at $sg" >&2; exit 2; }
mkdir -p "$out"
dir="$(cd "$out" && pwd)/align"
rm -rf "$dir"
mkdir -p "$dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
max_bytes=${ALIGN_MAX_BYTES:-$((24 << 20))}

# N = 1, odd, prime and 2^k +- 1, none a multiple of a 16-byte vector but for none of them:
# 1, 7, 31, 127, 8191 prime; 33, 129, 1023, 1025, 4095, 4097, 8193, 16383, 32769 2^k +- 1;
# 2 and 4 (packed rows, several a vector: element by element off a 16-byte span);
# 97, 50257 (GPT-2's vocabulary), 100003 prime; 17817 (16-bit rows staged, exps held);
# 84 (16-bit rows of 8-byte vectors) and 499 (16-bit rows of 512 B - 1 KB, peeled): the
# classes that the flat rows' limits leave out today (tools/bench/RESULTS.md "Next:
# flat rows of 8-byte vectors and of up to 1 KB"), checked before and after;
# 1000 a multiple of 8 (full vectors, the aligned path) for comparison.
# $ALIGN_NS replaces the list (e.g. only the N of one path: ALIGN_NS="32769 50257").
ns_align=${ALIGN_NS:-"1 2 3 4 7 31 33 84 97 127 129 499 1000 1023 1025 4095 4097 8191 8193 16383 17817 32769 50257 100003"}
templates=""
for f in "$here"/../../kernels-templates/*.sgt; do
  templates="$templates $(basename "$f" .sgt)"
done
templates=${templates# }
[ -n "$templates" ] || { echo "generate-align.sh: no templates in kernels-templates/" >&2; exit 2; }

# The job list, in manifest order (softmax first, then the others by name): name, template,
# dtype, N.
jobs="$tmp/jobs"
: >"$jobs"
for t in softmax $(tr ' ' '\n' <<<"$templates" | grep -vx softmax | sort); do
  for dt in f16 bf16 f32; do
    for n in $ns_align; do
      printf '%s_%s_n%s_align\t%s\t%s\t%s\n' "$t" "$dt" "$n" "$t" "$dt" "$n" >>"$jobs"
    done
  done
done

ajob() { # one job line -> $TMP/<name>.ok (manifest line) or $TMP/<name>.rej
  local name tpl dt n what=""
  IFS=$'\t' read -r name tpl dt n <<<"$1"
  if "$SG" "$tpl" -D N="$n" --dtype "$dt" --arch "$ARCH" --emit obj -o "$DIR/$name.cubin" \
       >/dev/null 2>"$TMP/$name.err"; then
    printf '%s.cubin\t%s\t%s\t%s\talign\n' "$name" "$tpl" "$dt" "$n" >"$TMP/$name.ok"
  else
    rm -f "$DIR/$name.cubin"
    [ "$tpl" = softmax ] || what="template $tpl, "
    printf 'rejected %s (%sdtype %s, N=%s, set align): %s\n' "$name" "$what" "$dt" "$n" \
      "$(tr '\n' ' ' <"$TMP/$name.err")" >"$TMP/$name.rej"
  fi
}
export -f ajob
export SG="$sg" ARCH="$arch" DIR="$dir" TMP="$tmp"
jobs_n=${SOFTGEN_GEN_JOBS:-$(nproc 2>/dev/null || echo 2)}
# shellcheck disable=SC2016 # $1 is ajob's, expanded by the inner bash
tr '\n' '\0' <"$jobs" | xargs -0 -P "$jobs_n" -n 1 bash -c 'ajob "$1"' _

: >"$dir/manifest.tsv"
: >"$dir/rejected.txt"
while IFS=$'\t' read -r name _; do
  if [ -f "$tmp/$name.ok" ]; then cat "$tmp/$name.ok" >>"$dir/manifest.tsv"
  elif [ -f "$tmp/$name.rej" ]; then cat "$tmp/$name.rej" >>"$dir/rejected.txt"
  else echo "generate-align.sh: job $name left no result" >&2; exit 1
  fi
done <"$jobs"

# Keep the folder under max_bytes: drop the largest N of the non-softmax templates first.
total() { find "$dir" -name '*.cubin' -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }'; }
bytes=$(total)
dropped=0
if [ "$bytes" -gt "$max_bytes" ]; then
  for n in $(tr ' ' '\n' <<<"$ns_align" | sort -rn); do
    [ "$(total)" -gt "$max_bytes" ] || break
    while IFS=$'\t' read -r f tpl dt _; do
      rm -f "$dir/$f"
      printf 'dropped %s (template %s, dtype %s, N=%s, set align): %s\n' "${f%.cubin}" "$tpl" \
        "$dt" "$n" "dropped for size (align/ over $max_bytes bytes)" >>"$dir/rejected.txt"
      dropped=$((dropped + 1))
    done < <(awk -F'\t' -v n="$n" '$2 != "softmax" && $4 == n' "$dir/manifest.tsv")
    awk -F'\t' -v n="$n" '!($2 != "softmax" && $4 == n)' "$dir/manifest.tsv" >"$tmp/m" &&
      cp "$tmp/m" "$dir/manifest.tsv"
  done
  bytes=$(total)
fi

count=$(wc -l <"$dir/manifest.tsv")
{
  echo "align: $count objects in align/ ($bytes bytes of .cubin;" \
    "$(wc -l <"$dir/rejected.txt") rejected or dropped), every template x f16, bf16, f32," \
    "automatic plan, N = $ns_align"
  echo "templates: $templates"
  if [ "$dropped" != 0 ]; then
    echo "dropped for size: $dropped objects (largest N of the non-softmax templates;" \
      "see rejected.txt)"
  fi
} >"$dir/info.txt"
echo "generate-align.sh: $count code objects in $dir ($((bytes / 1024)) KiB;" \
  "$(wc -l <"$dir/rejected.txt") rejected or dropped, see align/rejected.txt)"
[ "$count" -gt 0 ]
