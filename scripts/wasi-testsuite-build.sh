#!/usr/bin/env bash
# Builds the official WASI test suite's wasip1 programs (github.com/WebAssembly/wasi-testsuite)
# from a source checkout, into the layout scripts/wasi-testsuite.sh runs.
#
#   scripts/wasi-testsuite-build.sh SRC OUT
#
# SRC is a wasi-testsuite checkout (its main branch: sources only). Read from it:
#   tests/rust/wasm32-wasip1/src/{lib.rs,config.rs,bin/*.rs,bin/*.json,bin/fs-tests.dir}
#   tests/c/src/{*.c,*.json,fs-tests.dir}
#   tests/assemblyscript/wasm32-wasip1/{asconfig.json,src/*.ts,src/*.json}
# OUT receives tests/{rust,c,assemblyscript}/testsuite/wasm32-wasip1/ with each program's
# .wasm, its .json spec and the fixture folders the spec names (as the suite's
# prod/testsuite-base branch lays them out), plus OUT/.build (compilers' scratch; delete it when
# done). Nothing is written into SRC.
#
# Toolchains, pinned where the suite pins them:
#   Rust: cargo with the wasm32-wasip1 target (rustup target add wasm32-wasip1), debug build as the
#         suite's tests/rust/build.py does; crates libc, once_cell, wasi 0.11 and wasip1 1 from
#         crates.io (the suite's sources use `wasi::` from one or the other depending on their age).
#   C:    clang with the wasm32 target, lld and a wasi-libc sysroot. On Debian 12:
#         apt-get install clang lld wasi-libc libclang-rt-14-dev-wasm32  (WASI_SYSROOT=/usr)
#         or a wasi-sdk (CC=/opt/wasi-sdk/bin/clang WASI_SYSROOT=/opt/wasi-sdk/share/wasi-sysroot).
#   AssemblyScript: node and npm; assemblyscript@0.22.0 and @assemblyscript/wasi-shim@0.1.0 (the
#         versions of the suite's package-lock.json) are installed into OUT/.build/as.
# WASI_TESTSUITE_LANGS picks languages (default "rust c assemblyscript").
set -euo pipefail
if [ $# -ne 2 ] || [ ! -d "$1" ]; then
  echo "usage: $0 SRC OUT  (SRC: a wasi-testsuite source checkout; OUT: folder to build into)" >&2
  exit 2
fi
src=$(cd "$1" && pwd)
mkdir -p "$2"
out=$(cd "$2" && pwd)
langs=${WASI_TESTSUITE_LANGS:-rust c assemblyscript}
build="$out/.build"
mkdir -p "$build"
command -v python3 >/dev/null || { echo "$0: python3 is needed to read the specs" >&2; exit 2; }

# install_test WASM SPEC_DIR NAME DEST: copies NAME.wasm, its spec NAME.json (when SPEC_DIR has
# one) and every fixture folder the spec names ("dirs" entries and "root") into DEST.
install_test() {
  local wasm=$1 spec_dir=$2 name=$3 dest=$4
  mkdir -p "$dest"
  cp "$wasm" "$dest/$name.wasm"
  [ -f "$spec_dir/$name.json" ] || return 0
  cp "$spec_dir/$name.json" "$dest/$name.json"
  python3 - "$spec_dir/$name.json" <<'PY' | while IFS= read -r d; do
import json, sys
spec = json.load(open(sys.argv[1]))
for d in spec.get("dirs", []) + ([spec["root"]] if "root" in spec else []):
    print(d)
PY
    if [ -d "$spec_dir/$d" ]; then
      rm -rf "${dest:?}/$d"
      cp -R "$spec_dir/$d" "$dest/$d"
    else
      # The suite keeps empty fixture folders as a placeholder file git can hold; a checkout
      # without it still needs the folder.
      mkdir -p "$dest/$d"
    fi
  done
}

manifest() { printf '{"name": "%s"}\n' "$2" >"$1/manifest.json"; }

built=0
for lang in $langs; do
  case $lang in
  rust)
    dir="$src/tests/rust/wasm32-wasip1/src"
    [ -d "$dir/bin" ] || { echo "$0: no $dir/bin in the checkout" >&2; exit 2; }
    cargo --version >/dev/null 2>&1 || { echo "$0: cargo is needed for the Rust tests" >&2; exit 2; }
    proj="$build/rust"
    rm -rf "$proj"
    mkdir -p "$proj"
    cp -R "$dir" "$proj/src"
    find "$proj/src/bin" -mindepth 1 -maxdepth 1 ! -name '*.rs' -exec rm -rf {} +
    cat >"$proj/Cargo.toml" <<'TOML'
