//! tls-bench footprint program, no TLS: connect, greeting, COM_QUERY, OK.
//! Usage: `footprint-plain HOST:PORT`; prints `ok` and exits 0 on success.

#[path = "../common.rs"]
mod common;

use std::process::ExitCode;

fn main() -> ExitCode {
    common::report(|| {
        let (addr, _) = common::args()?;
        let mut s = common::connect(&addr)?;
        common::exchange(&mut s)
    })
}
