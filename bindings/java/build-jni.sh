#!/bin/sh
# Generates the raw Java layer with SWIG and builds the JNI library
# libitgjava.so, with libitg linked in statically (so it does not depend on
# the build tree staying where it is). Maven runs it in generate-sources:
#
#   sh build-jni.sh TREE ITG_BUILD OUT JAVA_HOME [SAN]
#
# TREE       the libitg source tree (include/, bindings/swig/)
# ITG_BUILD  the build directory holding lib/libitg.a (run `make` first)
# OUT        where to write: OUT/generated-sources/swig (Java sources),
#            OUT/native (the wrapper's C file and libitgjava.so) and
#            OUT/native-resources/native/OS-ARCH/libitgjava.so, the copy
#            the jar carries (NativeLibrary.java loads it from there)
# JAVA_HOME  the JDK whose include/ has jni.h
# SAN        non-empty when libitg.a was built with SAN=1: the JNI library
#            is then built with the same sanitizers
set -eu

tree=$1
itg_build=$2
out=$3
java_home=$4
san=${5:-}
here=$(cd "$(dirname "$0")" && pwd)

lib="$itg_build/lib/libitg.a"
[ -f "$lib" ] || { echo "build-jni: $lib is missing: run make first" >&2; exit 1; }
[ -f "$java_home/include/jni.h" ] \
  || { echo "build-jni: no jni.h under $java_home/include (a JRE, not a JDK?)" >&2; exit 1; }
command -v swig >/dev/null || { echo "build-jni: swig is not installed" >&2; exit 1; }

src="$out/generated-sources/swig/org/libitg"
native="$out/native"
rm -rf "$src"
mkdir -p "$src" "$native"

swig -java -package org.libitg -I"$tree/include" -I"$tree/bindings/swig" \
  -outdir "$src" -o "$native/itg_java_wrap.c" "$here/itg_java.i"
# SWIG before 4.3 has no pragma for the access of the constants interface:
# keep it package-private like the rest of the raw layer.
sed -i 's/^public interface /interface /' "$src/ItgCConstants.java"

deps=$(pkg-config --libs libuv gsl 2>/dev/null || echo "-luv -lgsl -lgslcblas")
san_flags=""
[ -n "$san" ] && san_flags="-fsanitize=address,undefined -fno-omit-frame-pointer"

# SWIG's wrappers cast between jlong and pointers: -fno-strict-aliasing, as
# its manual asks. --exclude-libs keeps libitg's symbols out of the JNI
# library's exports, so it cannot clash with another copy in the process.
# (Linux and GNU ld: the only platform the binding is built on so far.)
# shellcheck disable=SC2086
${CC:-cc} -std=gnu11 -O2 -g -fPIC -fno-strict-aliasing -fvisibility=hidden \
  -Wall -Wextra -Wno-unused-parameter $san_flags \
  -I"$java_home/include" -I"$java_home/include/linux" -I"$tree/include" \
  -shared -o "$native/libitgjava.so" "$native/itg_java_wrap.c" \
  -Wl,--exclude-libs,libitg.a "$lib" $deps -lpthread -lm

# OS-ARCH as NativeLibrary.platform() spells it for the JVM on this machine.
os=$(uname -s | tr '[:upper:]' '[:lower:]' | tr -cd 'a-z0-9')
arch=$(uname -m)
case "$arch" in amd64) arch=x86_64 ;; arm64) arch=aarch64 ;; esac
jar_dir="$out/native-resources/native/$os-$arch"
rm -rf "$out/native-resources"
mkdir -p "$jar_dir"
cp "$native/libitgjava.so" "$jar_dir/"
