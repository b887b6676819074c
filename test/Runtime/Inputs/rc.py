"""Runs a command with a 60 s limit and reports how it ended.

Usage: rc.py CMD [ARG...]. Produces: the command's stdout and stderr (merged
in that order), then "exit N", "SIGNAL n" or "HANG". A hang guard and an exit
status check for lit RUN lines (lit's `not` accepts any non-zero status).
"""
import subprocess
import sys

try:
    r = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
except subprocess.TimeoutExpired:
    print("HANG")
    sys.exit(0)
sys.stdout.write(r.stdout.decode(errors="replace"))
sys.stdout.write(r.stderr.decode(errors="replace"))
print(f"SIGNAL {-r.returncode}" if r.returncode < 0 else f"exit {r.returncode}")
