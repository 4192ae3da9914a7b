//! The common AEAD trait of encbench, and the column envelope built on it.
//!
//! Layers, bottom up:
//!
//! - [`Aead`]: one algorithm under one key, set up once, shared by every worker
//!   thread (`&self`, `Send + Sync`): [`Aead::seal_in_place`] /
//!   [`Aead::open_in_place`] (`ciphertext || tag` in the caller's buffer) for every
//!   algorithm, the padded CBC one too; [`Aead::seal_to_vec`] and
//!   [`Aead::open_to_vec`] are provided on top.
//! - [`DetachedAead`]: the detached, in-place seal and open of the length-preserving
//!   algorithms (all but the CBC one), which never allocate: the per-row hot path.
//!   Modeled on RustCrypto's `aead` crate (`AeadInPlace`). A backend implements it
//!   and gets [`Aead`] from it; a caller holding a `Box<dyn Aead>` reaches it through
//!   [`Aead::detached`], which is `None` for the CBC algorithm.
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
    Aead, Descriptor, DetachedAead, DeterministicAead, DeterministicDescriptor,
    DeterministicKeySetup, KeySetup, open_within_by_move,
};
pub use algorithm::Algorithm;
pub use error::Error;
pub use key::{Key, KeyId, Keyring, check_private_file, read_key_file};

/// Fills `nonce` with random bytes from the operating system's CSPRNG
/// (`getrandom(2)` on Linux).
///
/// # Errors
/// [`Error::Rng`] when the operating system cannot provide randomness.
pub fn random_nonce(nonce: &mut [u8]) -> Result<(), Error> {
    getrandom::fill(nonce).map_err(|_| Error::Rng)
}
