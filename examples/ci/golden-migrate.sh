#!/bin/sh
# A CI job's golden test of a persona migration: migrate a copy of a committed device tree and
# compare the result with a committed expected tree, byte for byte, with file types, link
# targets and permission bits. Run it twice and the trees are the same: SOURCE_DATE_EPOCH fixes
# every name and timestamp osctl writes (the osctl book, "The four users").
#
#   golden-migrate.sh INPUT EXPECTED FROM TO            compare (exit 0 = same, 1 = differs)
#   golden-migrate.sh INPUT EXPECTED FROM TO --bless    write EXPECTED (and EXPECTED.modes)
#
# INPUT is the device tree before; EXPECTED the tree after, and EXPECTED.modes the listing of
# its permission bits (git keeps only the executable bit). OSCTL names the binary (default:
# osctl on PATH); SOURCE_DATE_EPOCH defaults to 1767225600 (2026-01-01 UTC).
set -eu
[ $# -ge 4 ] || { echo "usage: $0 INPUT EXPECTED FROM TO [--bless]" >&2; exit 2; }
input=$1 expected=$2 from=$3 to=$4 bless=${5:-}
osctl=${OSCTL:-osctl}
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-1767225600}
export SOURCE_DATE_EPOCH
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/device"
cp -R "$input/." "$work/device/"
# Every input file as a fresh checkout has it, whatever this machine's umask.
find "$work/device" -type d -exec chmod 755 {} +
find "$work/device" -type f ! -perm -u+x -exec chmod 644 {} +
find "$work/device" -type f -perm -u+x -exec chmod 755 {} +
"$osctl" --root "$work/device" --quiet migrate --from "$from" --to "$to" </dev/null
# osctl's own state (the lock, emptied journals) is not the migration's result.
rm -rf "$work/device/var/lib/osctl"
rmdir -p "$work/device/var/lib" 2>/dev/null || true
modes() { (cd "$1" && find . -mindepth 1 ! -type l -printf '%y %m %p\n' | LC_ALL=C sort); }
if [ "$bless" = --bless ]; then
  rm -rf "$expected"
  mkdir -p "$expected"
  cp -R "$work/device/." "$expected/"
  modes "$work/device" > "$expected.modes"
  echo "blessed $expected"
  exit 0
fi
[ "$bless" = "" ] || { echo "$0: unknown option $bless" >&2; exit 2; }
status=0
diff -r --no-dereference "$expected" "$work/device" || status=1
modes "$work/device" | diff "$expected.modes" - || status=1
[ $status = 0 ] && echo "same as $expected"
exit $status
