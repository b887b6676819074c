#!/usr/bin/env bash
# The wheel on a machine without a GPU (tools/dev.sh's wheel stage; also by hand):
#   test/wheel/run.sh WHEEL WORKDIR
# Installs WHEEL into a fresh virtual environment (WORKDIR/venv, Debian's python3,
# no system site-packages) with numpy from PyPI, then, from WORKDIR (outside the
# repository) with LD_LIBRARY_PATH unset:
#   glibc     python/check-glibc.sh on each library: the glibc the wheel's tag claims
#             at most, no libstdc++ / LLVM / zlib / zstd needed
#   check     test/wheel/check.py (ldd, the compiler, the CPU path against float64)
# Prints "tests (wheel): N passed, N failed" last; exit status 0 iff all passed.
set -uo pipefail
wheel=${1:?usage: test/wheel/run.sh WHEEL WORKDIR}
work=${2:?usage: test/wheel/run.sh WHEEL WORKDIR}
root=$(cd "$(dirname "$0")/../.." && pwd)
wheel=$(cd "$(dirname "$wheel")" && pwd)/$(basename "$wheel")
PYTHON=${PYTHON:-/usr/bin/python3}
passed=0 failed=0
result() { if [ "$1" -eq 0 ]; then passed=$((passed + 1)); echo "ok: $2"; else failed=$((failed + 1)); echo "FAIL: $2"; fi; }

rm -rf "$work/venv" && mkdir -p "$work" && work=$(cd "$work" && pwd)
"$PYTHON" -m venv "$work/venv" && "$work/venv/bin/pip" install -q --no-cache-dir "$wheel" numpy
result $? "pip install $(basename "$wheel") numpy into a fresh venv"
site=$("$work/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
# the tag's glibc: manylinux_2_X_x86_64
glibc=$(basename "$wheel" | sed -n 's/.*manylinux_\([0-9]*\)_\([0-9]*\)_x86_64\.whl$/\1.\2/p')
for lib in _lib/libsoftgen.so _lib/libsoftgen_rt.so _launch.abi3.so; do
  "$root/python/check-glibc.sh" "$site/softgen/$lib" "${glibc:-2.28}"
  result $? "check-glibc.sh $lib ${glibc:-2.28} (the wheel's tag)"
done
(cd "$work" && env -u LD_LIBRARY_PATH -u PYTHONPATH -u SOFTGEN_LIB_DIR -u SOFTGEN_LIBRARY \
  -u SOFTGEN_RT_LIBRARY -u SOFTGEN_TEMPLATES SOFTGEN_CACHE_DIR="$work/cache" \
  SOFTGEN_CUDA_LIBRARY=/nonexistent/libcuda.so.1 "$work/venv/bin/python" "$root/test/wheel/check.py")
result $? "test/wheel/check.py"
echo "tests (wheel): $passed passed, $failed failed"
[ "$failed" -eq 0 ]
