//! `tls-bench`: thin: parse the command line, run the library, print
//! `Error: ...` (one line) and exit non-zero on failure: 2 for a usage error,
//! 1 otherwise.

use std::process::ExitCode;

use encbench_common::cli_error::{error_line, parse_args};
use tls_bench::cli::{Cli, execute};

fn main() -> ExitCode {
    let cli: Cli = match parse_args("tls-bench") {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    let result = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(anyhow::Error::from)
        .and_then(|rt| rt.block_on(execute(cli)).map_err(anyhow::Error::from));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("Error: {}", error_line(e.as_ref()));
            ExitCode::FAILURE
        }
    }
}
