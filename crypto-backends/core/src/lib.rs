//! The common AEAD trait of encbench, and the column envelope built on it.
//!
//! Layers, bottom up:
//!
//! - [`Aead`]: one algorithm under one key, set up once, shared by every worker
//!   thread (`&self`, `Send + Sync`). The required surface is detached, in-place
//!   seal and open, which never allocate; [`Aead::seal_to_vec`] and
//!   [`Aead::open_to_vec`] are provided on top of it for everything else.
//!   Modeled on RustCrypto's `aead` crate (`AeadInPlace`). [`Aead::seal_in_place`] /
//!   [`Aead::open_in_place`] cover every algorithm (the padded CBC one too), and
//!   [`Aead::open_batch`] / [`Aead::seal_batch`] take a result set in one call.
//! - [`DeterministicAead`]: deterministic encryption for equality lookups (AES-SIV,
//!   Always Encrypted's deterministic mode), a separate trait on purpose.
//! - [`Algorithm`]: the algorithm identifiers and their key, nonce and tag lengths
//!   (from the RFCs and NIST SP 800-38D).
//! - [`Descriptor`]: what a backend crate exports, one static per algorithm
//!   (as rustls providers do): backend name, algorithm, and a key-setup function.
//! - [`envelope`]: what is stored in a database column (version, key id, nonce,
//!   ciphertext, tag), with AAD that binds table, column and primary key, and the
//!   [`envelope::ColumnCipher`] that a proxy (or `oltp`) uses per value.
//! - [`Key`] and [`Keyring`]: key material that is zeroized on drop and never printed.

mod aead;
mod algorithm;
pub mod always_encrypted;
pub mod envelope;
mod error;
mod key;

pub use aead::{
    Aead, BatchError, Descriptor, DeterministicAead, DeterministicDescriptor, OpenItem, SealItem,
};
pub use algorithm::Algorithm;
pub use error::Error;
pub use key::{Key, KeyId, Keyring};

/// Fills `nonce` with random bytes from the operating system's CSPRNG
/// (`getrandom(2)` on Linux).
///
/// # Errors
/// [`Error::Rng`] when the operating system cannot provide randomness.
pub fn random_nonce(nonce: &mut [u8]) -> Result<(), Error> {
    getrandom::fill(nonce).map_err(|_| Error::Rng)
}
