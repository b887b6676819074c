# softgen.compile of a template with no output tensor raises softgen.Error
# (it killed the interpreter with SIGFPE: the resolver indexed tensor -1).
# An ASan-built libsoftgen cannot load into an uninstrumented python:
# UNSUPPORTED: asan
# RUN: env PYTHONPATH=%pysrc SOFTGEN_LIB_DIR=%rtlib SOFTGEN_CUDA_LIBRARY=/nonexistent/libcuda.so.1 %python %s | FileCheck %s
# CHECK-NOT: compiled
# CHECK: scalars host: raised {{.*}}<python template>:1:8: kernel 'k' has no output tensor
# CHECK: scalars nvptx: raised {{.*}}<python template>:1:8: kernel 'k' has no output tensor
# CHECK: inputs host: raised {{.*}}<python template>:1:8: kernel 'k' has no output tensor
# CHECK: inputs nvptx: raised {{.*}}<python template>:1:8: kernel 'k' has no output tensor
# CHECK-NOT: compiled
import softgen

for name, src in [("scalars", "kernel k(s: f32, L: i64)\n  a = neg(s)\n"),
                  ("inputs", "kernel k(x: in[M, N] T)\n  a = read(x)\n")]:
    for target in ("host", "nvptx"):
        try:
            arch = "native" if target == "host" else "sm_90"
            softgen.compile(src, N=64, target=target, arch=arch)
            print(name, target, "compiled")
        except softgen.Error as e:
            print("%s %s: raised %s" % (name, target, e))
