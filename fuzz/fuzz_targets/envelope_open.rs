//! Column envelope v1 (`ColumnCipher`) and v2 (`DeterministicColumnCipher`)
//! `open` on arbitrary bytes under a fixed keyring (key ids 1 and 7, fixed
//! bytes), for every compiled-in backend of every algorithm.
//!
//! - Never a panic.
//! - Never `Ok` for bytes that are not sealed under that key and location: an
//!   `Ok` is checked by re-sealing the plaintext with the envelope's own nonce
//!   and the AAD written from the documented layout (v1), or by sealing it
//!   again (v2, deterministic): the bytes must be identical.
//! - The three v1 entry points (`open`, `open_in_place`, `open_vec_in_place`)
//!   agree; on error `open` leaves `out` empty and `open_vec_in_place` clears.
//! - A column's AAD prefix (`ColumnAad::at`) and the `Location` agree: the
//!   same result, the same plaintext.
//! - Seal mode: the input's bytes are sealed, must open at the same location,
//!   and must fail at another primary key and with one byte changed.
//!
//! Input: mode/backend selector, location selector, primary key (8 bytes),
//! mutation position (2) and xor, then the stored bytes (or the plaintext).
#![no_main]

use encbench_crypto::envelope::{ColumnAad, EnvelopeError, Location, int_primary_key};
use encbench_fuzz::{
    Input, assert_deterministic_here, assert_sealed_here, ciphers, deterministic_ciphers,
};
use libfuzzer_sys::fuzz_target;

/// Tables and columns the location selector picks from (the 255-byte name is
/// the longest the AAD takes, the 256-byte one is refused).
const TABLES: [&str; 4] = ["sbtest1", "", "t", "sbtest1_with_a_much_longer_name"];
const COLUMNS: [&str; 3] = ["c", "pad", "k"];

fuzz_target!(|data: &[u8]| {
    let mut input = Input::new(data);
    let mode = input.byte();
    let which = usize::from(input.byte());
    let loc_sel = input.byte();
    let long_name = "x".repeat(255 + usize::from(loc_sel & 0x80 != 0));
    let table: &str = if loc_sel & 0x40 != 0 {
        &long_name
    } else {
        TABLES[usize::from(loc_sel) % TABLES.len()]
    };
    let column = COLUMNS[usize::from(loc_sel >> 2) % COLUMNS.len()];
    let id = input.i64();
    let position = usize::from(input.u16());
    let xor = input.byte() | 1;
    let bytes = input.rest();
    let seal = mode & 1 != 0;
    if mode & 2 == 0 {
        randomized(which, table, column, id, bytes, seal, position, xor);
    } else {
        deterministic(which, table, column, bytes, seal, position, xor);
    }
});

