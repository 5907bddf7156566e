#!/bin/sh
# Installs the build into a scratch DESTDIR, then builds and runs a consumer
# with nothing but `pkg-config --cflags --libs hrx-core` from that prefix,
# compiles every installed public header alone as C11 and as C++17, builds
# and runs a C++ consumer of hrx-gpu, and installs the bundle shipped
# beside bundle.json with the installed hrx.
set -eu
build_dir=$1 cc=$2 prefix=$3 libdir=$4 sanitize=$5 source=$6 bindir=$7 datadir=$8
cxx=$9 cxx_source=${10}

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

# Each public header stands alone, in C and in C++.
includedir=$(pkg-config --variable=includedir hrx-core)
all_flags=$(pkg-config --cflags $(cd "$libpath/pkgconfig" && ls hrx-*.pc | sed 's/\.pc$//'))
for header in $(cd "$includedir" && find hrx -name '*.h' | sort); do
  # shellcheck disable=SC2086
  echo "#include <$header>" | "$cc" -std=c11 -Wall -Wextra -Werror \
    -fsyntax-only -x c - $all_flags || { echo "C: $header" >&2; exit 1; }
  # shellcheck disable=SC2086
  echo "#include <$header>" | "$cxx" -std=c++17 -Wall -Wextra -Werror \
    -fsyntax-only -x c++ - $all_flags || { echo "C++: $header" >&2; exit 1; }
done
echo "every public header compiles alone as C11 and C++17"

gpu_flags=$(pkg-config --cflags --libs hrx-gpu hrx-loom hrx-exec hrx-artifacts)
# shellcheck disable=SC2086
"$cxx" -std=c++17 -Wall -Wextra -Werror $san "$cxx_source" \
  -o "$scratch/consumer-cxx" $gpu_flags
LD_LIBRARY_PATH="$libpath" "$scratch/consumer-cxx"

# The installed bundle.json names the archive installed beside it: an
# offline prepare installs it. (HRX_BUNDLE_JSON because the compiled-in
# default lies under the real prefix, not this DESTDIR.)
case $bindir in /*) ;; *) bindir=$prefix/$bindir ;; esac
case $datadir in /*) ;; *) datadir=$prefix/$datadir ;; esac
LD_LIBRARY_PATH="$libpath" XDG_CACHE_HOME="$scratch/cache" HRX_OFFLINE=1 \
  HRX_BUNDLE_JSON="$scratch/root$datadir/hrx/bundle.json" \
  "$scratch/root$bindir/hrx" prepare
