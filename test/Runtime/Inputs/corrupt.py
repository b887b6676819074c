"""Damages a code object in deterministic ways and runs softgen-run on each copy.

Needs: python3, softgen-run, a driver double named by SOFTGEN_CUDA_LIBRARY in
the environment. Usage: corrupt.py [--reseal] truncate|flip OBJECT SOFTGEN_RUN WORKDIR
--reseal: each damaged copy is sealed again (seal.py: its checksum computed
anew, where its metadata still has a checksum line), so that it gets past the
checksum to the checks behind it (metadata parser, ELF extent, driver);
without it every damaged copy is refused by its checksum.
Produces: one line per case, "LABEL: rc=RC STATUS: message" from softgen-run's
last stderr line, "LABEL: rc=0 loaded" when it ran, "LABEL: SIGNAL n" when it
died of a signal and "LABEL: HANG" when it ran past 60 s (the hang guard: lit
has no per-test timeout). Positions are found from the object's content, so the
cases stay meaningful when code generation changes.
"""
import os
import subprocess
import sys

reseal = sys.argv[1] == "--reseal"
if reseal:
    del sys.argv[1]
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import seal  # noqa: E402
mode, obj, tool, work = sys.argv[1:5]
data = open(obj, "rb").read()
ext = os.path.splitext(obj)[1]
is_elf = data[:4] == b"\x7fELF"


def run(label, blob):
    path = os.path.join(work, f"{mode}-{label}{ext}")
    with open(path, "wb") as f:
        f.write(seal.seal(blob) if reseal else blob)
    try:
        r = subprocess.run([tool, "--rows", "4", path], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=60)
    except subprocess.TimeoutExpired:
        print(f"{label}: HANG")
        return
    if r.returncode < 0:
        print(f"{label}: SIGNAL {-r.returncode}")
        return
    err = [l for l in r.stderr.decode(errors="replace").splitlines()
           if l.startswith("softgen-run:")]
    what = err[-1].split(": ", 2)[-1] if err else "loaded"
    if r.returncode == 0 and b"launched: rows=4" not in r.stdout:
        what = "exit 0 without a launch"
    print(f"{label}: rc={r.returncode} {what}".replace(path, "FILE"))


def at(needle, start=0, shift=0):
    i = data.find(needle, start)
    if i < 0:
        sys.exit(f"corrupt.py: {needle!r} not found in {obj}")
    return i + shift


def flip(pos, mask):
    b = bytearray(data)
    b[pos] ^= mask
    return bytes(b)


if mode == "truncate":
    n = len(data)
    # "half": for PTX, halfway through its first kernel (a cut between two
    # kernels would leave complete PTX, whatever their sizes); else n // 2
    entry = data.find(b".entry ") if not is_elf else -1
    end = data.find(b"\n}\n", entry) if entry >= 0 else -1
    half = (entry + end) // 2 if end > entry >= 0 else n // 2
    for cut in (0, 1, 16, 100, half, n - 2, n - 1):
        label = {half: "half", n - 2: "len-2", n - 1: "len-1"}.get(cut, str(cut))
        run(f"cut-{label}", data[:cut])
elif is_elf:  # cubin: the metadata is plain text in a data section
    meta = at(b"softgen-meta 1\n")
    cases = [
        ("meta-magic", meta, 0x01),                        # 's' -> 'r': no metadata
        ("meta-kernel-key", at(b"\nkernel ", meta, 1), 0x80),  # non-ASCII key
        ("meta-n-digit", at(b"\nn ", meta, 3), 0x80),      # n is not a number
        ("meta-arch", at(b"\narch sm_", meta, 9), 0x01),   # sm_90 -> sm_80: mismatch
        ("meta-tensor-dir", at(b"\ntensor x ", meta, 10), 0x01),  # 'in' -> 'hn'
        ("meta-end", at(b"\nend\n", meta, 1), 0x20),       # 'end' -> 'End'
        ("elf-magic", 1, 0x01),                            # not ELF: text without metadata
        ("elf-class", 4, 0x03),                            # ELFCLASS64 -> 32
        ("elf-shoff", 45, 0x80),                           # section table far past the end
        ("elf-shnum", 60, 0x80),                           # 128 more sections than bytes
        ("meta-kernel-name", at(b"\n", at(b"\nkernel ", meta, 1), -1), 0x01),  # n256 -> n257:
    ]                                                      # the module lacks that kernel
    for label, pos, mask in cases:
        run(label, flip(pos, mask))
else:  # PTX: the metadata is a decimal byte list
    meta = at(b"softgen_meta[")
    body = at(b"{", meta, 1)
    cases = [
        ("meta-first-byte", body, 0x01),                   # 115 -> 015: no magic
        ("meta-digit-non-ascii", at(b", ", body, 2), 0x80),  # list ends early: truncated
        ("meta-count", meta + len("softgen_meta["), 0x80),  # byte count unreadable
        ("ptx-version", at(b".version"), 0x80),            # non-ASCII directive
        ("entry-name", at(b".entry softgen_", 0, 7), 0x01),  # the module lacks the kernel
        ("entry-brace", at(b"{", at(b".entry "), 0), 0x80),  # unbalanced / non-ASCII
        ("last-brace", data.rindex(b"}"), 0x01),           # '}' -> '|': unbalanced
    ]
    for label, pos, mask in cases:
        run(label, flip(pos, mask))
