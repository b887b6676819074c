#!/usr/bin/env bash
# The wheel's manylinux check (CI): does a library load on a system with glibc MAX?
#   python/check-glibc.sh LIB [MAX]      (MAX: a glibc version, default 2.28)
# Prints the highest GLIBC_ symbol version LIB needs and its NEEDED libraries.
# Exits 1 if that version is above MAX, if LIB needs any GLIBCXX_ or CXXABI_
# version (the wheel links libstdc++ statically), or if a NEEDED entry names
# libLLVM, libstdc++, libz or libzstd (the wheel holds them statically); 2 on usage.
# Reads the version needs (.gnu.version_r) and the dynamic section with readelf.
set -euo pipefail
if [ $# -lt 1 ] || [ $# -gt 2 ]; then echo "usage: $0 LIB [MAX]" >&2; exit 2; fi
lib=$1 max=${2:-2.28}
[ -r "$lib" ] || { echo "$0: cannot read $lib" >&2; exit 2; }
vers=$(readelf -V --wide "$lib" | sed -n 's/.*Name: \([A-Za-z_]*_[0-9][0-9.]*\).*/\1/p' | sort -Vu)
needed=$(readelf -d "$lib" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
top=$(grep '^GLIBC_[0-9]' <<<"$vers" | sed 's/^GLIBC_//' | tail -1 || true)
above() { [ "$(printf '%s\n%s\n' "$1" "$max" | sort -V | tail -1)" != "$max" ]; } # $1 > max
echo "$lib: highest GLIBC_${top:-none} (max $max); NEEDED: ${needed//$'\n'/ }"
fail=0
if [ -n "$top" ] && above "$top"; then
  echo -n "  needs GLIBC_$top > GLIBC_$max:"
  objdump -T "$lib" | sed -n 's/.*[ (]GLIBC_\([0-9][0-9.]*\)[ )].* \([^ ]*\)$/\1 \2/p' | sort -Vu |
    while read -r v sym; do if above "$v"; then echo -n " $sym@GLIBC_$v"; fi; done
  echo
  fail=1
fi
if cxx=$(grep -E '^(GLIBCXX|CXXABI)_' <<<"$vers"); then
  echo "  needs libstdc++ versions: ${cxx//$'\n'/ }"
  fail=1
fi
if bad=$(grep -E '^lib(LLVM|stdc\+\+|z|zstd)([.-]|$)' <<<"$needed"); then
  echo "  NEEDED names a library the wheel must hold statically: ${bad//$'\n'/ }"
  fail=1
fi
exit $fail
