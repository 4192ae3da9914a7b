//! `oltp reproduce ...`: the reproduction of the source reports is the crate
//! `encbench-reproduce` (it depends on oltp, so oltp cannot call it): this
//! runs its binary, found next to the `oltp` binary, with the same arguments
//! and `oltp reproduce` as its program name (so its usage lines name
//! `oltp reproduce`).

use std::path::PathBuf;
use std::process::Command;

use anyhow::{Result, anyhow};

use crate::cli::ReproduceArgs;

/// The `encbench-reproduce` binary next to this process's executable.
///
/// # Errors
/// It is not there (or this process's path is unknown): one line naming the
/// cargo command that builds it.
pub fn encbench_reproduce() -> Result<PathBuf> {
    let exe = std::env::current_exe()
        .map_err(|e| anyhow!("cannot find oltp's own path: {e}"))?
        .with_file_name("encbench-reproduce");
    if exe.is_file() {
        Ok(exe)
    } else {
        Err(anyhow!(
            "{}: not found: oltp reproduce runs it; build it with `cargo build --release -p encbench-reproduce`",
            exe.display()
        ))
    }
}

/// `encbench-reproduce` with `a`'s arguments, its program name `oltp reproduce`.
///
/// # Errors
/// The binary is missing ([`encbench_reproduce`]).
pub fn command(a: &ReproduceArgs) -> Result<Command> {
    use std::os::unix::process::CommandExt as _;
    let mut c = Command::new(encbench_reproduce()?);
    c.arg0("oltp reproduce").args(&a.args);
    Ok(c)
}

/// Replaces this process with `encbench-reproduce` (its exit code, output and
/// signals are then the command's own); returns only on failure.
///
/// # Errors
/// The binary is missing or cannot be run.
pub fn exec(a: &ReproduceArgs) -> anyhow::Error {
    use std::os::unix::process::CommandExt as _;
    match command(a) {
        Ok(mut c) => anyhow!("cannot run encbench-reproduce: {}", c.exec()),
        Err(e) => e,
    }
}

/// Runs `encbench-reproduce` as a child and waits for it (for in-process
/// callers of [`crate::commands::execute`]): true when it completed, false
/// when it stopped early (exit code 3).
///
/// # Errors
/// The binary is missing or failed (its own error is on standard error).
pub(super) fn reproduce(a: &ReproduceArgs) -> Result<bool> {
    let status = command(a)?
        .status()
        .map_err(|e| anyhow!("cannot run encbench-reproduce: {e}"))?;
    match status.code() {
        Some(0) => Ok(true),
        Some(3) => Ok(false),
        _ => Err(anyhow!("encbench-reproduce failed ({status})")),
    }
}
