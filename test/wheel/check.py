"""The installed wheel on a machine without a GPU (test/wheel/run.sh runs it with
the virtual environment's python, outside the repository, LD_LIBRARY_PATH unset).

Checks, one line each ("ok: ..." or "FAIL: ..."), exit status 1 on any FAIL:
  - softgen is imported from site-packages (not the source tree) with its two
    libraries and templates inside the package, and its C extension (_launch)
    reaches the runtime;
  - ldd of each library resolves everything and names no libLLVM, libstdc++, libz
    or libzstd; no libLLVM is mapped into this process after compiling;
  - the compiler: PTX for sm_90, the arch chosen for devices it does not list;
  - the CPU path (the host target, JIT-compiled in process) of every row-wise
    template and dtype at N = 1, 7, 1000, 4099, against a float64 reference
    (numpy); the attention templates are torch-only (the GPU check runs them).
"""
import os
import subprocess
import sys

failures = []


def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what, flush=True)
    if not ok:
        failures.append(what)


import softgen  # noqa: E402
from softgen import _cc, _rt  # noqa: E402

pkg = os.path.dirname(softgen.__file__)
check("site-packages" in pkg, f"softgen imported from {pkg}")
libs = [os.path.join(pkg, "_lib", f) for f in ("libsoftgen.so", "libsoftgen_rt.so")]
check(all(os.path.isfile(p) for p in libs), "both libraries are in the package")
check(_rt.find_library("libsoftgen.so", "SOFTGEN_LIBRARY") == libs[0] and
      _rt.find_library("libsoftgen_rt.so", "SOFTGEN_RT_LIBRARY") == libs[1],
      "the package finds its own libraries")
check(os.path.isfile(os.path.join(pkg, "templates", "softmax.sgt")), "templates in the package")
for lib in libs:
    text = subprocess.run(["ldd", lib], capture_output=True, text=True).stdout
    bad = [w for w in ("not found", "libLLVM", "libstdc++", "libz.so", "libzstd") if w in text]
    check(not bad, f"ldd {os.path.basename(lib)}: {'names ' + ', '.join(bad) if bad else 'clean'}")

try:
    from softgen import _launch
except ImportError as e:
    _launch = None
    check(False, f"the C extension softgen._launch imports: {e}")
if _launch is not None:  # a null kernel: the runtime refuses it (SG_ERR_INVALID_ARGUMENT, 1)
    from softgen import _kernel
    check(_kernel._launch_dense_fn is _launch.dense and _launch.dense(0, 1, 0, 16, 32, 0) == 1,
          "the C extension launches through the runtime (a null kernel refused)")
print("version:", softgen.version())
k = softgen.compile("softmax", N=1000, dtype="bf16", target="nvptx", arch="sm_90", emit="asm")
check(k.image.startswith(b"//") and b".target sm_90" in k.image, "PTX for sm_90")
lib = _cc.load()
chosen = {a: (lib.sg_arch_for_device(b"nvptx", a.encode()) or b"-").decode()
          for a in ("sm_86", "sm_120", "sm_130", "sm_75")}
check(chosen == {"sm_86": "sm_86", "sm_120": "sm_120", "sm_130": "sm_121", "sm_75": "-"},
      f"arch for unlisted devices: {chosen}")

try:
    import numpy as np
except ImportError:
    np = None
check(np is not None, "numpy imports (the venv installs it)")
if np is not None:
    rng = np.random.default_rng(0)

    def ref(template, x, g):
        x = x.astype(np.float64)
        if template.endswith("_backward"):
            g = g.astype(np.float64)
            if template.startswith("log"):
                return g - np.exp(x) * g.sum(-1, keepdims=True)
            return x * (g - (g * x).sum(-1, keepdims=True))
        s = x - x.max(-1, keepdims=True)
        lse = np.log(np.exp(s).sum(-1, keepdims=True))
        return s - lse if template == "log_softmax" else np.exp(s - lse)

    worst = {}
    for template in ("softmax", "log_softmax", "softmax_backward", "log_softmax_backward"):
        for n in (1, 7, 1000, 4099):
            x = rng.standard_normal((3, n)).astype(np.float32)
            g = rng.standard_normal((3, n)).astype(np.float32)
            if template.endswith("_backward"):
                y = softgen.softmax(x) if template == "softmax_backward" else softgen.log_softmax(x)
                got = getattr(softgen, template)(g, y)
                want = ref(template, y, g)
            else:
                got = getattr(softgen, template)(x)
                want = ref(template, x, None)
            err = float(np.abs(got - want).max())
            worst[template] = max(worst.get(template, 0.0), err)
    for template, err in worst.items():
        check(err < 2e-5, f"host {template} f32, N = 1, 7, 1000, 4099: max abs error {err:.2e}")

maps = open("/proc/self/maps").read()
check("libLLVM" not in maps, "no libLLVM mapped into the process")
print(f"wheel check: {'FAIL' if failures else 'PASS'} ({len(failures)} failed)")
sys.exit(1 if failures else 0)
