//! TLS on the client leg: the proxy's certificate and key (PEM files) as a rustls server
//! configuration on the aws-lc-rs provider. Kept in this one file so that it can move onto
//! `encbench_common::pki`'s rustls configurations.

use std::path::Path;
use std::sync::Arc;

use anyhow::Context as _;
use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::TlsAcceptor;

/// A TLS acceptor for the certificate chain in `cert` (PEM, leaf first) and the private
/// key in `key` (PEM: PKCS#8, PKCS#1 or SEC1).
///
/// # Errors
/// A file cannot be read or holds no certificate / key, or the key does not match.
pub fn acceptor(cert: &Path, key: &Path) -> anyhow::Result<TlsAcceptor> {
    let chain = CertificateDer::pem_file_iter(cert)
        .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
        .with_context(|| {
            format!(
                "cannot read certificates from {} (--tls-cert)",
                cert.display()
            )
        })?;
    if chain.is_empty() {
        anyhow::bail!(
            "no certificate in {} (--tls-cert): give a PEM file",
            cert.display()
        );
    }
    // The key's bytes never reach a message: only the path.
    let key = PrivateKeyDer::from_pem_file(key).map_err(|_| {
        anyhow::anyhow!(
            "no private key read from {} (--tls-key): give a PEM file",
            key.display()
        )
    })?;
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .context("TLS protocol versions")?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .context("the --tls-cert certificate and the --tls-key key do not make a TLS identity")?;
    Ok(TlsAcceptor::from(Arc::new(config)))
}
