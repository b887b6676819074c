"""layering.py SRC [FAKE_LIB_ROOT] - the pipeline's direction, checked on the sources.

Reads the modules and their DEPENDS from softgen_module(...) calls in SRC's CMake files
and every `#include "X/..."` in lib/NAME/*.[ch]: a module may include its own headers,
those of the modules it depends on, transitively, and those softgen_use_headers names
for it (docs/architecture.md). The build
enforces the same through per-module include roots; this names every edge that breaks
it, for a reader and for a change that would loosen the build. Exit 1 on any.
With FAKE_LIB_ROOT, reads lib/ from there instead (the test's negative case)."""
import os
import re
import sys

src = sys.argv[1]
lib = os.path.join(sys.argv[2] if len(sys.argv) > 2 else src, "lib")
deps, uses = {}, {}
for cm in (os.path.join(src, "CMakeLists.txt"), os.path.join(src, "lib", "mlir", "CMakeLists.txt")):
    text = open(cm).read()
    for m in re.finditer(r"softgen_module\((\w+)(.*?)\)", text, re.S):
        words = m.group(2).split()
        d = []
        if "DEPENDS" in words:
            for w in words[words.index("DEPENDS") + 1:]:
                if w in ("SOURCES", "TYPE"):
                    break
                d.append(w)
        deps[m.group(1)] = d
    for m in re.finditer(r"softgen_use_headers\(softgen_(\w+)((?:\s+\w+)+)\)", text):
        uses.setdefault(m.group(1), []).extend(m.group(2).split())


def reach(name, seen=None):
    seen = set() if seen is None else seen
    for d in deps.get(name, []):
        if d not in seen:
            seen.add(d)
            reach(d, seen)
    return seen


bad = 0
for name in sorted(os.listdir(lib)):
    if name not in deps:
        continue
    allowed = reach(name) | {name} | set(uses.get(name, []))
    for f in sorted(os.listdir(os.path.join(lib, name))):
        if not f.endswith((".c", ".h")):
            continue
        for n, line in enumerate(open(os.path.join(lib, name, f)), 1):
            m = re.match(r'\s*#\s*include\s+"(\w+)/', line)
            if m and m.group(1) in deps and m.group(1) not in allowed:
                print("lib/%s/%s:%d: %s includes %s/, against the direction (%s may use: %s)"
                      % (name, f, n, name, m.group(1), name, " ".join(sorted(allowed))))
                bad += 1
print("layering: %d modules, %d edges against the direction" % (len(deps), bad))
sys.exit(1 if bad else 0)
