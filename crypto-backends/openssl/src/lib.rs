//! The OpenSSL backend of encbench: AES-128-GCM, AES-256-GCM, ChaCha20-Poly1305,
//! AES-256-SIV and Always Encrypted's `AEAD_AES_256_CBC_HMAC_SHA_256` (AES-256-CBC +
//! HMAC-SHA-256) through the `openssl` crate's EVP API (OpenSSL 3.0 or later: the
//! ciphers are fetched with `EVP_CIPHER_fetch`).
//!
//! The crate exports [`ALGORITHMS`] (a static [`Descriptor`] per algorithm, named
//! `openssl:aes-256-gcm` etc. in the registry, `encbench-registry`) and
//! [`DETERMINISTIC`] (AES-256-SIV and the Always Encrypted deterministic mode).
//! OpenSSL 3.0's AES-SIV cannot process an empty plaintext: a typed
//! [`encbench_crypto::Error::Backend`] says so.
//!
//! What a key costs, and when (the per-row path must not re-key; the spec's
//! "openssl crate: `symm::encrypt_aead` builds a new context and re-keys on every
//! call"):
//!
//! - [`Descriptor::new_key`] fetches the cipher once (`EVP_CIPHER_fetch`) and
//!   keeps a copy of the key bytes, zeroized on drop.
//! - The first seal (or open) on a thread creates that thread's seal (or open)
//!   context and keys it once (`EVP_EncryptInit_ex(ctx, cipher, key, NULL)`).
//!   `EVP_CIPHER_CTX` is not safe to share, so the contexts live in a
//!   `thread_local::ThreadLocal` inside the key object: one seal and one open
//!   context per thread that uses the key. A thread's slot is reused by the
//!   next thread that gets its id, so thread churn does not grow the set; all
//!   contexts are freed (and cleansed by OpenSSL) when the key is dropped.
//! - Each message then sets only the IV (`EVP_EncryptInit_ex(ctx, NULL, NULL,
//!   NULL, iv)`), feeds the AAD, encrypts or decrypts in place
//!   (`EVP_CipherUpdate` with input == output), and finishes with
//!   `EVP_CipherFinal_ex` and the tag. No heap allocation per message.
//! - A failed open returns the opaque [`encbench_crypto::Error::Decrypt`],
//!   overwrites the buffer with zeros (OpenSSL decrypts before it checks the
//!   tag), and leaves the thread's context ready for the next message, which
//!   sets a new IV and tag.
//! - Other OpenSSL failures are [`encbench_crypto::Error::Backend`] naming the
//!   EVP call. Key bytes never appear in `Debug` output or error messages.

mod aead;
mod cbc_hmac;
mod siv;

use encbench_crypto::{Aead, Algorithm, Descriptor, DeterministicDescriptor, Error};

/// The descriptor of `algorithm` in this backend. Its key setup, [`new_key`],
/// fetches OpenSSL's `AES-128-GCM`, `AES-256-GCM`, `ChaCha20-Poly1305` (RFC 8439)
/// or `AES-256-SIV` (RFC 5297, `siv`), or `AES-256-CBC` for Always
/// Encrypted's CBC-HMAC (`cbc_hmac`).
const fn descriptor(algorithm: Algorithm) -> Descriptor {
    Descriptor::new(aead::BACKEND, algorithm, new_key)
}

/// Sets up a key of `algorithm`: AES-256-SIV and CBC-HMAC in their own modules,
/// the others through EVP's AEAD interface.
fn new_key(algorithm: Algorithm, key: &[u8]) -> Result<Box<dyn Aead>, Error> {
    match algorithm {
        Algorithm::Aes256Siv => siv::new_aead(key),
        Algorithm::Aes256CbcHmacSha256 => cbc_hmac::new_randomized(key),
        _ => aead::new_key(algorithm, key),
    }
}

/// Every algorithm this backend implements, in [`encbench_crypto::Algorithm`]
/// order: AES-128-GCM, AES-256-GCM, ChaCha20-Poly1305, AES-256-SIV,
/// AES-256-CBC-HMAC-SHA256. (OpenSSL has no XChaCha20-Poly1305 and no AES-GCM-SIV
/// in its default provider.)
pub static ALGORITHMS: &[Descriptor] = &[
    descriptor(Algorithm::Aes128Gcm),
    descriptor(Algorithm::Aes256Gcm),
    descriptor(Algorithm::ChaCha20Poly1305),
    descriptor(Algorithm::Aes256Siv),
    descriptor(Algorithm::Aes256CbcHmacSha256),
];

/// Every deterministic algorithm this backend implements: AES-256-SIV and
/// AES-256-CBC-HMAC-SHA256 (Always Encrypted's deterministic mode).
pub static DETERMINISTIC: &[DeterministicDescriptor] = &[
    siv::AES_256_SIV_DETERMINISTIC,
    cbc_hmac::AES_256_CBC_HMAC_SHA256_DETERMINISTIC,
];
