"""Builds host-target shared libraries for every documented arch x dtype x a
few templates and lists the undefined symbols of each (llvm-nm -u): a host
code object calls no library function (lib/target/host.c), so every list must
be empty and every link must succeed (ld.lld --no-undefined).

    no_undefined.py SOFTGEN LLVM_NM TEMPLATES_DIR OUT_DIR

x86-64 archs are built for the x86_64 triple and AArch64 ones for the aarch64
triple (SOFTGEN_HOST_TRIPLE, generic code generation: any build machine), and
"native" for the machine running the test (this machine's triple). Prints one line per build,
"ok - ..." or "not ok - ... (why)", then "N builds, N failed"."""
import os
import subprocess
import sys

softgen, nm, templates, out = sys.argv[1:5]
# template, N: scalar code (N = 7: one element a lane), vectors, tiles with a tail
TEMPLATES = [("softmax", 7), ("log_softmax_backward", 1000), ("safe_attention_softmax", 4099)]
DTYPES = ["f16", "bf16", "f32"]
MACHINES = [(None, ["native"]),
            ("x86_64-unknown-linux-gnu", ["x86-64", "x86-64-v2", "x86-64-v3", "x86-64-v4"]),
            ("aarch64-unknown-linux-gnu", ["generic", "neoverse-n1", "neoverse-v1", "apple-m1"])]
builds = failed = 0
for triple, archs in MACHINES:
    env = dict(os.environ)
    if triple:
        env["SOFTGEN_HOST_TRIPLE"] = triple
    for arch in archs:
        for dtype in DTYPES:
            for tpl, n in TEMPLATES:
                name = "%s %s %s %s" % (triple or "this machine", arch, dtype, tpl)
                path = os.path.join(out, "k.so")
                builds += 1
                cmd = [softgen, os.path.join(templates, tpl + ".sgt"), "-D", "N=%d" % n, "--dtype",
                       dtype, "--target", "host", "--arch", arch, "--emit", "so", "-o", path]
                r = subprocess.run(cmd, env=env, capture_output=True, text=True)
                if r.returncode != 0:
                    failed += 1
                    print("not ok - %s (link: %s)" % (name, r.stderr.strip().splitlines()[-1:]))
                    continue
                u = subprocess.run([nm, "-u", path], capture_output=True, text=True)
                undefined = u.stdout.split()
                if u.returncode != 0 or undefined:
                    failed += 1
                    print("not ok - %s (undefined: %s)" % (name, " ".join(undefined) or u.stderr))
                else:
                    print("ok - %s" % name)
print("%d builds, %d failed" % (builds, failed))
