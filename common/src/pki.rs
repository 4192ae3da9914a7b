//! The test PKI of every tool, written once: a private CA made on the spot,
//! server certificates it signs (rcgen, X.509 v3), the PEM files a server reads,
//! and the rustls configurations of both ends (a front end presenting a server
//! certificate; a client trusting a CA given in memory or as a PEM file).
//!
//! Users: the lab (the private MariaDB's and PostgreSQL's TLS files), tls-bench
//! (its chains and rustls configurations), oltp (`--tls-ca`), the tests' TLS
//! proxies and, later, the encrypting proxy's front end.
//!
//! The key type is chosen as rustls' test CA does: an RSA-2048 certificate under
//! an RSA-2048 CA, or an ECDSA P-256 certificate under an ECDSA P-256 CA (a
//! certificate always has its CA's key type). ECDSA P-256 is the default of the
//! private servers: the smallest and fastest key every TLS library (MariaDB's
//! OpenSSL or wolfSSL, PostgreSQL's OpenSSL, rustls) accepts; RSA-2048 is the
//! smallest RSA key the web PKI accepts, for tls-bench's RSA rows. Keys are drawn
//! by aws-lc-rs (rcgen's `aws_lc_rs` backend) and kept out of `Debug` output and
//! errors; the CA's key lives only in memory (no file is written for it).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, IsCa, Issuer, KeyPair,
    KeyUsagePurpose, PKCS_ECDSA_P256_SHA256, PKCS_RSA_SHA256, RsaKeySize,
};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use rustls::{ClientConfig, RootCertStore, ServerConfig, SupportedProtocolVersion};
use zeroize::Zeroizing;

/// Why a certificate, a PEM file or a rustls configuration could not be made:
/// each message is one line naming what failed (and, for a file a user names,
/// the fix).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PkiError {
    /// A key could not be generated or a certificate signed (e.g. a host that is
    /// no valid DNS name or IP address).
    #[error("cannot generate {what}: {source}")]
    Generate {
        /// What was being generated, e.g. `the certificate of localhost`.
        what: String,
        /// rcgen's error.
        #[source]
        source: rcgen::Error,
    },
    /// A PEM file (or its directory) could not be written: `cannot {action} {path}: {source}`.
    #[error("cannot {action} {}: {source}", path.display())]
    Write {
        /// What was being done: `create` (the directory) or `write`.
        action: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// A CA file a user named could not be read (missing, not a regular file, too
    /// large).
    #[cfg(unix)]
    #[error(transparent)]
    Read(#[from] crate::files::FileError),
    /// A CA file a user named holds no CA certificate, or a bad one:
    /// `{flag} {path}: {why}: give {what}`.
    #[error("{flag} {}: {why}: give {what}", path.display())]
    NotCa {
        /// The flag that named the file, e.g. `--tls-ca`.
        flag: String,
        /// The file.
        path: PathBuf,
        /// What is wrong with it, e.g. `no certificate in it`.
        why: String,
        /// What the file should be.
        what: String,
    },
    /// rustls refused a configuration (a protocol version the provider lacks, a
    /// key that does not match the certificate, a trust anchor it cannot parse).
    #[error("{what}: {source}")]
    Rustls {
        /// What was being built, e.g. `the TLS server configuration`.
        what: &'static str,
        /// rustls' error.
        #[source]
        source: rustls::Error,
    },
}

/// The key type of a CA and of the certificates it signs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyType {
    /// RSA with a 2048-bit modulus, signed with SHA-256 (PKCS#1 v1.5).
    Rsa2048,
    /// ECDSA on P-256 with SHA-256.
    EcdsaP256,
}

impl KeyType {
    /// A new key of this type (RSA-2048 key generation takes up to a second).
    fn new_key(self) -> Result<KeyPair, rcgen::Error> {
        match self {
            KeyType::Rsa2048 => KeyPair::generate_rsa_for(&PKCS_RSA_SHA256, RsaKeySize::_2048),
            KeyType::EcdsaP256 => KeyPair::generate_for(&PKCS_ECDSA_P256_SHA256),
        }
    }
}

