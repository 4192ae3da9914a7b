//! `encbench-reproduce`: the reproduction of a source report. Thin: parse the
//! command line, run the library, print `Error: ...` (one line) on failure:
//! exit 2 for a usage error, 1 for a failed reproduction, 3 for one that
//! stopped early. `oltp reproduce` runs this binary with its arguments and
//! `oltp reproduce` as the program name, which the usage and error lines name.
//! Core dumps are off from the first line (`encbench_common::core_dumps`): the
//! process holds column keys.

use std::process::ExitCode;

use encbench_common::cli_error::{error_line, parse_args};
use encbench_reproduce::cli::Cli;
use encbench_reproduce::command::reproduce;

/// mimalloc, as the `oltp` binary's: the grids run in this process, through
/// the MySQL driver that allocates per result row.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    if let Err(e) = encbench_common::core_dumps::disable() {
        eprintln!("Error: {e}");
        return ExitCode::FAILURE;
    }
    // The program name the usage errors point to: `oltp reproduce` when oltp
    // runs this binary, else the binary's own name.
    let help = std::env::args_os()
        .next()
        .map(std::path::PathBuf::from)
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "encbench-reproduce".to_string());
    let cli: Cli = match parse_args(&help) {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("Error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(reproduce(&cli.args)) {
        Ok(true) => ExitCode::SUCCESS,
        // A reproduction that stopped early: its partial report is written.
        Ok(false) => ExitCode::from(3),
        Err(e) => {
            eprintln!("Error: {}", error_line(e.as_ref()));
            ExitCode::FAILURE
        }
    }
}
