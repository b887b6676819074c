#!/usr/bin/env bash
# softgen's set-up, build and test entry point (the README's two commands).
#   tools/dev.sh generate   install what is missing, build, generate the default
#                           softmax kernel into out/ and list what was made
#   tools/dev.sh test       install what is missing, build, run every test;
#                           exit 0 only if every test passed
#   tools/dev.sh build      install what is missing and build
#   tools/dev.sh wheel      install what is missing and build the Python wheel into
#                           WHEEL_DIR (python/pyproject.toml, scikit-build-core from
#                           PyPI), tagged manylinux_2_X by the glibc its libraries need
# `test` runs four stages, each in its own build directory:
#   main   BUILD_DIR: the build above, every lit test
#   asan   ASAN_BUILD_DIR: -DSOFTGEN_SANITIZE=address,undefined, every lit test
#          with LeakSanitizer on (ASAN_OPTIONS=detect_leaks=1)
#   fuzz   FUZZ_BUILD_DIR: clang-22 -DSOFTGEN_FUZZ=ON, each libFuzzer target of
#          test/fuzz for FUZZ_SECONDS (test/fuzz/run.sh; a crash fails the stage)
#   wheel  the wheel (tools/dev.sh wheel) installed into a fresh virtual environment
#          and checked there with no LLVM on the library path (test/wheel/run.sh)
#   fresh  FRESH_DIR: the fresh-machine check (tools/fresh-root.sh): `tools/dev.sh
#          generate` and `tools/dev.sh test` with the other stages, again, in a
#          clean Debian 12 root made with debootstrap, so that anything the build
#          or the tests take from this machine instead of from PACKAGES fails;
#          needs root and the network (about as long as the other stages together)
# It prints one "tests (STAGE): ..." line per stage and, last, the combined
# "tests: N passed, N failed, N skipped" (a fuzz target, and the fresh stage,
# count as one test each).
# Every build uses Debian's python3 (PYTHON, package python3, with python3-numpy),
# whatever python3 comes first on PATH; the lit suites fail, rather than skip, when
# a feature that PACKAGES provides is missing (test/lit.cfg.py, SOFTGEN_TEST_OPTIONAL).
# Environment: BUILD_DIR (default build), ASAN_BUILD_DIR (build-asan),
# FUZZ_BUILD_DIR (build-fuzz), FRESH_DIR (build-fresh), WHEEL_DIR (dist),
# WHEEL_WORK_DIR (build-wheel), FUZZ_SECONDS (20), STAGES ("main asan fuzz wheel
# fresh"), JOBS (default: number of cores).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
ASAN_BUILD_DIR=${ASAN_BUILD_DIR:-build-asan}
FUZZ_BUILD_DIR=${FUZZ_BUILD_DIR:-build-fuzz}
FRESH_DIR=${FRESH_DIR:-build-fresh}
WHEEL_DIR=${WHEEL_DIR:-dist}
WHEEL_WORK_DIR=${WHEEL_WORK_DIR:-build-wheel}
FUZZ_SECONDS=${FUZZ_SECONDS:-20}
STAGES=${STAGES:-main asan fuzz wheel fresh}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
PYTHON=/usr/bin/python3
# Everything the build and the test stages use beyond Debian 12's required packages
# (the fresh stage checks this list): pkgconf for test/Install's pkg-config consumer,
# libclang-rt-22-dev for the fuzz stage's libFuzzer and sanitizer runtimes; for the
# wheel, g++ (LLVM's static libraries are C++), zlib1g-dev and libzstd-dev (linked
# statically), python3-venv (its build and test environments), python3-dev (the
# C extension softgen/_launch.abi3.so: Python.h) and binutils
# (python/check-glibc.sh reads the libraries' symbol versions).
PACKAGES="cmake make gcc pkgconf python3 valgrind python3-numpy llvm-22-dev lld-22 llvm-22-tools libmlir-22-dev mlir-22-tools clang-22 libclang-rt-22-dev g++ zlib1g-dev libzstd-dev python3-venv python3-dev binutils"
# The fresh stage's own tools (not needed inside the root it makes).
FRESH_PACKAGES="debootstrap debian-archive-keyring"
case " $STAGES " in *" fresh "*) PACKAGES="$PACKAGES $FRESH_PACKAGES" ;; esac

