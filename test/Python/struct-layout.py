# The ctypes Structures of the Python package (_rt.py, _cc.py) mirror softgen's C
# structs by hand; this test compiles a C program that prints each struct's size
# and each field's offset from the headers and compares them with ctypes' own: a
# field added, moved or retyped on one side only fails here. (_arrays.py's DLPack
# structs follow dlpack.h, not softgen: test/Runtime/python-dlpack.py covers them.)
# RUN: rm -rf %t && mkdir -p %t
# RUN: %python %s %pysrc %include %t "%cc" | FileCheck %s
# CHECK-NOT: MISMATCH
# CHECK: structs: {{[0-9]+}} compared, fields and sizes equal
import ctypes
import os
import subprocess
import sys

sys.path.insert(0, sys.argv[1])
os.environ.setdefault("SOFTGEN_RT_LIBRARY", "/nonexistent/libsoftgen_rt.so")
pysrc, include, tmp, cc = sys.argv[1:5]

# _rt.py loads libsoftgen_rt at import; read its Structures without the library
src = open(os.path.join(pysrc, "softgen", "_rt.py")).read()
src = src.replace('lib = _declare(ctypes.CDLL(find_library("libsoftgen_rt.so", "SOFTGEN_RT_LIBRARY")))', "")
rt = {}
exec(compile(src, "_rt.py", "exec"), rt)
cc_src = open(os.path.join(pysrc, "softgen", "_cc.py")).read().replace("from . import _rt", "")
ccm = {"_rt": type("M", (), rt)}
exec(compile(cc_src, "_cc.py", "exec"), ccm)

pairs = [  # (ctypes Structure, C type)
    (rt["Diag"], "sg_diag"), (rt["MetaTensor"], "sg_meta_tensor"), (rt["MetaArg"], "sg_meta_arg"),
    (rt["MetaScalar"], "sg_meta_scalar"), (rt["MetaVariant"], "sg_meta_variant"),
    (rt["Meta"], "sg_meta"), (rt["Tensor"], "sgrt_tensor"), (ccm["Source"], "sg_source"),
    (ccm["Problem"], "sg_problem"), (ccm["EmitOptions"], "sg_emit_options"),
    (ccm["CompileOptions"], "sg_compile_options"), (ccm["CompileStats"], "sg_compile_stats"),
    (ccm["Buffer"], "sg_buffer"),
]
lines = ["#include <stddef.h>", "#include <stdio.h>", "#include \"softgen/compile.h\"",
         "#include \"softgen/runtime.h\"", "#include \"softgen/meta.h\"", "int main(void) {"]
for py, c in pairs:
    lines.append(f'  printf("{c} size %zu\\n", sizeof({c}));')
    for name, _ in py._fields_:
        lines.append(f'  printf("{c} {name} %zu\\n", offsetof({c}, {name}));')
lines += ["  return 0;", "}"]
with open(os.path.join(tmp, "layout.c"), "w") as f:
    f.write("\n".join(lines) + "\n")
exe = os.path.join(tmp, "layout")
subprocess.run(cc.split() + ["-std=c11", f"-I{include}", os.path.join(tmp, "layout.c"), "-o", exe],
               check=True)
c_side = dict(line.rsplit(" ", 1) for line in subprocess.run(
    [exe], capture_output=True, text=True, check=True).stdout.splitlines())
bad = 0
for py, c in pairs:
    got = {f"{c} size": ctypes.sizeof(py)}
    got.update({f"{c} {name}": getattr(py, name).offset for name, _ in py._fields_})
    for key, value in got.items():
        if int(c_side[key]) != value:
            print(f"MISMATCH {key}: C {c_side[key]}, ctypes {value}")
            bad += 1
print(f"structs: {len(pairs)} compared, " +
      ("fields and sizes equal" if not bad else f"{bad} differences"))