/// A distinguished name of one common name.
fn named(name: &str) -> DistinguishedName {
    let mut dn = DistinguishedName::new();
    dn.push(DnType::CommonName, name);
    dn
}

/// A private CA: a self-signed X.509 v3 certificate (basic constraints CA,
/// unconstrained; key usages certificate and CRL signing) and its key, which
/// stays in memory. `Debug` shows the key type and size of the certificate only.
pub struct Ca {
    /// The CA's parameters and key, for signing.
    issuer: Issuer<'static, KeyPair>,
    /// Key type of the CA and of every certificate it signs.
    key_type: KeyType,
    /// The CA certificate, DER.
    cert: CertificateDer<'static>,
    /// The CA certificate, PEM.
    pem: String,
}

impl std::fmt::Debug for Ca {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ca")
            .field("key_type", &self.key_type)
            .field("cert_bytes", &self.cert.len())
            .finish_non_exhaustive()
    }
}

impl Ca {
    /// A new CA of `key_type` whose common name is `name` (e.g. `encbench private
    /// MariaDB CA`).
    ///
    /// # Errors
    /// [`PkiError::Generate`] when the key cannot be generated or the certificate
    /// signed.
    pub fn generate(key_type: KeyType, name: &str) -> Result<Ca, PkiError> {
        let generate = |source| PkiError::Generate {
            what: format!("the CA certificate {name}"),
            source,
        };
        let key = key_type.new_key().map_err(generate)?;
        let mut params = CertificateParams::new(Vec::<String>::new()).map_err(generate)?;
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        params.distinguished_name = named(name);
        let cert = params.self_signed(&key).map_err(generate)?;
        Ok(Ca {
            issuer: Issuer::new(params, key),
            key_type,
            cert: cert.der().clone(),
            pem: cert.pem(),
        })
    }

    /// A new server certificate signed by this CA, with a new key of the CA's key
    /// type: common name `name`, subject alternative names `hosts` (an IP address
    /// such as `127.0.0.1` or a DNS name such as `localhost` each; a client checks
    /// the name it connects to against them).
    ///
    /// # Errors
    /// [`PkiError::Generate`] when a host is neither an IP address nor a valid DNS
    /// name, or the key cannot be generated or the certificate signed.
    pub fn issue(&self, name: &str, hosts: &[&str]) -> Result<ServerCert, PkiError> {
        let generate = |source| PkiError::Generate {
            what: format!("the server certificate {name}"),
            source,
        };
        let key = self.key_type.new_key().map_err(generate)?;
        let hosts: Vec<String> = hosts.iter().map(|h| h.to_string()).collect();
        let mut params = CertificateParams::new(hosts).map_err(generate)?;
        params.distinguished_name = named(name);
        let cert = params.signed_by(&key, &self.issuer).map_err(generate)?;
        Ok(ServerCert {
            cert: cert.der().clone(),
            pem: cert.pem(),
            key_pkcs8: Zeroizing::new(key.serialize_der()),
            key_pem: Zeroizing::new(key.serialize_pem()),
        })
    }

    /// Key type of the CA and of every certificate it signs.
    pub fn key_type(&self) -> KeyType {
        self.key_type
    }

    /// The CA certificate, DER: the trust anchor clients load.
    pub fn cert(&self) -> &CertificateDer<'static> {
        &self.cert
    }

    /// The CA certificate, PEM (one `CERTIFICATE` block).
    pub fn pem(&self) -> &str {
        &self.pem
    }

    /// A root store trusting this CA only.
    ///
    /// # Errors
    /// As [`roots_of_cert`].
    pub fn roots(&self) -> Result<RootCertStore, PkiError> {
        roots_of_cert(&self.cert)
    }
}

/// A server certificate and its key: what a TLS server presents. The key is
/// wiped from memory on drop and never shown (`Debug` shows the certificate's
/// size only).
pub struct ServerCert {
    /// The certificate, DER.
    cert: CertificateDer<'static>,
    /// The certificate, PEM.
    pem: String,
    /// The private key, PKCS#8 DER.
    key_pkcs8: Zeroizing<Vec<u8>>,
    /// The private key, PKCS#8 PEM (`PRIVATE KEY`).
    key_pem: Zeroizing<String>,
}

