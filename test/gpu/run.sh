#!/usr/bin/env bash
# The one script of the GPU machine (issue 3, part 4), run from the repository root:
#   test/gpu/run.sh OUTDIR
# Needs: the code objects of test/gpu/generate.sh in .gpu/objects (or $SOFTGEN_GPU_OBJECTS),
# a C compiler, cmake, the CUDA driver, python3 with torch, compute-sanitizer (PATH or
# /usr/local/cuda*/bin). No LLVM. Stages, each recorded even when an earlier one failed:
#   1 build     the runtime alone: cmake -DSOFTGEN_RUNTIME_ONLY=ON in $SOFTGEN_RT_BUILD (/tmp/sgrt)
#   2 probe     softgen-run --probe (stops here when no GPU answers)
#   3 lit       the REQUIRES: cuda lit tests: through lit when it and FileCheck are there,
#               else their RUN lines directly with a small CHECK matcher (noted as such)
#   4 check     softgen-run --check (float64 CPU reference) of every softmax object, M = 1 and
#               4096 (softgen-run has a softmax reference only: suite.py checks the others);
#               inner-layout objects (set inner) on [M / I, N, I] tensors, I = min(M, 128)
#   5 suite     test/gpu/suite.py (PyTorch, through the Python binding)
#   5b grid     test/gpu/grid_split.py: the grid splits of the softmax and log_softmax objects
#               at M changing from launch to launch, one stream then two (a hang is caught by
#               its timeout); at most $grid_secs (60) s; its lines go to run.log
#   6 align     test/gpu/alignment.py: the objects of align/ (every template and dtype at odd N)
#               on views at every element offset and odd row strides (issue 21); at most
#               $SOFTGEN_GPU_ALIGN_SECONDS (default 150) of starting objects
#   7 sanitizer compute-sanitizer memcheck (with leak check), racecheck, synccheck and
#               initcheck on one kernel per path, softgen-run --check --rows 300 (64 from N = 2^17;
#               an entry FILE@M runs M rows: the few-rows variants);
#               the align/ kernels through alignment.py --sanitize (misaligned views; softgen-run
#               has no offsets)
# Produces in OUTDIR (8 files): RESULTS.md (commit it as test/gpu/RESULTS.md), run.log,
# check.log, suite.log, suite.md, align.log, align.md, sanitizer.log; a summary table printed
# last. The whole run keeps within $SOFTGEN_GPU_DEADLINE seconds (default 540): later stages
# get what is left and record SKIPPED (a failure) when nothing is. Exit status 0 iff all passed.
# $SOFTGEN_GPU_STAGES picks stages 4-7 (default "check suite grid align sanitizer"; build,
# probe and lit always run); a stage left out is recorded UNSELECTED, not a failure, and the
# time shares of the others do not wait for it. All of them no longer fit one device call
# (the check stage alone wants several minutes): run SOFTGEN_GPU_STAGES=check in one call
# and "suite grid align sanitizer" in the next, and put both runs' stage tables in
# test/gpu/RESULTS.md.
set -uo pipefail
out=${1:?usage: test/gpu/run.sh OUTDIR}
mkdir -p "$out" && out=$(cd "$out" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
objs=$(cd "${SOFTGEN_GPU_OBJECTS:-.gpu/objects}" 2>/dev/null && pwd) || objs=""
rt=${SOFTGEN_RT_BUILD:-/tmp/sgrt}
deadline=${SOFTGEN_GPU_DEADLINE:-540}
# The align stage's share (alignment.py --max-seconds; 0: no align stage, nor its sanitizer
# kernels) and the sanitizer stage's (its align kernels start python: 60 s more)
align_secs=${SOFTGEN_GPU_ALIGN_SECONDS:-150}
san_secs=$([ "$align_secs" = 0 ] && echo 150 || echo 210)
grid_secs=60 # the grid stage's share (grid_split.py --max-seconds; 60 more for its timeout)
suite_secs=90 # what the check stage leaves the suite at least
all_stages="check suite grid align sanitizer"
read -d '' -ra picked_list <<<"${SOFTGEN_GPU_STAGES:-$all_stages}" || true
if [ "${#picked_list[@]}" = 0 ]; then
  echo "run.sh: SOFTGEN_GPU_STAGES is empty (the stages: $all_stages)" >&2
  exit 2
fi
for s in "${picked_list[@]}"; do
  case " $all_stages " in *" $s "*) ;; *)
    echo "run.sh: SOFTGEN_GPU_STAGES: no stage '$s' (the stages: $all_stages)" >&2; exit 2 ;;
  esac
