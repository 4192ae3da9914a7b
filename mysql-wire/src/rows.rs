//! Result rows, borrowed: the byte span of each value of a text or binary row packet.
//!
//! A row packet is read as it came off the wire: the 4-byte header (3-byte payload length,
//! sequence id) then the payload. Text rows (COM_QUERY): every value length-encoded, `0xFB`
//! for NULL. Binary rows (COM_STMT_EXECUTE): header `0x00`, a NULL bitmap of
//! `(n + 7 + 2) / 8` bytes at bit offset 2, then the non-NULL values in the encoding of their
//! column type ([`BinaryEncoding`]). Nothing is copied: a [`RowLayout`] built once per result
//! set walks each row into a reused `Vec<ValueSpan>`.

use std::ops::Range;

use mysql_common::constants::ColumnType;
use mysql_common::io::ParseBuf;
use mysql_common::packets::{Column, NullBitmap};
use mysql_common::value::ServerSide;

/// Bytes of a packet header: 3-byte little-endian payload length, 1-byte sequence id.
pub(crate) const HEADER_LEN: usize = 4;

/// The largest payload one packet carries (2^24 - 1 bytes); a payload of exactly this length
/// continues in the next packet.
pub(crate) const MAX_PAYLOAD: usize = 0xFF_FFFF;

/// The payload of a framed packet, checked against its 3-byte length; `None` when the packet
/// is shorter than its header or its length field disagrees with its size.
pub(crate) fn framed_payload(packet: &[u8]) -> Option<&[u8]> {
    let (header, payload) = packet.split_at_checked(HEADER_LEN)?;
    let len = usize::from(header[0]) | usize::from(header[1]) << 8 | usize::from(header[2]) << 16;
    (len == payload.len()).then_some(payload)
}

/// Writes the 4-byte header of a packet whose payload fills `out[4..]`.
pub(crate) fn write_header(out: &mut [u8], seq_id: u8) {
    let len = out.len() - HEADER_LEN;
    out[..HEADER_LEN].copy_from_slice(&[len as u8, (len >> 8) as u8, (len >> 16) as u8, seq_id]);
}

/// Reads a length-encoded integer at the head of `buf`: `None` when it is truncated or starts
/// with `0xFB` (NULL in a text row) or `0xFF` (not an integer).
pub(crate) fn lenenc_int(buf: &mut ParseBuf<'_>) -> Option<u64> {
    match buf.checked_eat_u8()? {
        x @ 0..=0xFA => Some(u64::from(x)),
        0xFC => buf.checked_eat_u16_le().map(u64::from),
        0xFD => buf.checked_eat_u24_le().map(u64::from),
        0xFE => buf.checked_eat_u64_le(),
        0xFB | 0xFF => None,
    }
}

/// How the binary protocol writes a non-NULL value of a column type, in result rows and in
/// COM_STMT_EXECUTE parameters alike (MySQL's `protocol_binary` value encoding, the rules
/// `mysql_common`'s binary value reader follows).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryEncoding {
    /// No bytes (`MYSQL_TYPE_NULL`).
    Empty,
    /// Exactly this many bytes, little-endian: TINY 1; SHORT, YEAR 2; LONG, INT24, FLOAT 4;
    /// LONGLONG, DOUBLE 8.
    Fixed(usize),
    /// A 1-byte length then that many bytes: DATE, NEWDATE, DATETIME, TIMESTAMP, TIME.
    ShortLength,
    /// A length-encoded integer then that many bytes: strings, blobs, decimals, ENUM, SET,
    /// BIT, GEOMETRY, JSON, VECTOR.
    LengthEncoded,
}

