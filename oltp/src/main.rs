//! `oltp`: sysbench-compatible OLTP load generator with column encryption.
//! Thin: parse the command line, run the library, print `Error: ...` (one line)
//! on failure: exit 2 for a usage error, 1 for a failed command, 3 for a run
//! that stopped early.

use std::process::ExitCode;

use clap::Parser;
use clap::error::ErrorKind;
use encbench_oltp::cli::Cli;
use encbench_oltp::commands::{error_line, execute, help_command, usage_error_line};

/// mimalloc: mysql_async allocates per result row (the `Row`, each `Value`, and
/// the errors of its packet-kind probes); glibc malloc made that a quarter of the
/// client's instructions per query.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // --help, --version, and `oltp` alone (the help, on stderr): clap's own output.
        Err(e)
            if !e.use_stderr()
                || e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand =>
        {
            e.exit()
        }
        Err(e) => {
            let args: Vec<String> = std::env::args_os()
                .map(|a| a.to_string_lossy().into_owned())
                .collect();
            eprintln!("Error: {}", usage_error_line(&e, &help_command(&args)));
            return ExitCode::from(2);
        }
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