done
picked=" ${picked_list[*]} "
picked_stage() { [[ "$picked" == *" $1 "* ]]; }
# what a picked stage keeps for itself from the ones before it
share() { if picked_stage "$1"; then echo "$2"; else echo 0; fi; }
# a python stage's timeout is its budget + 60 s: the last picked stage keeps those 60 s
# within the deadline itself (before, they came out of the later stages' shares)
last_margin() {
  local later=0 s seen=0
  for s in $all_stages; do
    [ "$seen" = 1 ] && picked_stage "$s" && later=1
    [ "$s" = "$1" ] && seen=1
  done
  [ "$later" = 1 ] && echo 0 || echo 60
}
jobs_n=$(nproc 2>/dev/null || echo 4)
t_start=$(date +%s)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rm -f "$out"/RESULTS.md "$out"/run.log "$out"/check.log "$out"/suite.log "$out"/suite.md \
  "$out"/align.log "$out"/align.md "$out"/sanitizer.log
log="$out/run.log"

say() { printf '%s\n' "$*" | tee -a "$log"; }
elapsed() { echo $(($(date +%s) - t_start)); }
left() { echo $((deadline - $(date +%s) + t_start)); }
group_of() { if [ "$1" -le 1024 ]; then echo "N<=1024"; elif [ "$1" -le 8192 ]; then echo "1025-8192"; else echo "N>8192"; fi; }

# stage table: name, result (PASS/FAIL/SKIPPED), detail, seconds
stages=() results=() details=() secs=()
record() {
  stages+=("$1") results+=("$2") details+=("$3") secs+=("$4")
  say "== $1: $2 - $3 (${4}s)"
  write_results
}

gpu_name="unknown" gpu_arch="unknown" driver="unknown"
check_table="" sanitizer_table="" lit_note=""

write_results() { # RESULTS.md, rewritten after every stage so a cut-off run leaves one
  local f="$out/RESULTS.md" i overall=PASS st missing=""
  for st in $picked; do # a run cut off before a picked stage recorded is not a pass
    [[ " ${stages[*]} " == *" $st "* ]] || missing+=" $st"
  done
  [ -n "$missing" ] && overall="INCOMPLETE (no result yet:$missing)"
  for i in "${!results[@]}"; do
    [ "${results[$i]}" = PASS ] || [ "${results[$i]}" = UNSELECTED ] || overall=FAIL
  done
  [ "$overall" = PASS ] && [ "$picked" != " $all_stages " ] &&
    overall="PASS (stages: ${picked_list[*]}; the others not picked)"
  {
    echo "# softgen GPU correctness results"
    echo
    echo "- GPU: $gpu_name ($gpu_arch); driver $driver"
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); run took $(elapsed) s"
    echo "- command: \`test/gpu/run.sh OUTDIR\` on the GPU machine, objects from \`test/gpu/generate.sh\`; stages: ${picked_list[*]}"
    if [ -n "$objs" ] && [ -f "$objs/info.txt" ]; then
      echo "- objects:"
      sed 's/^/  - /' "$objs/info.txt"
    fi
    echo "- overall: **$overall**"
    echo
    echo "| stage | result | detail | seconds |"
    echo "|---|---|---|---|"
    for i in "${!stages[@]}"; do
      echo "| ${stages[$i]} | ${results[$i]} | ${details[$i]} | ${secs[$i]} |"
    done
    echo
    if [ -n "$lit_note" ]; then echo "$lit_note"; echo; fi
    if [ -n "$check_table" ]; then
      echo "### softgen-run --check (float64 CPU reference, M = 1 and 4096)"
      echo
      echo "$check_table"
      echo
    fi
    if [ -f "$out/suite.md" ]; then cat "$out/suite.md"; echo; fi
    if [ -f "$out/align.md" ]; then cat "$out/align.md"; echo; fi
    if [ -n "$sanitizer_table" ]; then
      echo "### compute-sanitizer (softgen-run --check --rows 300; 64 from N = 2^17; align/: alignment.py --sanitize)"
      echo
      echo "$sanitizer_table"
      echo
    fi
    if [ -n "$objs" ] && [ -f "$objs/rejected.txt" ]; then
      echo "### Rejected by the generator ($(wc -l <"$objs/rejected.txt") dtype/N/set combinations)"
      echo
      echo "Larger N whose automatic plan the generator rejects (so not in the suite):"
      echo
      awk '/_auto \(dtype/ { split($2, a, "_"); n = substr(a[3], 2); d = a[2]
             ns[d] = ns[d] " " n; if (!(d in why)) { why[d] = $0; sub(/.*error: /, "", why[d]) } }
           END { for (d in ns) printf "- %s: N =%s (first: %s)\n", d, ns[d], why[d] }' \
        "$objs/rejected.txt" | sort
      echo
      echo "User-given sets are rejected where they cannot hold the row (register budget,"
      echo "vector width not dividing N, block size); the full list is \`rejected.txt\` of the objects."
    fi
  } >"$f"
}

