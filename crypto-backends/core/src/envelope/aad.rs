//! The AAD of a version-1 envelope: `version | key id | (len | bytes) per field`,
//! built on the stack per value ([`Location`]) or from a column prefix built once
//! ([`ColumnAad`], [`RowAad`]).

use super::{AAD_CAP, EnvelopeError, HEADER_LEN, Location, MAX_AAD_FIELD, VERSION};
use crate::KeyId;

/// The AAD bytes of the usual fields fit this many bytes on the stack: header
/// (5), three length bytes, a 64-byte table and column name (MySQL's longest
/// ASCII identifiers) and a 16-byte primary key = 152, rounded up to 160.
/// Longer fields use an [`AAD_CAP`] buffer instead. Zeroing the 773-byte buffer
/// for every value was the largest part of the envelope's own cost per open
/// (column-bench/README.md, "The envelope's cost").
pub(super) const AAD_SHORT: usize = 160;

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
/// key, [`int_primary_key`](super::int_primary_key)) is copied inline; other lengths by `memcpy`.
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
pub(super) fn with_aad<R>(
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
pub(super) fn with_location_aad<R>(
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
pub(super) fn location_fields<'a>(loc: &Location<'a>) -> [(&'static str, &'a [u8]); 3] {
    [
        ("table", loc.table.as_bytes()),
        ("column", loc.column.as_bytes()),
        ("primary key", loc.primary_key),
    ]
}

/// Where one value lives, as a version-1 envelope's AAD binds it: a [`Location`]
/// (table, column and primary key, the AAD written per value), or a [`RowAad`]
/// (a [`ColumnAad`] prefix built once per column, and the primary key). Both give
/// the same AAD bytes (unit test); every [`ColumnCipher`](super::ColumnCipher) method takes either.
/// Sealed: implemented only here.
pub trait ValueAad: sealed::Sealed {}

pub(super) mod sealed {
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
    pub(super) prefix: Prefix,
}

/// The fixed block a [`ColumnAad`] copies per value, in bytes: 128, the most
/// that compiles to inline moves here (a 160-byte copy became a `memcpy` call
/// of 29 instructions per value: callgrind, column-bench/README.md). It holds
/// the AAD of names up to 110 bytes together (a 64-character table name and
/// 46-character column name, say) with an 8-byte primary key.
pub(super) const PREFIX_BLOCK: usize = 128;

/// The prefix bytes: in the fixed block when the prefix and a primary key of up
/// to 8 bytes fit [`PREFIX_BLOCK`], else on the heap.
#[derive(Clone, PartialEq, Eq)]
pub(super) enum Prefix {
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

    /// The value of this column at `primary_key` (e.g. [`int_primary_key`](super::int_primary_key)).
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
    /// The AAD bytes of this value under `key_id`, as [`ColumnCipher`](super::ColumnCipher) writes
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
