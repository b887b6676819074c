"""A byte-mutation sweep over a code object (issue 19, item 3: 2,431 of 6,500
byte-mutated host .so files crashed the loading process, each leaving a
/tmp/softgen-kernel-* file). Every copy must load and run exactly as the
original does, or be refused with an error; none may end in a signal or a
hang, and no file may be left in $TMPDIR (which the caller points at an empty
directory).

Usage: mutate.py OBJECT COUNT WORKDIR CMD... (the object's path is appended to
CMD; each copy's path is appended in its place). Positions: the ELF header, the
metadata and its checksum line, and the rest of the file at an even spread, COUNT
copies in all, each with one byte XORed by a mask that cycles through 0x01,
0x80, 0xff, 0x10 (deterministic). Produces one summary line:
  copies=C same=S refused=R signals=0 hangs=0 other=0 leftover=0
then, sorted, "refused: REASON xN" per distinct refusal (its message with the
path removed), then each copy that did not end as expected.
"""
import collections
import os
import subprocess
import sys

obj, count, work, cmd = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
data = open(obj, "rb").read()
tmpdir = os.environ.get("TMPDIR", "")
if not tmpdir or os.listdir(tmpdir):
    sys.exit("mutate.py: point TMPDIR at an empty directory")


def run(path):
    try:
        r = subprocess.run(cmd + [path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=60)
    except subprocess.TimeoutExpired:
        return "hang", ""
    if r.returncode < 0:
        return "signal", f"SIGNAL {-r.returncode}"
    err = r.stderr.decode(errors="replace").replace(path, "FILE").strip().splitlines()
    out = r.stdout.decode(errors="replace").replace(path, "FILE")
    return r.returncode, (err[-1] if err else "") if r.returncode else out


base_rc, base_out = run(obj)
if base_rc != 0:
    sys.exit(f"mutate.py: the original object does not run: {base_out}")

meta = data.find(b"softgen-meta 1\n")
positions = list(range(0, min(64, len(data))))  # the ELF header
if meta >= 0:
    positions += range(meta, min(len(data), meta + 120))  # magic, checksum line, kernel
rest = max(0, count - len(positions))
positions += [i * len(data) // max(1, rest) for i in range(rest)]
positions = positions[:count]

tally = collections.Counter()
reasons = collections.Counter()
odd = []
for n, pos in enumerate(positions):
    blob = bytearray(data)
    blob[pos] ^= (0x01, 0x80, 0xFF, 0x10)[n % 4]
    path = os.path.join(work, f"m{n}{os.path.splitext(obj)[1]}")
    with open(path, "wb") as f:
        f.write(blob)
    rc, what = run(path)
    os.remove(path)
    if rc == 0 and what == base_out:
        tally["same"] += 1
    elif rc == 0:
        tally["other"] += 1
        odd.append(f"byte {pos}: ran, output differs")
    elif rc in ("hang", "signal"):
        tally[rc + "s"] += 1
        odd.append(f"byte {pos}: {what or rc}")
    elif rc == 3 and ": SG_ERR_" in what:
        tally["refused"] += 1
        reasons[what.split(": ", 2)[-1]] += 1
    else:
        tally["other"] += 1
        odd.append(f"byte {pos}: exit {rc}: {what}")

leftover = os.listdir(tmpdir)
print(f"copies={len(positions)} same={tally['same']} refused={tally['refused']} "
      f"signals={tally['signals']} hangs={tally['hangs']} other={tally['other']} "
      f"leftover={len(leftover)}")
for reason, k in sorted(reasons.items()):
    print(f"refused: {reason} x{k}")
for line in odd + [f"left in TMPDIR: {f}" for f in leftover]:
    print(line)