summary() { # the short table, printed last
  local i overall=0
  echo
  printf '%-10s %-10s %s\n' "stage" "result" "detail"
  for i in "${!stages[@]}"; do
    printf '%-10s %-10s %s\n' "${stages[$i]}" "${results[$i]}" "${details[$i]}"
    [ "${results[$i]}" = PASS ] || [ "${results[$i]}" = UNSELECTED ] || overall=1
  done
  echo "GPU: $gpu_name ($gpu_arch), driver $driver; $(elapsed) s; results: $out/RESULTS.md"
  echo "OVERALL: $([ $overall = 0 ] && echo PASS || echo FAIL)"
  return $overall
}

finish() {
  write_results
  summary | tee -a "$log"
  exit "${PIPESTATUS[0]}"
}

say "softgen GPU run: $(date -u '+%Y-%m-%d %H:%M:%S UTC') on $(hostname); root $root; objects ${objs:-MISSING}"
if [ -z "$objs" ] || [ ! -f "$objs/manifest.tsv" ]; then
  record objects FAIL "no manifest.tsv in ${SOFTGEN_GPU_OBJECTS:-.gpu/objects}: run test/gpu/generate.sh BUILD .gpu/objects on the build machine" 0
  finish
fi
if command -v nvidia-smi >/dev/null 2>&1; then
  driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1)
  [ -n "$driver" ] || driver="unknown"
fi

# ---- 1 build -------------------------------------------------------------------------
t=$(date +%s)
rm -rf "$rt"
if cmake -S . -B "$rt" -DSOFTGEN_RUNTIME_ONLY=ON -DCMAKE_BUILD_TYPE=Release >"$tmp/build.log" 2>&1 &&
   cmake --build "$rt" -j "$jobs_n" >>"$tmp/build.log" 2>&1; then
  warns=$(grep -c 'warning:' "$tmp/build.log" || true)
  record build PASS "runtime-only build in $rt ($(cc --version 2>/dev/null | head -1); $warns warnings)" $(($(date +%s) - t))
  grep 'warning:' "$tmp/build.log" >>"$log" || true
else
  cat "$tmp/build.log" >>"$log"
  record build FAIL "cmake failed: see run.log" $(($(date +%s) - t))
  finish
fi
sgrun="$rt/softgen-run"
export SGRUN="$sgrun" # the check and sanitizer stages' runs (bash -c: exported)
export SOFTGEN_RT_LIBRARY="$rt/libsoftgen_rt.so"
export PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}"
if [ -n "${SOFTGEN_CUDA_LIBRARY:-}${SOFTGEN_HIP_LIBRARY:-}" ]; then # a dry run against the doubles
  say "WARNING: SOFTGEN_CUDA_LIBRARY/SOFTGEN_HIP_LIBRARY set: not the real driver"
fi

# ---- 2 probe -------------------------------------------------------------------------
t=$(date +%s)
if "$sgrun" --probe --backend cuda >"$tmp/probe.log" 2>&1; then
  cat "$tmp/probe.log" >>"$log"
  gpu_name=$(sed -n 's/^device 0: //p' "$tmp/probe.log")
  gpu_arch=$(sed -n 's/^arch: //p' "$tmp/probe.log")
  record probe PASS "$gpu_name, $gpu_arch" $(($(date +%s) - t))
else
  cat "$tmp/probe.log" >>"$log"
  record probe FAIL "$(tail -1 "$tmp/probe.log")" $(($(date +%s) - t))
  finish
fi
obj_arch=$(sed -n 's/^arch: //p' "$objs/info.txt" 2>/dev/null)
if [ -n "$obj_arch" ] && [ "$obj_arch" != "$gpu_arch" ]; then
  say "note: objects were generated for $obj_arch, the device is $gpu_arch"
fi

# ---- 3 lit GPU tests -----------------------------------------------------------------
t=$(date +%s)
mapfile -t gpu_tests < <(grep -rl --include='*.c' --include='*.test' --include='*.py' \
  'REQUIRES:.*\bcuda\b' test | grep -v '^test/lit' | sort)
filecheck=$(command -v FileCheck || true)
if python3 -c 'import lit' >/dev/null 2>&1 && [ -n "$filecheck" ]; then
  mkdir -p "$tmp/lit"
  cat >"$tmp/lit/lit.site.cfg.py" <<EOF
