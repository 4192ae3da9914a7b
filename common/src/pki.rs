//! Test PKIs made on the spot, written once for every tool: a CA and one server
//! certificate it signs (rcgen, X.509 v3), for the private servers' TLS and
//! tls-bench's chains. The key type is chosen as rustls' test CA does: RSA-2048
//! under an RSA-2048 CA, or ECDSA P-256 under an ECDSA P-256 CA.

use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, IsCa, Issuer, KeyPair,
    KeyUsagePurpose, PKCS_ECDSA_P256_SHA256, PKCS_RSA_SHA256, RsaKeySize,
};

/// The key type of a CA and of the certificate it signs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyType {
    /// RSA with a 2048-bit modulus, signed with SHA-256 (PKCS#1 v1.5).
    Rsa2048,
    /// ECDSA on P-256 with SHA-256.
    EcdsaP256,
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

/// A fresh CA and one server certificate it signed, in DER and PEM. The private
/// key is never printed (`Debug` shows sizes only).
pub struct Chain {
    /// The CA certificate, DER (the trust anchor clients load).
    pub ca_der: Vec<u8>,
    /// The CA certificate, PEM.
    pub ca_pem: String,
    /// The server certificate, DER.
    pub cert_der: Vec<u8>,
    /// The server certificate, PEM.
    pub cert_pem: String,
    /// The server certificate's private key, PKCS#8 DER.
    pub key_pkcs8_der: Vec<u8>,
    /// The same key, PKCS#8 PEM.
    pub key_pem: String,
}

impl std::fmt::Debug for Chain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Chain")
            .field("ca_bytes", &self.ca_der.len())
            .field("cert_bytes", &self.cert_der.len())
            .finish_non_exhaustive()
    }
}

impl Chain {
    /// Makes a new CA and a server certificate it signs, as `spec` says (RSA-2048
    /// key generation takes up to a second).
    ///
    /// # Errors
    /// rcgen's error when a key cannot be generated or signing fails.
    pub fn generate(spec: &ChainSpec<'_>) -> Result<Chain, rcgen::Error> {
        let new_key = || match spec.key_type {
            KeyType::Rsa2048 => KeyPair::generate_rsa_for(&PKCS_RSA_SHA256, RsaKeySize::_2048),
            KeyType::EcdsaP256 => KeyPair::generate_for(&PKCS_ECDSA_P256_SHA256),
        };
        let named = |name: &str| {
            let mut dn = DistinguishedName::new();
            dn.push(DnType::CommonName, name);
            dn
        };
        let ca_key = new_key()?;
        let mut ca_params = CertificateParams::new(Vec::<String>::new())?;
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        ca_params.distinguished_name = named(spec.ca_name);
        let ca = ca_params.self_signed(&ca_key)?;
        let issuer = Issuer::new(ca_params, ca_key);
        let key = new_key()?;
        let hosts: Vec<String> = spec.hosts.iter().map(|h| h.to_string()).collect();
        let mut params = CertificateParams::new(hosts)?;
        params.distinguished_name = named(spec.server_name);
        let cert = params.signed_by(&key, &issuer)?;
        Ok(Chain {
            ca_der: ca.der().to_vec(),
            ca_pem: ca.pem(),
            cert_der: cert.der().to_vec(),
            cert_pem: cert.pem(),
            key_pkcs8_der: key.serialize_der(),
            key_pem: key.serialize_pem(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_key_types_make_a_ca_and_a_certificate_in_both_encodings() {
        for key_type in [KeyType::EcdsaP256, KeyType::Rsa2048] {
            let c = Chain::generate(&ChainSpec {
                key_type,
                ca_name: "test CA",
                server_name: "localhost",
                hosts: &["localhost", "127.0.0.1"],
            })
            .expect("chain");
            assert!(c.ca_pem.starts_with("-----BEGIN CERTIFICATE-----"));
            assert!(c.cert_pem.starts_with("-----BEGIN CERTIFICATE-----"));
            assert!(c.key_pem.starts_with("-----BEGIN PRIVATE KEY-----"));
            assert_ne!(c.ca_der, c.cert_der);
            assert!(!format!("{c:?}").contains("PRIVATE"));
        }
    }
}
