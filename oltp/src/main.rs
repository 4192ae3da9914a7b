//! `oltp`: sysbench-compatible OLTP load generator with column encryption.
//! Thin: parse the command line, run the library, print `Error: ...` (one line)
//! on failure: exit 2 for a usage error, 1 for a failed command, 3 for a run
//! that stopped early. Core dumps are off from the first line
//! (`encbench_common::core_dumps`): the process holds column keys.

use std::process::ExitCode;

use encbench_common::cli_error::{error_line, parse_args, usage_error_line};
use encbench_oltp::cli::{Cli, Command, help_command};
use encbench_oltp::commands::execute;

/// mimalloc: the MySQL driver's client library allocates per result row (the
/// `Row`, each `Value`, and the errors of its packet-kind probes); glibc malloc
/// made that a quarter of the client's instructions per query.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    if let Err(e) = encbench_common::core_dumps::disable() {
        eprintln!("Error: {e}");
        return ExitCode::FAILURE;
    }
    let args: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let help = help_command(&args);
    let cli: Cli = match parse_args(&help) {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    if let Err(e) = cli.check_usage() {
        eprintln!("Error: {}", usage_error_line(&e, &help));
        return ExitCode::from(2);
    }
    if let Command::Reproduce(a) = &cli.command {
        // The reproduction is its own binary: it takes this process over.
        let e = encbench_oltp::commands::reproduce::exec(a);
        eprintln!("Error: {}", error_line(e.as_ref()));
        return ExitCode::FAILURE;
    }
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
            eprintln!("Error: {}", error_line(e.as_ref()));
            ExitCode::FAILURE
        }
    }
}