impl std::fmt::Debug for ServerCert {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerCert")
            .field("cert_bytes", &self.cert.len())
            .finish_non_exhaustive()
    }
}

impl ServerCert {
    /// The certificate, DER.
    pub fn cert(&self) -> &CertificateDer<'static> {
        &self.cert
    }

    /// The certificate, PEM (one `CERTIFICATE` block).
    pub fn pem(&self) -> &str {
        &self.pem
    }

    /// The private key, PKCS#8 DER (for OpenSSL's `PKey::private_key_from_pkcs8`).
    pub fn key_pkcs8_der(&self) -> &[u8] {
        &self.key_pkcs8
    }

    /// A copy of the private key for rustls.
    pub fn private_key(&self) -> PrivateKeyDer<'static> {
        PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(self.key_pkcs8.to_vec()))
    }

    /// The rustls configuration of a front end presenting this certificate: see
    /// [`server_config`].
    ///
    /// # Errors
    /// As [`server_config`].
    pub fn server_config(
        &self,
        provider: Arc<CryptoProvider>,
        versions: &[&'static SupportedProtocolVersion],
    ) -> Result<ServerConfig, PkiError> {
        server_config(
            provider,
            versions,
            vec![self.cert.clone()],
            self.private_key(),
        )
    }
}

/// What a [`Chain`] is made of: its key type, the CA's and the server
/// certificate's common names, and the server certificate's subject alternative
/// names (an IP address or a DNS name each).
#[derive(Clone, Debug)]
pub struct ChainSpec<'a> {
    /// Key type of both the CA and the server certificate.
    pub key_type: KeyType,
    /// The CA's common name, e.g. `encbench private MariaDB CA`.
    pub ca_name: &'a str,
    /// The server certificate's common name.
    pub server_name: &'a str,
    /// The server certificate's subject alternative names.
    pub hosts: &'a [&'a str],
}

/// Where a server's three PEM files go ([`Chain::write`]).
#[derive(Clone, Copy, Debug)]
pub struct ServerFiles<'a> {
    /// The CA certificate (the file clients trust), mode 0644.
    pub ca: &'a Path,
    /// The server certificate, mode 0644.
    pub cert: &'a Path,
    /// The server's private key (PKCS#8 PEM), mode 0600.
    pub key: &'a Path,
}

/// A fresh CA and one server certificate it signed: what a private server or a
/// tls-bench run needs.
#[derive(Debug)]
pub struct Chain {
    /// The CA.
    pub ca: Ca,
    /// The server certificate it signed, with its key.
    pub server: ServerCert,
}

impl Chain {
    /// Makes a new CA and a server certificate it signs, as `spec` says (RSA-2048
    /// key generation takes up to a second per key).
    ///
    /// # Errors
    /// [`PkiError::Generate`] when a key cannot be generated, a host is no valid
    /// name or signing fails.
    pub fn generate(spec: &ChainSpec<'_>) -> Result<Chain, PkiError> {
        let ca = Ca::generate(spec.key_type, spec.ca_name)?;
        let server = ca.issue(spec.server_name, spec.hosts)?;
        Ok(Chain { ca, server })
    }

    /// Writes the server's files, replacing them: the key (PKCS#8 PEM, mode 0600,
    /// as PostgreSQL requires of a key file), then the certificate and the CA
    /// certificate (PEM, mode 0644). Each file is written to `<name>.tmp` next to
    /// it, synced and renamed over it, so a reader never sees half a key; missing
    /// directories are created. The files belong to the calling user (a caller
    /// whose server runs as another user gives them away afterwards).
    ///
    /// # Errors
    /// [`PkiError::Write`] naming the file or directory that could not be written.
    #[cfg(unix)]
    pub fn write(&self, files: &ServerFiles<'_>) -> Result<(), PkiError> {
        write_pem(files.key, self.server.key_pem.as_bytes(), 0o600)?;
        write_pem(files.cert, self.server.pem.as_bytes(), 0o644)?;
        write_pem(files.ca, self.ca.pem.as_bytes(), 0o644)
    }
}

