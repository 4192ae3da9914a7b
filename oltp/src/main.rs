//! `oltp`: sysbench-compatible OLTP load generator with column encryption.
//! Thin: parse the command line, run the library, print `Error: ...` on failure.

use std::process::ExitCode;

use clap::Parser;
use encbench_oltp::cli::{Cli, error_line, execute};

/// mimalloc: mysql_async allocates per result row (the `Row`, each `Value`, and
/// the errors of its packet-kind probes); glibc malloc made that a quarter of the
/// client's instructions per query.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = Cli::parse();
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
    match runtime.block_on(execute(cli)) {
        Ok(true) => ExitCode::SUCCESS,
        // A run that stopped early (server lost, Ctrl-C): its partial report was printed.
        Ok(false) => ExitCode::from(3),
        Err(e) => {
            eprintln!("Error: {}", error_line(&e));
            ExitCode::FAILURE
        }
    }
}
