//! The `encbench-proxy` binary: parse the flags, build the runtime, run the library; on
//! failure print `Error: ...` (one line) and exit 1 (2 for a usage error, as clap).

use std::process::ExitCode;

use encbench_common::cli_error::{error_line, parse_args};
use encbench_proxy::cli::Cli;

fn main() -> ExitCode {
    let cli: Cli = match parse_args("encbench-proxy") {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    let runtime = if cli.threads == 1 {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
    } else {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(usize::from(cli.threads))
            .enable_all()
            .build()
    };
    let runtime = match runtime {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("Error: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(encbench_proxy::run(cli)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("Error: {}", error_line(e.as_ref()));
            ExitCode::FAILURE
        }
    }
}
