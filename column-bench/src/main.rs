//! `column-bench`: see the crate documentation and `column-bench --help`.

use std::io::Write as _;
use std::process::ExitCode;

use clap::Parser as _;
use clap::error::ErrorKind;
use column_bench::cli::{Cli, error_line, execute, usage_error_line};

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
            eprintln!("Error: {}", usage_error_line(&e, "column-bench"));
            return ExitCode::from(2);
        }
    };
    match execute(&cli) {
        Ok(out) => {
            let mut stdout = std::io::stdout().lock();
            if stdout
                .write_all(out.as_bytes())
                .and_then(|()| stdout.flush())
                .is_err()
            {
                return ExitCode::FAILURE;
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            // The library's error and its sources, on one line, each once.
            eprintln!("Error: {}", error_line(&e));
            ExitCode::FAILURE
        }
    }
}
