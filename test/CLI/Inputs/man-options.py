"""man-options.py HELP MAN - checks that the man page MAN documents every
option that the --help text HELP lists, and that its DESCRIPTION is prose of
at least 20 words (test/CLI/man-page.test).

An option of --help is a line "  -x ARG    text" (two spaces, a dash); its tag
is the part before the run of spaces ("-v, --verbose", "--dtype f16|bf16|f32").
Each tag must be a tagged paragraph of the page (".TP" then the tag in bold),
and each option name in it (-D, --emit, ...) must occur in the page."""
import re
import sys

help_text = open(sys.argv[1]).read()
page = open(sys.argv[2]).read()

tags = []
for line in help_text.splitlines():
    m = re.match(r"^  (-\S.*?)(?:\s{2,}|$)", line)
    if m:
        tags.append(m.group(1))

# The page's text with roff's escapes undone: \- is '-', \e is '\', fonts dropped.
plain = re.sub(r"\\f[BIRP]", "", page).replace("\\-", "-").replace("\\e", "\\")
lines = plain.splitlines()
page_tags = {lines[i + 1] for i, l in enumerate(lines[:-1]) if l == ".TP"}

names = sorted({n for t in tags for n in re.findall(r"(?<![\w-])--?[A-Za-z][\w-]*", t)})
print("options in --help: %d (%s)" % (len(names), " ".join(names)))
missing = [t for t in tags if t not in page_tags]
missing += [n for n in names if not re.search(r"(?<![\w-])" + re.escape(n) + r"(?![\w-])", plain)]
print("missing from the man page: " + (", ".join(missing) if missing else "none"))

# DESCRIPTION: its text lines (not requests or comments) up to the next .SH.
desc, inside = [], False
for l in lines:
    if l.startswith(".SH"):
        inside = l.strip() == ".SH DESCRIPTION"
    elif inside and not l.startswith((".", "'")):
        desc += l.split()
print("description: %d words" % len(desc))
sys.exit(1 if missing or not tags or len(desc) < 20 else 0)
