//! tls-bench footprint program, no TLS: connect, greeting, COM_QUERY, OK.
//! Usage: `footprint-plain HOST:PORT`; prints `ok` and exits 0 on success.

#[path = "../common.rs"]
mod common;

use std::process::ExitCode;

fn main() -> ExitCode {
    let run = || -> Result<(), String> {
        let (addr, _) = common::args()?;
        let mut s =
            std::net::TcpStream::connect(&addr).map_err(|e| format!("connect {addr}: {e}"))?;
        common::exchange(&mut s)
    };
    match run() {
        Ok(()) => {
            println!("ok");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("Error: {e}");
            ExitCode::FAILURE
        }
    }
}
