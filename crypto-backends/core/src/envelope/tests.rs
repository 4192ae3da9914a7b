//! Unit tests of the envelope: AAD layout, buffers and boundaries.

use super::aad::sealed::Sealed as _;
use super::aad::{AAD_SHORT, PREFIX_BLOCK, Prefix, location_fields, with_aad, with_location_aad};
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