config.softgen_src_root = "$root"
config.softgen_obj_root = "$rt"
config.softgen_tools_dir = "$rt"
config.llvm_tools_dir = "$(dirname "$filecheck")"
config.ptxas = "$(command -v ptxas || true)"
config.cc = "$(command -v cc)"
config.python = "$(command -v python3)"
config.fake_cuda = ""
config.fake_hip = ""
lit_config.load_config(config, "$root/test/lit.cfg.py")
EOF
  filter=$(printf '%s\n' "${gpu_tests[@]}" | xargs -n1 basename | sed 's/\./\\./g' | paste -sd'|')
  if python3 -m lit -sv --filter "$filter" "$tmp/lit" >"$tmp/lit.log" 2>&1; then r=PASS; else r=FAIL; fi
  cat "$tmp/lit.log" >>"$log"
  record lit "$r" "lit: $(grep -E '^ *(Passed|Failed|Unsupported)' "$tmp/lit.log" | tr -s ' ' | paste -sd, -)" $(($(date +%s) - t))
else
  # No lit/FileCheck here (no LLVM): run the RUN lines of the REQUIRES: cuda tests directly,
  # "| FileCheck %s" replaced by a small matcher of CHECK: and CHECK-NEXT: lines.
  cat >"$tmp/minilit.py" <<'EOF'
import re, subprocess, sys
path, subs = sys.argv[1], dict(a.split("=", 1) for a in sys.argv[2:])
src = open(path).read()
def sub(s):
    for k in sorted(subs, key=len, reverse=True):
        s = s.replace(k, subs[k])
    return s
def pattern(text):
    parts = re.split(r"\{\{(.*?)\}\}", text.strip())
    return "".join(p if i % 2 else re.escape(p) for i, p in enumerate(parts))
checks = re.findall(r"CHECK(-NEXT)?:\s*(.*)", src)
runs = [sub(l.strip()) for l in re.findall(r"RUN:\s*(.*)", src)]
for cmd in runs:
    fc = re.search(r"\|\s*FileCheck\s+\S+\s*$", cmd)
    r = subprocess.run(cmd[:fc.start()] if fc else cmd, shell=True, capture_output=True, text=True)
    sys.stdout.write(f"$ {cmd}\n{r.stdout}{r.stderr}")
    if r.returncode:
        print(f"FAIL: exit {r.returncode}"); sys.exit(1)
    if fc:
        lines, at = r.stdout.splitlines(), -1
        for nxt, text in checks:
            rx = re.compile(pattern(text))
            if nxt:
                ok = at + 1 < len(lines) and rx.search(lines[at + 1])
                at = at + 1
            else:
                hit = [i for i in range(at + 1, len(lines)) if rx.search(lines[i])]
                ok, at = bool(hit), (hit[0] if hit else at)
            if not ok:
                print(f"FAIL: CHECK{nxt}: {text}"); sys.exit(1)
print("PASS")
EOF
  pass=0 fail=0
  for f in "${gpu_tests[@]}"; do
    d=$(dirname "$f")
    if python3 "$tmp/minilit.py" "$f" "%cc=cc" "%include=$root/include" "%S=$root/$d" \
         "%s=$root/$f" "%rtlib=$rt" "%t=$tmp/littest" "%softgen-run=$sgrun" \
         "%python=python3" "%pysrc=$root/python" >"$tmp/lit.one" 2>&1; then
      pass=$((pass + 1))
    else
      fail=$((fail + 1))
    fi
    { echo "--- $f"; cat "$tmp/lit.one"; } >>"$log"
  done
  lit_note="The lit GPU tests: lit is not importable here (or FileCheck is missing: no LLVM), so run.sh ran the RUN lines of the \`REQUIRES: cuda\` tests (${gpu_tests[*]}) itself, matching their CHECK/CHECK-NEXT lines with a small matcher."
  r=PASS; [ "$fail" = 0 ] && [ "$pass" -gt 0 ] || r=FAIL
  record lit "$r" "lit not importable: ran the ${#gpu_tests[@]} REQUIRES: cuda test(s) directly: $pass passed, $fail failed" $(($(date +%s) - t))
fi

# ---- 4 softgen-run --check of every object, M = 1 and 4096 ---------------------------
if picked_stage check; then
t=$(date +%s)
mkdir -p "$tmp/chk"
chk() { # OBJECT M [INNER]; rc 98: not started, the stage's time was up
  local b l left
  b=$(basename "$1")
  l="$CHK/$b.m$2"
  left=$((CHK_END - $(date +%s)))
  if [ "$left" -lt 5 ]; then echo "not run: the check stage's time was up" >"$l.log"; echo 98 >"$l.rc"; return; fi
  timeout "$((left < 240 ? left : 240))" "$SGRUN" --check --rows "$2" --inner "${3:-1}" "$1" >"$l.log" 2>&1
  echo $? >"$l.rc"
}
export -f chk
# the stage ends its runs 30 s early (its own wrap-up: the runs not started, the table)
export CHK="$tmp/chk" CHK_END=$(($(date +%s) + $(left) - 30 - $(share suite "$suite_secs") \
  - $(share align "$align_secs") - $(share sanitizer "$san_secs") - $(share grid "$grid_secs")))
