#!/bin/sh
# Compares the dynamic symbols each HRX shared library exports (name and
# version node, as nm prints them) with the committed list
# <symbols dir>/<library>.txt, so that a symbol can be neither dropped nor
# added by accident. After a deliberate change, regenerate the lists:
#   HRX_SYMBOLS_UPDATE=1 meson test -C build symbols
# The lists hold every optional part; HRX_SYMBOLS_ABSENT (an extended
# regular expression, set by tests/meson.build) names the symbols of the
# parts this build leaves out.
set -eu
symbols_dir=$1
shift

status=0
filtered=$(mktemp)
trap 'rm -f "$filtered"' EXIT
for library in "$@"; do
  name=$(basename "$library" | sed 's/\.so.*$//')
  expected=$symbols_dir/$name.txt
  actual=$(nm -D --defined-only --with-symbol-versions "$library" |
           awk '{print $3}' | sort)
  if [ "${HRX_SYMBOLS_UPDATE:-0}" = 1 ]; then
    echo "$actual" >"$expected"
    echo "$name: wrote $(echo "$actual" | wc -l) symbols to $expected"
    continue
  fi
  wanted=$expected
  if [ -n "${HRX_SYMBOLS_ABSENT:-}" ]; then
    grep -Ev "$HRX_SYMBOLS_ABSENT" "$expected" >"$filtered" || true
    wanted=$filtered
  fi
  if ! echo "$actual" | diff -u "$wanted" - >&2; then
    echo "$name: exported symbols differ from $expected (+: exported now)" >&2
    status=1
    continue
  fi
  # Every exported function is HRX API under the library's version node.
  if echo "$actual" | grep -v '^HRX_' | grep -Ev '^hrx_[a-z0-9_]+@@HRX_[A-Z_]+_[0-9]+$' >&2; then
    echo "$name: exports a symbol outside its hrx_* API or version node" >&2
    status=1
  fi
  echo "$name: $(echo "$actual" | wc -l) symbols as committed"
done
exit $status
