"""Edits one line of a code object's launch metadata, as a user with a hex editor
would (issue 19, item 3: "n 1000" made "n 10" overflowed the heap): the object
keeps its length and every other byte, checksum included.

Usage: edit_meta.py IN OUT "OLD LINE" "NEW LINE"
OLD may be a key alone ("vector_bytes"): the line of that key, whatever its value.
The metadata is raw text (ELF objects, the runtime tests' text inputs) or a
PTX byte list (its decimal entries are rewritten; the list keeps its count).
NEW may be shorter than OLD: it is padded with newlines, which the metadata
parser skips ("n 1000" -> "n 10\\n\\n"). Exits 1 when OLD is not a line of the
metadata.
"""
import re
import sys

src, dst, old, new = sys.argv[1:5]


def edit(text):
    """text with the line OLD replaced, or None when it has none."""
    key = old if " " not in old else None
    m = re.search((rb"\n" + re.escape(key.encode()) + rb" [^\n]*\n") if key else
                  (rb"\n" + re.escape(old.encode()) + rb"\n"), text)
    if not m:
        return None
    new_b = new.encode() + b"\n"
    if len(new_b) > m.end() - m.start() - 1:
        sys.exit("edit_meta.py: the new line must not be longer than the old one")
    new_b += b"\n" * (m.end() - m.start() - 1 - len(new_b))
    return text[:m.start() + 1] + new_b + text[m.end():]


data = open(src, "rb").read()
start = data.find(b"softgen-meta 1\n")
if start >= 0:
    end = data.find(b"\nend\n", start)
    edited = edit(data[start:end + 5]) if end > 0 else None
    if edited is None:
        sys.exit(f"edit_meta.py: no line {old!r} in the metadata of {src}")
    data = data[:start] + edited + data[end + 5:]
else:
    m = re.search(rb"softgen_meta\[[0-9]+\][^{;]*\{([^}]*)\}", data)
    if not m:
        sys.exit(f"edit_meta.py: no metadata in {src}")
    text = edit(bytes(int(v) for v in re.findall(rb"[0-9]+", m.group(1))))
    if text is None:
        sys.exit(f"edit_meta.py: no line {old!r} in the metadata of {src}")
    body = b", ".join(str(c).encode() for c in text)
    data = data[:m.start(1)] + body + data[m.end(1):]
open(dst, "wb").write(data)
