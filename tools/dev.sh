#!/usr/bin/env bash
# softgen's set-up, build and test entry point (the README's two commands).
#   tools/dev.sh generate   install what is missing, build, generate the default
#                           softmax kernel into out/ and list what was made
#   tools/dev.sh test       install what is missing, build, run every test;
#                           exit 0 only if every test passed
#   tools/dev.sh build      install what is missing and build
# Environment: BUILD_DIR (default build), JOBS (default: number of cores).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
PACKAGES="cmake make gcc python3 llvm-22-dev lld-22 llvm-22-tools libmlir-22-dev mlir-22-tools"

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
  cmake -S . -B "$BUILD_DIR" -DSOFTGEN_WERROR=ON >/dev/null
  cmake --build "$BUILD_DIR" -j "$JOBS"
}

generate() {
  build
  "$BUILD_DIR/softgen" softmax -D N=8192 --dtype f16 --target nvptx --arch sm_90 --out-dir out
  echo "dev.sh: the kernel's launch plan:"
  "$BUILD_DIR/softgen" softmax -D N=8192 --dtype f16 --print-config
}

run_tests() {
  build
  local log="$BUILD_DIR/lit.log" rc=0
  set +e
  cmake --build "$BUILD_DIR" --target check 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  set -e
  local passed failed skipped
  passed=$(sed -n 's/^ *Passed *: *\([0-9]*\).*/\1/p' "$log" | tail -1)
  failed=$(sed -n 's/^ *\(Failed\|Unresolved\|Timed Out\|Unexpectedly Passed\) *: *\([0-9]*\).*/\2/p' "$log" | awk '{s+=$1} END {print s+0}')
  skipped=$(sed -n 's/^ *Unsupported *: *\([0-9]*\).*/\1/p' "$log" | tail -1)
  echo "tests: ${passed:-0} passed, ${failed:-0} failed, ${skipped:-0} skipped"
  [ "$rc" -eq 0 ] && [ "${failed:-0}" -eq 0 ] && [ "${passed:-0}" -gt 0 ]
}

case "${1:-}" in
  generate) generate ;;
  test) run_tests ;;
  build) build ;;
  install) install_missing ;;
  *) echo "usage: tools/dev.sh generate|test|build|install" >&2; exit 2 ;;
esac
