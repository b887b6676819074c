"""Seals softgen code objects for tests: writes the checksum of each object into
its metadata's checksum line (include/softgen/meta.h), as the compile driver
does for what it emits, so that committed test inputs stay editable text with
the placeholder and are sealed when a test runs. An independent implementation
(hashlib) of lib/meta/seal.c: an input sealed here and accepted by the runtime
checks both.

Usage: seal.py IN OUT          one object (OUT may equal IN)
       seal.py IN_DIR OUT_DIR  every *.ptx and *.in of IN_DIR (OUT_DIR/NAME, a
                               trailing ".in" dropped: k.hsaco.in -> k.hsaco)
       seal.py --check FILE    prints "sealed", "placeholder" or "mismatch"
Needs: python3. The checksum line is the metadata's second line, "checksum "
and 64 hex digits 0-9 A-F (the placeholder: 64 '0'); the digest is the SHA-256
of the object with those digits read as '0' (PTX: the byte-list entries of
the digits, each read as "48"). An object without metadata or checksum line is
copied as it is (sealing cannot apply: the runtime's message is the test's).
"""
import hashlib
import os
import re
import sys

MAGIC = b"softgen-meta 1\n"
KEY = b"checksum "
DIGITS = 64


def digit_places(data):
    """(offsets of the 64 checksum digits in data, width: 1 raw, 2 PTX) or None."""
    i = data.find(MAGIC)
    if i >= 0:
        at = i + len(MAGIC)
        if data[at:at + len(KEY)] != KEY:
            return None
        return [at + len(KEY) + k for k in range(DIGITS)], 1
    m = re.search(rb"(?<![A-Za-z0-9_])softgen_meta\[[0-9]+\][^{;]*\{", data)
    if not m:
        return None
    entries = [(e.start(), int(e.group())) for e in
               re.finditer(rb"[0-9]+", data[m.end():data.find(b"}", m.end())])]
    first = len(MAGIC) + len(KEY)
    text = bytes(v for _, v in entries[:first]) if all(v < 256 for _, v in entries[:first]) else b""
    if len(entries) < first + DIGITS or not text.startswith(MAGIC + KEY):
        return None
    return [m.end() + off for off, _ in entries[first:first + DIGITS]], 2


def digest(data, places, width):
    blob = bytearray(data)
    for p in places:
        blob[p:p + width] = b"0" if width == 1 else b"48"
    return hashlib.sha256(bytes(blob)).hexdigest().upper().encode()


def seal(data):
    found = digit_places(data)
    if not found:
        return data
    places, width = found
    hexd = digest(data, places, width)
    blob = bytearray(data)
    for p, c in zip(places, hexd):
        blob[p:p + width] = bytes([c]) if width == 1 else str(c).encode()
    return bytes(blob)


def check(data):
    found = digit_places(data)
    if not found:
        return "no checksum line"
    places, width = found
    have = bytes(data[p] if width == 1 else int(data[p:p + 2]) for p in places)
    if have == b"0" * DIGITS:
        return "placeholder"
    return "sealed" if have == digest(data, places, width) else "mismatch"


def main():
    if sys.argv[1] == "--check":
        print(check(open(sys.argv[2], "rb").read()))
        return
    src, dst = sys.argv[1:3]
    if os.path.isdir(src):
        os.makedirs(dst, exist_ok=True)
        for name in sorted(os.listdir(src)):
            if name.endswith((".ptx", ".in")):
                out = name[:-3] if name.endswith(".in") else name
                with open(os.path.join(dst, out), "wb") as f:
                    f.write(seal(open(os.path.join(src, name), "rb").read()))
        return
    data = open(src, "rb").read()
    with open(dst, "wb") as f:
        f.write(seal(data))


if __name__ == "__main__":
    main()