# M = 4096, or fewer rows where 4096 rows exceed 2^23 elements (the float64 CPU
# reference of softgen-run is single-threaded; the suite covers large M)
awk -F'\t' '$2 == "softmax" { print $1 "\t" $4 "\t" $5 }' "$objs/manifest.tsv" | while read -r f n s; do
  m=4096
  [ $((n * m)) -gt 8388608 ] && m=$((8388608 / n > 0 ? 8388608 / n : 1))
  inner=1
  [ "$s" = inner ] && inner=$((m < 128 ? m : 128)) && m=$((m / inner * inner))
  printf '%s\0%s\0%s\0' "$objs/$f" 1 1 "$objs/$f" "$m" "$inner"
done | xargs -0 -n 3 -P "$jobs_n" bash -c 'chk "$1" "$2" "$3"' _
: >"$out/check.log"
: >"$tmp/chk.rows"
while IFS=$'\t' read -r f tpl dt n set; do
  [ "$tpl" = softmax ] || continue
  mbig=4096
  [ $((n * mbig)) -gt 8388608 ] && mbig=$((8388608 / n > 0 ? 8388608 / n : 1))
  [ "$set" = inner ] && mbig=$((mbig / (mbig < 128 ? mbig : 128) * (mbig < 128 ? mbig : 128)))
  for m in 1 "$mbig"; do
    l="$tmp/chk/$f.m$m"
    rc=$(cat "$l.rc" 2>/dev/null || echo 99)
    line=$(grep '^check:' "$l.log" 2>/dev/null | tail -1)
    rel=$(sed -n 's/.*max_rel_err=\([^ ]*\).*/\1/p' <<<"$line")
    sum=$(sed -n 's/.*max_rowsum_err=\([^ ]*\).*/\1/p' <<<"$line")
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$dt" "$(group_of "$n")" "$f" "$m" "$rc" "${rel:-nan}" "${sum:-nan}" >>"$tmp/chk.rows"
    { echo "=== $f M=$m rc=$rc"; cat "$l.log" 2>/dev/null; } >>"$out/check.log"
  done
