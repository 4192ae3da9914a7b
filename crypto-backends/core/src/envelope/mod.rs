//! The column envelope: what an encrypting proxy stores in a database column.
//!
//! # Byte layout (version 1)
//!
//! ```text
//! offset  size  field
//! 0       1     version            0x01
//! 1       4     key id             big-endian u32, names the key in the Keyring
//! 5       N     nonce              N = Algorithm::nonce_len() = 12, random (OS CSPRNG)
//! 5+N     L     ciphertext         L = Algorithm::ciphertext_len(plaintext length)
//! 5+N+L   T     tag                T = Algorithm::tag_len()
//! ```
//!
//! Overhead per value: 1 + 4 + 12 + 16 = 33 bytes for AES-GCM, AES-GCM-SIV and
//! ChaCha20-Poly1305 (the same as Google Tink's AES-GCM output with its 5-byte
//! prefix): sysbench's `c` (119 bytes) becomes 152 bytes, `pad` (59) becomes 92.
//! XChaCha20-Poly1305 and AES-SIV have longer nonces (45 and 37 bytes of overhead);
//! the padded CBC algorithm adds up to 5 + 16 + 16 + 32 = 69.
//!
//! # AAD
//!
//! The AAD binds the value to where it is stored and to its header:
//!
//! ```text
//! version (1) | key id (4, BE) | len(table) (1) | table | len(column) (1) | column
//!             | len(primary key) (1) | primary key bytes
//! ```
//!
//! so a value copied to another row, column or table, or given another key id,
//! fails to open. Identifiers and primary keys are at most 255 bytes (MySQL
//! identifiers are at most 64 characters). Integer primary keys are encoded
//! as 8 big-endian bytes ([`int_primary_key`]). The AAD is built on the stack
//! (160 bytes for the usual field lengths, 773 only for longer ones):
//! opening a value does not allocate.
//!
//! # Deterministic envelope (version 2)
//!
//! ```text
//! offset  size  field
//! 0       1     version            0x02
//! 1       4     key id             big-endian u32
//! 5       ...   sealed value       DeterministicAead output: AES-SIV's
//!                                  synthetic IV (16) | ciphertext, or the
//!                                  Always Encrypted cell 0x01 | MAC | IV | ct
//! ```
//!
//! Its AAD binds version, key id, table and column but no primary key, so equal
//! plaintexts in one column give equal envelopes whatever the row: a proxy can
//! rewrite `WHERE col = ?` and `IN (...)` by sealing the probe values. Equality
//! is all it leaks and all it supports (no order; see RFC 5297 section 1.3.2).
//! Equality lookups find only values sealed under the same key id, so rotating
//! a deterministic column means re-encrypting it (as SQL Server Always
//! Encrypted requires).

mod aad;
mod cipher;
mod deterministic;
#[cfg(test)]
mod tests;

pub use aad::{ColumnAad, RowAad, ValueAad};
pub use cipher::ColumnCipher;
pub use deterministic::{DETERMINISTIC_VERSION, DeterministicColumnCipher, deterministic_overhead};

use crate::{Algorithm, Error, KeyId};

/// The envelope format version written by this code.
pub const VERSION: u8 = 1;

/// Header bytes before the nonce: version (1) and key id (4).
pub const HEADER_LEN: usize = 5;

/// Longest table name, column name or primary key that fits the AAD, in bytes.
pub const MAX_AAD_FIELD: usize = 255;

const AAD_CAP: usize = HEADER_LEN + 3 * (1 + MAX_AAD_FIELD);

/// The longest nonce of any algorithm, in bytes: XChaCha20-Poly1305's 24
/// ([`Algorithm::nonce_len`]; a unit test checks every algorithm).
const MAX_NONCE_LEN: usize = 24;

/// Every envelope holds at least `HEADER_LEN + MAX_NONCE_LEN` bytes (29): the
/// shortest, an empty value under a 12-byte-nonce algorithm, is 5 + 12 + 16 =
/// 33 ([`overhead`]), so the open path copies the nonce as a fixed 24-byte
/// window. A unit test checks every algorithm's overhead.
const NONCE_WINDOW_FITS: usize = HEADER_LEN + MAX_NONCE_LEN;

/// Per-value overhead of the envelope for `algorithm`, in bytes: header + nonce +
/// [`Algorithm::max_expansion`] (33 for AES-GCM and ChaCha20-Poly1305). It is exact
/// for length-preserving algorithms and an upper bound (and the length of an empty
/// value's envelope) for the padded CBC algorithm.
pub const fn overhead(algorithm: Algorithm) -> usize {
    HEADER_LEN + algorithm.nonce_len() + algorithm.max_expansion()
}

/// The 8-byte big-endian encoding of an integer primary key, used in the AAD.
pub const fn int_primary_key(id: i64) -> [u8; 8] {
    id.to_be_bytes()
}

/// Where a value lives: the fields the AAD binds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Location<'a> {
    /// Table name (at most 255 bytes).
    pub table: &'a str,
    /// Column name (at most 255 bytes).
    pub column: &'a str,
    /// Primary key bytes (at most 255), e.g. [`int_primary_key`].
    pub primary_key: &'a [u8],
}

/// Errors of sealing and opening envelopes.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EnvelopeError {
    /// The stored value is shorter than an empty envelope.
    #[error(
        "stored value has {len} bytes, an envelope has at least {min}: the column does not hold envelopes (was it prepared without encryption?)"
    )]
    Truncated {
        /// Length of the stored value in bytes.
        len: usize,
        /// Minimum envelope length in bytes (the overhead).
        min: usize,
    },
    /// The version byte is not one this code reads.
    #[error("{}", version_text(*.0))]
    Version(u8),
    /// The envelope names a key id the keyring does not hold.
    #[error(
        "value was encrypted under key id {key_id}, but the keyring holds key id(s) {known}: give the key that encrypted it"
    )]
    UnknownKeyId {
        /// The key id in the envelope.
        key_id: KeyId,
        /// The key ids the keyring holds, comma separated.
        known: String,
    },
    /// A table name, column name or primary key is longer than 255 bytes.
    #[error("{field} is {len} bytes long; the envelope AAD allows at most 255")]
    FieldTooLong {
        /// Which field: "table", "column" or "primary key".
        field: &'static str,
        /// Its length in bytes.
        len: usize,
    },
    /// Authentication failed under a key the keyring holds: wrong key material
    /// for this id, or the value was altered or moved to another row or column.
    #[error(
        "decryption failed under key id {key_id}: wrong key, or the value was altered or moved to another row or column"
    )]
    Decrypt {
        /// The key id in the envelope.
        key_id: KeyId,
    },
    /// The AEAD reported a non-authentication error (lengths, backend failure).
    #[error(transparent)]
    Aead(Error),
}

/// The message of [`EnvelopeError::Version`]: which kind of envelope was found
/// where the other was expected, and the two causes this code cannot tell
/// apart (a caller that knows how the column was sealed can), or that the
/// version is unknown.
fn version_text(found: u8) -> String {
    match found {
        VERSION => "envelope version 1 (randomized) where a deterministic envelope (version 2) was expected: the stored value was changed, or the column holds randomized envelopes (sealed without --deterministic)".to_string(),
        DETERMINISTIC_VERSION => "envelope version 2 (deterministic) where a randomized envelope (version 1) was expected: the stored value was changed, or the column holds deterministic envelopes (sealed with --deterministic)".to_string(),
        other => format!("envelope version {other} is unknown (1 is randomized, 2 deterministic): the value was not written by encbench, or by a newer version"),
    }
}
