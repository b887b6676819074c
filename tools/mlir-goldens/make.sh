#!/usr/bin/env bash
# make.sh OUTDIR - remakes the MLIR goldens of issue 23 (tools/mlir-goldens/make.py says
# what each is). Needs PyPI and Debian's mlir-22-tools (mlir-opt-22); makes a virtual
# environment in $GOLDENS_VENV (default /tmp/softgen-goldens-venv) with the frontends of
# the versions below (torch from PyPI is its CUDA build: about 3 GB with its nvidia
# packages; no GPU is needed).
set -euo pipefail
out=${1:?usage: make.sh OUTDIR}
venv=${GOLDENS_VENV:-/tmp/softgen-goldens-venv}
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q torch==2.15.0 torch-mlir==20261001 iree-base-compiler==3.13.0 \
    jax==0.10.2 jaxlib==0.10.2
fi
PATH="$venv/bin:$PATH" "$venv/bin/python" "$here/make.py" "$out"
