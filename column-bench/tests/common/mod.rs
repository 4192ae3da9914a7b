//! What the binary's test files share: short timings and a way to run it.

use std::process::{Command, Output};

/// Short timings: these tests check shape and plumbing, not speed.
pub const QUICK: [&str; 6] = [
    "--warmup-ms",
    "1",
    "--measure-ms",
    "3",
    "--corpus-rows",
    "40",
];

/// The column-bench binary with `args`, to run (e.g. with an environment variable set).
#[allow(dead_code)]
pub fn column_bench_cmd(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_column-bench"));
    c.args(args);
    c
}

/// Runs the column-bench binary with `args` and returns what it did.
pub fn column_bench(args: &[&str]) -> Output {
    column_bench_cmd(args)
        .output()
        .expect("run the column-bench binary")
}