impl BinaryEncoding {
    /// The encoding of `column_type`.
    ///
    /// # Errors
    /// `None` for the types that never travel in the binary protocol (`TIMESTAMP2`,
    /// `DATETIME2`, `TIME2`, `TYPED_ARRAY`, `UNKNOWN`: server-internal).
    pub fn of(column_type: ColumnType) -> Option<BinaryEncoding> {
        use ColumnType::*;
        Some(match column_type {
            MYSQL_TYPE_NULL => BinaryEncoding::Empty,
            MYSQL_TYPE_TINY => BinaryEncoding::Fixed(1),
            MYSQL_TYPE_SHORT | MYSQL_TYPE_YEAR => BinaryEncoding::Fixed(2),
            MYSQL_TYPE_LONG | MYSQL_TYPE_INT24 | MYSQL_TYPE_FLOAT => BinaryEncoding::Fixed(4),
            MYSQL_TYPE_LONGLONG | MYSQL_TYPE_DOUBLE => BinaryEncoding::Fixed(8),
            MYSQL_TYPE_DATE | MYSQL_TYPE_NEWDATE | MYSQL_TYPE_DATETIME | MYSQL_TYPE_TIMESTAMP
            | MYSQL_TYPE_TIME => BinaryEncoding::ShortLength,
            MYSQL_TYPE_STRING
            | MYSQL_TYPE_VAR_STRING
            | MYSQL_TYPE_VARCHAR
            | MYSQL_TYPE_BLOB
            | MYSQL_TYPE_TINY_BLOB
            | MYSQL_TYPE_MEDIUM_BLOB
            | MYSQL_TYPE_LONG_BLOB
            | MYSQL_TYPE_DECIMAL
            | MYSQL_TYPE_NEWDECIMAL
            | MYSQL_TYPE_ENUM
            | MYSQL_TYPE_SET
            | MYSQL_TYPE_BIT
            | MYSQL_TYPE_GEOMETRY
            | MYSQL_TYPE_JSON
            | MYSQL_TYPE_VECTOR => BinaryEncoding::LengthEncoded,
            MYSQL_TYPE_TIMESTAMP2
            | MYSQL_TYPE_DATETIME2
            | MYSQL_TYPE_TIME2
            | MYSQL_TYPE_TYPED_ARRAY
            | MYSQL_TYPE_UNKNOWN => return None,
        })
    }

    /// Reads one value in this encoding at the head of `buf`: the range of its content
    /// (without length prefix) as offsets from `base`, the offset `buf` started at.
    /// `None` when the value is truncated or its length is malformed.
    pub(crate) fn read(self, buf: &mut ParseBuf<'_>, base: usize) -> Option<Range<usize>> {
        let before = buf.len();
        let len = match self {
            BinaryEncoding::Empty => 0,
            BinaryEncoding::Fixed(n) => n,
            BinaryEncoding::ShortLength => usize::from(buf.checked_eat_u8()?),
            BinaryEncoding::LengthEncoded => usize::try_from(lenenc_int(buf)?).ok()?,
        };
        let start = base + (before - buf.len());
        buf.checked_skip(len).then(|| start..start + len)
    }

    /// Writes `value` in this encoding to `out`; `None` (nothing written) when `value` does not
    /// fit it (a fixed size other than `value.len()`, more than 255 bytes for a short length).
    pub(crate) fn write(self, value: &[u8], out: &mut Vec<u8>) -> Option<()> {
        match self {
            BinaryEncoding::Empty | BinaryEncoding::Fixed(_)
                if value.len() != self.fixed_len()? =>
            {
                return None;
            }
            BinaryEncoding::Empty | BinaryEncoding::Fixed(_) => {}
            BinaryEncoding::ShortLength => out.push(u8::try_from(value.len()).ok()?),
            BinaryEncoding::LengthEncoded => write_lenenc_int(value.len() as u64, out),
        }
        out.extend_from_slice(value);
        Some(())
    }

    /// The size of a value for `Empty` (0) and `Fixed(n)` (n); `None` for variable lengths.
    fn fixed_len(self) -> Option<usize> {
        match self {
            BinaryEncoding::Empty => Some(0),
            BinaryEncoding::Fixed(n) => Some(n),
            _ => None,
        }
    }
}

