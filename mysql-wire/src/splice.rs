//! The row splicer: a row packet with chosen values replaced, written into a reused buffer.
//!
//! The proxy's lean path (MaxScale's): rows with no encrypted column are forwarded as they
//! came, never copied; in the others only the chosen values are rewritten, the bytes between
//! them copied in runs, length prefixes re-encoded, the 3-byte packet length fixed and the
//! sequence id kept. Once `out` has the capacity of the longest row, no allocation per row.

use mysql_common::constants::ColumnType;
use mysql_common::packets::NullBitmap;
use mysql_common::value::ServerSide;

use crate::rows::{
    BinaryEncoding, HEADER_LEN, MAX_PAYLOAD, Redacted, RowFormat, RowLayout, ValueSpan,
    framed_payload, write_header, write_lenenc_int,
};

/// A new value for one column of a row (its Debug output shows the value's length, not its
/// bytes: they are often decrypted plaintext).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Replacement<'a> {
    /// The column index (0-based).
    pub column: usize,
    /// The new value's content (no length prefix), `None` for NULL. In a binary row it is
    /// written in the encoding of `column_type` (e.g. 4 bytes little-endian for
    /// `MYSQL_TYPE_LONG`); in a text row always length-encoded.
    pub value: Option<&'a [u8]>,
    /// The column type the value is written as in a binary row (the type the client was
    /// told in the column definition); ignored in text rows.
    pub column_type: ColumnType,
}

impl std::fmt::Debug for Replacement<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Replacement")
            .field("column", &self.column)
            .field("value", &Redacted(self.value.map(<[u8]>::len)))
            .field("column_type", &self.column_type)
            .finish()
    }
}

/// A replacement the row cannot take.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SpliceError {
    /// `spans` do not come from walking this packet with this layout.
    #[error("value spans do not match the row packet (walk the row first)")]
    Spans,
    /// Replacements must name columns in increasing order, each once, below the column count.
    #[error("replacement for column {column} out of order or out of range")]
    Column {
        /// The column index at fault.
        column: usize,
    },
    /// The value does not fit its column type's binary encoding (a fixed size other than the
    /// value's, more than 255 bytes for a date or time), or the type never travels in the
    /// binary protocol.
    #[error("replacement for column {column} does not fit type {column_type:?} ({len} bytes)")]
    Encoding {
        /// The column index.
        column: usize,
        /// The type asked for.
        column_type: ColumnType,
        /// The value's length in bytes.
        len: usize,
    },
    /// The new row would not fit one packet (2^24 - 1 bytes of payload or more).
    #[error("spliced row of {len} bytes does not fit one packet")]
    TooLong {
        /// The new payload's length in bytes.
        len: usize,
    },
}

/// Writes `packet` (a row of `layout`, walked into `spans` by [`RowLayout::walk`]) with the
/// `replacements` applied into `out` (cleared first): the header's length fixed, its
/// sequence id kept. With no replacement, `out` is left empty: forward `packet` itself.
///
/// # Errors
/// [`SpliceError`]: `spans` not of this packet, replacements out of order or out of range, a
/// value that does not fit its binary type, a row too long for one packet. `out` is then
/// left empty.
pub fn splice_row(
    layout: &RowLayout,
    packet: &[u8],
    spans: &[ValueSpan],
    replacements: &[Replacement<'_>],
    out: &mut Vec<u8>,
) -> Result<(), SpliceError> {
    out.clear();
    if replacements.is_empty() {
        return Ok(());
    }
    let result = splice_into(layout, packet, spans, replacements, out);
    if result.is_err() {
        out.clear();
    }
    result
}

fn splice_into(
    layout: &RowLayout,
    packet: &[u8],
    spans: &[ValueSpan],
    replacements: &[Replacement<'_>],
    out: &mut Vec<u8>,
) -> Result<(), SpliceError> {
    check_spans(layout, packet, spans)?;
    let binary = layout.format() == RowFormat::Binary;
    // The header (length fixed at the end) and a binary row's 0x00 and NULL bitmap, whose
    // bits the replacements may change.
    let prefix = HEADER_LEN + if binary { 1 + layout.bitmap_len() } else { 0 };
    out.extend_from_slice(&packet[..prefix]);
    let mut copied = prefix;
    let mut next = 0;
    for r in replacements {
        if r.column < next || r.column >= spans.len() {
            return Err(SpliceError::Column { column: r.column });
        }
        next = r.column + 1;
        let span = spans[r.column];
        out.extend_from_slice(&packet[copied..span.head]);
        copied = span.end;
        let encoding = match (binary, r.value) {
            (false, _) => BinaryEncoding::LengthEncoded,
            (true, _) => BinaryEncoding::of(r.column_type).ok_or(encoding_error(r))?,
        };
        match (binary, r.value) {
            (false, None) => out.push(0xFB),
            (false, Some(v)) => {
                write_lenenc_int(v.len() as u64, out);
                out.extend_from_slice(v);
            }
            (true, None) => {}
            (true, Some(v)) => encoding.write(v, out).ok_or(encoding_error(r))?,
        }
        if binary {
            let bitmap = &mut out[HEADER_LEN + 1..prefix];
            NullBitmap::<ServerSide, &mut [u8]>::from_bytes(bitmap)
                .set(r.column, r.value.is_none());
        }
    }
    out.extend_from_slice(&packet[copied..]);
    let len = out.len() - HEADER_LEN;
    if len >= MAX_PAYLOAD {
        return Err(SpliceError::TooLong { len });
    }
    write_header(out, packet[3]);
    Ok(())
}

fn encoding_error(r: &Replacement<'_>) -> SpliceError {
    SpliceError::Encoding {
        column: r.column,
        column_type: r.column_type,
        len: r.value.map_or(0, <[u8]>::len),
    }
}

/// Checks that `spans` tile `packet`'s values in order (as a walk of this layout leaves
/// them), so that copying between them and slicing at them stays in bounds.
fn check_spans(layout: &RowLayout, packet: &[u8], spans: &[ValueSpan]) -> Result<(), SpliceError> {
    framed_payload(packet).ok_or(SpliceError::Spans)?;
    let first = HEADER_LEN
        + match layout.format() {
            RowFormat::Text => 0,
            RowFormat::Binary => 1 + layout.bitmap_len(),
        };
    if spans.len() != layout.columns() {
        return Err(SpliceError::Spans);
    }
    let mut pos = first;
    for s in spans {
        if s.head != pos || s.start < s.head || s.end < s.start {
            return Err(SpliceError::Spans);
        }
        pos = s.end;
    }
    if pos != packet.len() {
        return Err(SpliceError::Spans);
    }
    Ok(())
}
