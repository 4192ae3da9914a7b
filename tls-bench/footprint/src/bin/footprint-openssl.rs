//! tls-bench footprint program, OpenSSL (libssl and libcrypto linked
//! dynamically): connect, TLS handshake verifying the server against CA.der,
//! greeting, COM_QUERY, OK. Usage: `footprint-openssl HOST:PORT CA.der`.

#[path = "../common.rs"]
mod common;

use std::process::ExitCode;

use openssl::ssl::{SslConnector, SslMethod};
use openssl::x509::X509;

fn main() -> ExitCode {
    let run = || -> Result<(), String> {
        let (addr, ca) = common::args()?;
        let ca = std::fs::read(ca.ok_or("missing CA.der")?).map_err(|e| format!("read CA: {e}"))?;
        let ca = X509::from_der(&ca).map_err(|e| format!("CA: {e}"))?;
        let mut b = SslConnector::builder(SslMethod::tls_client()).map_err(|e| e.to_string())?;
        b.cert_store_mut().add_cert(ca).map_err(|e| e.to_string())?;
        let connector = b.build();
        let tcp =
            std::net::TcpStream::connect(&addr).map_err(|e| format!("connect {addr}: {e}"))?;
        let mut s = connector
            .connect("localhost", tcp)
            .map_err(|e| e.to_string())?;
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
