//! Writes `work.rs` into OUT_DIR: the check-free stand-in for a server's own work that
//! `raw-limit PORT matched` runs once per request (see src/main.rs). STEPS distinct functions,
//! each a handful of arithmetic instructions on a 64-bit value with its own constants (so that
//! none can be merged with another), and `run`, which calls them one after the other, each on the
//! result of the one before. Built with `RUSTFLAGS=-Cllvm-args=-align-all-functions=6` (as
//! side_by_side.sh does for `MATCHED=1`), each function starts a 64-byte line of code of its own,
//! so one request runs through STEPS lines beside `run`'s own code.
//! How many steps: RAW_LIMIT_MATCHED_STEPS when it is set (1 to 100 000), else 480. To match a
//! changed server, `MATCHED=1 tests/bench/instructions.sh` measures this peer beside it and prints
//! the step count that would match (its MATCH line); pass that to side_by_side.sh in the variable.
//! What it does not do: touch memory, allocate, branch on the value or make a system call; the
//! constants come from a fixed seed, so every build with the same step count writes the same file.
use std::fmt::Write as _;
use std::{env, fs, path::Path};

/// The step count when RAW_LIMIT_MATCHED_STEPS is not set. With raw-limit's own ping, about as
/// many instructions (12 806 against this server's 13 064, SHA-256 apart) and 64-byte lines of
/// code run once per ping (656 against 662) as this server's ping, counted with callgrind on the
/// aligned build (tests/bench/README.md).
const DEFAULT_STEPS: usize = 480;
/// The most steps a build accepts: a bound on the generated file, not a figure of the server.
const MAX_STEPS: usize = 100_000;

/// RAW_LIMIT_MATCHED_STEPS, or DEFAULT_STEPS; a build with any other value fails and says why.
fn steps() -> usize {
    println!("cargo::rerun-if-env-changed=RAW_LIMIT_MATCHED_STEPS");
    match env::var("RAW_LIMIT_MATCHED_STEPS") {
        Err(env::VarError::NotPresent) => DEFAULT_STEPS,
        Ok(text) => match text.parse::<usize>() {
            Ok(n) if (1..=MAX_STEPS).contains(&n) => n,
            _ => panic!(
                "RAW_LIMIT_MATCHED_STEPS={text:?}: expected a whole number from 1 to {MAX_STEPS}"
            ),
        },
        Err(e) => panic!("RAW_LIMIT_MATCHED_STEPS: {e}"),
    }
}

/// xorshift64: a fixed sequence of constants, the same on every build.
fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

fn main() {
    let steps = steps();
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut code = format!(
        "/// How many steps `run` takes (printed in the start line).\npub const STEPS: usize = {steps};\n"
    );
    for i in 0..steps {
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
    for i in 0..steps {
        writeln!(code, "    x = step_{i}(x);").unwrap();
    }
    code.push_str("    x\n}\n");
    let out = Path::new(&env::var("OUT_DIR").unwrap()).join("work.rs");
    fs::write(out, code).unwrap();
    println!("cargo::rerun-if-changed=build.rs");
}
