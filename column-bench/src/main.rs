//! `column-bench`: see the crate documentation and `column-bench --help`.
//! Thin: parse the command line, run the library, print the report, or
//! `Error: ...` (one line) and exit non-zero: 2 for a usage error, 1 otherwise.
//! Core dumps are off from the first line (`encbench_common::core_dumps`): the
//! process holds column keys.

use std::io::Write as _;
use std::process::ExitCode;

use column_bench::cli::{Cli, execute};
use encbench_common::cli_error::{error_line, parse_args};

fn main() -> ExitCode {
    if let Err(e) = encbench_common::core_dumps::disable() {
        eprintln!("Error: {e}");
        return ExitCode::FAILURE;
    }
    let cli: Cli = match parse_args("column-bench") {
        Ok(cli) => cli,
        Err(code) => return code,
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
