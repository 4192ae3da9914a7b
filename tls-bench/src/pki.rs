//! The test PKI made at start: for each key type a CA and a `localhost` leaf it
//! signs (RSA-2048 leaf under an RSA-2048 CA, ECDSA P-256 leaf under an ECDSA
//! P-256 CA, as in rustls' test-ca; made by [`encbench_common::pki`]). Clients
//! verify the chain against the CA.

use encbench_common::pki;
use rustls::pki_types::CertificateDer;

use crate::config::CertType;
use crate::error::{Error, Result};

/// The DNS name in every leaf certificate and the name clients verify.
pub const SERVER_NAME: &str = "localhost";

/// A CA certificate and one leaf it signed, for one key type.
pub struct Chain {
    /// Key type of both CA and leaf.
    pub cert: CertType,
    /// The CA certificate (the trust anchor clients load), DER.
    pub ca: CertificateDer<'static>,
    /// The leaf certificate the server presents, DER.
    pub leaf: CertificateDer<'static>,
    /// The CA certificate, PEM.
    ca_pem: String,
    /// The leaf and its private key. Never printed.
    server: pki::ServerCert,
}

impl std::fmt::Debug for Chain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Chain")
            .field("cert", &self.cert)
            .field("ca_bytes", &self.ca.len())
            .field("leaf_bytes", &self.leaf.len())
            .finish_non_exhaustive()
    }
}

impl Chain {
    /// Makes a fresh CA and leaf of the given key type.
    ///
    /// # Errors
    /// [`Error::Setup`] if key generation or signing fails.
    pub fn generate(cert: CertType) -> Result<Chain> {
        let chain = pki::Chain::generate(&pki::ChainSpec {
            key_type: match cert {
                CertType::Rsa2048 => pki::KeyType::Rsa2048,
                CertType::EcdsaP256 => pki::KeyType::EcdsaP256,
            },
            ca_name: &format!("tls-bench test CA {}", cert.name()),
            server_name: SERVER_NAME,
            hosts: &[SERVER_NAME],
        })
        .map_err(|e| match e {
            pki::PkiError::Generate { source, .. } => {
                Error::setup(format!("{} certificates", cert.name()), source)
            }
            other => Error::setup(format!("{} certificates", cert.name()), other),
        })?;
        Ok(Chain {
            cert,
            ca: chain.ca.cert().clone(),
            ca_pem: chain.ca.pem().to_string(),
            leaf: chain.server.cert().clone(),
            server: chain.server,
        })
    }

    /// The leaf and its key: what the server presents (its rustls configuration:
    /// [`pki::ServerCert::server_config`]).
    pub fn server(&self) -> &pki::ServerCert {
        &self.server
    }

    /// The leaf's private key, PKCS#8 DER, for OpenSSL.
    pub fn pkcs8_der(&self) -> &[u8] {
        self.server.key_pkcs8_der()
    }

    /// The CA certificate as PEM, for programs that read a CA file.
    pub fn ca_pem(&self) -> &str {
        &self.ca_pem
    }
}

/// Both chains of a run.
#[derive(Debug)]
pub struct Pki {
    /// RSA-2048 chain.
    pub rsa: Chain,
    /// ECDSA P-256 chain.
    pub ecdsa: Chain,
}

impl Pki {
    /// Generates both chains (RSA-2048 key generation takes up to a second).
    ///
    /// # Errors
    /// [`Error::Setup`] if key generation or signing fails.
    pub fn generate() -> Result<Pki> {
        Ok(Pki {
            rsa: Chain::generate(CertType::Rsa2048)?,
            ecdsa: Chain::generate(CertType::EcdsaP256)?,
        })
    }

    /// The chain of a key type.
    pub fn chain(&self, cert: CertType) -> &Chain {
        match cert {
            CertType::Rsa2048 => &self.rsa,
            CertType::EcdsaP256 => &self.ecdsa,
        }
    }
}
