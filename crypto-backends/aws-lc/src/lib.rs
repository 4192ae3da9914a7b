//! The AWS-LC backend of encbench: AES-128-GCM, AES-256-GCM, ChaCha20-Poly1305
//! and AES-256-GCM-SIV (RFC 8452) from AWS-LC through the `aws-lc-rs` crate
//! (`aws_lc_rs::aead::LessSafeKey`, the ring-compatible API).
//!
//! The crate exports one thing, [`ALGORITHMS`]: a static [`Descriptor`] per
//! algorithm, named `aws-lc-rs:aes-128-gcm`, `aws-lc-rs:aes-256-gcm`,
//! `aws-lc-rs:chacha20-poly1305` and `aws-lc-rs:aes-256-gcm-siv` in the registry
//! (`encbench-registry`).
//!
//! - Key setup ([`Descriptor::new_key`]) builds a `LessSafeKey` once: an
//!   `EVP_AEAD_CTX` initialized with the key (AES round keys and GHASH table for
//!   AES-GCM). An `EVP_AEAD_CTX` is read-only after setup, so unlike OpenSSL's
//!   `EVP_CIPHER_CTX` one context serves every thread.
//! - Seal is `seal_in_place_separate_tag` (`EVP_AEAD_CTX_seal_scatter`), open is
//!   `open_in_place_separate_tag` (`EVP_AEAD_CTX_open_gather`, in place): no
//!   allocation and no locking per message. An open that leaves the plaintext
//!   at the front of the buffer (`Aead::open_within`, the envelope's) decrypts
//!   in place and then moves it (`encbench_crypto::open_within_by_move`).
//! - AWS-LC picks AES-NI, PCLMULQDQ, AVX2 / AVX-512 code at run time where the
//!   CPU has them.
//! - A failed open overwrites the buffer with zeros and returns the opaque
//!   [`encbench_crypto::Error::Decrypt`].
//! - Key bytes never appear in `Debug` output; AWS-LC cleanses the context
//!   memory when the key is dropped (`EVP_AEAD_CTX_free`, `OPENSSL_free`).
//!
//! The keyed AEAD is the ring backend's source (`crypto-backends/ring/src/aead.rs`,
//! included with `#[path]` and written against `lib::aead`, here `aws_lc_rs`), as
//! rustls shares its provider modules; this file holds what is AWS-LC's own.
//!
//! Building: `aws-lc-sys` compiles AWS-LC from source with the C compiler
//! (`cc`; no CMake, Go or Clang needed on x86-64 Linux, where its bindings are
//! pre-generated). That is the slowest crate of the workspace to build.

#[path = "../../ring/src/aead.rs"]
mod aead;

use aws_lc_rs as lib;
use encbench_crypto::{Algorithm, Descriptor};

/// The backend name used in `BACKEND:ALGORITHM` names.
const BACKEND: &str = "aws-lc-rs";

/// Every algorithm this backend implements, in [`encbench_crypto::Algorithm`]
/// order: AES-128-GCM, AES-256-GCM, ChaCha20-Poly1305, AES-256-GCM-SIV.
pub static ALGORITHMS: &[Descriptor] = &[
    aead::descriptor(Algorithm::Aes128Gcm),
    aead::descriptor(Algorithm::Aes256Gcm),
    aead::descriptor(Algorithm::ChaCha20Poly1305),
    aead::descriptor(Algorithm::Aes256GcmSiv),
];

/// aws-lc-rs's algorithms beyond the GCM and ChaCha20-Poly1305 ones `aead.rs`
/// maps: `aws_lc_rs::aead::AES_256_GCM_SIV` (RFC 8452).
fn more_algorithms(algorithm: Algorithm) -> Option<&'static lib::aead::Algorithm> {
    match algorithm {
        Algorithm::Aes256GcmSiv => Some(&lib::aead::AES_256_GCM_SIV),
        _ => None,
    }
}

/// The longest message, in bytes, this backend seals or opens for `algorithm`.
///
/// The algorithm's limit ([`Algorithm::max_plaintext_len`]), except that AWS-LC
/// refuses ChaCha20-Poly1305 messages of `2^38 - 64` bytes or more
/// (`crypto/cipher_extra/e_chacha20poly1305.c`), one byte short of RFC 8439.
/// AES-GCM's limit is NIST's 2^36 - 32 in AWS-LC too (`crypto/fipsmodule/modes/gcm.c`).
fn max_message_len(algorithm: Algorithm) -> u64 {
    match algorithm {
        Algorithm::ChaCha20Poly1305 => algorithm.max_plaintext_len().min((1 << 38) - 65),
        other => other.max_plaintext_len(),
    }
}

/// `LessSafeKey::open_in_place_separate_tag` (`EVP_AEAD_CTX_open_gather`, in
/// place; aws-lc-rs takes the tag as bytes).
fn open_separate_tag(
    key: &lib::aead::LessSafeKey,
    nonce: lib::aead::Nonce,
    aad: lib::aead::Aad<&[u8]>,
    tag: &[u8],
    in_out: &mut [u8],
) -> Result<(), lib::error::Unspecified> {
    key.open_in_place_separate_tag(nonce, aad, tag, in_out)
        .map(|_| ())
}

/// AWS-LC has no one-pass open to a lower offset: `EVP_AEAD_CTX_open_gather`
/// allows its output only exactly on its input. So an open that leaves the
/// plaintext at the front of the buffer (an envelope's) decrypts in place and
/// then moves it, the provided [`encbench_crypto::open_within_by_move`].
/// aws-lc-rs's own `LessSafeKey::open_within` does the same through
/// `EVP_AEAD_CTX_open`, 81 instructions per 119-byte AES-256-GCM value more
/// (callgrind, column-bench/README.md, "The envelope's cost"), so it is not used.
const ONE_PASS_OPEN: Option<aead::OnePassOpen> = None;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_limits_follow_nist_and_aws_lc() {
        assert_eq!(max_message_len(Algorithm::Aes128Gcm), (1 << 36) - 32);
        assert_eq!(max_message_len(Algorithm::Aes256Gcm), (1 << 36) - 32);
        assert_eq!(max_message_len(Algorithm::ChaCha20Poly1305), (1 << 38) - 65);
        assert_eq!(max_message_len(Algorithm::Aes256GcmSiv), 1 << 36);
    }
}