[package]
name = "wasi_tests"
version = "0.1.0"
edition = "2021"

[dependencies]
libc = "0.2.65"
once_cell = "1.12"
wasi = "=0.11.0"
wasip1 = "1"

[workspace]
TOML
    echo "building the Rust tests (cargo, wasm32-wasip1, debug)"
    CARGO_TARGET_DIR="$build/rust-target" RUSTFLAGS="-Awarnings" cargo build --quiet --manifest-path "$proj/Cargo.toml" \
      --target wasm32-wasip1 --bins
    dest="$out/tests/rust/testsuite/wasm32-wasip1"
    for rs in "$dir"/bin/*.rs; do
      name=$(basename "$rs" .rs)
      install_test "$build/rust-target/wasm32-wasip1/debug/$name.wasm" "$dir/bin" "$name" "$dest"
      built=$((built + 1))
    done
    manifest "$dest" "WASI Rust tests [wasm32-wasip1]"
    ;;
  c)
    dir="$src/tests/c/src"
    [ -d "$dir" ] || { echo "$0: no $dir in the checkout" >&2; exit 2; }
    cc=${CC:-clang}
    sysroot=${WASI_SYSROOT:-}
    if [ -z "$sysroot" ]; then
      for s in /usr /opt/wasi-sdk/share/wasi-sysroot; do
        if [ -f "$s/lib/wasm32-wasi/libc.a" ]; then sysroot=$s; break; fi
      done
    fi
    if [ -z "$sysroot" ]; then
      echo "$0: no wasi-libc sysroot found; install one (Debian: apt-get install clang lld wasi-libc libclang-rt-14-dev-wasm32) or set WASI_SYSROOT" >&2
      exit 2
    fi
    echo "building the C tests ($cc, sysroot $sysroot)"
    dest="$out/tests/c/testsuite/wasm32-wasip1"
    mkdir -p "$build/c"
    for c in "$dir"/*.c; do
      name=$(basename "$c" .c)
      if ! "$cc" --target=wasm32-wasi --sysroot="$sysroot" "$c" -o "$build/c/$name.wasm"; then
        echo "$0: $c did not compile; is the wasm32 compiler runtime installed (Debian: libclang-rt-14-dev-wasm32)?" >&2
        exit 1
      fi
      install_test "$build/c/$name.wasm" "$dir" "$name" "$dest"
      built=$((built + 1))
    done
    manifest "$dest" "WASI C tests [wasm32-wasip1]"
    ;;
  assemblyscript)
    dir="$src/tests/assemblyscript/wasm32-wasip1"
    [ -d "$dir/src" ] || { echo "$0: no $dir/src in the checkout" >&2; exit 2; }
    command -v npm >/dev/null || { echo "$0: node and npm are needed for the AssemblyScript tests" >&2; exit 2; }
    as="$build/as"
    mkdir -p "$as"
    if [ ! -x "$as/node_modules/assemblyscript/bin/asc.js" ]; then
      echo "installing assemblyscript@0.22.0 and @assemblyscript/wasi-shim@0.1.0 into $as"
      [ -f "$as/package.json" ] || echo '{"private": true}' >"$as/package.json"
      (cd "$as" && npm install --silent --no-audit --no-fund assemblyscript@0.22.0 \
        @assemblyscript/wasi-shim@0.1.0)
    fi
    cp "$dir/asconfig.json" "$as/asconfig.json"
    rm -rf "$as/src"
    cp -R "$dir/src" "$as/src"
    echo "building the AssemblyScript tests (asc 0.22.0)"
    dest="$out/tests/assemblyscript/testsuite/wasm32-wasip1"
    for ts in "$dir"/src/*.ts; do
      name=$(basename "$ts" .ts)
      (cd "$as" && node node_modules/assemblyscript/bin/asc.js "src/$name.ts" -o "$name.wasm")
      install_test "$as/$name.wasm" "$dir/src" "$name" "$dest"
      built=$((built + 1))
    done
    manifest "$dest" "WASI AssemblyScript tests [wasm32-wasip1]"
    ;;
  *)
    echo "$0: unknown language '$lang' in WASI_TESTSUITE_LANGS (rust, c, assemblyscript)" >&2
    exit 2
    ;;
  esac
done
echo "built $built test programs into $out/tests (scratch: $build)"
