//! The AWS-LC backend of encbench: AES-128-GCM, AES-256-GCM and
//! ChaCha20-Poly1305 from AWS-LC through the `aws-lc-rs` crate
//! (`aws_lc_rs::aead::LessSafeKey`, the ring-compatible API).
//!
//! The crate exports one thing, [`ALGORITHMS`]: a static [`Descriptor`] per
//! algorithm, named `aws-lc-rs:aes-128-gcm`, `aws-lc-rs:aes-256-gcm` and
//! `aws-lc-rs:chacha20-poly1305` in the registry (`encbench-registry`).
//!
//! - Key setup ([`Descriptor::new_key`]) builds a `LessSafeKey` once: an
//!   `EVP_AEAD_CTX` initialized with the key (AES round keys and GHASH table for
//!   AES-GCM). An `EVP_AEAD_CTX` is read-only after setup, so unlike OpenSSL's
//!   `EVP_CIPHER_CTX` one context serves every thread.
//! - Seal is `seal_in_place_separate_tag` (`EVP_AEAD_CTX_seal_scatter`), open is
//!   `open_in_place_separate_tag` (`EVP_AEAD_CTX_open_gather`, in place): no
//!   allocation and no locking per message.
//! - AWS-LC picks AES-NI, PCLMULQDQ, AVX2 / AVX-512 code at run time where the
//!   CPU has them.
//! - A failed open overwrites the buffer with zeros and returns the opaque
//!   [`encbench_crypto::Error::Decrypt`].
//! - Key bytes never appear in `Debug` output; AWS-LC cleanses the context
//!   memory when the key is dropped (`EVP_AEAD_CTX_free`, `OPENSSL_free`).
//!
//! Building: `aws-lc-sys` compiles AWS-LC from source with the C compiler
//! (`cc`; no CMake, Go or Clang needed on x86-64 Linux, where its bindings are
//! pre-generated). That is the slowest crate of the workspace to build.

mod aead;

use encbench_crypto::Descriptor;

/// Every algorithm this backend implements, in [`encbench_crypto::Algorithm`]
/// order: AES-128-GCM, AES-256-GCM, ChaCha20-Poly1305.
pub static ALGORITHMS: &[Descriptor] = &[
    aead::AES_128_GCM,
    aead::AES_256_GCM,
    aead::CHACHA20_POLY1305,
    aead::AES_256_GCM_SIV,
];