done <"$objs/manifest.tsv"
total=$(wc -l <"$tmp/chk.rows")
# rc 98 (not started: the stage's time was up) is counted apart from failures
nfail=$(awk -F'\t' '$5 != 0 && $5 != 98' "$tmp/chk.rows" | wc -l)
nskip=$(awk -F'\t' '$5 == 98' "$tmp/chk.rows" | wc -l)
check_table=$(awk -F'\t' '
  { k = $1 "|" $2; if (!(k in seen)) { seen[k] = 1; order[++n] = k }
    if ($5 == 0) p[k]++; else if ($5 == 98) s[k]++; else f[k]++
    if ($6 + 0 > rel[k] + 0) rel[k] = $6; if ($7 + 0 > sum[k] + 0) sum[k] = $7 }
  END { print "| dtype | N group | runs | pass | fail | not run | max rel err | max rowsum err |"
        print "|---|---|---|---|---|---|---|---|"
        for (i = 1; i <= n; i++) { k = order[i]; split(k, a, "|")
          printf "| %s | %s | %d | %d | %d | %d | %s | %s |\n", a[1], a[2], p[k] + f[k] + s[k], p[k], f[k], s[k], rel[k] ? rel[k] : 0, sum[k] ? sum[k] : 0 } }' "$tmp/chk.rows")
if [ "$nfail" -gt 0 ]; then
  check_table="$check_table

Failed runs (rc 1: over tolerance, 3: runtime error, 124: timeout):

\`\`\`
$(awk -F'\t' '$5 != 0 && $5 != 98 { printf "%s M=%s rc=%s rel=%s rowsum=%s\n", $3, $4, $5, $6, $7 }' "$tmp/chk.rows" | head -100)
\`\`\`"
fi
r=PASS; [ "$nfail" = 0 ] && [ "$nskip" = 0 ] && [ "$total" -gt 0 ] || r=FAIL
others=$(awk -F'\t' '$2 != "softmax"' "$objs/manifest.tsv" | wc -l)
note=""
[ "$others" -gt 0 ] && note="; softmax objects only: suite.py checks the $others objects of other templates"
record check "$r" "softgen-run --check, M=1 and 4096 (fewer where M*N > 2^23): $((total - nfail - nskip))/$total passed, $nfail failed, $nskip not run (time up)$note" $(($(date +%s) - t))
else
  record check UNSELECTED "not in SOFTGEN_GPU_STAGES" 0
fi

# Runs test/gpu/SCRIPT (suite.py, alignment.py) on the objects within BUDGET seconds
# (started at T) and records stage NAME from its "cases passed" line.
py_stage() {
  local name=$1 script=$2 budget=$3 t=$4 rc line r
  timeout $((budget + 60)) python3 "test/gpu/$script" "$objs" "$out" --max-seconds "$budget" \
    >"$tmp/$name.out" 2>&1
  rc=$?
  cat "$tmp/$name.out" >>"$log"
  tail -n 30 "$tmp/$name.out"
  line=$(grep "^$script: .* cases passed" "$tmp/$name.out" | tail -1 | sed "s/^$script: //")
  if [ $rc = 0 ]; then r=PASS; else r=FAIL; fi
  [ $rc = 124 ] && line="timed out after $((budget + 60)) s; $line"
  [ -n "$line" ] || line="exit $rc: $(tail -1 "$tmp/$name.out")"
  record "$name" "$r" "$line" $(($(date +%s) - t))
}

# ---- 5 suite.py ------------------------------------------------------------------------
if picked_stage suite; then
t=$(date +%s)
budget=$(($(left) - $(share sanitizer "$san_secs") - $(share align "$align_secs") - $(share grid "$grid_secs") - $(last_margin suite)))  # keep the later stages' shares
[ "$budget" -gt 300 ] && budget=300
if [ "$budget" -lt 30 ]; then
  record suite FAIL "SKIPPED: only $(left) s left" 0
else
  py_stage suite suite.py "$budget" "$t"
fi
else
  record suite UNSELECTED "not in SOFTGEN_GPU_STAGES" 0
fi

# ---- 5b grid_split.py -----------------------------------------------------------------
if picked_stage grid; then
t=$(date +%s)
budget=$(($(left) - $(share sanitizer "$san_secs") - $(share align "$align_secs") - $(last_margin grid)))
[ "$budget" -gt "$grid_secs" ] && budget=$grid_secs
if [ "$budget" -lt 20 ]; then
  record grid FAIL "SKIPPED: only $(left) s left" 0
else
  py_stage grid grid_split.py "$budget" "$t"
fi
else
  record grid UNSELECTED "not in SOFTGEN_GPU_STAGES" 0
fi

# ---- 6 alignment.py -------------------------------------------------------------------
if picked_stage align; then
t=$(date +%s)
budget=$(($(left) - $(share sanitizer "$san_secs") - $(last_margin align)))
[ "$budget" -gt "$align_secs" ] && budget=$align_secs
if [ "$align_secs" = 0 ]; then
  record align SKIPPED "SOFTGEN_GPU_ALIGN_SECONDS=0: alignment.py not run" 0
elif [ ! -f "$objs/align/manifest.tsv" ]; then
  record align FAIL "no align/manifest.tsv in the objects: regenerate them (test/gpu/generate.sh)" 0
elif [ "$budget" -lt 30 ]; then
  record align FAIL "SKIPPED: only $(left) s left" 0
else
  py_stage align alignment.py "$budget" "$t"
fi
else
  record align UNSELECTED "not in SOFTGEN_GPU_STAGES" 0
fi

# ---- 7 compute-sanitizer -------------------------------------------------------------
t=$(date +%s)
san=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
largest=$(awk -F'\t' '$2 == "softmax" && $3 == "f32" && $5 == "auto" && $1 ~ /\.cubin$/ { print $4 }' "$objs/manifest.tsv" | sort -n | tail -1)
san_objs=(
  "softmax_f16_n128_auto.cubin:short rows, rows per block > 1, sub-wave shuffles"
  "softmax_f16_n8192_auto.cubin:register rows, block reduction in shared memory"
  "softmax_f16_n1025_auto.cubin:masked tail (N % vector pass != 0)"
  "softmax_f16_n1025_auto.cubin@3001:peeled rows in registers: partial vectors read whole within the tensor's rows, element by element at its ends"
  "softmax_f32_n${largest}_auto.cubin:f32, the largest N (tiles over a cluster split unevenly)"
  "softmax_bf16_n33_t1.cubin:one thread per row, no shuffles (user set t1)"
  "softmax_f16_n33_auto.cubin:flat short rows: 16-byte copies of a row block through shared memory"
  "softmax_backward_f32_n33_auto.cubin:flat, two inputs and the per-thread path off (strides N)"
  "softmax_f16_n32768_staged.cubin:rows staged in shared memory (cp.async), online pairs"
  "softmax_f16_n32768_auto.cubin:rows in registers over a cluster of 4 (cluster_registers), transaction barriers"
  "softmax_f16_n131072_auto.cubin:staged rows over a cluster (distributed shared memory)"
  "softmax_f16_n131072_auto.cubin@3:few-rows variant: clusters of 16 in registers, each block alone (M = 3)"
  "softmax_f16_n131072_auto.cubin@12:few-rows variant: clusters of 8, staged (M = 12)"
  "softmax_f32_n262144_auto.cubin@2:few-rows variant: clusters of 16 in registers, 512 threads (M = 2)"
  "softmax_f16_n1000_staged.cubin:staged, several rows a block, masked tail"
  "softmax_f16_n4097_auto.cubin@3000:peeled rows staged, 4 rows a block (M = 3000)"
  "softmax_f16_n4097_auto.cubin@300:its few-rows variant, the registers plan (M = 300)"
  "softmax_f16_n17817_auto.cubin@1000:peeled rows staged, one a block, exps held in registers (automatic)"
  "softmax_f16_n262144_ahead.cubin:staged over a cluster, the next row copied ahead (persistent grid)"
  "softmax_f16_n2_auto.cubin@600001:packed rows, 4 a vector, past their few-rows variant; a partial last vector"
  "softmax_f32_n1_pack2.cubin@301:packed rows given (2 a vector), prefetched (persistent grid); a partial last vector"
  "softmax_f16_n7_auto.cubin@300001:flat rows, 4 a thread, the next row block copied ahead (persistent grid); a partial last row block"
  "softmax_f16_n7_auto.cubin@70001:its few-rows variant of one row a thread (flat, no prefetch)"
  "softmax_f32_n33_auto.cubin@100001:flat f32 rows, 2 a thread"
  "softmax_f16_n3_auto.cubin@600001:flat rows of 3 elements, 8 a thread, copied ahead; a partial last row block"
  "softmax_f16_n100_auto.cubin@300001:flat rows of 8-byte vectors, 2 a thread; a partial last row block"
  "softmax_bf16_n33_auto.cubin@100001:flat bf16 rows, exps kept 2^8 too large (SGC_EXP_SCALED_BF16)"
  "softmax_bf16_n1000_auto.cubin@20001:rows held at 64 values, 8 a block of 128 threads; bf16 exps 2^8 too large"
  "softmax_backward_f32_n262144_auto.cubin:two inputs staged over a non-portable cluster of 16, one block a multiprocessor"
  "log_softmax_f16_n8192_auto.cubin:template log_softmax"
  "softmax_backward_f32_n4097_auto.cubin:template softmax_backward (two inputs), masked tail"
  "log_softmax_backward_bf16_n65536_auto.cubin:template log_softmax_backward, staged over a cluster"
  "variants/safe_attention_softmax_f16_f16_n32768.cubin:scale, repeated mask rows, causal, safe; staged over a cluster"
  "variants/causal_softmax_f32_f32_n1000.cubin:causal, scalars, masked tail"
  "variants/causal_softmax_f32_f32_n131072.cubin:causal, staged over a cluster, wholly masked chunks skipped"
  "softmax_f16_n4097_inner.cubin:inner layout (--inner 3), tiled rows, online pass"
  "softmax_backward_f32_n33_inner.cubin:inner layout (--inner 3), two inputs, rows in registers"
  "align/softmax_f16_n1025_align.cubin:views at element offsets 1 and 7, strides N+1, output at another offset (alignment.py --sanitize)"
  "align/softmax_f16_n7_align.cubin:short odd rows at element offsets 1 and 7, strides N+1 (alignment.py --sanitize)"
  "align/log_softmax_backward_bf16_n4097_align.cubin:two inputs at different offsets, strides N+1 (alignment.py --sanitize)"
  "align/masked_softmax_f32_n1023_align.cubin:mask of 3 rows at another offset than x, strides N+1 (alignment.py --sanitize)"
  "align/softmax_f16_n32769_align.cubin:peeled rows staged over a cluster, head and tail element by element (alignment.py --sanitize)"
)
if [ "$align_secs" = 0 ]; then # the align stage is off: its sanitizer kernels too
  mapfile -t san_objs < <(printf '%s\n' "${san_objs[@]}" | grep -v '^align/')
fi
tools="memcheck racecheck synccheck initcheck"
if ! picked_stage sanitizer; then
  record sanitizer UNSELECTED "not in SOFTGEN_GPU_STAGES" 0
elif [ -z "$san" ]; then
  record sanitizer FAIL "compute-sanitizer not found (PATH, /usr/local/cuda*/bin)" 0
elif [ "$(left)" -lt 20 ]; then
  record sanitizer FAIL "SKIPPED: only $(left) s left" 0
else
  mkdir -p "$tmp/san"
  sanone() { # OBJECT[@M] TOOL; rc 98: not started, the run's time was up
    local l left extra=() obj=${1%@*} m=""
    [ "$obj" != "$1" ] && m=${1##*@}
    l="$SAN/$(basename "$1").$2"
    left=$((SAN_END - $(date +%s)))
    if [ "$left" -lt 5 ]; then echo "not run: the run's time was up" >"$l.log"; echo 98 >"$l.rc"; return; fi
    [ "$2" = memcheck ] && extra=(--leak-check full)
    [ "$2" = racecheck ] && extra=(--racecheck-report all)
    local scalars=() # the variants' scalars (softgen-run rejects names a kernel lacks)
    case "$(basename "$1")" in
      *attention_softmax*|causal_softmax*) scalars=(--scalar scale=0.125 --scalar L=16 --scalar offset=0) ;;
      scaled_softmax*|masked_softmax*) scalars=(--scalar scale=0.125) ;;
    esac
    local rows=300 # 64 for rows of 2^17 and more (racecheck's time grows with them)
    case "$(basename "$1")" in *_n131072*|*_n262144*|*_n524288*) rows=64 ;; esac
    [ -n "$m" ] && rows=$m
    if [[ "$1" == */align/* ]]; then # views at element offsets: softgen-run has none
      timeout "$left" "$SANITIZER" --tool "$2" ${extra[@]+"${extra[@]}"} --error-exitcode 97 \
        python3 test/gpu/alignment.py --sanitize "$1" >"$l.log" 2>&1
      echo $? >"$l.rc"
      return
    fi
    timeout "$left" "$SANITIZER" --tool "$2" ${extra[@]+"${extra[@]}"} --error-exitcode 97 \
      "$SGRUN" ${scalars[@]+"${scalars[@]}"} --check --rows "$rows" --inner 3 "$obj" >"$l.log" 2>&1
    echo $? >"$l.rc"
  }
  export -f sanone
  export SAN="$tmp/san" SANITIZER="$san" SAN_END=$(($(date +%s) + $(left) - 5))
  for e in "${san_objs[@]}"; do
    f=${e%%:*}
    [ -f "$objs/${f%@*}" ] || continue
    for tool in $tools; do printf '%s\0%s\0' "$objs/$f" "$tool"; done
  done | xargs -0 -n 2 -P 4 bash -c 'sanone "$1" "$2"' _
  : >"$out/sanitizer.log"
  san_fail=0 san_runs=0
  sanitizer_table="| kernel | path | $(echo $tools | sed 's/ / | /g') |
|---|---|$(for _ in $tools; do printf -- '---|'; done)"
  for e in "${san_objs[@]}"; do
    f=${e%%:*} what=${e#*:}
    row="| $f | $what |"
    for tool in $tools; do
      l="$tmp/san/$(basename "$f").$tool"
      if [ ! -f "$objs/${f%@*}" ]; then
        cell="missing"; san_fail=$((san_fail + 1))
      else
        san_runs=$((san_runs + 1))
        rc=$(cat "$l.rc" 2>/dev/null || echo 99)
        summ=$(grep -E '(ERROR|RACECHECK) SUMMARY' "$l.log" 2>/dev/null | tail -1 | sed 's/^=* *//')
        # softgen-run checks softmax only; suite.py checks the other templates' numerics
        chk=$(grep -c -E '^check: .*PASS|^check: no reference for template' "$l.log" 2>/dev/null)
        hazards=$(sed -n 's/.*RACECHECK SUMMARY: \([0-9]*\) hazard.*/\1/p' "$l.log" | tail -1)
        if [ "$rc" = 0 ] && [ "$chk" = 1 ] && [ "${hazards:-0}" = 0 ] && [ -n "$summ" ]; then
          cell="clean"
        else
          cell="**FAIL** (rc $rc${summ:+; $summ}$([ "$chk" = 1 ] || echo '; check did not pass'))"
          san_fail=$((san_fail + 1))
        fi
      fi
      row="$row $cell |"
      { echo "=== $f $tool rc=${rc:-}"; cat "$l.log" 2>/dev/null; } >>"$out/sanitizer.log"
    done
    sanitizer_table="$sanitizer_table
$row"
  done
  r=PASS; [ "$san_fail" = 0 ] || r=FAIL
  clean=$(grep -o '| clean' <<<"$sanitizer_table" | wc -l)
  record sanitizer "$r" "compute-sanitizer $($san --version 2>/dev/null | grep -io 'version [0-9.]*' | head -1 | cut -d' ' -f2): $clean of $san_runs runs clean ($(echo $tools) on ${#san_objs[@]} kernels), $san_fail failed or missing" $(($(date +%s) - t))
fi

finish
