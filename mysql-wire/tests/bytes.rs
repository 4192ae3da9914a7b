//! The parser, walker, splicer and reply state machine on bytes: proptest round trips
//! (walk + identity splice gives the same bytes, random replacements read back; the same for
//! COM_STMT_EXECUTE) and one test per malformed input, each naming the error it must give.
//! Packets are built here by an encoder of their own (MySQL's protocol documentation:
//! `COM_STMT_EXECUTE`, `Binary Protocol Resultset Row`, `Text Resultset Row`).

use encbench_mysql_wire::reply::{Reply, ReplyError, ReplyKind, ReplyPacket};
use encbench_mysql_wire::rows::{BinaryEncoding, RowError, RowFormat, RowLayout, ValueSpan};
use encbench_mysql_wire::splice::{Replacement, SpliceError, splice_row};
use encbench_mysql_wire::stmt::{
    ExecuteError, ParamReplacement, ParamType, StmtParams, execute_statement_id,
};
use mysql_common::constants::{CapabilityFlags, ColumnType};
use mysql_common::io::BufMutExt as _;
use proptest::prelude::*;

/// Frames `payload` with sequence id `seq`.
fn frame(seq: u8, payload: &[u8]) -> Vec<u8> {
    let len = payload.len();
    let mut packet = vec![len as u8, (len >> 8) as u8, (len >> 16) as u8, seq];
    packet.extend_from_slice(payload);
    packet
}

/// Appends `value` in the binary encoding of `column_type`.
fn put_binary(out: &mut Vec<u8>, column_type: ColumnType, value: &[u8]) {
    match BinaryEncoding::of(column_type).expect("a binary type") {
        BinaryEncoding::Empty | BinaryEncoding::Fixed(_) => {}
        BinaryEncoding::ShortLength => out.push(value.len() as u8),
        BinaryEncoding::LengthEncoded => out.put_lenenc_int(value.len() as u64),
    }
    out.extend_from_slice(value);
}

/// A row packet of `values` (typed) in `format`.
fn row(format: RowFormat, seq: u8, values: &[(ColumnType, Option<Vec<u8>>)]) -> Vec<u8> {
    let mut p = Vec::new();
    match format {
        RowFormat::Text => {
            for (_, v) in values {
                match v {
                    None => p.push(0xFB),
                    Some(v) => p.put_lenenc_str(v),
                }
            }
        }
        RowFormat::Binary => {
            p.push(0x00);
            let mut bitmap = vec![0u8; (values.len() + 9) / 8];
            for (i, (_, v)) in values.iter().enumerate() {
                if v.is_none() {
                    bitmap[(i + 2) / 8] |= 1 << ((i + 2) % 8);
                }
            }
            p.extend_from_slice(&bitmap);
            for (t, v) in values {
                if let Some(v) = v {
                    put_binary(&mut p, *t, v);
                }
            }
        }
    }
    frame(seq, &p)
}

/// A COM_STMT_EXECUTE of `params`, with types (`new_params_bound = 1`) when `bound`.
fn execute(statement_id: u32, params: &[(ParamType, Option<Vec<u8>>)], bound: bool) -> Vec<u8> {
    let mut p = vec![0x17];
    p.extend_from_slice(&statement_id.to_le_bytes());
    p.push(0);
    p.extend_from_slice(&1u32.to_le_bytes());
    if !params.is_empty() {
        let mut bitmap = vec![0u8; params.len().div_ceil(8)];
        for (i, (_, v)) in params.iter().enumerate() {
            if v.is_none() {
                bitmap[i / 8] |= 1 << (i % 8);
            }
        }
        p.extend_from_slice(&bitmap);
        p.push(u8::from(bound));
        if bound {
            for (t, _) in params {
                p.extend_from_slice(&[t.column_type as u8, t.flags]);
            }
        }
        for (t, v) in params {
            if let Some(v) = v {
                put_binary(&mut p, t.column_type, v);
            }
        }
    }
    frame(0, &p)
}

