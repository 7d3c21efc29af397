//! Writes `work.rs` into OUT_DIR: the check-free stand-in for a server's own work that
//! `raw-limit PORT matched` runs once per request (see src/main.rs). STEPS distinct functions,
//! each a handful of arithmetic instructions on a 64-bit value with its own constants (so that
//! none can be merged with another), and `run`, which calls them one after the other, each on the
//! result of the one before. Built with `RUSTFLAGS=-Cllvm-args=-align-all-functions=6` (as
//! side_by_side.sh does for `MATCHED=1`), each function starts a 64-byte line of code of its own,
//! so one request runs through STEPS lines beside `run`'s own code.
//! What it does not do: touch memory, allocate, branch on the value or make a system call; the
//! constants come from a fixed seed, so every build writes the same file.
use std::fmt::Write as _;
use std::{env, fs, path::Path};

/// With raw-limit's own ping, about as many instructions (12 806 against this server's 13 064,
/// SHA-256 apart) and 64-byte lines of code run once per ping (656 against 662) as this server's
/// ping, counted with callgrind on the aligned build (tests/bench/README.md).
const STEPS: usize = 480;

/// xorshift64: a fixed sequence of constants, the same on every build.
fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

fn main() {
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut code = String::new();
    for i in 0..STEPS {
        let (mask, factor, turn) =
            (next(&mut state), next(&mut state) | 1, next(&mut state) % 62 + 1);
        writeln!(
            code,
            "#[inline(never)]\nfn step_{i}(x: u64) -> u64 {{\n    (x ^ {mask:#x}).wrapping_mul({factor:#x}).rotate_left({turn})\n}}"
        )
        .unwrap();
    }
    code.push_str("/// Runs every step once, each on the result of the one before.\n");
    code.push_str("#[inline(never)]\npub fn run(mut x: u64) -> u64 {\n");
    for i in 0..STEPS {
        writeln!(code, "    x = step_{i}(x);").unwrap();
    }
    code.push_str("    x\n}\n");
    let out = Path::new(&env::var("OUT_DIR").unwrap()).join("work.rs");
    fs::write(out, code).unwrap();
    println!("cargo::rerun-if-changed=build.rs");
}
