//! `column-bench`: see the crate documentation and `column-bench --help`.

use std::io::Write as _;
use std::process::ExitCode;

use clap::Parser as _;
use column_bench::cli::{Cli, execute};

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => e.exit(),
        Err(e) => {
            // clap's message, on one line: the problem, then where to look.
            let text = e.to_string();
            let first = text.lines().next().unwrap_or("invalid arguments");
            let first = first.strip_prefix("error: ").unwrap_or(first);
            eprintln!("Error: {first} (see column-bench --help)");
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
            // The library's error and its sources, on one line.
            let e = anyhow::Error::from(e);
            eprintln!("Error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
