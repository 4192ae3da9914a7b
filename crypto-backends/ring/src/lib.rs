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

mod aead;

use encbench_crypto::Descriptor;

/// Every algorithm this backend implements, in [`encbench_crypto::Algorithm`]
/// order: AES-128-GCM, AES-256-GCM, ChaCha20-Poly1305.
pub static ALGORITHMS: &[Descriptor] = &[
    aead::AES_128_GCM,
    aead::AES_256_GCM,
    aead::CHACHA20_POLY1305,
];