install_missing() {
  local missing=()
  for p in $PACKAGES; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "dev.sh: installing ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

build() {
  install_missing
  cmake -S . -B "$BUILD_DIR" -DSOFTGEN_WERROR=ON -DPython3_EXECUTABLE="$PYTHON" >/dev/null
  cmake --build "$BUILD_DIR" -j "$JOBS"
}

generate() {
  build
  "$BUILD_DIR/softgen" softmax -D N=8192 --dtype f16 --target nvptx --arch sm_90 --out-dir out
  echo "dev.sh: the kernel's launch plan:"
  "$BUILD_DIR/softgen" softmax -D N=8192 --dtype f16 --print-config
}

# The wheel into WHEEL_DIR (the one softgen-*.whl there), built by pip with
# scikit-build-core in a virtual environment of Debian's python3 (WHEEL_WORK_DIR/
# build-venv), then tagged manylinux_2_X_x86_64 with X the highest glibc minor its
# libraries need (python/check-glibc.sh), at least 28. Prints the wheel's path last.
wheel() {
  install_missing
  local venv="$WHEEL_WORK_DIR/build-venv" t0=$SECONDS
  mkdir -p "$WHEEL_WORK_DIR" "$WHEEL_DIR"
  rm -f "$WHEEL_DIR"/softgen-*.whl
  # (each step checked: set -e does not hold inside the wheel stage's "wheel && ...")
  [ -x "$venv/bin/pip" ] || "$PYTHON" -m venv "$venv" || return 1
  "$venv/bin/pip" install -q --disable-pip-version-check wheel || return 1
  CMAKE_BUILD_PARALLEL_LEVEL="$JOBS" "$venv/bin/pip" wheel -q --no-deps \
    --disable-pip-version-check -w "$WHEEL_DIR" ./python || { echo "dev.sh: pip wheel failed" >&2; return 1; }
  local whl need=28 lib v
  whl=$(ls "$WHEEL_DIR"/softgen-*.whl) || return 1
  rm -rf "$WHEEL_WORK_DIR/unpacked" && mkdir -p "$WHEEL_WORK_DIR/unpacked"
  "$venv/bin/python" -m zipfile -e "$whl" "$WHEEL_WORK_DIR/unpacked" || return 1
  for lib in "$WHEEL_WORK_DIR"/unpacked/softgen/_lib/*.so "$WHEEL_WORK_DIR"/unpacked/softgen/*.so; do
    v=$(python/check-glibc.sh "$lib" 99 | sed -n 's/.*GLIBC_2\.\([0-9]*\).*/\1/p' | head -1)
    [ -n "$v" ] && [ "$v" -gt "$need" ] && need=$v
  done
  "$venv/bin/python" -m wheel tags --remove --platform-tag "manylinux_2_${need}_x86_64" "$whl" \
    >/dev/null || return 1
  whl=$(ls "$WHEEL_DIR"/softgen-*.whl)
  echo "dev.sh: wheel built in $((SECONDS - t0))s: $whl ($(du -h "$whl" | cut -f1))"
}

wheel_stage() {
  local t0=$SECONDS log="$WHEEL_WORK_DIR/wheel.log" rc=0 passed failed
  mkdir -p "$WHEEL_WORK_DIR"
  set +e
  (wheel && test/wheel/run.sh "$(ls "$WHEEL_DIR"/softgen-*.whl)" "$WHEEL_WORK_DIR/test") 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  set -e
  passed=$(sed -n 's/^tests (wheel): \([0-9]*\) passed.*/\1/p' "$log" | tail -1)
  failed=$(sed -n 's/^tests (wheel): [0-9]* passed, \([0-9]*\) failed.*/\1/p' "$log" | tail -1)
  passed=${passed:-0} failed=${failed:-0}
  [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ] && failed=1 # the build itself failed
  TOTAL_PASSED=$((TOTAL_PASSED + passed)) TOTAL_FAILED=$((TOTAL_FAILED + failed))
  echo "tests (wheel): $passed passed, $failed failed, 0 skipped ($((SECONDS - t0))s)"
  [ "$rc" -eq 0 ] && [ "$failed" -eq 0 ]
}

# lit_stage NAME DIR [VAR=VALUE...]: runs lit in DIR (built), adds its counts
# to the totals and prints "tests (NAME): ...". Returns non-zero on a failure.
TOTAL_PASSED=0 TOTAL_FAILED=0 TOTAL_SKIPPED=0
lit_stage() {
  local name=$1 dir=$2 log="$2/lit.log" rc=0 t0=$SECONDS
  shift 2
  set +e
  env "$@" cmake --build "$dir" --target check 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  set -e
  local passed failed skipped
  passed=$(sed -n 's/^ *Passed *: *\([0-9]*\).*/\1/p' "$log" | tail -1)
  failed=$(sed -n 's/^ *\(Failed\|Unresolved\|Timed Out\|Unexpectedly Passed\) *: *\([0-9]*\).*/\2/p' "$log" | awk '{s+=$1} END {print s+0}')
  skipped=$(sed -n 's/^ *Unsupported *: *\([0-9]*\).*/\1/p' "$log" | tail -1)
  passed=${passed:-0} failed=${failed:-0} skipped=${skipped:-0}
  [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ] && failed=1 # lit itself failed
  TOTAL_PASSED=$((TOTAL_PASSED + passed)) TOTAL_FAILED=$((TOTAL_FAILED + failed))
  TOTAL_SKIPPED=$((TOTAL_SKIPPED + skipped))
  echo "tests ($name): $passed passed, $failed failed, $skipped skipped ($((SECONDS - t0))s)"
  [ "$rc" -eq 0 ] && [ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
}

# The sanitized build: softgen's own targets with ASan + UBSan (the C programs
# the runtime tests compile too); LLVM stays as installed.
asan_stage() {
  local t0=$SECONDS
  cmake -S . -B "$ASAN_BUILD_DIR" -DSOFTGEN_WERROR=ON -DSOFTGEN_SANITIZE=address,undefined \
    -DPython3_EXECUTABLE="$PYTHON" >/dev/null
  cmake --build "$ASAN_BUILD_DIR" -j "$JOBS"
  echo "dev.sh: asan build took $((SECONDS - t0))s"
  lit_stage asan "$ASAN_BUILD_DIR" ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
}

# Bounded fuzzing: every libFuzzer target for FUZZ_SECONDS from the repo's seeds.
fuzz_stage() {
  local log="$FUZZ_BUILD_DIR/fuzz.log" rc=0 t0=$SECONDS
  cmake -S . -B "$FUZZ_BUILD_DIR" -DCMAKE_C_COMPILER=clang-22 -DSOFTGEN_FUZZ=ON \
    -DPython3_EXECUTABLE="$PYTHON" >/dev/null
  cmake --build "$FUZZ_BUILD_DIR" -j "$JOBS" --target fuzz
  set +e
  SOFTGEN="$(cd "$BUILD_DIR" && pwd)/softgen" test/fuzz/run.sh "$FUZZ_BUILD_DIR" "$FUZZ_SECONDS" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  set -e
  local passed failed
  passed=$(grep -c '^  fuzz_[a-z_]*: .* ok$' "$log" || true)
  failed=$(grep -c '^  fuzz_[a-z_]*: CRASH' "$log" || true)
  [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ] && failed=1
  TOTAL_PASSED=$((TOTAL_PASSED + passed)) TOTAL_FAILED=$((TOTAL_FAILED + failed))
  FUZZ_FAILED=$failed
  echo "tests (fuzz): $passed passed, $failed failed, 0 skipped ($((SECONDS - t0))s)"
  [ "$rc" -eq 0 ] && [ "$failed" -eq 0 ]
}

# failed_tests LOG: the tests a lit LOG reports failed, one a line, sorted.
failed_tests() {
  [ -f "$1" ] || return 0
  sed -n 's/^\(FAIL\|UNRESOLVED\|XPASS\|TIMEOUT\): softgen :: \([^ ]*\) .*/\2/p' "$1" | sort -u
}

# The fresh-machine check (tools/fresh-root.sh), as root (sudo where needed): the
# other stages of STAGES again in a clean Debian 12 root; counts as one test. On a
# failure, names what failed there but passed here: what this machine provides
# and tools/dev.sh does not.
fresh_stage() {
  local log="$FRESH_DIR/stage.log" rc=0 t0=$SECONDS sudo=""
  mkdir -p "$FRESH_DIR"
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  set +e
  $sudo env FRESH_STAGES="$(echo " $STAGES " | sed 's/ fresh / /g; s/^ *//; s/ *$//')" \
    FUZZ_SECONDS="$FUZZ_SECONDS" JOBS="$JOBS" tools/fresh-root.sh "$FRESH_DIR" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  set -e
  local inner
  inner=$(sed -n 's/^fresh: //p' "$log" | tail -1)
  if [ "$rc" -eq 0 ]; then
    TOTAL_PASSED=$((TOTAL_PASSED + 1))
    echo "tests (fresh): 1 passed, 0 failed, 0 skipped ($((SECONDS - t0))s; in the fresh root: $inner)"
  else
    TOTAL_FAILED=$((TOTAL_FAILED + 1))
    local src="$FRESH_DIR/sysroot/src" only="" name here there d
    for name in main asan; do
      case " $STAGES " in *" $name "*) ;; *) continue ;; esac
      if [ "$name" = main ]; then here=$BUILD_DIR there=build; else here=$ASAN_BUILD_DIR there=build-asan; fi
      d=$(comm -13 <(failed_tests "$here/lit.log") <(failed_tests "$src/$there/lit.log") | tr '\n' ' ')
      if [ -n "$d" ]; then only="$only $name: ${d% };"; fi
    done
    if [ "${FUZZ_FAILED:-1}" -eq 0 ] &&
       grep -q '^tests (fuzz): [0-9]* passed, [1-9]' "$FRESH_DIR/fresh.log" 2>/dev/null; then
      only="$only fuzz: the stage (see $src/build-fuzz);"
    fi
    if grep -q '^fresh-root.sh: tools/dev.sh generate failed' "$FRESH_DIR/fresh.log" 2>/dev/null; then
      only="$only tools/dev.sh generate;"
    fi
    if [ -n "$only" ]; then
      echo "dev.sh: failed in the fresh root but passed here (taken from this machine?):${only%;}"
    else
      echo "dev.sh: the fresh root failed only what failed here too"
    fi
    echo "tests (fresh): 0 passed, 1 failed, 0 skipped ($((SECONDS - t0))s; in the fresh root: ${inner:-did not run})"
  fi
  [ "$rc" -eq 0 ]
}

run_tests() {
  local ok=0 t0=$SECONDS
  build
  echo "dev.sh: build took $((SECONDS - t0))s"
  for stage in $STAGES; do
    case "$stage" in
      main) lit_stage main "$BUILD_DIR" || ok=1 ;;
      asan) asan_stage || ok=1 ;;
      fuzz) fuzz_stage || ok=1 ;;
      wheel) wheel_stage || ok=1 ;;
      fresh) fresh_stage || ok=1 ;;
      *) echo "dev.sh: unknown stage '$stage' (main, asan, fuzz, wheel, fresh)" >&2; ok=1 ;;
    esac
  done
  echo "dev.sh: all stages took $((SECONDS - t0))s"
  echo "tests: $TOTAL_PASSED passed, $TOTAL_FAILED failed, $TOTAL_SKIPPED skipped"
  [ "$ok" -eq 0 ] && [ "$TOTAL_FAILED" -eq 0 ] && [ "$TOTAL_PASSED" -gt 0 ]
}

case "${1:-}" in
  generate) generate ;;
  test) run_tests ;;
  build) build ;;
  wheel) wheel ;;
  install) install_missing ;;
  *) echo "usage: tools/dev.sh generate|test|build|wheel|install" >&2; exit 2 ;;
esac
