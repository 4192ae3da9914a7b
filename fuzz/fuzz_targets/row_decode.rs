//! The per-row decode path of oltp's column codec (`Codec::open_in_place`,
//! then `k_from_plaintext` for `k`) on arbitrary row bytes: what a compromised
//! or buggy server could send back for a `k`, `c` or `pad` value.
//!
//! - Never a panic.
//! - On error the value is cleared (no half-decrypted bytes stay behind).
//! - `Ok` from an encrypted column only for the exact envelope of the result at
//!   that table, column and id (re-sealed and compared, as in envelope_open);
//!   a plaintext column passes the bytes through unchanged.
//! - Seal mode: `Codec::seal` then `open_in_place` gives the value back, and at
//!   another id a randomized value fails.
//!
//! Input: layout selector (which columns are plain, randomized, deterministic),
//! backend selector, column, id (8 bytes), then the row bytes (or the plaintext).
#![no_main]

use std::sync::Arc;

use encbench_crypto::envelope::{Location, int_primary_key};
use encbench_fuzz::{
    Input, assert_deterministic_here, assert_sealed_here, ciphers, deterministic_ciphers,
};
use encbench_oltp::columns::{Codec, Column, ColumnMode, Columns, TableAad, k_from_plaintext};
use libfuzzer_sys::fuzz_target;

const MODES: [ColumnMode; 3] = [
    ColumnMode::Plain,
    ColumnMode::Randomized,
    ColumnMode::Deterministic,
];

fuzz_target!(|data: &[u8]| {
    let mut input = Input::new(data);
    let layout = input.byte();
    let which = usize::from(input.byte());
    let column = Columns::ALL[usize::from(input.byte()) % 3];
    let id = input.i64();
    let bytes = input.rest();
    let seal = layout & 0x80 != 0;
    let mut columns = Columns {
        k: MODES[usize::from(layout) % 3],
        c: MODES[usize::from(layout / 3) % 3],
        pad: MODES[usize::from(layout / 9) % 3],
    };
    if layout & 0x40 != 0 {
        columns = Columns {
            k: ColumnMode::Plain,
            c: ColumnMode::Plain,
            pad: ColumnMode::Plain,
        };
    }
    let plain = columns.k == ColumnMode::Plain
        && columns.c == ColumnMode::Plain
        && columns.pad == ColumnMode::Plain;
    // Deterministic columns need an algorithm with a deterministic form: pick
    // from those backends then; else from every backend and algorithm.
    let (d, cipher, det) = if columns.any_deterministic() {
        let dets = deterministic_ciphers();
        let f = &dets[which % dets.len()];
        let name = f.descriptor.name();
        let (d, cipher) = ciphers()
            .iter()
            .find(|(d, _)| d.name() == name)
            .expect("randomized form");
        (*d, cipher, Some(f))
    } else {
        let all = ciphers();
        let (d, cipher) = &all[which % all.len()];
        (*d, cipher, None)
    };
    let codec = if plain {
        Codec::plaintext()
    } else {
        Codec::with_columns(
            Arc::clone(cipher),
            det.map(|f| Arc::clone(&f.cipher)),
            columns,
        )
        .expect("codec")
    };
    let table = "sbtest1";
    let table_aad = TableAad::new(table).expect("the name fits");
    let mode = codec.mode(column);
    let stored = if seal {
        let mut out = Vec::new();
        match codec.seal(&table_aad, column, id, bytes, &mut out) {
            Ok(()) => out,
            Err(_) if bytes.is_empty() && !encbench_fuzz::seals_empty(d.backend, d.algorithm) => {
                return;
            }
            Err(e) => panic!("{}: seal of {column} failed: {e}", d.name()),
        }
    } else {
        bytes.to_vec()
    };
    let mut value = stored.clone();
    match codec.open_in_place(&table_aad, column, id, &mut value) {
        Ok(()) => {
            match mode {
                ColumnMode::Plain => {
                    assert!(value == stored, "a plaintext column changed its bytes")
                }
                ColumnMode::Randomized => {
                    let pk = int_primary_key(id);
                    let loc = Location {
                        table,
                        column: column.name(),
                        primary_key: &pk,
                    };
                    assert_sealed_here(cipher, &loc, &stored, &value, "Codec::open_in_place");
                    let mut elsewhere = stored.clone();
                    assert!(
                        codec
                            .open_in_place(&table_aad, column, id.wrapping_add(1), &mut elsewhere)
                            .is_err(),
                        "a randomized {column} opened at another id"
                    );
                }
                ColumnMode::Deterministic => {
                    let f = det.expect("deterministic cipher");
                    assert_deterministic_here(
                        f,
                        table,
                        column.name(),
                        &stored,
                        &value,
                        "Codec::open_in_place",
                    );
                }
            }
            if seal {
                assert!(
                    value == bytes,
                    "{column} did not round-trip through seal and open"
                );
            }
            if column == Column::K {
                match k_from_plaintext(&value) {
                    Ok(k) => assert!(i32::try_from(k).is_ok(), "k {k} is outside INTEGER"),
                    Err(e) => assert!(value.len() != 4, "k of 4 bytes refused: {e}"),
                }
            }
        }
        Err(e) => {
            assert!(
                !seal,
                "{}: {column} sealed by the codec does not open: {e}",
                d.name()
            );
            assert!(
                value.is_empty(),
                "a value that failed to open was not cleared"
            );
            let _ = e.to_string();
        }
    }
});
