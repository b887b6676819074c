# The Python package's import graph is the table at the top of its __init__.py:
# each module imports from the package exactly the modules the table lists, all
# of them below it (so no cycle), and each private helper (a top-level _name) is
# defined in one module only. Reads the sources (ast); loads no library.
# RUN: %python %s %pysrc/softgen | FileCheck %s
# CHECK-NOT: error:
# CHECK: table: 12 modules, imports match, top to bottom
# CHECK-NEXT: helpers: each defined once
import ast
import os
import sys

PKG = sys.argv[1]
errors = []

# the table: "#   module  imports...  holds" rows between the header row and a bare "#"
table, rows = [], None
for line in open(os.path.join(PKG, "__init__.py")):
    words = line[1:].split() if line.startswith("#") else None
    if words and words[:3] == ["module", "imports", "holds"]:
        rows = True
    elif rows and words:
        table.append(words)
    elif rows:
        break
names = [w[0] for w in table]
files = sorted(f[:-3] for f in os.listdir(PKG) if f.endswith(".py"))
extensions = sorted(f[:-2] for f in os.listdir(PKG) if f.endswith(".c"))  # C, in the wheel
if sorted(names) != sorted(files + extensions):
    errors.append(f"the table lists {sorted(names)}, the package holds {files + extensions}")

for i, words in enumerate(table):
    name = words[0]
    listed = []
    for w in words[1:]:
        if w == "-" or w not in names:
            break
        listed.append(w)
    path = os.path.join(PKG, name + ".py")
    if not os.path.exists(path):
        continue
    tree = ast.parse(open(path).read(), path)
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            if node.level != 1:
                errors.append(f"{name}: imports from outside the package ({node.module})")
            elif node.module:
                imported.add(node.module)
            else:
                imported |= {a.name for a in node.names}
    if imported != set(listed):
        errors.append(f"{name}: imports {sorted(imported)}, the table says {sorted(listed)}")
    above = [m for m in listed if names.index(m) <= i]
    if above:
        errors.append(f"{name}: imports {above}, not below it in the table")

defined = {}
for name in files:
    path = os.path.join(PKG, name + ".py")
    for node in ast.parse(open(path).read(), path).body:
        targets = []
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            targets = [node.name]
        elif isinstance(node, ast.Assign):
            targets = [t.id for t in node.targets if isinstance(t, ast.Name)]
        for t in targets:
            if t.startswith("_") and not t.startswith("__"):
                defined.setdefault(t, set()).add(name)

for e in errors:
    print("error:", e)
if not errors:
    print(f"table: {len(table)} modules, imports match, top to bottom")
twice = {k: sorted(v) for k, v in defined.items() if len(v) > 1}
for k, v in sorted(twice.items()):
    print(f"error: {k} is defined in {', '.join(v)}")
if not twice:
    print("helpers: each defined once")
