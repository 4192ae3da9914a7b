//! `tls-bench`: thin: parse the command line, run the library, print
//! `Error: ...` (one line) and exit non-zero on failure: 2 for a usage error,
//! 1 otherwise.

use std::process::ExitCode;

use clap::Parser;
use clap::error::ErrorKind;
use tls_bench::cli::{Cli, error_line, execute, usage_error_line};

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // --help and --version: clap's own output, exit 0.
        Err(e)
            if !e.use_stderr()
                || e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand =>
        {
            e.exit()
        }
        Err(e) => {
            // One line: the problem, the valid values, where to look; exit 2.
            eprintln!("Error: {}", usage_error_line(&e, "tls-bench"));
            return ExitCode::from(2);
        }
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
