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

use crate::{
    Aead, Algorithm, DeterministicAead, DeterministicDescriptor, Error, Key, KeyId, Keyring,
    random_nonce,
};

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

/// The AAD bytes of the usual fields fit this many bytes on the stack: header
/// (5), three length bytes, a 64-byte table and column name (MySQL's longest
/// ASCII identifiers) and a 16-byte primary key = 152, rounded up to 160.
/// Longer fields use an [`AAD_CAP`] buffer instead. Zeroing the 773-byte buffer
/// for every value was the largest part of the envelope's own cost per open
/// (column-bench/README.md, "The envelope's cost").
const AAD_SHORT: usize = 160;

/// The length of the AAD `version | key id | (len | bytes) per field`.
///
/// # Errors
/// [`EnvelopeError::FieldTooLong`] for a field over 255 bytes.
#[inline(always)]
fn aad_len(fields: &[(&'static str, &[u8])]) -> Result<usize, EnvelopeError> {
    let longest = fields.iter().fold(0, |m, (_, bytes)| m.max(bytes.len()));
    if longest > MAX_AAD_FIELD {
        return Err(field_too_long(fields));
    }
    Ok(HEADER_LEN
        + fields
            .iter()
            .map(|(_, bytes)| 1 + bytes.len())
            .sum::<usize>())
}

/// [`EnvelopeError::FieldTooLong`] for the first field over 255 bytes (out of
/// line: the per-value path checks only the longest).
#[cold]
#[inline(never)]
fn field_too_long(fields: &[(&'static str, &[u8])]) -> EnvelopeError {
    let (field, len) = fields
        .iter()
        .find(|(_, bytes)| bytes.len() > MAX_AAD_FIELD)
        .map_or(("", 0), |(field, bytes)| (*field, bytes.len()));
    EnvelopeError::FieldTooLong { field, len }
}

/// Copies `src` to `dst` (equal lengths). An 8-byte field (an integer primary
/// key, [`int_primary_key`]) is copied inline; other lengths by `memcpy`.
#[inline(always)]
fn copy_field(dst: &mut [u8], src: &[u8]) {
    if let (Ok(s), Ok(d)) = (
        <[u8; 8]>::try_from(src),
        <&mut [u8; 8]>::try_from(&mut *dst),
    ) {
        *d = s;
        return;
    }
    dst.copy_from_slice(src);
}

/// Writes `version | key id | (len | bytes) per field` into `out`, which is
/// exactly [`aad_len`] bytes long (fields checked there).
#[inline(always)]
fn write_aad(out: &mut [u8], version: u8, key_id: KeyId, fields: &[(&'static str, &[u8])]) {
    out[0] = version;
    out[1..HEADER_LEN].copy_from_slice(&key_id.to_be_bytes());
    let mut at = HEADER_LEN;
    for &(_, bytes) in fields {
        out[at] = bytes.len() as u8;
        copy_field(&mut out[at + 1..at + 1 + bytes.len()], bytes);
        at += 1 + bytes.len();
    }
}

/// Builds the AAD of `fields` on the stack (no allocation) and calls `f` with it.
///
/// # Errors
/// [`EnvelopeError::FieldTooLong`]; `f`'s own errors.
fn with_aad<R>(
    version: u8,
    key_id: KeyId,
    fields: &[(&'static str, &[u8])],
    f: impl FnOnce(&[u8]) -> Result<R, EnvelopeError>,
) -> Result<R, EnvelopeError> {
    let len = aad_len(fields)?;
    if len <= AAD_SHORT {
        let mut buf = [0u8; AAD_SHORT];
        write_aad(&mut buf[..len], version, key_id, fields);
        f(&buf[..len])
    } else {
        let mut buf = [0u8; AAD_CAP];
        write_aad(&mut buf[..len], version, key_id, fields);
        f(&buf[..len])
    }
}

/// [`with_aad`] for a version-1 envelope at `loc`: the per-value path. When
/// the AAD fits the 160-byte buffer (then no field can be over 255 bytes), the
/// three fields are written straight into it, with no field list and no
/// per-field length check; otherwise [`with_aad`] builds it (and reports
/// [`EnvelopeError::FieldTooLong`]). The same bytes either way (unit test).
///
/// # Errors
/// [`EnvelopeError::FieldTooLong`]; `f`'s own errors.
#[inline(always)]
fn with_location_aad<R>(
    key_id: KeyId,
    loc: &Location<'_>,
    f: impl FnOnce(&[u8]) -> Result<R, EnvelopeError>,
) -> Result<R, EnvelopeError> {
    let (table, column, pk) = (loc.table.as_bytes(), loc.column.as_bytes(), loc.primary_key);
    let len = (HEADER_LEN + 3)
        .saturating_add(table.len())
        .saturating_add(column.len())
        .saturating_add(pk.len());
    if len > AAD_SHORT {
        return with_aad(VERSION, key_id, &location_fields(loc), f);
    }
    let mut buf = [0u8; AAD_SHORT];
    buf[0] = VERSION;
    buf[1..HEADER_LEN].copy_from_slice(&key_id.to_be_bytes());
    let mut at = HEADER_LEN;
    for field in [table, column, pk] {
        buf[at] = field.len() as u8;
        copy_field(&mut buf[at + 1..at + 1 + field.len()], field);
        at += 1 + field.len();
    }
    f(&buf[..len])
}

/// The fields the AAD of a version-1 envelope binds for `loc`.
fn location_fields<'a>(loc: &Location<'a>) -> [(&'static str, &'a [u8]); 3] {
    [
        ("table", loc.table.as_bytes()),
        ("column", loc.column.as_bytes()),
        ("primary key", loc.primary_key),
    ]
}

/// Where one value lives, as a version-1 envelope's AAD binds it: a [`Location`]
/// (table, column and primary key, the AAD written per value), or a [`RowAad`]
/// (a [`ColumnAad`] prefix built once per column, and the primary key). Both give
/// the same AAD bytes (unit test); every [`ColumnCipher`] method takes either.
/// Sealed: implemented only here.
pub trait ValueAad: sealed::Sealed {}

mod sealed {
    use super::{EnvelopeError, KeyId};

    /// Writes the version-1 AAD under `key_id` and calls `f` with it.
    pub trait Sealed {
        /// # Errors
        /// [`EnvelopeError::FieldTooLong`]; `f`'s own errors.
        fn with_v1_aad<R>(
            &self,
            key_id: KeyId,
            f: impl FnOnce(&[u8]) -> Result<R, EnvelopeError>,
        ) -> Result<R, EnvelopeError>;
    }
}

impl ValueAad for Location<'_> {}

impl sealed::Sealed for Location<'_> {
    #[inline(always)]
    fn with_v1_aad<R>(
        &self,
        key_id: KeyId,
        f: impl FnOnce(&[u8]) -> Result<R, EnvelopeError>,
    ) -> Result<R, EnvelopeError> {
        with_location_aad(key_id, self, f)
    }
}

/// A column's AAD prefix, built once: `version | key id | len(table) | table |
/// len(column) | column` (the layout in the module docs), the key id left to
/// each value. A proxy knows the table and column of every result column once
/// per result set; per value it then copies this fixed 128-byte block and
/// writes the key id and the primary key into it ([`ColumnAad::at`]), instead
/// of zeroing a buffer and copying both names (callgrind, column-bench/README.md
/// "The envelope's cost"). Holds names, never keys or values.
#[derive(Clone, PartialEq, Eq)]
pub struct ColumnAad {
    prefix: Prefix,
}

/// The fixed block a [`ColumnAad`] copies per value, in bytes: 128, the most
/// that compiles to inline moves here (a 160-byte copy became a `memcpy` call
/// of 29 instructions per value: callgrind, column-bench/README.md). It holds
/// the AAD of names up to 110 bytes together (a 64-character table name and
/// 46-character column name, say) with an 8-byte primary key.
const PREFIX_BLOCK: usize = 128;

/// The prefix bytes: in the fixed block when the prefix and a primary key of up
/// to 8 bytes fit [`PREFIX_BLOCK`], else on the heap.
#[derive(Clone, PartialEq, Eq)]
enum Prefix {
    /// The prefix at the front, zeros after; its length.
    Short([u8; PREFIX_BLOCK], usize),
    /// The prefix alone (names too long for the fixed block).
    Long(Box<[u8]>),
}

impl Prefix {
    /// The prefix bytes, `version | key id 0 | len | table | len | column`.
    fn bytes(&self) -> &[u8] {
        match self {
            Prefix::Short(block, len) => &block[..*len],
            Prefix::Long(bytes) => bytes,
        }
    }
}

impl ColumnAad {
    /// The prefix of `table.column`.
    ///
    /// # Errors
    /// [`EnvelopeError::FieldTooLong`] for a name over 255 bytes.
    pub fn new(table: &str, column: &str) -> Result<ColumnAad, EnvelopeError> {
        let fields = [("table", table.as_bytes()), ("column", column.as_bytes())];
        let len = aad_len(&fields)?;
        let mut bytes = vec![0u8; len];
        write_aad(&mut bytes, VERSION, 0, &fields);
        let prefix = if len + 1 + 8 <= PREFIX_BLOCK {
            let mut block = [0u8; PREFIX_BLOCK];
            block[..len].copy_from_slice(&bytes);
            Prefix::Short(block, len)
        } else {
            Prefix::Long(bytes.into_boxed_slice())
        };
        Ok(ColumnAad { prefix })
    }

    /// The value of this column at `primary_key` (e.g. [`int_primary_key`]).
    pub fn at<'a>(&'a self, primary_key: &'a [u8]) -> RowAad<'a> {
        RowAad {
            column: self,
            primary_key,
        }
    }
}

impl std::fmt::Debug for ColumnAad {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ColumnAad")
            .field("prefix_len", &self.prefix.bytes().len())
            .finish_non_exhaustive()
    }
}

/// One value of a [`ColumnAad`]'s column: the column's prefix and the row's
/// primary key (at most 255 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowAad<'a> {
    column: &'a ColumnAad,
    primary_key: &'a [u8],
}

impl ValueAad for RowAad<'_> {}

impl RowAad<'_> {
    /// The AAD bytes of this value under `key_id`, as [`ColumnCipher`] writes
    /// them (on the stack) for every seal and open: for a caller that runs the
    /// AEAD itself on an envelope's nonce, ciphertext and tag (column-bench's
    /// bare path, which times the AEAD call alone). Allocates.
    ///
    /// # Errors
    /// [`EnvelopeError::FieldTooLong`] for a primary key over 255 bytes.
    pub fn to_vec(&self, key_id: KeyId) -> Result<Vec<u8>, EnvelopeError> {
        sealed::Sealed::with_v1_aad(self, key_id, |aad| Ok(aad.to_vec()))
    }
}

impl sealed::Sealed for RowAad<'_> {
    #[inline(always)]
    fn with_v1_aad<R>(
        &self,
        key_id: KeyId,
        f: impl FnOnce(&[u8]) -> Result<R, EnvelopeError>,
    ) -> Result<R, EnvelopeError> {
        let pk = self.primary_key;
        if let Prefix::Short(block, len) = &self.column.prefix {
            let end = len + 1 + pk.len();
            if end <= PREFIX_BLOCK {
                let mut buf = *block;
                buf[1..HEADER_LEN].copy_from_slice(&key_id.to_be_bytes());
                buf[*len] = pk.len() as u8;
                copy_field(&mut buf[len + 1..end], pk);
                return f(&buf[..end]);
            }
        }
        row_aad_long(self.column, pk, key_id, f)
    }
}

/// [`RowAad`]'s AAD when it does not fit the fixed block: a long prefix or a
/// primary key over 8 bytes that does not fit after the prefix (out of line).
///
/// # Errors
/// [`EnvelopeError::FieldTooLong`] for a primary key over 255 bytes; `f`'s own.
#[inline(never)]
fn row_aad_long<R>(
    column: &ColumnAad,
    pk: &[u8],
    key_id: KeyId,
    f: impl FnOnce(&[u8]) -> Result<R, EnvelopeError>,
) -> Result<R, EnvelopeError> {
    if pk.len() > MAX_AAD_FIELD {
        return Err(EnvelopeError::FieldTooLong {
            field: "primary key",
            len: pk.len(),
        });
    }
    let prefix = column.prefix.bytes();
    let end = prefix.len() + 1 + pk.len();
    let mut buf = [0u8; AAD_CAP];
    buf[..prefix.len()].copy_from_slice(prefix);
    buf[1..HEADER_LEN].copy_from_slice(&key_id.to_be_bytes());
    buf[prefix.len()] = pk.len() as u8;
    buf[prefix.len() + 1..end].copy_from_slice(pk);
    f(&buf[..end])
}

/// Authenticates and decrypts `ciphertext || tag` in place; returns the plaintext
/// length (the plaintext is the start of `sealed`).
fn open_parts<L: ValueAad + ?Sized>(
    key_id: KeyId,
    aead: &dyn Aead,
    loc: &L,
    nonce: &[u8],
    sealed: &mut [u8],
) -> Result<usize, EnvelopeError> {
    loc.with_v1_aad(key_id, |aad| match aead.open_in_place(nonce, aad, sealed) {
        Ok(plaintext) => Ok(plaintext.len()),
        Err(e) => Err(open_error(key_id, e)),
    })
}

/// The envelope error for an AEAD error while opening under `key_id`.
#[cold]
#[inline(never)]
fn open_error(key_id: KeyId, e: Error) -> EnvelopeError {
    match e {
        Error::Decrypt => EnvelopeError::Decrypt { key_id },
        e => EnvelopeError::Aead(e),
    }
}

/// Clears `stored` after a failed open and returns `e` (out of line).
#[cold]
#[inline(never)]
fn cleared(stored: &mut Vec<u8>, e: EnvelopeError) -> EnvelopeError {
    stored.clear();
    e
}

/// Seals and opens column values as envelopes with the keys of a [`Keyring`].
///
/// One `ColumnCipher` is shared by every worker (`Send + Sync`); sealing uses
/// the keyring's active key, opening the key the envelope names.
#[derive(Debug)]
pub struct ColumnCipher {
    keyring: Keyring,
}

impl ColumnCipher {
    /// Wraps a keyring.
    pub fn new(keyring: Keyring) -> ColumnCipher {
        ColumnCipher { keyring }
    }

    /// The keyring.
    pub fn keyring(&self) -> &Keyring {
        &self.keyring
    }

    /// The algorithm of the active key.
    pub fn algorithm(&self) -> Algorithm {
        self.keyring.active().1.algorithm()
    }

    /// Envelope overhead per value in bytes (see [`overhead`]).
    pub fn overhead(&self) -> usize {
        overhead(self.algorithm())
    }

    /// Seals `plaintext` for `loc` under the active key with a fresh random
    /// nonce, replacing the contents of `out` with the envelope
    /// (`plaintext.len() + overhead()` bytes for length-preserving algorithms).
    /// Reuses `out`'s allocation (the padded CBC algorithm allocates once more).
    ///
    /// # Errors
    /// [`EnvelopeError::FieldTooLong`]; [`EnvelopeError::Aead`] when the nonce
    /// cannot be drawn or the backend fails. On error `out` is overwritten with
    /// zeros and left empty, so no plaintext copy remains in it.
    pub fn seal<L: ValueAad + ?Sized>(
        &self,
        loc: &L,
        plaintext: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), EnvelopeError> {
        let sealed = self.seal_into(loc, plaintext, out);
        if sealed.is_err() {
            out.fill(0);
            out.clear();
        }
        sealed
    }

    /// [`ColumnCipher::seal`] without the clean-up on error.
    fn seal_into<L: ValueAad + ?Sized>(
        &self,
        loc: &L,
        plaintext: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), EnvelopeError> {
        let (key_id, aead) = self.keyring.active();
        let alg = aead.algorithm();
        loc.with_v1_aad(key_id, |aad| {
            let nonce_end = HEADER_LEN + alg.nonce_len();
            out.clear();
            out.resize(nonce_end, 0);
            out[..HEADER_LEN].copy_from_slice(&aad[..HEADER_LEN]);
            random_nonce(&mut out[HEADER_LEN..nonce_end]).map_err(EnvelopeError::Aead)?;
            let Some(detached) = aead.detached() else {
                // The padded CBC algorithm: the ciphertext is longer than the plaintext.
                let sealed = aead
                    .seal_to_vec(&out[HEADER_LEN..nonce_end], aad, plaintext)
                    .map_err(EnvelopeError::Aead)?;
                out.extend_from_slice(&sealed);
                return Ok(());
            };
            let body_end = nonce_end + plaintext.len();
            out.extend_from_slice(plaintext);
            out.resize(body_end + alg.tag_len(), 0);
            let (head, tag) = out.split_at_mut(body_end);
            let (header_nonce, body) = head.split_at_mut(nonce_end);
            detached
                .seal_in_place_detached(&header_nonce[HEADER_LEN..], aad, body, tag)
                .map_err(EnvelopeError::Aead)
        })
    }

    /// Opens the envelope in `stored` in place and returns the plaintext, a
    /// sub-slice of `stored`. Does not allocate.
    ///
    /// # Errors
    /// [`EnvelopeError::Truncated`], [`EnvelopeError::Version`],
    /// [`EnvelopeError::UnknownKeyId`], [`EnvelopeError::FieldTooLong`], and
    /// [`EnvelopeError::Decrypt`] when authentication fails (then `stored` holds
    /// unspecified bytes).
    pub fn open_in_place<'s, L: ValueAad + ?Sized>(
        &self,
        loc: &L,
        stored: &'s mut [u8],
    ) -> Result<&'s mut [u8], EnvelopeError> {
        let range = self.open_range(loc, stored)?;
        Ok(&mut stored[range])
    }

    /// Opens the envelope held in `stored` and leaves exactly the plaintext in
    /// it (moved to the front, then truncated). Does not allocate: this is the
    /// per-row path of a decrypting proxy, where the driver hands over an owned
    /// buffer per value.
    ///
    /// # Errors
    /// As [`ColumnCipher::open_in_place`]; on error `stored` is cleared.
    pub fn open_vec_in_place<L: ValueAad + ?Sized>(
        &self,
        loc: &L,
        stored: &mut Vec<u8>,
    ) -> Result<(), EnvelopeError> {
        match self.open_to_front(loc, stored) {
            Ok(len) => {
                stored.truncate(len);
                Ok(())
            }
            Err(e) => Err(cleared(stored, e)),
        }
    }

    /// Opens in place with the plaintext written to the front of `stored`
    /// ([`Aead::open_within`]: one pass in ring, decrypt then move in the other
    /// backends); returns the plaintext length.
    fn open_to_front<L: ValueAad + ?Sized>(
        &self,
        loc: &L,
        stored: &mut [u8],
    ) -> Result<usize, EnvelopeError> {
        let (key_id, aead, nonce_end) = self.parse_header(stored)?;
        // The nonce is read before the plaintext overwrites it: a fixed-width
        // copy of MAX_NONCE_LEN bytes (inline, no `memcpy` call), of which the
        // algorithm's nonce is the start; every envelope is long enough
        // (`NONCE_WINDOW_FITS`, checked by `parse_header`'s overhead check).
        let mut window = [0u8; MAX_NONCE_LEN];
        window.copy_from_slice(&stored[HEADER_LEN..NONCE_WINDOW_FITS]);
        let nonce = &window[..nonce_end - HEADER_LEN];
        loc.with_v1_aad(key_id, |aad| {
            match aead.open_within(nonce, aad, stored, nonce_end..) {
                Ok(plaintext) => Ok(plaintext.len()),
                Err(e) => Err(open_error(key_id, e)),
            }
        })
    }

    /// Opens in place; returns where the plaintext now is within `stored`.
    fn open_range<L: ValueAad + ?Sized>(
        &self,
        loc: &L,
        stored: &mut [u8],
    ) -> Result<std::ops::Range<usize>, EnvelopeError> {
        let (key_id, aead, nonce_end) = self.parse_header(stored)?;
        let (header_nonce, sealed) = stored.split_at_mut(nonce_end);
        let len = open_parts(key_id, aead, loc, &header_nonce[HEADER_LEN..], sealed)?;
        Ok(nonce_end..nonce_end + len)
    }

    /// Opens the envelope `stored` into `out` (contents replaced; allocation reused).
    ///
    /// # Errors
    /// As [`ColumnCipher::open_in_place`]; on error `out` is left empty.
    pub fn open<L: ValueAad + ?Sized>(
        &self,
        loc: &L,
        stored: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), EnvelopeError> {
        out.clear();
        let (key_id, aead, nonce_end) = self.parse_header(stored)?;
        out.extend_from_slice(&stored[nonce_end..]);
        match open_parts(key_id, aead, loc, &stored[HEADER_LEN..nonce_end], out) {
            Ok(len) => {
                out.truncate(len);
                Ok(())
            }
            Err(e) => {
                // A backend may have decrypted before it checked the tag.
                out.fill(0);
                out.clear();
                Err(e)
            }
        }
    }

    /// Reads version and key id and finds the key; checks the minimum length.
    /// Returns the key id, its AEAD and where the nonce ends (the header and
    /// nonce length, read from the algorithm once).
    fn parse_header(&self, stored: &[u8]) -> Result<(KeyId, &dyn Aead, usize), EnvelopeError> {
        if stored.len() < HEADER_LEN {
            return Err(EnvelopeError::Truncated {
                len: stored.len(),
                min: self.overhead(),
            });
        }
        if stored[0] != VERSION {
            return Err(EnvelopeError::Version(stored[0]));
        }
        let key_id = KeyId::from_be_bytes([stored[1], stored[2], stored[3], stored[4]]);
        let Some(aead) = self.keyring.get(key_id) else {
            return Err(unknown_key_id(key_id, self.keyring.ids()));
        };
        let algorithm = aead.algorithm();
        let need = overhead(algorithm);
        if stored.len() < need {
            return Err(EnvelopeError::Truncated {
                len: stored.len(),
                min: need,
            });
        }
        Ok((key_id, aead, HEADER_LEN + algorithm.nonce_len()))
    }
}

