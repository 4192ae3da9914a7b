//! tls-bench footprint program, OpenSSL (libssl and libcrypto linked
//! dynamically): connect, TLS handshake verifying the server against CA.der,
//! greeting, COM_QUERY, OK. Usage: `footprint-openssl HOST:PORT CA.der`.

#[path = "../common.rs"]
mod common;

use std::process::ExitCode;

use openssl::ssl::{SslConnector, SslMethod};
use openssl::x509::X509;

fn main() -> ExitCode {
    common::report(|| {
        let (addr, ca) = common::args()?;
        let ca = common::read_ca(ca)?;
        let ca = X509::from_der(&ca).map_err(|e| format!("CA: {e}"))?;
        let mut b = SslConnector::builder(SslMethod::tls_client()).map_err(|e| e.to_string())?;
        b.cert_store_mut().add_cert(ca).map_err(|e| e.to_string())?;
        let connector = b.build();
        let tcp = common::connect(&addr)?;
        let mut s = connector
            .connect("localhost", tcp)
            .map_err(|e| e.to_string())?;
        common::exchange(&mut s)
    })
}
