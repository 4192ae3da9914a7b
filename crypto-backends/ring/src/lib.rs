//! The ring backend of encbench: AES-128-GCM, AES-256-GCM and
//! ChaCha20-Poly1305 from `ring` 0.17 (`ring::aead::LessSafeKey`).
//!
//! The crate exports one thing, [`ALGORITHMS`]: a static [`Descriptor`] per
//! algorithm, named `ring:aes-128-gcm`, `ring:aes-256-gcm` and
//! `ring:chacha20-poly1305` in the registry (`encbench-registry`).
//!
//! - Key setup ([`Descriptor::new_key`]) builds a `LessSafeKey` once: the AES
//!   round keys and the GHASH key table for AES-GCM, the copied key for
//!   ChaCha20-Poly1305 (whose one-time Poly1305 key is derived per nonce, RFC
//!   8439 section 2.6). `LessSafeKey` takes any nonce, which is what a column
//!   envelope with random nonces needs; ring's `SealingKey` / `OpeningKey` would
//!   want a `NonceSequence` instead.
//! - Seal and open are `seal_in_place_separate_tag` and
//!   `open_in_place_separate_tag` on `&self`: no allocation, no locking, and the
//!   keyed value is shared by every thread.
//! - ring picks AES-NI, PCLMULQDQ, AVX2 and the like at run time where the CPU has
//!   them; otherwise it uses its constant-time fallback code.
//! - A failed open overwrites the buffer with zeros and returns the opaque
//!   [`encbench_crypto::Error::Decrypt`].
//! - Key bytes never appear in `Debug` output. ring does not zeroize its
//!   expanded keys on drop.
//!
//! `src/aead.rs` is written against `lib::aead` and is also the source of the
//! aws-lc-rs backend (`encbench-aws-lc`, whose `lib` is `aws_lc_rs`); this file
//! holds what is ring's own.

mod aead;

use encbench_crypto::{Algorithm, Descriptor};
use ring as lib;

/// The backend name used in `BACKEND:ALGORITHM` names.
const BACKEND: &str = "ring";

/// Every algorithm this backend implements, in [`encbench_crypto::Algorithm`]
/// order: AES-128-GCM, AES-256-GCM, ChaCha20-Poly1305.
pub static ALGORITHMS: &[Descriptor] = &[
    aead::descriptor(Algorithm::Aes128Gcm),
    aead::descriptor(Algorithm::Aes256Gcm),
    aead::descriptor(Algorithm::ChaCha20Poly1305),
];

/// ring's algorithms beyond the GCM and ChaCha20-Poly1305 ones `aead.rs` maps:
/// none.
fn more_algorithms(_: Algorithm) -> Option<&'static lib::aead::Algorithm> {
    None
}

/// The longest message, in bytes, ring seals or opens for `algorithm`: the
/// algorithm's own limit ([`Algorithm::max_plaintext_len`]: 2^36 - 32 for AES-GCM,
/// 2^38 - 64 for ChaCha20-Poly1305).
fn max_message_len(algorithm: Algorithm) -> u64 {
    algorithm.max_plaintext_len()
}

/// `LessSafeKey::open_in_place_separate_tag` with the tag as bytes (ring wants a
/// `Tag`: a tag of the wrong length fails as a wrong tag would), in place.
fn open_separate_tag(
    key: &lib::aead::LessSafeKey,
    nonce: lib::aead::Nonce,
    aad: lib::aead::Aad<&[u8]>,
    tag: &[u8],
    in_out: &mut [u8],
) -> Result<(), lib::error::Unspecified> {
    let tag = lib::aead::Tag::try_from(tag)?;
    key.open_in_place_separate_tag(nonce, aad, tag, in_out, 0..)
        .map(|_| ())
}

/// ring's one-pass open ([`aead::OnePassOpen`]): [`open_within`].
const ONE_PASS_OPEN: Option<aead::OnePassOpen> = Some(open_within);

/// Opens `in_out[ciphertext_and_tag]` (`ciphertext || tag`, the tag at
/// `tag_at`, checked by the caller to be at least `start`) and leaves the plaintext at `in_out[..len]`:
/// `LessSafeKey::open_in_place_separate_tag` with the ciphertext range
/// `start..` of the body. ring writes the plaintext to the front in the same
/// pass (its AES-GCM and ChaCha20-Poly1305 code reads from `start` and writes
/// from 0), so opening an envelope in place needs no separate move.
fn open_within(
    key: &lib::aead::LessSafeKey,
    nonce: lib::aead::Nonce,
    aad: lib::aead::Aad<&[u8]>,
    in_out: &mut [u8],
    ciphertext_and_tag: std::ops::RangeFrom<usize>,
    tag_at: usize,
) -> Result<(), lib::error::Unspecified> {
    let (body, tag) = in_out.split_at_mut(tag_at);
    let tag = lib::aead::Tag::try_from(&*tag)?;
    key.open_in_place_separate_tag(nonce, aad, tag, body, ciphertext_and_tag)
        .map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_limits_are_the_algorithms() {
        assert_eq!(max_message_len(Algorithm::Aes128Gcm), (1 << 36) - 32);
        assert_eq!(max_message_len(Algorithm::ChaCha20Poly1305), (1 << 38) - 64);
    }
}