/// [`EnvelopeError::UnknownKeyId`] for `key_id`, listing the `known` ids (out
/// of line: the error path of the per-value open).
#[cold]
#[inline(never)]
fn unknown_key_id(key_id: KeyId, known: impl Iterator<Item = KeyId>) -> EnvelopeError {
    EnvelopeError::UnknownKeyId {
        key_id,
        known: known.map(|k| k.to_string()).collect::<Vec<_>>().join(","),
    }
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

/// The version byte of deterministic envelopes.
pub const DETERMINISTIC_VERSION: u8 = 2;

/// Per-value overhead of the deterministic envelope for `algorithm`, in bytes:
/// header (5) + 16 for AES-256-SIV (the synthetic IV, RFC 5297) = 21; for
/// AES-256-CBC-HMAC-SHA256 an upper bound, 5 + 1 + 32 + 16 + 16 = 70 (version
/// byte, MAC, IV, at most one block of PKCS#7 padding). 0 for algorithms without
/// a deterministic form.
pub const fn deterministic_overhead(algorithm: Algorithm) -> usize {
    match algorithm {
        Algorithm::Aes256Siv => HEADER_LEN + 16,
        Algorithm::Aes256CbcHmacSha256 => HEADER_LEN + 1 + 32 + 16 + 16,
        _ => 0,
    }
}

/// Seals and opens column values as deterministic envelopes (version 2): the
/// same plaintext in the same table and column always gives the same bytes
/// under one key, so the server can compare them for equality.
///
/// Sealing uses the highest key id; opening the key the envelope names.
pub struct DeterministicColumnCipher {
    /// Index into `keys` of the highest key id.
    active: usize,
    algorithm: Algorithm,
    keys: Vec<(KeyId, Box<dyn DeterministicAead>)>,
}

impl DeterministicColumnCipher {
    /// Sets up every `(id, key)` with `descriptor`; the highest id is active.
    ///
    /// # Errors
    /// [`Error::KeyLength`] or [`Error::Backend`] from the backend;
    /// [`Error::KeySource`] when `keys` is empty.
    pub fn new(
        descriptor: &DeterministicDescriptor,
        keys: &[(KeyId, Key)],
    ) -> Result<DeterministicColumnCipher, Error> {
        let active = keys
            .iter()
            .enumerate()
            .max_by_key(|(_, (id, _))| *id)
            .map(|(i, _)| i)
            .ok_or_else(|| Error::KeySource("no key for the deterministic cipher".into()))?;
        let keys = keys
            .iter()
            .map(|(id, k)| Ok((*id, descriptor.new_key(k.as_bytes())?)))
            .collect::<Result<Vec<_>, Error>>()?;
        Ok(DeterministicColumnCipher {
            active,
            algorithm: descriptor.algorithm,
            keys,
        })
    }

    /// The algorithm.
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// The key id values are sealed under.
    pub fn active_key_id(&self) -> KeyId {
        self.keys[self.active].0
    }

    fn get(&self, id: KeyId) -> Option<&dyn DeterministicAead> {
        self.keys
            .iter()
            .find(|(k, _)| *k == id)
            .map(|(_, a)| a.as_ref())
    }

    /// Seals `plaintext` of `table.column` under the active key, replacing the
    /// contents of `out` with the envelope.
    ///
    /// # Errors
    /// [`EnvelopeError::FieldTooLong`]; [`EnvelopeError::Aead`] when the backend
    /// fails (e.g. OpenSSL 3.0's AES-SIV on an empty plaintext). On error `out` is
    /// empty.
    pub fn seal(
        &self,
        table: &str,
        column: &str,
        plaintext: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), EnvelopeError> {
        out.clear();
        let (key_id, aead) = &self.keys[self.active];
        with_aad(
            DETERMINISTIC_VERSION,
            *key_id,
            &deterministic_fields(table, column),
            |aad| {
                let mut body = std::mem::take(out);
                aead.seal(aad, plaintext, &mut body)
                    .map_err(EnvelopeError::Aead)?;
                out.reserve(HEADER_LEN + body.len());
                out.extend_from_slice(&aad[..HEADER_LEN]);
                out.extend_from_slice(&body);
                Ok(())
            },
        )
    }

    /// Opens the deterministic envelope `stored` of `table.column` into `out`
    /// (contents replaced).
    ///
    /// # Errors
    /// [`EnvelopeError::Truncated`], [`EnvelopeError::Version`],
    /// [`EnvelopeError::UnknownKeyId`], [`EnvelopeError::FieldTooLong`],
    /// [`EnvelopeError::Decrypt`]. On error `out` is empty.
    pub fn open(
        &self,
        table: &str,
        column: &str,
        stored: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), EnvelopeError> {
        out.clear();
        let min = HEADER_LEN + 1;
        if stored.len() < min {
            return Err(EnvelopeError::Truncated {
                len: stored.len(),
                min,
            });
        }
        if stored[0] != DETERMINISTIC_VERSION {
            return Err(EnvelopeError::Version(stored[0]));
        }
        let key_id = KeyId::from_be_bytes([stored[1], stored[2], stored[3], stored[4]]);
        let aead = self
            .get(key_id)
            .ok_or_else(|| EnvelopeError::UnknownKeyId {
                key_id,
                known: self
                    .keys
                    .iter()
                    .map(|(k, _)| k.to_string())
                    .collect::<Vec<_>>()
                    .join(","),
            })?;
        with_aad(
            DETERMINISTIC_VERSION,
            key_id,
            &deterministic_fields(table, column),
            |aad| match aead.open(aad, &stored[HEADER_LEN..], out) {
                Ok(()) => Ok(()),
                Err(Error::Decrypt) => Err(EnvelopeError::Decrypt { key_id }),
                Err(e) => Err(EnvelopeError::Aead(e)),
            },
        )
    }
}

/// The fields the AAD of a deterministic envelope binds: table and column.
fn deterministic_fields<'a>(table: &'a str, column: &'a str) -> [(&'static str, &'a [u8]); 2] {
    [("table", table.as_bytes()), ("column", column.as_bytes())]
}

