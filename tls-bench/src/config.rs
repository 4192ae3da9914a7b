//! The names a run is configured with: transports, TLS versions, certificate
//! types, resumption modes and bulk ciphers, spelled the way rustls' own
//! benchmark program prints them (`TLSv1_3`, `EcdsaP256`, `TLS13_AES_256_GCM_SHA384`).

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

use crate::error::Error;

/// A way to carry the bytes: plain TCP or one TLS library.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(into = "&'static str")]
pub enum Transport {
    /// Plain TCP, no TLS: the baseline.
    Plain,
    /// rustls with the aws-lc-rs crypto provider.
    RustlsAwsLcRs,
    /// rustls with the ring crypto provider.
    RustlsRing,
    /// OpenSSL (the system's libssl, through the `openssl` and `tokio-openssl` crates).
    Openssl,
}

impl Transport {
    /// Every transport, plain first.
    pub const ALL: [Transport; 4] = [
        Transport::Plain,
        Transport::RustlsAwsLcRs,
        Transport::RustlsRing,
        Transport::Openssl,
    ];
    /// The TLS transports.
    pub const TLS: [Transport; 3] = [
        Transport::RustlsAwsLcRs,
        Transport::RustlsRing,
        Transport::Openssl,
    ];

    /// The command-line and report name.
    pub fn name(self) -> &'static str {
        match self {
            Transport::Plain => "plain",
            Transport::RustlsAwsLcRs => "rustls-aws-lc-rs",
            Transport::RustlsRing => "rustls-ring",
            Transport::Openssl => "openssl",
        }
    }

    /// True for every transport but plain TCP.
    pub fn is_tls(self) -> bool {
        self != Transport::Plain
    }
}

/// A TLS protocol version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(into = "&'static str")]
pub enum TlsVersion {
    /// TLS 1.2 (RFC 5246).
    Tls12,
    /// TLS 1.3 (RFC 8446).
    Tls13,
}

impl TlsVersion {
    /// Both versions, 1.2 first.
    pub const ALL: [TlsVersion; 2] = [TlsVersion::Tls12, TlsVersion::Tls13];

    /// rustls' spelling (`TLSv1_2`, `TLSv1_3`), used in every report.
    pub fn name(self) -> &'static str {
        match self {
            TlsVersion::Tls12 => "TLSv1_2",
            TlsVersion::Tls13 => "TLSv1_3",
        }
    }

    /// Bytes a TLS record adds to its plaintext with the AEAD suites used here:
    /// TLS 1.3: 5 (record header) + 1 (inner content type) + 16 (AEAD tag) = 22
    /// (RFC 8446 §5.2); TLS 1.2 AES-GCM: 5 (header) + 8 (explicit nonce) + 16 (tag)
    /// = 29 (RFC 5288 §3).
    pub fn aes_gcm_record_overhead(self) -> usize {
        match self {
            TlsVersion::Tls12 => 29,
            TlsVersion::Tls13 => 22,
        }
    }
}

/// The server's certificate key type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(into = "&'static str")]
pub enum CertType {
    /// RSA 2048-bit key, PKCS#1 v1.5 / PSS signatures with SHA-256.
    Rsa2048,
    /// ECDSA on NIST P-256 with SHA-256.
    EcdsaP256,
}

impl CertType {
    /// Both certificate types.
    pub const ALL: [CertType; 2] = [CertType::Rsa2048, CertType::EcdsaP256];

    /// rustls' `KeyType` spelling (`Rsa2048`, `EcdsaP256`).
    pub fn name(self) -> &'static str {
        match self {
            CertType::Rsa2048 => "Rsa2048",
            CertType::EcdsaP256 => "EcdsaP256",
        }
    }
}

/// How a handshake is run: full, or resumed from an earlier session.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(into = "&'static str")]
pub enum Resumption {
    /// Full handshake; no session is cached or offered.
    Full,
    /// TLS 1.2 session-id resumption (server-side session cache).
    SessionId,
    /// Stateless tickets: TLS 1.2 session tickets (RFC 5077) or TLS 1.3 PSK tickets.
    Ticket,
}

impl Resumption {
    /// The modes that exist for a version: TLS 1.3 has no session ids.
    pub fn for_version(version: TlsVersion) -> &'static [Resumption] {
        match version {
            TlsVersion::Tls12 => &[Resumption::Full, Resumption::SessionId, Resumption::Ticket],
            TlsVersion::Tls13 => &[Resumption::Full, Resumption::Ticket],
        }
    }

    /// rustls' labels: `no-resume`, `sessionid`, `tickets`.
    pub fn name(self) -> &'static str {
        match self {
            Resumption::Full => "no-resume",
            Resumption::SessionId => "sessionid",
            Resumption::Ticket => "tickets",
        }
    }
}

/// The bulk cipher of a suite (the key exchange is always X25519 and, in TLS 1.2,
/// the authentication is ECDHE with the certificate's key type).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Cipher {
    /// AES-128-GCM.
    Aes128Gcm,
    /// AES-256-GCM.
    Aes256Gcm,
    /// ChaCha20-Poly1305.
    Chacha20Poly1305,
}

impl Cipher {
    /// The three ciphers, in rustls' order of preference.
    pub const ALL: [Cipher; 3] = [
        Cipher::Aes256Gcm,
        Cipher::Aes128Gcm,
        Cipher::Chacha20Poly1305,
    ];
}