/// Column types of every encoding, sysbench's first.
const TYPES: [ColumnType; 10] = [
    ColumnType::MYSQL_TYPE_LONG,
    ColumnType::MYSQL_TYPE_STRING,
    ColumnType::MYSQL_TYPE_VAR_STRING,
    ColumnType::MYSQL_TYPE_TINY,
    ColumnType::MYSQL_TYPE_SHORT,
    ColumnType::MYSQL_TYPE_LONGLONG,
    ColumnType::MYSQL_TYPE_DOUBLE,
    ColumnType::MYSQL_TYPE_DATETIME,
    ColumnType::MYSQL_TYPE_BLOB,
    ColumnType::MYSQL_TYPE_NEWDECIMAL,
];

/// A value of `column_type`: its fixed size, up to 11 bytes for a date, up to 600 bytes
/// (length prefixes of 1 and 3 bytes) for the others.
fn value_of(column_type: ColumnType) -> BoxedStrategy<Vec<u8>> {
    match BinaryEncoding::of(column_type).expect("binary type") {
        BinaryEncoding::Empty => Just(Vec::new()).boxed(),
        BinaryEncoding::Fixed(n) => proptest::collection::vec(any::<u8>(), n).boxed(),
        BinaryEncoding::ShortLength => proptest::collection::vec(any::<u8>(), 0..=11).boxed(),
        BinaryEncoding::LengthEncoded => proptest::collection::vec(any::<u8>(), 0..600).boxed(),
    }
}

/// A typed, possibly NULL value.
fn typed_value() -> impl Strategy<Value = (ColumnType, Option<Vec<u8>>)> {
    proptest::sample::select(&TYPES[..])
        .prop_flat_map(|t| (Just(t), proptest::option::weighted(0.8, value_of(t))))
}

fn format() -> impl Strategy<Value = RowFormat> {
    prop_oneof![Just(RowFormat::Text), Just(RowFormat::Binary)]
}

/// A row and, per column, whether to replace it and with what (a value of the same type).
/// A row's typed values (`None`: NULL).
type Values = Vec<(ColumnType, Option<Vec<u8>>)>;

/// Per column: no replacement, or the new value (`None`: NULL).
type NewValues = Vec<Option<Option<Vec<u8>>>>;

