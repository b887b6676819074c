# lit configuration for softgen. Suites live in test/<Stage>/; every test is a
# file whose RUN: lines drive the CLI or a C program and pipe into FileCheck.
import os
import shutil
import subprocess

import lit.formats

config.name = "softgen"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".sgt", ".c", ".test", ".cons", ".py", ".mlir"]
config.excludes = ["Inputs", "doubles", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py",
                   "gpu", "wheel", "Inputs"]  # gpu/, wheel/: scripts of their own (run.sh)
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.softgen_obj_root, "test")

# Tools first on PATH: softgen's own, then LLVM 22's (FileCheck, not, count, llvm-*).
config.environment["PATH"] = os.pathsep.join(
    [config.softgen_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", "")])
for var in ["HOME", "TMPDIR", "CUDA_HOME", "LD_LIBRARY_PATH"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]
# Hermetic: the compile cache is off unless a test turns it on (with its own
# SOFTGEN_CACHE_DIR), so that no test reads or fills the user's ~/.cache/softgen.
config.environment["SOFTGEN_CACHE"] = "0"

if config.sanitize: config.available_features.add("asan"); config.cc += " -fsanitize=" + config.sanitize
src = config.softgen_src_root
config.substitutions.append(("%softgen-run", os.path.join(config.softgen_tools_dir, "softgen-run")))
config.substitutions.append(("%softgen", os.path.join(config.softgen_tools_dir, "softgen")))
config.substitutions.append(("%srcroot", src))  # the source tree (test/Unit/layering.test)
config.substitutions.append(("%templates", os.path.join(src, "kernels-templates")))
config.substitutions.append(("%include", os.path.join(src, "include")))
config.substitutions.append(("%rtlib", config.softgen_obj_root))
config.substitutions.append(("%objroot", config.softgen_obj_root))  # the build tree (install, man page)
config.substitutions.append(("%cc", config.cc))
config.substitutions.append(("%python", config.python))
# %seal IN OUT (or IN_DIR OUT_DIR): a test input with the checksum placeholder, sealed
config.substitutions.append(("%seal", config.python + " " +
                             os.path.join(src, "test", "Runtime", "Inputs", "seal.py")))
config.substitutions.append(("%pysrc", os.path.join(src, "python")))
config.substitutions.append(("%fake_cuda", config.fake_cuda))
config.substitutions.append(("%fake_hip", config.fake_hip))
config.substitutions.append(("%ptxas", config.ptxas or "ptxas-not-found"))
# MLIR front end (test/MLIR): "mlir" when lib/mlir was built (below); %mlir-opt verifies outputs.
config.substitutions.append(("%mlir-opt", config.mlir_opt or "mlir-opt-not-found"))
# the pass plugin (lib/mlir/plugin.cpp) that mlir-opt --load-pass-plugin loads
config.substitutions.append(("%mlir-plugin", os.path.join(config.softgen_obj_root, "softgen-mlir-plugin.so")))

# The host target's tests that pin an --arch need the machine's architecture.
import platform
config.available_features.add("host-" + platform.machine())
# The x86-64 levels this CPU runs (cpu-x86-64-v2 ... v4), from /proc/cpuinfo:
# test/Host runs kernels built for each level the CPU has.
X86_LEVELS = [("x86-64-v2", "cx16 lahf_lm popcnt sse4_1 sse4_2 ssse3"),
              ("x86-64-v3", "avx avx2 bmi1 bmi2 f16c fma abm movbe xsave"),
              ("x86-64-v4", "avx512f avx512bw avx512cd avx512dq avx512vl")]
try:
    with open("/proc/cpuinfo") as f:
        cpu_flags = set(next((l for l in f if l.startswith("flags")), ":").split(":", 1)[1].split())
except OSError:
    cpu_flags = set()
if platform.machine() == "x86_64":
    for level, needs in X86_LEVELS:
        if not set(needs.split()) <= cpu_flags:
            break
        config.available_features.add("cpu-" + level)

# Features that tools/dev.sh installs (its PACKAGES): a machine it prepared has every
# one, so a missing one is an error, not a silent UNSUPPORTED. Where one is really
# not wanted, name it in SOFTGEN_TEST_OPTIONAL (space- or comma-separated, or "all"):
# its tests are then UNSUPPORTED, with a note.
OPTIONAL = set(os.environ.get("SOFTGEN_TEST_OPTIONAL", "").replace(",", " ").split())
missing = []


def needed(feature, found, why):
    if found:
        config.available_features.add(feature)
    elif feature in OPTIONAL or "all" in OPTIONAL:
        lit_config.note("%s: REQUIRES: %s tests are UNSUPPORTED (SOFTGEN_TEST_OPTIONAL)"
                        % (why, feature))
    else:
        missing.append("%s (%s)" % (feature, why))


# valgrind (Debian package valgrind): test/CLI/valgrind.test runs the README's main job under it
needed("valgrind", shutil.which("valgrind"), "valgrind not on PATH")

# numpy (python3-numpy) for the Python binding's host tests (test/Python), imported by
# the python3 the build was configured with (tools/dev.sh: Debian's /usr/bin/python3).
try:
    numpy_ok = subprocess.run([config.python, "-c", "import numpy"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=60).returncode == 0
except (OSError, subprocess.SubprocessError):
    numpy_ok = False
needed("numpy", numpy_ok, "numpy not importable by %s; tools/dev.sh configures with "
       "-DPython3_EXECUTABLE=/usr/bin/python3 and installs python3-numpy" % config.python)

# MLIR front end (libmlir-22-dev, mlir-22-tools): test/MLIR.
needed("mlir", config.have_mlir and config.mlir_opt,
       "softgen built without MLIR (MLIR_FOUND=%s) or mlir-opt not found"
       % ("yes" if config.have_mlir else "no"))

if missing:
    lit_config.fatal("missing test features: %s. tools/dev.sh installs what they need; "
                     "SOFTGEN_TEST_OPTIONAL=\"%s\" runs without them (their tests UNSUPPORTED)"
                     % ("; ".join(missing), " ".join(m.split()[0] for m in missing)))

# Optional features (never installed by tools/dev.sh): ptxas where a CUDA toolkit is
# installed; cuda/rocm only after a real driver answered (so GPU tests skip cleanly
# on CI machines).
if config.ptxas and os.path.exists(config.ptxas):
    config.available_features.add("ptxas")
else:
    lit_config.note("ptxas not found: tests that need it are UNSUPPORTED (skipped)")


def driver_answers(backend):
    probe = os.path.join(config.softgen_tools_dir, "softgen-run")
    if not os.path.exists(probe):
        return False
    env = dict(os.environ)
    env.pop("SOFTGEN_CUDA_LIBRARY", None)
    env.pop("SOFTGEN_HIP_LIBRARY", None)
    try:
        r = subprocess.run([probe, "--probe", "--backend", backend], env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
        return r.returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


if driver_answers("cuda"):
    config.available_features.add("cuda")
else:
    lit_config.note("no CUDA driver answered: REQUIRES: cuda tests are UNSUPPORTED (skipped)")
if driver_answers("hip"):
    config.available_features.add("rocm")
