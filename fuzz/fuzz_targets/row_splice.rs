//! mysql-wire's row walker and splicer on arbitrary row bytes: what a server (or anything
//! between it and the proxy) could send as a text or binary result row.
//!
//! - Never a panic.
//! - A walked row's spans tile the packet: each value starts where the last ended, the
//!   last ends at the packet's end.
//! - Spliced with every value replaced by itself, the row walks back to the same values,
//!   byte for byte when its length prefixes were in their shortest form (a server's are).
//! - Spliced with new values (of each column's encoding, NULLs too), the new row walks back
//!   to them, the other values unchanged, the sequence id kept; with no replacement nothing
//!   is written.
//!
//! Input: a byte (bit 7: binary rows; low 4 bits + 1: columns), one byte per column
//! choosing its type, a byte choosing columns to replace, a byte for the new values'
//! length (255: NULL), then the row payload.
#![no_main]

use encbench_mysql_wire::rows::{BinaryEncoding, RowFormat, RowLayout};
use encbench_mysql_wire::splice::{Replacement, splice_row};
use libfuzzer_sys::fuzz_target;
use mysql_common::constants::ColumnType;

/// Column types of every binary encoding, and one the binary protocol never sends.
const TYPES: [ColumnType; 12] = [
    ColumnType::MYSQL_TYPE_LONG,
    ColumnType::MYSQL_TYPE_STRING,
    ColumnType::MYSQL_TYPE_VAR_STRING,
    ColumnType::MYSQL_TYPE_TINY,
    ColumnType::MYSQL_TYPE_SHORT,
    ColumnType::MYSQL_TYPE_LONGLONG,
    ColumnType::MYSQL_TYPE_DOUBLE,
    ColumnType::MYSQL_TYPE_DATETIME,
    ColumnType::MYSQL_TYPE_BLOB,
    ColumnType::MYSQL_TYPE_NULL,
    ColumnType::MYSQL_TYPE_NEWDECIMAL,
    ColumnType::MYSQL_TYPE_TIME2,
];

fuzz_target!(|data: &[u8]| {
    let [head, rest @ ..] = data else {
        return;
    };
    let format = if head & 0x80 != 0 {
        RowFormat::Binary
    } else {
        RowFormat::Text
    };
    let columns = usize::from(head & 0x0F) + 1;
    let Some((types, rest)) = rest.split_at_checked(columns) else {
        return;
    };
    let [choose, new_len, payload @ ..] = rest else {
        return;
    };
    let types: Vec<ColumnType> = types
        .iter()
        .map(|t| TYPES[usize::from(*t) % TYPES.len()])
        .collect();
    let layout = match RowLayout::new(format, types.iter().copied()) {
        Ok(layout) => layout,
        Err(_) => {
            assert!(format == RowFormat::Binary && types.contains(&ColumnType::MYSQL_TYPE_TIME2));
            return;
        }
    };
    let len = payload.len();
    let mut packet = vec![len as u8, (len >> 8) as u8, (len >> 16) as u8, 0x2A];
    packet.extend_from_slice(payload);
    let mut spans = Vec::new();
    if layout.walk(&packet, &mut spans).is_err() {
        return;
    }
    assert_eq!(spans.len(), columns);
    let mut pos = packet.len() - payload.len()
        + match format {
            RowFormat::Text => 0,
            RowFormat::Binary => 1 + layout.bitmap_len(),
        };
    for s in &spans {
        assert_eq!(s.head, pos);
        assert!(s.head <= s.start && s.start <= s.end);
        pos = s.end;
    }
    assert_eq!(pos, packet.len());

    let identity: Vec<Replacement<'_>> = spans
        .iter()
        .enumerate()
        .map(|(column, s)| Replacement {
            column,
            value: s.value(&packet),
            column_type: types[column],
        })
        .collect();
    let mut out = Vec::new();
    splice_row(&layout, &packet, &spans, &identity, &mut out).expect("identity splice");
    // Length prefixes come out in their shortest form: byte for byte when the row's were.
    assert!(out.len() <= packet.len());
    if out.len() == packet.len() {
        assert_eq!(out, packet);
    }
    let mut again = Vec::new();
    layout
        .walk(&out, &mut again)
        .expect("the spliced row walks");
    for (a, s) in again.iter().zip(&spans) {
        assert_eq!(a.value(&out), s.value(&packet));
    }

    // New values: the encoding's fixed size, else `new_len` bytes (at most 255 for dates).
    let filler = vec![0xA5u8; 300];
    let replacements: Vec<Replacement<'_>> = (0..columns)
        .filter(|c| choose & (1 << (c % 8)) != 0)
        .map(|column| {
            let t = types[column];
            let value = match BinaryEncoding::of(t) {
                _ if *new_len == 255 => None,
                Some(BinaryEncoding::Fixed(n)) if format == RowFormat::Binary => Some(&filler[..n]),
                Some(BinaryEncoding::Empty) if format == RowFormat::Binary => Some(&filler[..0]),
                _ => Some(&filler[..usize::from(*new_len)]),
            };
            Replacement {
                column,
                value,
                column_type: t,
            }
        })
        .collect();
    splice_row(&layout, &packet, &spans, &replacements, &mut out).expect("splice");
    if replacements.is_empty() {
        assert!(out.is_empty());
        return;
    }
    assert_eq!(out[3], 0x2A);
    layout
        .walk(&out, &mut again)
        .expect("the spliced row walks");
    let mut pending = replacements.iter().peekable();
    for (column, s) in spans.iter().enumerate() {
        match pending.next_if(|r| r.column == column) {
            Some(r) => assert_eq!(again[column].value(&out), r.value),
            None => assert_eq!(again[column].value(&out), s.value(&packet)),
        }
    }
});
