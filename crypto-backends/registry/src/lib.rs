//! Resolves `BACKEND:ALGORITHM` names (`openssl:aes-256-gcm`,
//! `rustcrypto:chacha20-poly1305`) to the AEAD backends compiled into this
//! build, and lists them.
//!
//! Each backend is a cargo feature named after its library, all on by default:
//!
//! | feature      | backend crate         | algorithms (`BACKEND:ALGORITHM`)            |
//! |--------------|-----------------------|---------------------------------------------|
//! | `aws-lc-rs`  | `encbench-aws-lc`     | `aes-128-gcm`, `aes-256-gcm`, `chacha20-poly1305`, `aes-256-gcm-siv` |
//! | `openssl`    | `encbench-openssl`    | `aes-128-gcm`, `aes-256-gcm`, `chacha20-poly1305`, `aes-256-siv`, `aes-256-cbc-hmac-sha256` |
//! | `ring`       | `encbench-ring`       | `aes-128-gcm`, `aes-256-gcm`, `chacha20-poly1305` |
//! | `rustcrypto` | `encbench-rustcrypto` | `aes-128-gcm`, `aes-256-gcm`, `chacha20-poly1305`, `xchacha20-poly1305`, `aes-256-gcm-siv`, `aes-256-siv`, `aes-256-cbc-hmac-sha256` |
//!
//! The deterministic forms ([`deterministic`], [`lookup_deterministic`]):
//! `openssl:` and `rustcrypto:` `aes-256-siv` and `aes-256-cbc-hmac-sha256`.
//!
//! A name whose backend exists but was not compiled in gives an error naming the
//! feature that enables it; every error lists the valid names.
//!
//! ```
//! match encbench_registry::lookup("OpenSSL:AES-256-GCM") {
//!     Ok(d) => assert_eq!(d.name(), "openssl:aes-256-gcm"),
//!     // Built without the `openssl` feature: the message says to enable it.
//!     Err(e) => assert!(e.to_string().contains("--features openssl")),
//! }
//! ```
//!
//! The items of `encbench-crypto` that users of a descriptor need are re-exported
//! here, so a tool can depend on this crate alone.

pub use encbench_crypto::envelope::{
    self, ColumnAad, ColumnCipher, EnvelopeError, Location, RowAad, ValueAad,
};
pub use encbench_crypto::{
    Aead, Algorithm, Descriptor, DetachedAead, DeterministicAead, DeterministicDescriptor, Error,
    Key, KeyId, Keyring, always_encrypted,
};

/// A backend this version of encbench knows, whether or not it was compiled in.
struct KnownBackend {
    /// Name in `BACKEND:ALGORITHM`.
    name: &'static str,
    /// The cargo feature of `encbench-registry` that compiles it in.
    feature: &'static str,
    /// Its descriptors, when compiled in.
    algorithms: Option<&'static [Descriptor]>,
    /// Its deterministic descriptors, when compiled in (empty for ring and aws-lc-rs).
    deterministic: &'static [DeterministicDescriptor],
}

/// Every known backend, sorted by name (the order of [`all`] and [`names`]).
fn known_backends() -> [KnownBackend; 4] {
    [
        KnownBackend {
            name: "aws-lc-rs",
            feature: "aws-lc-rs",
            #[cfg(feature = "aws-lc-rs")]
            algorithms: Some(encbench_aws_lc::ALGORITHMS),
            #[cfg(not(feature = "aws-lc-rs"))]
            algorithms: None,
            deterministic: &[],
        },
        KnownBackend {
            name: "openssl",
            feature: "openssl",
            #[cfg(feature = "openssl")]
            algorithms: Some(encbench_openssl::ALGORITHMS),
            #[cfg(not(feature = "openssl"))]
            algorithms: None,
            #[cfg(feature = "openssl")]
            deterministic: encbench_openssl::DETERMINISTIC,
            #[cfg(not(feature = "openssl"))]
            deterministic: &[],
        },
        KnownBackend {
            name: "ring",
            feature: "ring",
            #[cfg(feature = "ring")]
            algorithms: Some(encbench_ring::ALGORITHMS),
            #[cfg(not(feature = "ring"))]
            algorithms: None,
            deterministic: &[],
        },
        KnownBackend {
            name: "rustcrypto",
            feature: "rustcrypto",
            #[cfg(feature = "rustcrypto")]
            algorithms: Some(encbench_rustcrypto::ALGORITHMS),
            #[cfg(not(feature = "rustcrypto"))]
            algorithms: None,
            #[cfg(feature = "rustcrypto")]
            deterministic: encbench_rustcrypto::DETERMINISTIC,
            #[cfg(not(feature = "rustcrypto"))]
            deterministic: &[],
        },
    ]
}