fn row_and_replacements() -> impl Strategy<Value = (RowFormat, Values, NewValues)> {
    (format(), proptest::collection::vec(typed_value(), 1..12)).prop_flat_map(|(f, values)| {
        let replacements: Vec<_> = values
            .iter()
            .map(|(t, _)| proptest::option::of(proptest::option::weighted(0.8, value_of(*t))))
            .collect();
        (Just(f), Just(values), replacements)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn walk_then_identity_splice_gives_the_same_bytes(
        (format, values, _) in row_and_replacements(), seq in any::<u8>()
    ) {
        let packet = row(format, seq, &values);
        let layout = RowLayout::new(format, values.iter().map(|v| v.0)).expect("layout");
        let mut spans = Vec::new();
        layout.walk(&packet, &mut spans).expect("walk");
        prop_assert_eq!(spans.len(), values.len());
        for (span, (_, v)) in spans.iter().zip(&values) {
            prop_assert_eq!(span.value(&packet), v.as_deref());
        }
        let identity: Vec<Replacement<'_>> = values
            .iter()
            .enumerate()
            .map(|(column, (t, v))| Replacement { column, value: v.as_deref(), column_type: *t })
            .collect();
        let mut out = Vec::new();
        splice_row(&layout, &packet, &spans, &identity, &mut out).expect("splice");
        if values.is_empty() {
            prop_assert!(out.is_empty(), "no replacement: nothing copied");
        } else {
            prop_assert_eq!(&out, &packet);
        }
    }

    #[test]
    fn spliced_rows_read_back_with_the_new_values(
        (format, values, new) in row_and_replacements(), seq in any::<u8>()
    ) {
        let packet = row(format, seq, &values);
        let layout = RowLayout::new(format, values.iter().map(|v| v.0)).expect("layout");
        let mut spans = Vec::new();
        layout.walk(&packet, &mut spans).expect("walk");
        let replacements: Vec<Replacement<'_>> = new
            .iter()
            .enumerate()
            .filter_map(|(column, r)| r.as_ref().map(|v| Replacement {
                column,
                value: v.as_deref(),
                column_type: values[column].0,
            }))
            .collect();
        let mut out = Vec::new();
        splice_row(&layout, &packet, &spans, &replacements, &mut out).expect("splice");
        if replacements.is_empty() {
            prop_assert!(out.is_empty());
            return Ok(());
        }
        prop_assert_eq!(out[3], seq);
        let mut again = Vec::new();
        layout.walk(&out, &mut again).expect("walk the spliced row");
        for (column, (_, old)) in values.iter().enumerate() {
            let expected = match &new[column] {
                Some(v) => v.as_deref(),
                None => old.as_deref(),
            };
            prop_assert_eq!(again[column].value(&out), expected);
        }
    }

    #[test]
    fn execute_parse_rewrite_round_trip(
        params in proptest::collection::vec(typed_value(), 0..12),
        new in proptest::collection::vec(proptest::option::of(
            proptest::option::weighted(0.8, proptest::collection::vec(any::<u8>(), 0..400))), 12),
        unsigned in any::<bool>(),
    ) {
        let flags = if unsigned { ParamType::UNSIGNED } else { 0 };
        let params: Vec<(ParamType, Option<Vec<u8>>)> = params
            .into_iter()
            .map(|(column_type, v)| (ParamType { column_type, flags }, v))
            .collect();
        let packet = execute(7, &params, true);
        let mut stmt = StmtParams::new(7, params.len() as u16, 3);
        let parsed = stmt.parse(&packet).expect("parse");
        prop_assert_eq!(parsed.statement_id(), 7);
        prop_assert_eq!(parsed.iterations(), 1);
        for (i, (t, v)) in params.iter().enumerate() {
            let p = parsed.param(i).expect("param");
            prop_assert_eq!(p.param_type, *t);
            prop_assert_eq!(p.value, v.as_deref());
        }
        // Identity: every parameter replaced by itself gives the same bytes.
        let identity: Vec<ParamReplacement<'_>> = params
            .iter()
            .enumerate()
            .map(|(param, (t, v))| ParamReplacement { param, param_type: *t, value: v.as_deref() })
            .collect();
        let mut out = Vec::new();
        parsed.rewrite(&identity, &mut out).expect("rewrite");
        prop_assert_eq!(&out, &packet);
        // Sealed bytes in place of the chosen parameters read back, typed BLOB.
        let sealed: Vec<ParamReplacement<'_>> = new
            .iter()
            .take(params.len())
            .enumerate()
            .filter_map(|(param, r)| r.as_ref().map(|v| ParamReplacement {
                param,
                param_type: ParamType::SEALED,
                value: v.as_deref(),
            }))
            .collect();
        parsed.rewrite(&sealed, &mut out).expect("rewrite");
        let again = stmt.parse(&out).expect("parse the re-written execute");
        prop_assert_eq!(again.new_params_bound(), !params.is_empty());
        for (i, (t, v)) in params.iter().enumerate() {
            let p = again.param(i).expect("param");
            match &new[i] {
                Some(n) => {
                    prop_assert_eq!(p.param_type, ParamType::SEALED);
                    prop_assert_eq!(p.value, n.as_deref());
                }
                None => {
                    prop_assert_eq!(p.param_type, *t);
                    prop_assert_eq!(p.value, v.as_deref());
                }
            }
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(
        bytes in proptest::collection::vec(any::<u8>(), 0..64),
        format in format(),
        count in 0u16..10,
    ) {
        let packet = frame(1, &bytes);
        let layout = RowLayout::new(format, TYPES.iter().copied().take(usize::from(count)))
            .expect("layout");
        let mut spans = Vec::new();
        let _ = layout.walk(&packet, &mut spans);
        let mut stmt = StmtParams::new(u32::from_le_bytes([
            bytes.get(1).copied().unwrap_or(0),
            bytes.get(2).copied().unwrap_or(0),
            bytes.get(3).copied().unwrap_or(0),
            bytes.get(4).copied().unwrap_or(0),
        ]), count, 0);
        let _ = stmt.parse(&packet);
        let mut reply = Reply::new(ReplyKind::Execute, CapabilityFlags::empty());
        let _ = reply.feed(&packet);
        let _ = reply.feed(&packet);
    }
}

// ---- COM_STMT_EXECUTE: malformed input ----

fn long_param(v: i64) -> (ParamType, Option<Vec<u8>>) {
    (
        ParamType {
            column_type: ColumnType::MYSQL_TYPE_LONGLONG,
            flags: 0,
        },
        Some(v.to_le_bytes().to_vec()),
    )
}

fn string_param(v: &[u8]) -> (ParamType, Option<Vec<u8>>) {
    (
        ParamType {
            column_type: ColumnType::MYSQL_TYPE_VAR_STRING,
            flags: 0,
        },
        Some(v.to_vec()),
    )
}

fn parse_err(count: u16, payload: &[u8]) -> ExecuteError {
    let mut stmt = StmtParams::new(1, count, 0);
    stmt.parse(&frame(0, payload)).expect_err("malformed")
}

#[test]
fn execute_errors_name_the_fault() {
    let good = execute(1, &[long_param(5), string_param(b"abc")], true);
    assert_eq!(execute_statement_id(&good), Some(1));
    assert_eq!(execute_statement_id(&frame(0, &[0x16, 1, 0, 0, 0])), None);
    assert_eq!(execute_statement_id(&frame(0, &[0x17, 1, 0])), None);
    let payload = &good[4..];
    assert_eq!(parse_err(2, &payload[..7]), ExecuteError::Truncated);
    // Header of 10 bytes, then the bitmap (1 byte for 2 parameters) missing.
    assert_eq!(
        parse_err(2, &payload[..10]),
        ExecuteError::BitmapShort {
            needed: 1,
            params: 2
        }
    );
    let mut bad = payload.to_vec();
    bad[11] = 2;
    assert_eq!(parse_err(2, &bad), ExecuteError::NewParamsBound(2));
    let mut bad = payload.to_vec();
    bad[12 + 2] = 0x30;
    assert_eq!(
        parse_err(2, &bad),
        ExecuteError::UnknownType {
            param: 1,
            type_byte: 0x30
        }
    );
    let mut bad = payload.to_vec();
    bad[12] = ColumnType::MYSQL_TYPE_TIME2 as u8;
    assert_eq!(
        parse_err(2, &bad),
        ExecuteError::UnknownType {
            param: 0,
            type_byte: ColumnType::MYSQL_TYPE_TIME2 as u8
        }
    );
    assert_eq!(parse_err(2, &payload[..13]), ExecuteError::Truncated);
    assert_eq!(
        parse_err(2, &payload[..payload.len() - 1]),
        ExecuteError::ValueTruncated { param: 1 }
    );
    let mut long = payload.to_vec();
    long.push(0);
    assert_eq!(
        parse_err(2, &long),
        ExecuteError::TrailingBytes { extra: 1 }
    );
    let unbound = execute(1, &[long_param(5), string_param(b"abc")], false);
    assert_eq!(parse_err(2, &unbound[4..]), ExecuteError::TypesMissing);
    let mut other = payload.to_vec();
    other[0] = 0x16;
    assert_eq!(parse_err(2, &other), ExecuteError::NotExecute(0x16));
    let mut stmt = StmtParams::new(2, 2, 0);
    assert_eq!(
        stmt.parse(&good).expect_err("other statement"),
        ExecuteError::Statement {
            expected: 2,
            got: 1
        }
    );
    assert_eq!(
        stmt.parse(&good[..good.len() - 1])
            .expect_err("length disagrees"),
        ExecuteError::Framing
    );
}

#[test]
fn execute_without_types_uses_the_kept_ones() {
    let params = [
        long_param(-3),
        string_param(b"a string"),
        (ParamType::SEALED, None),
    ];
    let mut stmt = StmtParams::new(9, 3, 0);
    assert_eq!(stmt.types(), None);
    stmt.parse(&execute(9, &params, true))
        .expect("first execute");
    let kept: Vec<ParamType> = params.iter().map(|p| p.0).collect();
    assert_eq!(stmt.types(), Some(&kept[..]));
    let next = [
        long_param(4),
        string_param(b"other"),
        (ParamType::SEALED, None),
    ];
    let packet = execute(9, &next, false);
    let parsed = stmt.parse(&packet).expect("execute without types");
    assert!(!parsed.new_params_bound());
    assert_eq!(parsed.param(1).and_then(|p| p.value), Some(&b"other"[..]));
    // Re-written, it carries the types again.
    let mut out = Vec::new();
    parsed.rewrite(&[], &mut out).expect("rewrite");
    assert_eq!(out, execute(9, &next, true));
    // Bad types leave the kept ones alone.
    let mut bad = execute(9, &next, true);
    bad[4 + 12] = 0x30;
    stmt.parse(&bad).expect_err("unknown type");
    assert_eq!(stmt.types(), Some(&kept[..]));
}

#[test]
fn execute_rewrite_errors() {
    let params = [long_param(1), string_param(b"x")];
    let mut stmt = StmtParams::new(1, 2, 0);
    let packet = execute(1, &params, true);
    let parsed = stmt.parse(&packet).expect("parse");
    let mut out = vec![1, 2, 3];
    let r = |param, column_type, value: &'static [u8]| ParamReplacement {
        param,
        param_type: ParamType {
            column_type,
            flags: 0,
        },
        value: Some(value),
    };
    let blob = ColumnType::MYSQL_TYPE_BLOB;
    assert_eq!(
        parsed.rewrite(&[r(1, blob, b"a"), r(0, blob, b"b")], &mut out),
        Err(ExecuteError::Replacement { param: 0 })
    );
    assert!(out.is_empty(), "nothing half-written");
    assert_eq!(
        parsed.rewrite(&[r(2, blob, b"a")], &mut out),
        Err(ExecuteError::Replacement { param: 2 })
    );
    assert_eq!(
        parsed.rewrite(&[r(0, ColumnType::MYSQL_TYPE_LONG, b"abc")], &mut out),
        Err(ExecuteError::ReplacementEncoding {
            param: 0,
            column_type: ColumnType::MYSQL_TYPE_LONG,
            len: 3
        })
    );
}

#[test]
fn prepare_ok_gives_the_statement() {
    let mut ok = vec![0x00];
    ok.extend_from_slice(&77u32.to_le_bytes());
    ok.extend_from_slice(&3u16.to_le_bytes());
    ok.extend_from_slice(&2u16.to_le_bytes());
    ok.extend_from_slice(&[0, 0, 0]);
    let stmt = StmtParams::from_prepare_ok(&frame(1, &ok)).expect("prepare OK");
    assert_eq!(
        (stmt.statement_id(), stmt.columns(), stmt.count()),
        (77, 3, 2)
    );
    assert_eq!(
        StmtParams::from_prepare_ok(&frame(1, &ok[..8])),
        Err(ExecuteError::NotPrepareOk)
    );
}

// ---- rows: malformed input ----

#[test]
fn row_errors_name_the_fault() {
    let types = [ColumnType::MYSQL_TYPE_LONG, ColumnType::MYSQL_TYPE_STRING];
    let binary = RowLayout::new(RowFormat::Binary, types).expect("layout");
    let text = RowLayout::new(RowFormat::Text, types).expect("layout");
    let values = [
        (types[0], Some(vec![1, 0, 0, 0])),
        (types[1], Some(b"abc".to_vec())),
    ];
    let packet = row(RowFormat::Binary, 3, &values);
    let mut spans = Vec::new();
    binary.walk(&packet, &mut spans).expect("walk");
    assert_eq!(
        spans[1],
        ValueSpan {
            head: 10,
            start: 11,
            end: 14,
            null: false
        }
    );
    assert_eq!(
        binary.walk(&packet[..3], &mut spans),
        Err(RowError::Framing)
    );
    // A row continued in the next packet (payload 2^24 - 1 bytes) is not walked.
    let mut continued = vec![0x00, 0x00, 1, 0, 0, 0];
    continued.put_lenenc_int(0xFF_FFFF - 6 - 4);
    continued.resize(0xFF_FFFF, b'x');
    assert_eq!(
        binary.walk(&frame(3, &continued), &mut spans),
        Err(RowError::Framing)
    );
    assert_eq!(
        binary.walk(&frame(3, &packet[4..7]), &mut spans),
        Err(RowError::Truncated { column: 0 })
    );
    assert_eq!(
        binary.walk(&frame(3, &[0x00]), &mut spans),
        Err(RowError::BitmapShort {
            needed: 1,
            columns: 2
        })
    );
    assert_eq!(
        binary.walk(&frame(3, &[0xFE, 0, 0, 0, 0]), &mut spans),
        Err(RowError::NotARow(0xFE))
    );
    let mut long = packet[4..].to_vec();
    long.push(9);
    assert_eq!(
        binary.walk(&frame(3, &long), &mut spans),
        Err(RowError::TrailingBytes { extra: 1 })
    );
    // A text row whose length prefix is 0xFF, or runs past the end.
    assert_eq!(
        text.walk(&frame(1, &[0x01, b'1', 0xFF]), &mut spans),
        Err(RowError::Truncated { column: 1 })
    );
    assert_eq!(
        text.walk(&frame(1, &[0x01, b'1', 0xFC, 0x10]), &mut spans),
        Err(RowError::Truncated { column: 1 })
    );
    assert_eq!(
        text.walk(&frame(1, &[]), &mut spans),
        Err(RowError::NotARow(0))
    );
    assert_eq!(
        RowLayout::new(RowFormat::Binary, [ColumnType::MYSQL_TYPE_DATETIME2]),
        Err(RowError::UnsupportedType {
            column: 0,
            column_type: ColumnType::MYSQL_TYPE_DATETIME2
        })
    );
}

#[test]
fn splice_errors_name_the_fault() {
    let types = [ColumnType::MYSQL_TYPE_LONG, ColumnType::MYSQL_TYPE_STRING];
    let layout = RowLayout::new(RowFormat::Binary, types).expect("layout");
    let packet = row(
        RowFormat::Binary,
        3,
        &[
            (types[0], Some(vec![1, 0, 0, 0])),
            (types[1], Some(b"abc".to_vec())),
        ],
    );
    let mut spans = Vec::new();
    layout.walk(&packet, &mut spans).expect("walk");
    let mut out = Vec::new();
    let r = |column, column_type, value: &'static [u8]| Replacement {
        column,
        value: Some(value),
        column_type,
    };
    let string = ColumnType::MYSQL_TYPE_STRING;
    assert_eq!(
        splice_row(
            &layout,
            &packet,
            &spans,
            &[r(1, string, b"x"), r(0, string, b"y")],
            &mut out
        ),
        Err(SpliceError::Column { column: 0 })
    );
    assert!(out.is_empty());
    assert_eq!(
        splice_row(&layout, &packet, &spans, &[r(5, string, b"x")], &mut out),
        Err(SpliceError::Column { column: 5 })
    );
    assert_eq!(
        splice_row(
            &layout,
            &packet,
            &spans,
            &[r(0, ColumnType::MYSQL_TYPE_LONG, b"12345")],
            &mut out
        ),
        Err(SpliceError::Encoding {
            column: 0,
            column_type: ColumnType::MYSQL_TYPE_LONG,
            len: 5
        })
    );
    let mut shifted = spans.clone();
    shifted[1].end += 1;
    assert_eq!(
        splice_row(&layout, &packet, &shifted, &[r(1, string, b"x")], &mut out),
        Err(SpliceError::Spans)
    );
    // A decrypted INT written as the 4 bytes the client's column definition announces.
    splice_row(
        &layout,
        &packet,
        &spans,
        &[r(0, ColumnType::MYSQL_TYPE_LONG, &[7, 0, 0, 0])],
        &mut out,
    )
    .expect("splice");
    layout.walk(&out, &mut spans).expect("walk");
    assert_eq!(spans[0].value(&out), Some(&[7, 0, 0, 0][..]));
}

/// A length prefix near 2^64 (`0xFE` then eight bytes) is a truncated value, not an
/// overflow: the inputs the `row_splice` and `stmt_execute` fuzz targets found
/// (fuzz/regressions/).
#[test]
fn huge_length_prefixes_are_truncated_values() {
    let layout = RowLayout::new(RowFormat::Text, [ColumnType::MYSQL_TYPE_STRING]).expect("layout");
    let mut spans = Vec::new();
    let mut payload = vec![0xFE];
    payload.extend_from_slice(&[0xFF; 8]);
    payload.extend_from_slice(b"SSSS");
    assert_eq!(
        layout.walk(&frame(1, &payload), &mut spans),
        Err(RowError::Truncated { column: 0 })
    );
    let mut execute = vec![0x17, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0x00, 1];
    execute.extend_from_slice(&[ColumnType::MYSQL_TYPE_BLOB as u8, 0]);
    execute.extend_from_slice(&payload);
    assert_eq!(
        parse_err(1, &execute),
        ExecuteError::ValueTruncated { param: 0 }
    );
}

/// Debug output of what holds column values (plaintext, sealed bytes) shows their length,
/// never their bytes.
#[test]
fn debug_output_never_shows_values() {
    let secret = b"secret-plaintext";
    let params = [string_param(secret)];
    let mut stmt = StmtParams::new(1, 1, 0);
    let packet = execute(1, &params, true);
    let parsed = stmt.parse(&packet).expect("parse");
    let replacement = ParamReplacement {
        param: 0,
        param_type: ParamType::SEALED,
        value: Some(secret),
    };
    let row_replacement = Replacement {
        column: 0,
        value: Some(secret),
        column_type: ColumnType::MYSQL_TYPE_STRING,
    };
    let shown = format!(
        "{parsed:?} {:?} {replacement:?} {row_replacement:?}",
        parsed.param(0)
    );
    assert!(shown.contains("<16 bytes>"), "{shown}");
    for needle in ["secret", "115, 101, 99"] {
        assert!(!shown.contains(needle), "{shown}");
    }
}

// ---- the reply state machine on hand-made replies ----

fn eof(status: u16) -> Vec<u8> {
    let mut p = vec![0xFE, 0, 0];
    p.extend_from_slice(&status.to_le_bytes());
    frame(0, &p)
}

fn ok(status: u16) -> Vec<u8> {
    let mut p = vec![0x00, 0, 0];
    p.extend_from_slice(&status.to_le_bytes());
    p.extend_from_slice(&[0, 0]);
    frame(0, &p)
}

fn feed_all(reply: &mut Reply, packets: &[Vec<u8>]) -> Vec<ReplyPacket> {
    packets
        .iter()
        .map(|p| reply.feed(p).expect("reply packet"))
        .collect()
}

#[test]
fn cursor_reply_ends_after_the_columns() {
    const CURSOR_EXISTS: u16 = 0x0040;
    let mut reply = Reply::new(ReplyKind::Execute, CapabilityFlags::CLIENT_PROTOCOL_41);
    let got = feed_all(
        &mut reply,
        &[frame(1, &[1]), frame(2, b"def"), eof(CURSOR_EXISTS)],
    );
    assert_eq!(got[2], ReplyPacket::ColumnsEof);
    assert!(reply.is_done());
    assert_eq!(reply.feed(&ok(0)), Err(ReplyError::AfterEnd));
}

#[test]
fn prepare_reply_with_and_without_eof() {
    let mut prepare_ok = vec![0x00];
    prepare_ok.extend_from_slice(&5u32.to_le_bytes());
    prepare_ok.extend_from_slice(&1u16.to_le_bytes()); // columns
    prepare_ok.extend_from_slice(&2u16.to_le_bytes()); // params
    prepare_ok.extend_from_slice(&[0, 0, 0]);
    let mut reply = Reply::new(ReplyKind::Prepare, CapabilityFlags::CLIENT_PROTOCOL_41);
    let got = feed_all(
        &mut reply,
        &[
            frame(1, &prepare_ok),
            frame(2, b"p"),
            frame(3, b"p"),
            eof(0),
            frame(5, b"c"),
            eof(0),
        ],
    );
    assert_eq!(
        got,
        [
            ReplyPacket::PrepareOk {
                statement_id: 5,
                params: 2,
                columns: 1
            },
            ReplyPacket::ParamDefinition { index: 0 },
            ReplyPacket::ParamDefinition { index: 1 },
            ReplyPacket::ParamsEof,
            ReplyPacket::PrepareColumnDefinition { index: 0 },
            ReplyPacket::PrepareColumnsEof,
        ]
    );
    assert!(reply.is_done());
    let mut reply = Reply::new(
        ReplyKind::Prepare,
        CapabilityFlags::CLIENT_PROTOCOL_41 | CapabilityFlags::CLIENT_DEPRECATE_EOF,
    );
    feed_all(
        &mut reply,
        &[
            frame(1, &prepare_ok),
            frame(2, b"p"),
            frame(3, b"p"),
            frame(4, b"c"),
        ],
    );
    assert!(reply.is_done());
}

#[test]
fn reply_rejects_what_its_grammar_does_not_allow() {
    let mut reply = Reply::new(ReplyKind::Query, CapabilityFlags::CLIENT_PROTOCOL_41);
    assert_eq!(
        reply.feed(&frame(1, &[0xFB, b'f'])),
        Ok(ReplyPacket::LocalInfile)
    );
    assert_eq!(
        reply.feed(&ok(0)),
        Ok(ReplyPacket::Ok {
            more_results: false
        })
    );
    assert!(reply.is_done());
    let mut reply = Reply::new(ReplyKind::Query, CapabilityFlags::CLIENT_PROTOCOL_41);
    feed_all(&mut reply, &[frame(1, &[1]), frame(2, b"def")]);
    assert_eq!(
        reply.feed(&frame(3, b"row")),
        Err(ReplyError::Unexpected {
            first: b'r',
            state: "EOF after column definitions"
        })
    );
    let mut reply = Reply::new(ReplyKind::Query, CapabilityFlags::CLIENT_PROTOCOL_41);
    assert!(matches!(
        reply.feed(&frame(1, &[])),
        Err(ReplyError::Unexpected { .. })
    ));
    assert_eq!(reply.feed(&[1, 0]), Err(ReplyError::Framing));
    let mut reply = Reply::new(ReplyKind::Prepare, CapabilityFlags::CLIENT_PROTOCOL_41);
    assert_eq!(
        reply.feed(&frame(1, &[0xFF, 0x10, 0x04])),
        Ok(ReplyPacket::Err)
    );
    assert!(reply.is_done());
}

#[test]
fn field_list_fetch_statistics_and_eof_replies() {
    let caps = CapabilityFlags::CLIENT_PROTOCOL_41;
    let mut reply = Reply::new(ReplyKind::FieldList, caps);
    let got = feed_all(
        &mut reply,
        &[frame(1, b"\x03def"), frame(2, b"\x03def"), eof(0)],
    );
    assert_eq!(
        got,
        [
            ReplyPacket::ColumnDefinition { index: 0 },
            ReplyPacket::ColumnDefinition { index: 1 },
            ReplyPacket::ResultEnd {
                more_results: false
            },
        ]
    );
    assert!(reply.is_done());
    let mut reply = Reply::new(ReplyKind::FieldList, caps);
    assert_eq!(
        reply.feed(&frame(1, &[0xFF, 0x10, 0x04])),
        Ok(ReplyPacket::Err)
    );
    assert!(reply.is_done());

    // A binary row starts with 0x00: a row here, not an OK.
    let mut reply = Reply::new(ReplyKind::Fetch, caps);
    let got = feed_all(
        &mut reply,
        &[
            frame(1, &[0, 0, 1, 0, 0, 0]),
            frame(2, &[0, 0, 2, 0, 0, 0]),
            eof(0),
        ],
    );
    assert_eq!(got[0], ReplyPacket::Row(RowFormat::Binary));
    assert_eq!(got[1], ReplyPacket::Row(RowFormat::Binary));
    assert!(reply.is_done());

    // The text may start with any byte, 0x00 and 0xFE included.
    for text in [&b"Uptime: 5"[..], &[0xFE, b'x'], &[0x00]] {
        let mut reply = Reply::new(ReplyKind::Statistics, caps);
        assert_eq!(reply.feed(&frame(1, text)), Ok(ReplyPacket::Statistics));
        assert!(reply.is_done());
    }

    // COM_SET_OPTION's EOF ends the reply; a 9-byte column count starting 0xFE does not.
    let mut reply = Reply::new(ReplyKind::Query, caps);
    assert_eq!(
        reply.feed(&eof(0)),
        Ok(ReplyPacket::Ok {
            more_results: false
        })
    );
    assert!(reply.is_done());
    let mut reply = Reply::new(ReplyKind::Query, caps);
    let count = [0xFE, 1, 0, 0, 0, 0, 0, 0, 0];
    assert_eq!(
        reply.feed(&frame(1, &count)),
        Ok(ReplyPacket::ColumnCount(1))
    );
    assert!(!reply.is_done());
}

#[test]
fn a_16_mib_row_continues_in_the_next_frame() {
    // Its continuation frame is short and starts with 0xFE: still not an EOF.
    let big = frame(3, &vec![0xFE; encbench_mysql_wire::packet::MAX_PAYLOAD]);
    let mut reply = Reply::new(ReplyKind::Query, CapabilityFlags::CLIENT_PROTOCOL_41);
    let got = feed_all(
        &mut reply,
        &[
            frame(1, &[1]),
            frame(2, b"\x03def"),
            eof(0),
            big,
            eof(0),
            eof(0),
        ],
    );
    assert_eq!(got[3], ReplyPacket::Row(RowFormat::Text));
    assert_eq!(got[4], ReplyPacket::Continuation);
    assert!(reply.is_done());
}
