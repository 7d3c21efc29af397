#!/usr/bin/env bash
# Builds a second copy of this server from the same source, laid out by a profile of its own runs,
# and prints the path of its binary: what the code a request runs costs when it lies packed
# together, the rest of the program unchanged. `PROFILED=1` makes cpu_per_request.sh and
# instructions.sh measure it beside the release build.
#
# How: a build instrumented with `-Cprofile-generate` runs the bench routes in process (`bench
# --route ping`, `resources` and `initialize`, 8 connections, 2 s each: the client's code runs in
# the same process and is counted too), `demo` and `attack`; the counts are merged with the
# toolchain's own llvm-profdata (the rustup component llvm-tools, added when missing), and a build
# with `-Cprofile-use` places each function's rarely taken blocks after its common ones, inlines
# where calls are frequent, and groups hot and cold functions apart. The source and the checks are
# the release build's; the machine code is not (a ping runs fewer instructions too).
#
# What it does not do: it is not the release build and not what `cargo run --release` runs (that
# needs a training run, and Cargo.toml cannot carry the flags); it applies none of the user's own
# rustflags (environment or Cargo config), which the release build may have; it asserts nothing
# about the figures; it fails, saying which step, when a build, a training run or the merge does.
# Both builds live under target/profiled/, apart from target/release; build scripts are not
# instrumented (`--target` the host).
#
#   tests/bench/profiled.sh        prints target/profiled/use/HOST/release/loopback-mcp-http
set -euo pipefail
cd "$(dirname "$0")/../.."

source tests/bench/lib.sh
need cargo "install Rust with rustup (https://rustup.rs)"
need rustup "install Rust with rustup (https://rustup.rs)"
require_tools

dir=$PWD/target/profiled
host=$(rustc -vV | sed -n 's/^host: //p')
profdata=$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata
if [ ! -x "$profdata" ]; then
  echo "adding the rustup component llvm-tools (for llvm-profdata)..." >&2
  rustup component add llvm-tools >&2
fi
[ -x "$profdata" ] || { echo "no llvm-profdata at $profdata after adding llvm-tools" >&2; exit 1; }

# Only the flags below, one each (spaces in the path survive), and the counts where they are read.
unset RUSTFLAGS LLVM_PROFILE_FILE
build() {
  CARGO_ENCODED_RUSTFLAGS=$1 cargo build --release --quiet --target "$host" --target-dir "$2"
}
# train WHAT COMMAND...: a training run, its output kept to show when it fails.
train() {
  local what=$1
  shift
  timeout 60 "$@" > "$dir/train.out" 2>&1 || {
    echo "training failed: $what" >&2
    tail -n 20 "$dir/train.out" >&2
    exit 1
  }
}

echo "building loopback-mcp-http instrumented for a profile (release)..." >&2
rm -rf "$dir/counts"
build "-Cprofile-generate=$dir/counts" "$dir/gen"
trained=$dir/gen/$host/release/loopback-mcp-http
echo "training: bench ping, resources and initialize, demo, attack..." >&2
for route in ping resources initialize; do
  train "bench --route $route" "$trained" bench --route "$route" --connections 8 --seconds 2
done
train demo "$trained" demo
train attack "$trained" attack
"$profdata" merge -o "$dir/merged.profdata" "$dir/counts"

echo "building loopback-mcp-http laid out by the profile (release)..." >&2
build "-Cprofile-use=$dir/merged.profdata" "$dir/use"
echo "$dir/use/$host/release/loopback-mcp-http"