/// A value as Debug output shows it: its length, never its bytes (a column value may be
/// plaintext or sealed bytes).
pub(crate) struct Redacted(pub(crate) Option<usize>);

impl std::fmt::Debug for Redacted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            None => f.write_str("NULL"),
            Some(len) => write!(f, "<{len} bytes>"),
        }
    }
}

/// Appends `n` as a length-encoded integer (through `mysql_common`'s writer).
pub(crate) fn write_lenenc_int(n: u64, out: &mut Vec<u8>) {
    use mysql_common::io::BufMutExt as _;
    out.put_lenenc_int(n);
}

/// The protocol a result set's rows are written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowFormat {
    /// Text rows: replies to COM_QUERY.
    Text,
    /// Binary rows: replies to COM_STMT_EXECUTE.
    Binary,
}

/// Where one value of a row lies in its packet (offsets from the packet's first byte, the
/// header included).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ValueSpan {
    /// Start of the value's encoding: its length prefix, or its first byte when it has none
    /// (a text NULL's `0xFB`; a binary NULL's position, where it takes no bytes).
    pub head: usize,
    /// Start of the value's content, after any length prefix.
    pub start: usize,
    /// End of the value (exclusive): `head..end` is all of its encoding.
    pub end: usize,
    /// The value is NULL (text: `0xFB`; binary: its bit set in the NULL bitmap).
    pub null: bool,
}

impl ValueSpan {
    /// The value's content in `packet` (the packet this span was walked from), `None` for NULL.
    ///
    /// # Panics
    /// `packet` is not the packet walked (the span lies outside it).
    pub fn value<'a>(&self, packet: &'a [u8]) -> Option<&'a [u8]> {
        (!self.null).then(|| &packet[self.start..self.end])
    }

    /// The whole encoding of the value (length prefix and content).
    pub fn encoded(&self) -> Range<usize> {
        self.head..self.end
    }
}

/// A row packet that does not follow its result set's columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RowError {
    /// The packet is shorter than its 4-byte header, its length field disagrees with its
    /// size, or its payload is 2^24 - 1 bytes long (a row continued in the next packet:
    /// forward it as it is).
    #[error("row packet framing: not one whole row packet")]
    Framing,
    /// A binary row whose first payload byte is not `0x00`, or an empty text row.
    #[error("not a row packet (first payload byte {0:#04x})")]
    NotARow(u8),
    /// The binary row ends inside its NULL bitmap.
    #[error("binary row shorter than its NULL bitmap ({needed} bytes for {columns} columns)")]
    BitmapShort {
        /// Bytes of bitmap the columns need.
        needed: usize,
        /// Columns of the result set.
        columns: usize,
    },
    /// The row ends inside the value of this column, or its length prefix is malformed.
    #[error("row truncated or malformed at column {column}")]
    Truncated {
        /// The column index (0-based).
        column: usize,
    },
    /// Bytes remain after the last column's value.
    #[error("{extra} bytes after the row's last value")]
    TrailingBytes {
        /// Bytes left over.
        extra: usize,
    },
    /// A column type that never travels in the binary protocol.
    #[error("column {column} has type {column_type:?}, which the binary protocol never sends")]
    UnsupportedType {
        /// The column index (0-based).
        column: usize,
        /// Its type.
        column_type: ColumnType,
    },
}

/// The shape of a result set's rows: its protocol and, for binary rows, each column's
/// [`BinaryEncoding`]. Built once per result set (or per prepared statement), reused for
/// every row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowLayout {
    format: RowFormat,
    encodings: Vec<BinaryEncoding>,
    types: Vec<ColumnType>,
}

