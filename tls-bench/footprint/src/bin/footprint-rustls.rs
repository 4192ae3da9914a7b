//! tls-bench footprint program, rustls (aws-lc-rs provider, statically linked):
//! connect, TLS handshake verifying the server against CA.der, greeting,
//! COM_QUERY, OK. Usage: `footprint-rustls HOST:PORT CA.der`.

#[path = "../common.rs"]
mod common;

use std::process::ExitCode;
use std::sync::Arc;

fn main() -> ExitCode {
    common::report(|| {
        let (addr, ca) = common::args()?;
        let ca = common::read_ca(ca)?;
        let mut roots = rustls::RootCertStore::empty();
        roots
            .add(rustls::pki_types::CertificateDer::from(ca))
            .map_err(|e| format!("CA: {e}"))?;
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let cfg = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| e.to_string())?
            .with_root_certificates(roots)
            .with_no_client_auth();
        let name =
            rustls::pki_types::ServerName::try_from("localhost").map_err(|e| e.to_string())?;
        let conn = rustls::ClientConnection::new(Arc::new(cfg), name).map_err(|e| e.to_string())?;
        let tcp = common::connect(&addr)?;
        let mut s = rustls::StreamOwned::new(conn, tcp);
        common::exchange(&mut s)
    })
}
