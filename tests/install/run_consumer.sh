#!/bin/sh
# Installs the build into a scratch DESTDIR, then builds and runs a consumer
# with nothing but `pkg-config --cflags --libs hrx-core` from that prefix,
# checks that a consumer of hrx-gpu needs and loads no network, archive or
# TLS library, compiles every installed public header alone as C11 and as
# C++17, builds and runs a C++ consumer of hrx-gpu, and installs the bundle
# shipped beside bundle.json with the installed hrx, which finds both from
# where its libraries were loaded (a relocated install).
set -eu
build_dir=$1 cc=$2 prefix=$3 libdir=$4 sanitize=$5 source=$6 bindir=$7
cxx=$8 cxx_source=$9 gpu_source=${10}

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

# Raw dispatch is lean: nothing hrx-gpu requires, however indirectly,
# names the network, archive or JSON stacks, and a consumer of hrx-gpu
# loads none of them (nor any TLS library).
heavy='curl|archive|jansson|ssl|gnutls'
requires=$(pkg-config --print-requires --print-requires-private hrx-gpu)
seen=
while [ -n "$requires" ]; do
  next=
  for r in $(echo "$requires" | awk '{print $1}'); do
    case " $seen " in *" $r "*) continue ;; esac
    seen="$seen $r"
    next="$next $(pkg-config --print-requires --print-requires-private "$r")"
  done
  requires=$next
done
if echo "$seen $(pkg-config --static --libs hrx-gpu)" | grep -Eq "$heavy"; then
  echo "hrx-gpu requires a heavy stack: $seen" >&2
  exit 1
fi
# shellcheck disable=SC2086
"$cc" -std=c11 -Wall -Wextra -Werror $san "$gpu_source" \
  -o "$scratch/consumer-gpu" $(pkg-config --cflags --libs hrx-gpu)
LD_LIBRARY_PATH="$libpath" "$scratch/consumer-gpu"
if LD_LIBRARY_PATH="$libpath" ldd "$scratch/consumer-gpu" | grep -Eq "$heavy"; then
  LD_LIBRARY_PATH="$libpath" ldd "$scratch/consumer-gpu" >&2
  echo "a consumer of hrx-gpu loads a heavy library" >&2
  exit 1
fi
echo "hrx-gpu requires:$seen; its consumer loads no curl, archive, jansson or TLS"

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
LD_LIBRARY_PATH="$libpath" "$scratch/consumer-cxx" >"$scratch/cxx.out"
cat "$scratch/cxx.out"

# The compiler's identity (and with it every kernel cache key) survives
# stripping at packaging time: it is fixed when HRX is built.
mkdir "$scratch/stripped"
cp -P "$libpath"/libhrx-*.so* "$scratch/stripped/"
for lib in "$scratch"/stripped/libhrx-*.so*; do
  [ -L "$lib" ] || strip --strip-all "$lib"
done
LD_LIBRARY_PATH="$scratch/stripped:$libpath" "$scratch/consumer-cxx" \
  >"$scratch/cxx-stripped.out"
if ! cmp -s "$scratch/cxx.out" "$scratch/cxx-stripped.out" ||
   ! grep -q "^compiler identity [0-9a-f]\{64\}$" "$scratch/cxx.out"; then
  cat "$scratch/cxx-stripped.out" >&2
  echo "stripping the libraries changed the compiler identity" >&2
  exit 1
fi
echo "the compiler identity survives stripping"

# The installed bundle.json names the archive installed beside it: an
# offline prepare installs it. The install lies under a DESTDIR, not the
# prefix it was configured for: the tool finds that bundle.json beside its
# library, as a relocated install does (no HRX_BUNDLE_JSON).
case $bindir in /*) ;; *) bindir=$prefix/$bindir ;; esac
LD_LIBRARY_PATH="$libpath" XDG_CACHE_HOME="$scratch/cache" HRX_OFFLINE=1 \
  "$scratch/root$bindir/hrx" prepare
