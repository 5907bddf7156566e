#!/bin/sh
# Installs the build into a scratch DESTDIR, then builds and runs a consumer
# with nothing but `pkg-config --cflags --libs hrx-core` from that prefix,
# and installs the bundle shipped beside bundle.json with the installed hrx.
set -eu
build_dir=$1 cc=$2 prefix=$3 libdir=$4 sanitize=$5 source=$6 bindir=$7 datadir=$8

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

meson install -C "$build_dir" --no-rebuild --destdir "$scratch/root" --quiet >"$scratch/install.log" 2>&1 || {
  cat "$scratch/install.log" >&2
  exit 1
}

case $libdir in
  /*) libpath=$scratch/root$libdir ;;
  *) libpath=$scratch/root$prefix/$libdir ;;
esac
export PKG_CONFIG_SYSROOT_DIR="$scratch/root"
export PKG_CONFIG_PATH="$libpath/pkgconfig"

flags=$(pkg-config --cflags --libs hrx-core)
echo "pkg-config --cflags --libs hrx-core: $flags"

# A sanitized library needs the sanitizer runtime in the program too.
san=
if [ "$sanitize" != none ]; then san="-fsanitize=$sanitize"; fi

# shellcheck disable=SC2086
"$cc" -std=c11 -Wall -Wextra -Werror $san "$source" -o "$scratch/consumer" $flags
LD_LIBRARY_PATH="$libpath" "$scratch/consumer"

# The installed bundle.json names the archive installed beside it: an
# offline prepare installs it. (HRX_BUNDLE_JSON because the compiled-in
# default lies under the real prefix, not this DESTDIR.)
case $bindir in /*) ;; *) bindir=$prefix/$bindir ;; esac
case $datadir in /*) ;; *) datadir=$prefix/$datadir ;; esac
LD_LIBRARY_PATH="$libpath" XDG_CACHE_HOME="$scratch/cache" HRX_OFFLINE=1 \
  HRX_BUNDLE_JSON="$scratch/root$datadir/hrx/bundle.json" \
  "$scratch/root$bindir/hrx" prepare