impl std::fmt::Debug for DeterministicColumnCipher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeterministicColumnCipher")
            .field("algorithm", &self.algorithm)
            .field("active", &self.active_key_id())
            .field(
                "ids",
                &self.keys.iter().map(|(k, _)| *k).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::sealed::Sealed as _;
    use super::*;

    /// The AAD as the module docs lay it out, written out by hand.
    fn by_hand(key_id: KeyId, table: &[u8], column: &[u8], pk: &[u8]) -> Vec<u8> {
        let mut v = vec![VERSION];
        v.extend_from_slice(&key_id.to_be_bytes());
        for f in [table, column, pk] {
            v.push(f.len() as u8);
            v.extend_from_slice(f);
        }
        v
    }

    #[test]
    fn the_aad_bytes_are_the_documented_layout_on_the_short_and_the_long_buffer() {
        let pk = int_primary_key(7);
        let long_table = "t".repeat(MAX_AAD_FIELD);
        for (table, column) in [("sbtest1", "c"), (long_table.as_str(), "c")] {
            let loc = Location {
                table,
                column,
                primary_key: &pk,
            };
            let got = with_aad(VERSION, 0x0102_0304, &location_fields(&loc), |aad| {
                Ok(aad.to_vec())
            });
            let want = by_hand(0x0102_0304, table.as_bytes(), b"c", &pk);
            assert_eq!(got, Ok(want.clone()));
            let direct = with_location_aad(0x0102_0304, &loc, |aad| Ok(aad.to_vec()));
            assert_eq!(direct, Ok(want.clone()), "the per-value writer");
            assert_eq!(
                want.len() <= AAD_SHORT,
                table.len() < 100,
                "both buffers used"
            );
        }
        // The sysbench row's AAD: 5 + (1 + 7) + (1 + 1) + (1 + 8) = 24 bytes.
        let loc = Location {
            table: "sbtest1",
            column: "c",
            primary_key: &pk,
        };
        let len = with_aad(VERSION, 1, &location_fields(&loc), |aad| Ok(aad.len()));
        assert_eq!(len, Ok(24));
    }

    #[test]
    fn every_nonce_fits_the_stack_copy() {
        for &a in Algorithm::ALL {
            assert!(a.nonce_len() <= MAX_NONCE_LEN, "{a}");
            assert!(overhead(a) >= NONCE_WINDOW_FITS, "{a}");
        }
        assert!(
            Algorithm::ALL
                .iter()
                .any(|a| a.nonce_len() == MAX_NONCE_LEN)
        );
    }

    #[test]
    fn the_per_value_writer_refuses_a_long_field_and_fits_the_boundary() {
        let long = "t".repeat(MAX_AAD_FIELD + 1);
        let pk = int_primary_key(1);
        let loc = Location {
            table: &long,
            column: "c",
            primary_key: &pk,
        };
        let got = with_location_aad(1, &loc, |_| Ok(()));
        assert_eq!(
            got,
            Err(EnvelopeError::FieldTooLong {
                field: "table",
                len: 256
            })
        );
        // Exactly AAD_SHORT bytes (the short buffer) and one more (the long one).
        for table_len in [AAD_SHORT - 24 + 7, AAD_SHORT - 24 + 8] {
            let table = "t".repeat(table_len);
            let loc = Location {
                table: &table,
                column: "c",
                primary_key: &pk,
            };
            let got = with_location_aad(1, &loc, |aad| Ok(aad.to_vec()));
            assert_eq!(got, Ok(by_hand(1, table.as_bytes(), b"c", &pk)));
        }
    }

    /// The AAD a `RowAad` writes, as bytes ([`RowAad::to_vec`]).
    fn row_aad(table: &str, column: &str, pk: &[u8], key_id: KeyId) -> Vec<u8> {
        let col = ColumnAad::new(table, column).expect("names fit");
        col.at(pk).to_vec(key_id).expect("fits")
    }

    #[test]
    fn a_column_prefix_gives_the_location_s_aad_bytes() {
        let pk8 = int_primary_key(-3);
        let pk_long = vec![7u8; MAX_AAD_FIELD];
        let name_long = "n".repeat(MAX_AAD_FIELD);
        // The fixed block, its boundary (prefix + pk exactly 128 bytes and one
        // more), a primary key past the block, long names.
        let at_boundary = "t".repeat(PREFIX_BLOCK - 24 + 7);
        let past_boundary = "t".repeat(PREFIX_BLOCK - 24 + 8);
        let cases: [(&str, &str, &[u8]); 6] = [
            ("sbtest1", "c", &pk8),
            (&at_boundary, "c", &pk8),
            (&past_boundary, "c", &pk8),
            ("sbtest1", "c", &pk_long),
            (&name_long, &name_long, &pk_long),
            ("", "", b""),
        ];
        for (table, column, pk) in cases {
            let want = by_hand(0xA1B2_C3D4, table.as_bytes(), column.as_bytes(), pk);
            assert_eq!(
                row_aad(table, column, pk, 0xA1B2_C3D4),
                want,
                "{} {} {}",
                table.len(),
                column.len(),
                pk.len()
            );
        }
        let short = |t: &str| {
            matches!(
                ColumnAad::new(t, "c").map(|c| c.prefix),
                Ok(Prefix::Short(..))
            )
        };
        assert!(
            short(&at_boundary) && !short(&past_boundary),
            "both variants used"
        );
        // The prefix leaves the key id to each value.
        assert_ne!(
            row_aad("sbtest1", "c", &pk8, 1),
            row_aad("sbtest1", "c", &pk8, 2)
        );
    }

    #[test]
    fn a_column_prefix_refuses_long_names_and_a_long_primary_key() {
        let long = "t".repeat(MAX_AAD_FIELD + 1);
        assert_eq!(
            ColumnAad::new(&long, "c"),
            Err(EnvelopeError::FieldTooLong {
                field: "table",
                len: 256
            })
        );
        assert_eq!(
            ColumnAad::new("sbtest1", &long),
            Err(EnvelopeError::FieldTooLong {
                field: "column",
                len: 256
            })
        );
        let col = ColumnAad::new("sbtest1", "c").expect("fits");
        let pk = vec![0u8; MAX_AAD_FIELD + 1];
        assert_eq!(
            col.at(&pk).with_v1_aad(1, |_| Ok(())),
            Err(EnvelopeError::FieldTooLong {
                field: "primary key",
                len: 256
            })
        );
        assert_eq!(format!("{col:?}"), "ColumnAad { prefix_len: 15, .. }");
    }

    #[test]
    fn a_field_over_255_bytes_is_refused_before_the_aad_is_built() {
        let long = vec![0u8; MAX_AAD_FIELD + 1];
        let called = with_aad(VERSION, 1, &[("primary key", &long)], |_| Ok(()));
        assert_eq!(
            called,
            Err(EnvelopeError::FieldTooLong {
                field: "primary key",
                len: 256
            })
        );
    }
}