/// One cipher suite: version, bulk cipher and (TLS 1.2) the signature key type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Suite {
    /// Protocol version.
    pub version: TlsVersion,
    /// Bulk cipher.
    pub cipher: Cipher,
    /// Certificate key type (names the TLS 1.2 suite; TLS 1.3 suites do not depend on it).
    pub cert: CertType,
}

impl Suite {
    /// The suite's IANA name as rustls prints it (`TLS13_AES_256_GCM_SHA384`,
    /// `TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384`).
    pub fn name(self) -> String {
        let bulk = match self.cipher {
            Cipher::Aes128Gcm => "AES_128_GCM_SHA256",
            Cipher::Aes256Gcm => "AES_256_GCM_SHA384",
            Cipher::Chacha20Poly1305 => "CHACHA20_POLY1305_SHA256",
        };
        match self.version {
            TlsVersion::Tls13 => format!("TLS13_{bulk}"),
            TlsVersion::Tls12 => {
                let auth = match self.cert {
                    CertType::Rsa2048 => "RSA",
                    CertType::EcdsaP256 => "ECDSA",
                };
                format!("TLS_ECDHE_{auth}_WITH_{bulk}")
            }
        }
    }

    /// OpenSSL's name: a TLS 1.3 `ciphersuites` entry or a TLS 1.2 `cipher_list` entry.
    pub fn openssl_name(self) -> String {
        match self.version {
            TlsVersion::Tls13 => match self.cipher {
                Cipher::Aes128Gcm => "TLS_AES_128_GCM_SHA256",
                Cipher::Aes256Gcm => "TLS_AES_256_GCM_SHA384",
                Cipher::Chacha20Poly1305 => "TLS_CHACHA20_POLY1305_SHA256",
            }
            .to_string(),
            TlsVersion::Tls12 => {
                let auth = match self.cert {
                    CertType::Rsa2048 => "RSA",
                    CertType::EcdsaP256 => "ECDSA",
                };
                let bulk = match self.cipher {
                    Cipher::Aes128Gcm => "AES128-GCM-SHA256",
                    Cipher::Aes256Gcm => "AES256-GCM-SHA384",
                    Cipher::Chacha20Poly1305 => "CHACHA20-POLY1305",
                };
                format!("ECDHE-{auth}-{bulk}")
            }
        }
    }
}

/// A report section.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(into = "&'static str")]
pub enum Section {
    /// Full and resumed handshakes: rate and latency.
    Handshake,
    /// Bytes and records on the wire for MySQL-sized messages.
    Record,
    /// Request/response latency at 1..64 connections.
    Latency,
    /// Bulk throughput per cipher suite.
    Bulk,
    /// Stripped sizes of the minimal client built three ways.
    Footprint,
}

impl Section {
    /// Every section, in report order.
    pub const ALL: [Section; 5] = [
        Section::Handshake,
        Section::Record,
        Section::Latency,
        Section::Bulk,
        Section::Footprint,
    ];

    /// Command-line and report name.
    pub fn name(self) -> &'static str {
        match self {
            Section::Handshake => "handshake",
            Section::Record => "record",
            Section::Latency => "latency",
            Section::Bulk => "bulk",
            Section::Footprint => "footprint",
        }
    }
}

macro_rules! named {
    ($ty:ty, $what:literal, $all:expr, $($alias:literal => $val:expr),* $(,)?) => {
        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }
        impl From<$ty> for &'static str {
            fn from(v: $ty) -> &'static str {
                v.name()
            }
        }
        impl FromStr for $ty {
            type Err = Error;
            fn from_str(s: &str) -> Result<Self, Error> {
                let lower = s.to_ascii_lowercase();
                for v in $all {
                    if v.name().to_ascii_lowercase() == lower {
                        return Ok(v);
                    }
                }
                $(if lower == $alias { return Ok($val); })*
                Err(Error::UnknownName {
                    what: $what,
                    name: s.to_string(),
                    known: $all.iter().map(|v| v.name()).collect::<Vec<_>>().join(", "),
                })
            }
        }
    };
}

named!(Transport, "transport", Transport::ALL,);
named!(TlsVersion, "TLS version", TlsVersion::ALL, "1.2" => TlsVersion::Tls12, "1.3" => TlsVersion::Tls13);
named!(CertType, "certificate type", CertType::ALL, "rsa" => CertType::Rsa2048, "ecdsa" => CertType::EcdsaP256);
named!(Section, "section", Section::ALL,);
named!(Resumption, "resumption mode", [Resumption::Full, Resumption::SessionId, Resumption::Ticket], "full" => Resumption::Full, "session-id" => Resumption::SessionId, "ticket" => Resumption::Ticket);

/// Parses a comma-separated list of names (`"plain,openssl"`), keeping order and
/// dropping repeats.
///
/// # Errors
/// [`Error::UnknownName`] for the first name that does not parse; an empty list is
/// also refused.
pub fn parse_list<T: FromStr<Err = Error> + PartialEq>(
    what: &'static str,
    s: &str,
) -> Result<Vec<T>, Error> {
    let mut out = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let v: T = part.parse()?;
        if !out.contains(&v) {
            out.push(v);
        }
    }
    if out.is_empty() {
        return Err(Error::UnknownName {
            what,
            name: s.to_string(),
            known: "a comma-separated list of names (see --help)".to_string(),
        });
    }
    Ok(out)
}