/// Writes `bytes` to `path` with `mode` through `path` with extension `tmp` and a
/// rename (creating the directory).
#[cfg(unix)]
fn write_pem(path: &Path, bytes: &[u8], mode: u32) -> Result<(), PkiError> {
    use std::io::Write as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let fail = |action: &'static str, path: &Path| {
        let path = path.to_path_buf();
        move |source| PkiError::Write {
            action,
            path,
            source,
        }
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(fail("create", dir))?;
    }
    let tmp = path.with_extension("tmp");
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(mode)
        .open(&tmp)
        .map_err(fail("write", &tmp))?;
    f.write_all(bytes)
        .and_then(|()| f.sync_all())
        .map_err(fail("write", &tmp))?;
    std::fs::rename(&tmp, path).map_err(fail("write", path))
}

/// The rustls configuration of a TLS front end (a server, a proxy): `provider`'s
/// algorithms, `versions` only (e.g. [`rustls::DEFAULT_VERSIONS`], or one
/// version), no client authentication, presenting `certs` (the server's
/// certificate first, then any intermediates) with `key`. Session storage and
/// tickets are rustls' defaults; callers change them on the result.
///
/// # Errors
/// [`PkiError::Rustls`] when the provider lacks the versions or the key does not
/// match the certificate.
pub fn server_config(
    provider: Arc<CryptoProvider>,
    versions: &[&'static SupportedProtocolVersion],
    certs: Vec<CertificateDer<'static>>,
    key: PrivateKeyDer<'static>,
) -> Result<ServerConfig, PkiError> {
    let refused = |source| PkiError::Rustls {
        what: "the TLS server configuration",
        source,
    };
    ServerConfig::builder_with_provider(provider)
        .with_protocol_versions(versions)
        .map_err(refused)?
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .map_err(refused)
}

/// The rustls configuration of a TLS client: `provider`'s algorithms, `versions`
/// only, verifying the server's certificate (chain and name, rustls' web PKI
/// verifier) against `roots` only, no client certificate. Resumption is rustls'
/// default; callers change it on the result.
///
/// # Errors
/// [`PkiError::Rustls`] when the provider lacks the versions.
pub fn client_config(
    provider: Arc<CryptoProvider>,
    versions: &[&'static SupportedProtocolVersion],
    roots: RootCertStore,
) -> Result<ClientConfig, PkiError> {
    Ok(ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(versions)
        .map_err(|source| PkiError::Rustls {
            what: "the TLS client configuration",
            source,
        })?
        .with_root_certificates(roots)
        .with_no_client_auth())
}

/// A root store trusting the CA certificate `ca` (DER) only.
///
/// # Errors
/// [`PkiError::Rustls`] when `ca` cannot be parsed as a trust anchor.
pub fn roots_of_cert(ca: &CertificateDer<'_>) -> Result<RootCertStore, PkiError> {
    let mut roots = RootCertStore::empty();
    roots.add(ca.clone()).map_err(|source| PkiError::Rustls {
        what: "the trusted CA certificate",
        source,
    })?;
    Ok(roots)
}

/// A root store of the certificates in the PEM file `ca` a user named with
/// `flag` (e.g. `--tls-ca`): a regular file of at most
/// [`MAX_PEM_FILE`](crate::files::MAX_PEM_FILE) bytes, read by
/// [`read_capped`](crate::files::read_capped); blocks other than `CERTIFICATE`
/// (a key) are skipped. `what` says in errors what the file should be (e.g. `the
/// PEM file of the CA that signed the server's certificate`).
///
/// # Errors
/// [`PkiError::Read`] when the file is missing, unreadable, not a regular file
/// or too large; [`PkiError::NotCa`] when a PEM block is malformed, a
/// certificate is no trust anchor, or there is no certificate at all.
#[cfg(unix)]
pub fn roots_of(ca: &Path, what: &str, flag: &str) -> Result<RootCertStore, PkiError> {
    use crate::files::{MAX_PEM_FILE, read_capped};
    use rustls::pki_types::pem::PemObject as _;
    let bad = |why: String| PkiError::NotCa {
        flag: flag.to_string(),
        path: ca.to_path_buf(),
        why,
        what: what.to_string(),
    };
    let pem = read_capped(ca, MAX_PEM_FILE, what, flag)?;
    let mut roots = RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(&pem) {
        let cert = cert.map_err(|e| bad(e.to_string()))?;
        roots
            .add(cert)
            .map_err(|e| bad(format!("not a CA certificate ({e})")))?;
    }
    if roots.is_empty() {
        return Err(bad("no certificate in it".to_string()));
    }
    Ok(roots)
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt as _;

    use rustls::pki_types::ServerName;
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

    use super::*;

    const WHAT: &str = "the PEM file of the CA";

    fn chain(key_type: KeyType, ca_name: &str) -> Chain {
        Chain::generate(&ChainSpec {
            key_type,
            ca_name,
            server_name: "localhost",
            hosts: &["127.0.0.1", "localhost"],
        })
        .expect("chain")
    }

    fn aws_lc() -> Arc<CryptoProvider> {
        Arc::new(rustls::crypto::aws_lc_rs::default_provider())
    }

    /// One TLS handshake over loopback TCP between a server presenting `server`
    /// and a client trusting `roots` that connects to `name`, then one byte each
    /// way; the client's error if the handshake fails.
    async fn handshake(
        server: &ServerCert,
        roots: RootCertStore,
        name: &'static str,
    ) -> Result<(), String> {
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(
            server
                .server_config(aws_lc(), rustls::DEFAULT_VERSIONS)
                .expect("server config"),
        ));
        let connector = tokio_rustls::TlsConnector::from(Arc::new(
            client_config(aws_lc(), rustls::DEFAULT_VERSIONS, roots).expect("client config"),
        ));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("address");
        let serve = async move {
            let (tcp, _) = listener.accept().await.expect("accept");
            let mut tls = acceptor.accept(tcp).await.map_err(|e| e.to_string())?;
            let mut b = [0u8; 1];
            tls.read_exact(&mut b).await.map_err(|e| e.to_string())?;
            tls.write_all(&b).await.map_err(|e| e.to_string())?;
            tls.flush().await.map_err(|e| e.to_string())
        };
        let connect = async move {
            let tcp = tokio::net::TcpStream::connect(addr).await.expect("connect");
            let name = ServerName::try_from(name).expect("server name");
            let mut tls = connector
                .connect(name, tcp)
                .await
                .map_err(|e| e.to_string())?;
            tls.write_all(b"x").await.map_err(|e| e.to_string())?;
            let mut b = [0u8; 1];
            tls.read_exact(&mut b).await.map_err(|e| e.to_string())?;
            assert_eq!(&b, b"x");
            Ok::<(), String>(())
        };
        let (served, connected) = tokio::join!(serve, connect);
        connected?;
        served.map_err(|e| format!("server: {e}"))
    }

    #[test]
    fn both_key_types_make_a_ca_and_a_certificate_in_both_encodings() {
        for key_type in [KeyType::EcdsaP256, KeyType::Rsa2048] {
            let c = chain(key_type, "test CA");
            assert_eq!(c.ca.key_type(), key_type);
            assert!(c.ca.pem().starts_with("-----BEGIN CERTIFICATE-----"));
            assert!(c.server.pem().starts_with("-----BEGIN CERTIFICATE-----"));
            assert!(c.server.key_pem.starts_with("-----BEGIN PRIVATE KEY-----"));
            assert_ne!(c.ca.cert(), c.server.cert());
            let shown = format!("{c:?}");
            assert!(!shown.contains("PRIVATE"), "{shown}");
            assert!(!shown.contains("key_pkcs8"), "{shown}");
        }
    }

    #[tokio::test]
    async fn a_server_config_accepts_a_client_trusting_its_ca_over_loopback() {
        for key_type in [KeyType::EcdsaP256, KeyType::Rsa2048] {
            let c = chain(key_type, "test CA");
            let roots = c.ca.roots().expect("roots");
            handshake(&c.server, roots.clone(), "localhost")
                .await
                .expect("handshake by DNS name");
            handshake(&c.server, roots, "127.0.0.1")
                .await
                .expect("handshake by IP address");
        }
    }

    #[tokio::test]
    async fn a_client_trusting_another_ca_is_refused() {
        let c = chain(KeyType::EcdsaP256, "test CA");
        let other = Ca::generate(KeyType::EcdsaP256, "another CA").expect("other CA");
        let e = handshake(&c.server, other.roots().expect("roots"), "localhost")
            .await
            .expect_err("signed by another CA");
        assert!(e.contains("invalid peer certificate: UnknownIssuer"), "{e}");
        // A name the certificate was not issued for.
        let e = handshake(&c.server, c.ca.roots().expect("roots"), "db.example.test")
            .await
            .expect_err("another name");
        assert!(
            e.contains(r#"certificate not valid for name "db.example.test""#),
            "{e}"
        );
    }

    #[tokio::test]
    async fn written_files_have_their_modes_and_the_ca_file_is_trusted() {
        let dir = tempfile::tempdir().expect("tempdir");
        let tls = dir.path().join("tls");
        let (ca, cert, key) = (
            tls.join("ca.pem"),
            tls.join("server-cert.pem"),
            tls.join("server-key.pem"),
        );
        let c = chain(KeyType::EcdsaP256, "test CA");
        c.write(&ServerFiles {
            ca: &ca,
            cert: &cert,
            key: &key,
        })
        .expect("write");
        let mode = |p: &Path| std::fs::metadata(p).expect("stat").permissions().mode() & 0o777;
        assert_eq!(mode(&key), 0o600);
        assert_eq!(mode(&cert), 0o644);
        assert_eq!(mode(&ca), 0o644);
        let names: Vec<_> = std::fs::read_dir(&tls)
            .expect("dir")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(names.len(), 3, "no temporary file left: {names:?}");
        assert_eq!(std::fs::read_to_string(&ca).expect("ca"), c.ca.pem());
        let roots = roots_of(&ca, WHAT, "--tls-ca").expect("roots of the CA file");
        handshake(&c.server, roots, "127.0.0.1")
            .await
            .expect("handshake");
    }

    #[test]
    fn a_ca_file_without_a_certificate_or_missing_is_one_line_naming_the_flag() {
        let dir = tempfile::tempdir().expect("tempdir");
        let c = chain(KeyType::EcdsaP256, "test CA");
        let key = dir.path().join("key.pem");
        std::fs::write(&key, c.server.key_pem.as_bytes()).expect("write");
        let e = roots_of(&key, WHAT, "--tls-ca").expect_err("a key is no CA");
        assert_eq!(
            e.to_string(),
            format!(
                "--tls-ca {}: no certificate in it: give {WHAT}",
                key.display()
            )
        );
        assert!(!e.to_string().contains("PRIVATE"));
        let missing = dir.path().join("missing.pem");
        let e = roots_of(&missing, WHAT, "--tls-ca").expect_err("missing");
        assert!(matches!(e, PkiError::Read(_)), "{e:?}");
        assert!(
            e.to_string()
                .starts_with(&format!("cannot read --tls-ca {}: ", missing.display())),
            "{e}"
        );
    }

    #[test]
    fn a_host_that_is_no_name_is_a_generate_error() {
        let ca = Ca::generate(KeyType::EcdsaP256, "test CA").expect("CA");
        // A DNS name is IA5 (ASCII) text: rcgen refuses an `é`.
        let e = ca.issue("bad", &["caf\u{e9}.test"]).expect_err("bad host");
        assert!(matches!(e, PkiError::Generate { .. }), "{e:?}");
        assert!(
            e.to_string()
                .starts_with("cannot generate the server certificate bad: "),
            "{e}"
        );
    }
}
