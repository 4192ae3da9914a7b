//! TLS on both legs, rustls on the aws-lc-rs provider: the proxy's certificate and key
//! (PEM files) as a server configuration for clients, and a client configuration trusting
//! one CA for the backend, both built by `encbench_common::pki`; this file reads the
//! user's files and words the errors after the proxy's flags.

use std::path::Path;
use std::sync::Arc;

use anyhow::Context as _;
use encbench_common::files::FileError;
use encbench_common::pki::{self, PkiError};
use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::{TlsAcceptor, TlsConnector};

use crate::conn::BackendTls;

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
    let config = pki::server_config(provider(), rustls::DEFAULT_VERSIONS, chain, key)
        .map_err(rustls_cause)
        .context("the --tls-cert certificate and the --tls-key key do not make a TLS identity")?;
    Ok(TlsAcceptor::from(Arc::new(config)))
}

/// The backend leg's TLS: certificates must chain to the CA in `ca` (PEM) and name `host`
/// (MySQL's VERIFY_IDENTITY, as oltp's `--tls on`).
///
/// # Errors
/// The CA file cannot be read or holds no certificate, or `host` is not a valid name.
pub fn connector(ca: &Path, host: &str) -> anyhow::Result<BackendTls> {
    let roots = pki::roots_of(ca, "a PEM file", "--backend-tls-ca").map_err(|e| match e {
        PkiError::NotCa { .. } => anyhow::anyhow!(
            "no CA certificate in {} (--backend-tls-ca): give a PEM file",
            ca.display()
        ),
        PkiError::Read(FileError::Io { error, .. }) => anyhow::anyhow!(
            "cannot read the CA from {} (--backend-tls-ca): {error}",
            ca.display()
        ),
        e => e.into(),
    })?;
    let config = pki::client_config(provider(), rustls::DEFAULT_VERSIONS, roots)
        .map_err(rustls_cause)
        .context("TLS protocol versions")?;
    let name = rustls::pki_types::ServerName::try_from(host.to_string())
        .with_context(|| format!("{host:?} (--backend) is not a name a certificate can carry"))?;
    Ok((TlsConnector::from(Arc::new(config)), name))
}

/// rustls on aws-lc-rs, the provider of every TLS leg in the workspace.
fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::aws_lc_rs::default_provider())
}

/// rustls' own error out of a [`PkiError::Rustls`], so messages read as before.
fn rustls_cause(e: PkiError) -> anyhow::Error {
    match e {
        PkiError::Rustls { source, .. } => source.into(),
        e => e.into(),
    }
}
