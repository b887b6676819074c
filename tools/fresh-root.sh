#!/usr/bin/env bash
# The fresh-machine check: runs the README's two commands (tools/dev.sh generate,
# tools/dev.sh test) in a clean Debian 12 root made here, so that whatever the build
# or the tests take from this machine instead of from tools/dev.sh's package list
# fails there.
#   tools/fresh-root.sh DIR
# Needs: root (or sudo), debootstrap, network to the Debian mirror. It makes
# DIR/sysroot with `debootstrap --variant=minbase bookworm` (apt sources as a fresh
# Debian 12 has them: bookworm, bookworm-updates, bookworm-security), copies the
# working tree into DIR/sysroot/src (git's tracked and untracked, not ignored, files;
# no build directories), mounts /proc, /sys and /dev there, and runs
# `tools/dev.sh generate` then `tools/dev.sh test` in it, the latter with
# STAGES=$FRESH_STAGES (default "main asan fuzz"), both with the caller's
# FUZZ_SECONDS and JOBS. Their output goes to DIR/fresh.log. Prints
# "fresh: N passed, N failed, N skipped (Ts: debootstrap Ts)" from the test run's
# totals (generate, if it fails, counts as one more failure); exits 0 only if both
# commands passed. DIR is removed first if it exists
# (mounts under it are unmounted, and rm never crosses into another file system);
# it is removed again after a pass and kept after a failure, for inspection.
# Environment: FRESH_MIRROR (http://deb.debian.org/debian), FRESH_SECURITY_MIRROR
# (http://deb.debian.org/debian-security), FRESH_STAGES.
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: tools/fresh-root.sh DIR" >&2; exit 2; }
SRC=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$1"
DIR=$(cd "$1" && pwd)
ROOT="$DIR/sysroot"
MIRROR=${FRESH_MIRROR:-http://deb.debian.org/debian}
SECURITY=${FRESH_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
STAGES=${FRESH_STAGES:-main asan fuzz}
t0=$SECONDS

die() { echo "fresh-root.sh: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, chroot, mount): run tools/dev.sh as root or with sudo"
command -v debootstrap >/dev/null || die "debootstrap not found (tools/dev.sh installs it)"
case "$DIR" in
  /|/usr|/usr/*|/etc|/etc/*|/dev|/dev/*|/proc|/proc/*|/sys|/sys/*) die "refusing DIR $DIR" ;;
esac

# mounts_under PATH: the mount points at or below PATH, deepest first.
mounts_under() {
  awk -v p="$1" '$5 == p || index($5, p "/") == 1 { print $5 }' /proc/self/mountinfo | sort -r
}
unmount_all() {
  local m
  for m in $(mounts_under "$ROOT"); do umount -l "$m" 2>/dev/null || umount -f "$m" || true; done
  [ -z "$(mounts_under "$ROOT")" ] || die "cannot unmount $(mounts_under "$ROOT" | tr '\n' ' ')"
}
remove_root() {
  unmount_all
  rm -rf --one-file-system "$ROOT"
}
trap unmount_all EXIT

[ -e "$ROOT" ] && remove_root
echo "fresh-root.sh: debootstrap --variant=minbase bookworm $ROOT $MIRROR"
if ! debootstrap --variant=minbase bookworm "$ROOT" "$MIRROR" > "$DIR/debootstrap.log" 2>&1; then
  tail -20 "$DIR/debootstrap.log" >&2
  die "debootstrap failed (log: $DIR/debootstrap.log)"
fi
t_boot=$((SECONDS - t0))

# A fresh Debian 12's apt sources (as the installer and the cloud images write them).
rm -f "$ROOT/etc/apt/sources.list"
cat > "$ROOT/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $MIRROR
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: $SECURITY
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
# The network's TLS trust, as resolv.conf its names: the wheel stage fetches from
# PyPI over https, which an intercepting proxy re-signs with a CA only this machine
# trusts. pip and Python's ssl inside read the host's bundle (PIP_CERT, SSL_CERT_FILE).
HOST_CA=""
for f in "${PIP_CERT:-}" "${SSL_CERT_FILE:-}" /etc/ssl/certs/ca-certificates.crt; do
  if [ -n "$f" ] && [ -f "$f" ]; then
    cp "$f" "$ROOT/etc/host-ca-bundle.crt" && HOST_CA=/etc/host-ca-bundle.crt
    break
  fi
done

# The working tree, as a fresh clone (plus uncommitted changes) would have it.
mkdir -p "$ROOT/src"
if git -C "$SRC" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  (cd "$SRC" && git ls-files -z --cached --others --exclude-standard |
     while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
     tar --null -T - -cf -) | tar -xf - -C "$ROOT/src"
else
  tar -C "$SRC" --exclude='./build*' --exclude=./out --exclude=./.git -cf - . | tar -xf - -C "$ROOT/src"
fi

{ mount -t proc proc "$ROOT/proc" && mount -t sysfs -o ro sysfs "$ROOT/sys" &&
  mount --rbind /dev "$ROOT/dev" && mount --make-rslave "$ROOT/dev"; } ||
  die "cannot mount /proc, /sys and /dev in $ROOT (a container without CAP_SYS_ADMIN?)"

echo "fresh-root.sh: tools/dev.sh generate and test in $ROOT (STAGES=\"$STAGES\"; log: $DIR/fresh.log)"
set +e
chroot "$ROOT" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  HOME=/root LANG=C.UTF-8 TERM=dumb STAGES="$STAGES" FUZZ_SECONDS="${FUZZ_SECONDS:-20}" \
  ${JOBS:+JOBS="$JOBS"} ${http_proxy:+http_proxy="$http_proxy"} \
  ${https_proxy:+https_proxy="$https_proxy"} ${HOST_CA:+PIP_CERT="$HOST_CA" SSL_CERT_FILE="$HOST_CA"} \
  /bin/bash -c 'cd /src || exit 1; g=0; tools/dev.sh generate || g=1; tools/dev.sh test; t=$?
    [ $g -eq 0 ] || echo "fresh-root.sh: tools/dev.sh generate failed"; [ $g$t = 00 ]' \
  > "$DIR/fresh.log" 2>&1
rc=$?
set -e
unmount_all
grep -E '^(dev\.sh: (installing|.* took)|tests|fresh-root\.sh)' "$DIR/fresh.log" | sed 's/^/  fresh: /' || true
totals=$(sed -n 's/^tests: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p' \
  "$DIR/fresh.log" | tail -1)
read -r passed failed skipped <<< "${totals:-0 0 0}"
grep -q '^fresh-root.sh: tools/dev.sh generate failed' "$DIR/fresh.log" && failed=$((failed + 1))
[ "$rc" -ne 0 ] && [ "$failed" -eq 0 ] && failed=1
echo "fresh: $passed passed, $failed failed, $skipped skipped ($((SECONDS - t0))s: debootstrap ${t_boot}s)"
if [ "$rc" -ne 0 ]; then
  tail -20 "$DIR/fresh.log" | sed 's/^/  fresh.log: /' >&2
  echo "fresh-root.sh: failed; the root is kept in $ROOT (log: $DIR/fresh.log)" >&2
  exit 1
fi
remove_root
