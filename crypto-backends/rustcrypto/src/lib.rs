//! The RustCrypto backend of encbench: AES-128-GCM and AES-256-GCM from the
//! `aes-gcm` crate, ChaCha20-Poly1305 and XChaCha20-Poly1305 from the
//! `chacha20poly1305` crate, AES-256-GCM-SIV from `aes-gcm-siv`, AES-256-SIV from
//! `aes-siv` (the `aead` 0.5 API), and Always Encrypted's
//! `AEAD_AES_256_CBC_HMAC_SHA_256` built on `aes` + `cbc` + `hmac` + `sha2`.
//!
//! The crate exports [`ALGORITHMS`] (a static [`Descriptor`] per algorithm, named
//! `rustcrypto:aes-256-gcm` etc. in the registry, `encbench-registry`) and
//! [`DETERMINISTIC`] (AES-256-SIV and the Always Encrypted deterministic mode).
//!
//! - Key setup ([`Descriptor::new_key`]) runs the key schedule once: the AES round
//!   keys and the GHASH key for AES-GCM; ChaCha20-Poly1305 has no key schedule
//!   (its one-time Poly1305 key is derived per nonce, RFC 8439 section 2.6).
//! - Seal and open are the crates' `encrypt_in_place_detached` and
//!   `decrypt_in_place_detached` on `&self`: no allocation, no locking, and the
//!   keyed value is shared by every thread.
//! - The `aes` and `polyval` crates pick AES-NI and PCLMULQDQ at run time where
//!   the CPU has them; otherwise they fall back to constant-time software code.
//! - A failed open overwrites the buffer with zeros and returns the opaque
//!   [`encbench_crypto::Error::Decrypt`].
//! - Key bytes never appear in `Debug` output. ChaCha20-Poly1305 zeroizes its key
//!   on drop; the AES round keys are zeroized on drop only when the `aes` crate's
//!   `zeroize` feature is enabled somewhere in the build.

/// The backend name used in `BACKEND:ALGORITHM` names.
pub(crate) const BACKEND: &str = "rustcrypto";

mod aead;
mod cbc_hmac;
mod siv;

use encbench_crypto::{Algorithm, Descriptor, DeterministicDescriptor};

/// Every algorithm this backend implements, in [`Algorithm`] order: AES-128-GCM,
/// AES-256-GCM, ChaCha20-Poly1305, XChaCha20-Poly1305, AES-256-GCM-SIV,
/// AES-256-SIV, AES-256-CBC-HMAC-SHA256 (Always Encrypted, randomized).
pub static ALGORITHMS: &[Descriptor] = &[
    aead::descriptor(Algorithm::Aes128Gcm),
    aead::descriptor(Algorithm::Aes256Gcm),
    aead::descriptor(Algorithm::ChaCha20Poly1305),
    aead::descriptor(Algorithm::XChaCha20Poly1305),
    aead::descriptor(Algorithm::Aes256GcmSiv),
    aead::descriptor(Algorithm::Aes256Siv),
    aead::descriptor(Algorithm::Aes256CbcHmacSha256),
];

/// Every deterministic algorithm this backend implements: AES-256-SIV and
/// AES-256-CBC-HMAC-SHA256 (Always Encrypted's deterministic mode).
pub static DETERMINISTIC: &[DeterministicDescriptor] = &[
    siv::AES_256_SIV_DETERMINISTIC,
    cbc_hmac::AES_256_CBC_HMAC_SHA256_DETERMINISTIC,
];
