//! The commands behind `main`: argument parsing and the shells that print what the library
//! computes. Every command prints JSON lines on stdout; diagnostics go to stderr.

pub mod args;
pub mod inspect;
pub mod serve;