#[allow(clippy::too_many_arguments)]
fn randomized(
    which: usize,
    table: &str,
    column: &str,
    id: i64,
    bytes: &[u8],
    seal: bool,
    position: usize,
    xor: u8,
) {
    let all = ciphers();
    let (d, cipher) = &all[which % all.len()];
    let pk = int_primary_key(id);
    let loc = Location {
        table,
        column,
        primary_key: &pk,
    };
    let stored = if seal {
        let mut out = Vec::new();
        match cipher.seal(&loc, bytes, &mut out) {
            Ok(()) => out,
            Err(EnvelopeError::FieldTooLong { .. }) if table.len() > 255 => return,
            Err(EnvelopeError::Aead(_))
                if bytes.is_empty() && !encbench_fuzz::seals_empty(d.backend, d.algorithm) =>
            {
                return;
            }
            Err(e) => panic!("{}: seal failed: {e}", d.name()),
        }
    } else {
        bytes.to_vec()
    };
    let mut out = vec![0xAA; 3];
    let opened = cipher.open(&loc, &stored, &mut out);
    let mut in_place = stored.clone();
    let in_place_result = cipher
        .open_in_place(&loc, &mut in_place)
        .map(|p| p.to_vec());
    let mut vec_in_place = stored.clone();
    let vec_result = cipher.open_vec_in_place(&loc, &mut vec_in_place);
    // The same binding through the column's prefix (names over 255 bytes are
    // refused by both: `ColumnAad::new` and the `Location`'s open).
    match ColumnAad::new(table, column) {
        Ok(prefix) => {
            let mut by_prefix = vec![0xAA; 3];
            let prefix_result = cipher.open(&prefix.at(&pk), &stored, &mut by_prefix);
            assert_eq!(prefix_result, opened, "ColumnAad and Location disagree");
            assert_eq!(by_prefix, out, "ColumnAad opened other bytes");
        }
        Err(_) => assert!(opened.is_err(), "ColumnAad refused a name Location took"),
    }
    match &opened {
        Ok(()) => {
            assert_sealed_here(cipher, &loc, &stored, &out, "open");
            assert_eq!(
                in_place_result.as_deref().ok(),
                Some(&out[..]),
                "open_in_place differs from open"
            );
            assert!(
                vec_result.is_ok() && vec_in_place == out,
                "open_vec_in_place differs from open"
            );
            let other_pk = int_primary_key(id.wrapping_add(1));
            let elsewhere = Location {
                table,
                column,
                primary_key: &other_pk,
            };
            assert!(
                cipher.open(&elsewhere, &stored, &mut Vec::new()).is_err(),
                "opened at another primary key"
            );
            let mut changed = stored.clone();
            let at = position % changed.len();
            changed[at] ^= xor;
            assert!(
                cipher.open(&loc, &changed, &mut Vec::new()).is_err(),
                "opened with byte {at} changed"
            );
        }
        Err(e) => {
            assert!(!seal, "{}: cannot open what it sealed: {e}", d.name());
            assert!(out.is_empty(), "open left bytes in out after an error");
            assert!(
                in_place_result.is_err(),
                "open_in_place opened what open refused"
            );
            assert!(
                vec_result.is_err() && vec_in_place.is_empty(),
                "open_vec_in_place did not clear on error"
            );
            let _ = e.to_string();
        }
    }
}

fn deterministic(
    which: usize,
    table: &str,
    column: &str,
    bytes: &[u8],
    seal: bool,
    position: usize,
    xor: u8,
) {
    let all = deterministic_ciphers();
    let f = &all[which % all.len()];
    let (d, cipher) = (f.descriptor, &f.cipher);
    let stored = if seal {
        let mut out = Vec::new();
        match cipher.seal(table, column, bytes, &mut out) {
            Ok(()) => out,
            Err(EnvelopeError::FieldTooLong { .. }) if table.len() > 255 => return,
            Err(EnvelopeError::Aead(_))
                if bytes.is_empty() && !encbench_fuzz::seals_empty(d.backend, d.algorithm) =>
            {
                return;
            }
            Err(e) => panic!("{}: seal failed: {e}", d.name()),
        }
    } else {
        bytes.to_vec()
    };
    let mut out = vec![0xAA; 3];
    match cipher.open(table, column, &stored, &mut out) {
        Ok(()) => {
            assert_deterministic_here(f, table, column, &stored, &out, "open");
            let other = if column == "c" { "pad" } else { "c" };
            assert!(
                cipher.open(table, other, &stored, &mut Vec::new()).is_err(),
                "opened in another column"
            );
            let mut changed = stored.clone();
            let at = position % changed.len();
            changed[at] ^= xor;
            assert!(
                cipher
                    .open(table, column, &changed, &mut Vec::new())
                    .is_err(),
                "opened with byte {at} changed"
            );
        }
        Err(e) => {
            assert!(!seal, "{}: cannot open what it sealed: {e}", d.name());
            assert!(out.is_empty(), "open left bytes in out after an error");
            let _ = e.to_string();
        }
    }
}
