//! `column-bench`: see the crate documentation and `column-bench --help`.

use std::io::Write as _;
use std::process::ExitCode;

use clap::Parser;
use column_bench::cli::{Cli, execute};

fn main() -> ExitCode {
    let cli = Cli::parse();
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
            eprintln!("Error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
