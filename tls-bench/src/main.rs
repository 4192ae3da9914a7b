//! `tls-bench`: thin: parse the command line, run the library, print
//! `Error: ...` and exit non-zero on failure.

use std::process::ExitCode;

use clap::Parser;
use tls_bench::cli::{Cli, execute};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(anyhow::Error::from)
        .and_then(|rt| rt.block_on(execute(cli)).map_err(anyhow::Error::from));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("Error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