impl RowLayout {
    /// The layout of rows in `format` whose columns have `types`, in order.
    ///
    /// # Errors
    /// [`RowError::UnsupportedType`] for a binary layout with a type the binary protocol
    /// never sends (a text layout takes any type).
    pub fn new(
        format: RowFormat,
        types: impl IntoIterator<Item = ColumnType>,
    ) -> Result<RowLayout, RowError> {
        let types: Vec<ColumnType> = types.into_iter().collect();
        let encodings = types
            .iter()
            .enumerate()
            .map(|(column, &column_type)| match format {
                RowFormat::Text => Ok(BinaryEncoding::LengthEncoded),
                RowFormat::Binary => {
                    BinaryEncoding::of(column_type).ok_or(RowError::UnsupportedType {
                        column,
                        column_type,
                    })
                }
            })
            .collect::<Result<_, _>>()?;
        Ok(RowLayout {
            format,
            encodings,
            types,
        })
    }

    /// The layout of rows in `format` under the column definitions `columns` (parsed with
    /// `mysql_common`'s [`Column`]).
    ///
    /// # Errors
    /// As [`RowLayout::new`].
    pub fn from_columns(format: RowFormat, columns: &[Column]) -> Result<RowLayout, RowError> {
        RowLayout::new(format, columns.iter().map(Column::column_type))
    }

    /// The rows' protocol.
    pub fn format(&self) -> RowFormat {
        self.format
    }

    /// Columns per row.
    pub fn columns(&self) -> usize {
        self.types.len()
    }

    /// The column types, in order.
    pub fn types(&self) -> &[ColumnType] {
        &self.types
    }

    /// Bytes of a binary row's NULL bitmap (0 for text rows).
    pub fn bitmap_len(&self) -> usize {
        match self.format {
            RowFormat::Text => 0,
            RowFormat::Binary => NullBitmap::<ServerSide, &[u8]>::bitmap_len(self.columns()),
        }
    }

    /// Walks the row `packet` (header and payload): `spans` is cleared, then holds one
    /// [`ValueSpan`] per column, in order. No allocation once `spans` has the capacity.
    ///
    /// # Errors
    /// [`RowError`] when the packet is not a whole row of this layout: framing, a binary
    /// header other than `0x00`, a short NULL bitmap, a value truncated or with a malformed
    /// length, bytes left after the last value. `spans` then holds the values read so far.
    pub fn walk(&self, packet: &[u8], spans: &mut Vec<ValueSpan>) -> Result<(), RowError> {
        spans.clear();
        let payload = framed_payload(packet)
            .filter(|p| p.len() < MAX_PAYLOAD)
            .ok_or(RowError::Framing)?;
        let mut pos = HEADER_LEN;
        let mut bitmap: &[u8] = &[];
        match self.format {
            RowFormat::Text if payload.is_empty() => return Err(RowError::NotARow(0)),
            RowFormat::Text => {}
            RowFormat::Binary => {
                let (&first, rest) = payload.split_first().ok_or(RowError::NotARow(0))?;
                if first != 0x00 {
                    return Err(RowError::NotARow(first));
                }
                let needed = self.bitmap_len();
                bitmap = rest.get(..needed).ok_or(RowError::BitmapShort {
                    needed,
                    columns: self.columns(),
                })?;
                pos += 1 + needed;
            }
        }
        let bitmap = NullBitmap::<ServerSide, &[u8]>::from_bytes(bitmap);
        let mut buf = ParseBuf(&packet[pos..]);
        for (column, encoding) in self.encodings.iter().enumerate() {
            let head = packet.len() - buf.len();
            let span = match self.format {
                RowFormat::Text if buf.0.first() == Some(&0xFB) => {
                    buf.skip(1);
                    ValueSpan {
                        head,
                        start: head + 1,
                        end: head + 1,
                        null: true,
                    }
                }
                RowFormat::Binary if bitmap.is_null(column) => ValueSpan {
                    head,
                    start: head,
                    end: head,
                    null: true,
                },
                _ => {
                    let content = encoding
                        .read(&mut buf, head)
                        .ok_or(RowError::Truncated { column })?;
                    ValueSpan {
                        head,
                        start: content.start,
                        end: content.end,
                        null: false,
                    }
                }
            };
            spans.push(span);
        }
        match buf.len() {
            0 => Ok(()),
            extra => Err(RowError::TrailingBytes { extra }),
        }
    }
}
