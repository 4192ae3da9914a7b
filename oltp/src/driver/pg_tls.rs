//! The TLS connector of a PostgreSQL connection: rustls with the aws-lc-rs provider (as
//! mysql_async's TLS for MariaDB), TLS 1.2 or 1.3, through `tokio-postgres-rustls` (which
//! also gives SCRAM its channel binding, `tls-server-end-point`).
//!
//! The server's certificate is checked as far as [`TlsMode`] asks, libpq's `sslmode`
//! levels under MySQL's names:
//!
//! | `--tls` | libpq | chain to the CA | host name of the URL |
//! | --- | --- | --- | --- |
//! | `on`, `verify-identity` | `verify-full` | yes | yes |
//! | `verify-ca` | `verify-ca` | yes | no |
//! | `required` | `require` | no | no |
//!
//! Every level encrypts and checks the handshake's signature with the certificate's key;
//! the CA is `--tls-ca` (PEM) when given, else the web PKI roots (`webpki-roots`).

use std::path::Path;
use std::sync::Arc;

use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::aws_lc_rs;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{CertificateError, DigitallySignedStruct, RootCertStore, SignatureScheme};
use tokio_postgres_rustls::MakeRustlsConnect;

use super::{DbError, ErrorKind, TlsMode, TlsOptions};

/// The `tokio-postgres` TLS connector for `tls`.
///
/// # Errors
/// `--tls-ca` cannot be read or holds no PEM certificate ([`ErrorKind::Tls`]: the message
/// is complete, callers pass it on as it is).
pub fn connector(tls: &TlsOptions) -> Result<MakeRustlsConnect, DbError> {
    let provider = Arc::new(aws_lc_rs::default_provider());
    let roots = Arc::new(match &tls.ca {
        Some(ca) => roots_of(ca)?,
        None => RootCertStore {
            roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        },
    });
    let webpki = WebPkiServerVerifier::builder_with_provider(roots, provider.clone())
        .build()
        .map_err(|e| DbError::new(ErrorKind::Other, format!("--tls: {e}")))?;
    let verifier: Arc<dyn ServerCertVerifier> = match tls.mode {
        TlsMode::VerifyIdentity => webpki,
        TlsMode::VerifyCa => Arc::new(Relaxed {
            webpki,
            checked: Checked::Chain,
        }),
        TlsMode::Required => Arc::new(Relaxed {
            webpki,
            checked: Checked::Nothing,
        }),
    };
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13, &rustls::version::TLS12])
        .map_err(|e| DbError::new(ErrorKind::Other, format!("--tls: {e}")))?
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth();
    Ok(MakeRustlsConnect::new(config))
}

/// What `--tls-ca` names, in errors.
const CA_FILE: &str = "the PEM file of the CA that signed the server's certificate";

/// The bytes of PEM file `ca` (`--tls-ca`): a regular file of at most
/// [`MAX_PEM_FILE`](encbench_common::files::MAX_PEM_FILE) bytes
/// ([`read_capped`](encbench_common::files::read_capped)). Both drivers read it
/// so: rustls parses them ([`roots_of`]), mysql_async is given them.
///
/// # Errors
/// The file is missing or unreadable, not a regular file (a FIFO, a device, a
/// directory) or larger than the cap ([`ErrorKind::Tls`]: one line naming the
/// file and the fix).
pub fn read_ca(ca: &Path) -> Result<Vec<u8>, DbError> {
    use encbench_common::files::{MAX_PEM_FILE, read_capped};
    read_capped(ca, MAX_PEM_FILE, CA_FILE, "--tls-ca")
        .map_err(|e| DbError::new(ErrorKind::Tls, e.to_string()))
}

/// The certificates of PEM file `ca` (`--tls-ca`), read as [`read_ca`] reads it, by
/// [`encbench_common::pki::roots_of`]; also checked by
/// [`crate::config::RunConfig::from_args`] for MySQL before connecting.
///
/// # Errors
/// As [`read_ca`], or the file holds no CA certificate ([`ErrorKind::Tls`]: one
/// line naming the file and the fix).
pub fn roots_of(ca: &Path) -> Result<RootCertStore, DbError> {
    encbench_common::pki::roots_of(ca, CA_FILE, "--tls-ca")
        .map_err(|e| DbError::new(ErrorKind::Tls, e.to_string()))
}

/// What a level below `verify-identity` still checks of the server's certificate.
#[derive(Debug, Clone, Copy)]
enum Checked {
    /// `--tls verify-ca`: the chain to the CA, not the host name.
    Chain,
    /// `--tls required`: nothing (libpq's `sslmode=require`; open to an active man in the
    /// middle).
    Nothing,
}

/// `--tls verify-ca` and `--tls required`: the web PKI verifier with the host-name check
/// (`Checked::Chain`) or the whole certificate check (`Checked::Nothing`) left out. rustls
/// checks the chain first and the name last, so a name error means the chain passed. The
/// handshake's signatures are the web PKI verifier's checks, with the certificate's key, at
/// every level.
#[derive(Debug)]
struct Relaxed {
    webpki: Arc<WebPkiServerVerifier>,
    checked: Checked,
}

impl ServerCertVerifier for Relaxed {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        if let Checked::Nothing = self.checked {
            return Ok(ServerCertVerified::assertion());
        }
        match self.webpki.verify_server_cert(
            end_entity,
            intermediates,
            server_name,
            ocsp_response,
            now,
        ) {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.webpki.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.webpki.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.webpki.supported_verify_schemes()
    }
}
