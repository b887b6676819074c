# Kernel.save() writes like the CLI (complete or not at all; a symlink stays a
# symlink, a device is written in place, a directory is refused and left), and
# loading or reading a kernel's file is bounded (a FIFO is refused at once).
# A host .so stands for any code object (the host backend needs no GPU).
# An ASan-built runtime cannot load into an uninstrumented python:
# UNSUPPORTED: asan
# RUN: rm -rf %t && mkdir -p %t
# RUN: %softgen -D N=128 --dtype f32 --target host --emit so -o %t/k.so
# RUN: bash -c 'umask 022; env PYTHONPATH=%pysrc SOFTGEN_LIB_DIR=%rtlib timeout 60 %python %s %t; echo rc=$?' | FileCheck %s
import os
import resource
import signal
import stat
import sys

import softgen

TMP = sys.argv[1]
k = softgen.load(f"{TMP}/k.so")
image = k.image
print("image", len(image) == os.path.getsize(f"{TMP}/k.so"))
# CHECK: image True

k.save(f"{TMP}/new.so")
print("new", open(f"{TMP}/new.so", "rb").read() == image,
      oct(stat.S_IMODE(os.stat(f"{TMP}/new.so").st_mode)))
# CHECK-NEXT: new True 0o644

with open(f"{TMP}/target.so", "wb") as f:
    f.write(b"old")
os.symlink("target.so", f"{TMP}/link.so")
k.save(f"{TMP}/link.so")
print("symlink", os.path.islink(f"{TMP}/link.so"),
      open(f"{TMP}/target.so", "rb").read() == image)
# CHECK-NEXT: symlink True True

k.save("/dev/null")
print("devnull", stat.S_ISCHR(os.stat("/dev/null").st_mode))
# CHECK-NEXT: devnull True

os.mkdir(f"{TMP}/dir")
try:
    k.save(f"{TMP}/dir")
except IsADirectoryError as e:
    print("dir", "refused", os.path.isdir(f"{TMP}/dir"))
# CHECK-NEXT: dir refused True

# A write that fails partway (the file size limit, as a full disk would) leaves
# the old file as it was and no temporary beside it.
with open(f"{TMP}/old.so", "wb") as f:
    f.write(b"the old bytes")
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
resource.setrlimit(resource.RLIMIT_FSIZE, (1024, hard))
try:
    k.save(f"{TMP}/old.so")
    print("full", "saved?!")
except OSError as e:
    print("full", type(e).__name__)
resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
print("kept", open(f"{TMP}/old.so", "rb").read() == b"the old bytes",
      [n for n in os.listdir(TMP) if n.startswith(".softgen-")])
# CHECK-NEXT: full OSError
# CHECK-NEXT: kept True []

os.mkfifo(f"{TMP}/k.fifo")
try:
    softgen.load(f"{TMP}/k.fifo", backend="host")
except softgen.Error as e:
    print("fifo", type(e).__name__, str(e).replace(TMP, "TMP"))
# CHECK-NEXT: fifo {{.*}}Error {{.*}}TMP/k.fifo{{.*}}regular file
# CHECK-NEXT: rc=0