/// Errors of [`lookup`]. Every message is one line that names the problem and
/// lists the valid names.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RegistryError {
    /// The name has no `:` between backend and algorithm.
    #[error(
        "{name:?} is not a BACKEND:ALGORITHM name (e.g. openssl:aes-256-gcm); valid names: {valid}"
    )]
    Form {
        /// The name as given.
        name: String,
        /// The valid names, comma separated.
        valid: String,
    },
    /// No backend of that name exists in this version.
    #[error("unknown backend {backend:?} in {name:?}; valid names: {valid}")]
    UnknownBackend {
        /// The backend part of the name.
        backend: String,
        /// The name as given.
        name: String,
        /// The valid names, comma separated.
        valid: String,
    },
    /// The backend exists but this build was made without its cargo feature.
    #[error(
        "backend {backend:?} is not compiled in: build encbench-registry with cargo feature \"{feature}\" (--features {feature}); valid names: {valid}"
    )]
    NotCompiledIn {
        /// The backend name.
        backend: &'static str,
        /// The cargo feature of `encbench-registry` that enables it.
        feature: &'static str,
        /// The valid names, comma separated.
        valid: String,
    },
    /// No compiled-in backend has this deterministic algorithm.
    #[error(
        "{name:?} is not a deterministic algorithm of a compiled-in backend; valid names: {valid}"
    )]
    NotDeterministic {
        /// The name as given.
        name: String,
        /// The valid deterministic names, comma separated.
        valid: String,
    },
    /// The backend is compiled in but has no such algorithm.
    #[error(
        "unknown algorithm {algorithm:?} for backend {backend:?} in {name:?}; valid names: {valid}"
    )]
    UnknownAlgorithm {
        /// The backend name.
        backend: &'static str,
        /// The algorithm part of the name.
        algorithm: String,
        /// The name as given.
        name: String,
        /// The valid names, comma separated.
        valid: String,
    },
}

/// Every compiled-in descriptor, ordered by backend name, then by [`Algorithm`]
/// (AES-128-GCM, AES-256-GCM, ChaCha20-Poly1305, XChaCha20-Poly1305, AES-256-GCM-SIV,
/// AES-256-SIV, AES-256-CBC-HMAC-SHA256, where the backend has them).
pub fn all() -> Vec<&'static Descriptor> {
    let mut all: Vec<&'static Descriptor> = known_backends()
        .into_iter()
        .filter_map(|b| b.algorithms)
        .flatten()
        .collect();
    all.sort_by(|a, b| (a.backend, a.algorithm).cmp(&(b.backend, b.algorithm)));
    all
}

/// Every compiled-in deterministic descriptor (AES-256-SIV, AES-256-CBC-HMAC-SHA256
/// on the backends that have them), ordered by backend, then algorithm.
pub fn deterministic() -> Vec<&'static DeterministicDescriptor> {
    let mut all: Vec<&'static DeterministicDescriptor> = known_backends()
        .into_iter()
        .flat_map(|b| b.deterministic)
        .collect();
    all.sort_by(|a, b| (a.backend, a.algorithm).cmp(&(b.backend, b.algorithm)));
    all
}

/// Finds the deterministic descriptor for `BACKEND:ALGORITHM` (ASCII case-insensitive),
/// e.g. `rustcrypto:aes-256-siv`.
///
/// # Errors
/// [`RegistryError::NotDeterministic`] when no compiled-in backend has that name as a
/// deterministic algorithm (the message lists those that are).
pub fn lookup_deterministic(name: &str) -> Result<&'static DeterministicDescriptor, RegistryError> {
    deterministic()
        .into_iter()
        .find(|d| d.name().eq_ignore_ascii_case(name))
        .ok_or_else(|| RegistryError::NotDeterministic {
            name: name.to_string(),
            valid: deterministic()
                .iter()
                .map(|d| d.name())
                .collect::<Vec<_>>()
                .join(", "),
        })
}

/// The `BACKEND:ALGORITHM` names of [`all`], in the same order.
pub fn names() -> Vec<String> {
    all().into_iter().map(Descriptor::name).collect()
}

/// The names of the compiled-in backends, sorted (`aws-lc-rs`, `openssl`,
/// `ring`, `rustcrypto`).
pub fn backends() -> Vec<&'static str> {
    known_backends()
        .into_iter()
        .filter(|b| b.algorithms.is_some())
        .map(|b| b.name)
        .collect()
}

/// The valid names for error messages.
fn valid_names() -> String {
    let names = names();
    if names.is_empty() {
        let features: Vec<&str> = known_backends().iter().map(|b| b.feature).collect();
        format!(
            "none (no backend compiled in; enable a feature: {})",
            features.join(", ")
        )
    } else {
        names.join(", ")
    }
}

/// Finds the descriptor for `BACKEND:ALGORITHM` (ASCII case-insensitive), e.g.
/// `openssl:aes-256-gcm` or `rustcrypto:chacha20-poly1305`.
///
/// # Errors
/// [`RegistryError::Form`] without a `:`; [`RegistryError::UnknownBackend`],
/// [`RegistryError::NotCompiledIn`] (names the cargo feature) or
/// [`RegistryError::UnknownAlgorithm`] otherwise. Every message lists [`names`].
pub fn lookup(name: &str) -> Result<&'static Descriptor, RegistryError> {
    let Some((backend, algorithm)) = name.split_once(':') else {
        return Err(RegistryError::Form {
            name: name.to_string(),
            valid: valid_names(),
        });
    };
    let Some(known) = known_backends()
        .into_iter()
        .find(|b| b.name.eq_ignore_ascii_case(backend))
    else {
        return Err(RegistryError::UnknownBackend {
            backend: backend.to_string(),
            name: name.to_string(),
            valid: valid_names(),
        });
    };
    let Some(descriptors) = known.algorithms else {
        return Err(RegistryError::NotCompiledIn {
            backend: known.name,
            feature: known.feature,
            valid: valid_names(),
        });
    };
    descriptors
        .iter()
        .find(|d| d.algorithm.name().eq_ignore_ascii_case(algorithm))
        .ok_or_else(|| RegistryError::UnknownAlgorithm {
            backend: known.name,
            algorithm: algorithm.to_string(),
            name: name.to_string(),
            valid: valid_names(),
        })
}
