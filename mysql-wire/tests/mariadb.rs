//! The parser, walker, splicer and reply state machine on real MariaDB replies (the test
//! binary's shared server): text and binary rows of sysbench's columns (INT, CHAR(120),
//! CHAR(60)) with NULLs and values over 250 bytes (length prefix `0xFC`) and 65,535 bytes
//! (`0xFD`); COM_STMT_EXECUTE re-written with sealed bytes into oltp's `VARBINARY` columns;
//! multi-results and an ERR after rows.

mod common;

use common::{Conn, frame};
use encbench_mysql_wire::reply::{ReplyKind, ReplyPacket};
use encbench_mysql_wire::rows::{RowFormat, RowLayout, ValueSpan};
use encbench_mysql_wire::splice::{Replacement, splice_row};
use encbench_mysql_wire::stmt::{ParamReplacement, ParamType, StmtParams};
use mysql_common::Value;
use mysql_common::constants::ColumnType;
use mysql_common::io::ParseBuf;
use mysql_common::packets::{Column, ComStmtExecuteRequestBuilder};
use mysql_common::proto::MySerialize as _;

/// sysbench's table, plus a nullable long column.
const CREATE: &str = "CREATE TABLE IF NOT EXISTS sbtest1 (id INT NOT NULL, k INT DEFAULT '0' NOT NULL, \
    c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, note MEDIUMTEXT NULL, \
    PRIMARY KEY (id))";

/// The rows: (id, k, c, pad, note).
fn rows() -> Vec<(i32, i32, String, String, Option<String>)> {
    let c = |n: usize| format!("{n:011}-").repeat(10)[..119].to_string();
    vec![
        (1, 500, c(1), "p".repeat(59), None),
        (2, -7, c(2), "q".repeat(59), Some("x".repeat(300))),
        (3, 0, String::new(), String::new(), Some("y".repeat(70_000))),
        (4, i32::MAX, c(4), "r".repeat(59), Some(String::new())),
    ]
}

fn load(conn: &mut Conn) {
    conn.query_ok("DROP TABLE IF EXISTS sbtest1");
    conn.query_ok(CREATE);
    for (id, k, c, pad, note) in rows() {
        let note = note.map_or("NULL".to_string(), |n| format!("'{n}'"));
        conn.query_ok(&format!(
            "INSERT INTO sbtest1 VALUES ({id}, {k}, '{c}', '{pad}', {note})"
        ));
    }
}

/// The column definitions of a result, parsed with mysql_common, and its row packets.
fn result_of(packets: &[(ReplyPacket, Vec<u8>)]) -> (Vec<Column>, Vec<Vec<u8>>) {
    let columns = packets
        .iter()
        .filter(|(p, _)| matches!(p, ReplyPacket::ColumnDefinition { .. }))
        .map(|(_, b)| {
            ParseBuf(&b[4..])
                .parse::<Column>(())
                .expect("column definition")
        })
        .collect();
    let rows = packets
        .iter()
        .filter(|(p, _)| matches!(p, ReplyPacket::Row(_)))
        .map(|(_, b)| b.clone())
        .collect();
    (columns, rows)
}

/// Walks `rows` and checks each value against `rows()` (`k` as text or 4 bytes LE).
fn check_rows(layout: &RowLayout, packets: &[Vec<u8>]) {
    let expected = rows();
    assert_eq!(packets.len(), expected.len());
    let mut spans = Vec::new();
    for (packet, (id, k, c, pad, note)) in packets.iter().zip(expected) {
        layout.walk(packet, &mut spans).expect("walk a real row");
        let int = |v: i32| match layout.format() {
            RowFormat::Text => v.to_string().into_bytes(),
            RowFormat::Binary => v.to_le_bytes().to_vec(),
        };
        assert_eq!(spans[0].value(packet), Some(&int(id)[..]));
        assert_eq!(spans[1].value(packet), Some(&int(k)[..]));
        assert_eq!(spans[2].value(packet), Some(c.as_bytes()));
        assert_eq!(spans[3].value(packet), Some(pad.as_bytes()));
        assert_eq!(spans[4].value(packet), note.as_deref().map(str::as_bytes));
        if note.as_ref().is_some_and(|n| n.len() == 300) {
            assert_eq!(
                packet[spans[4].head], 0xFC,
                "a 300-byte value has a 3-byte prefix"
            );
        }
        if note.as_ref().is_some_and(|n| n.len() == 70_000) {
            assert_eq!(
                packet[spans[4].head], 0xFD,
                "a 70,000-byte value has a 4-byte prefix"
            );
        }
        check_splices(layout, packet, &spans);
    }
}

/// Identity replacements give the same bytes; new values (longer, shorter, NULL) read back.
fn check_splices(layout: &RowLayout, packet: &[u8], spans: &[ValueSpan]) {
    let types = layout.types();
    let identity: Vec<Replacement<'_>> = (0..spans.len())
        .map(|column| Replacement {
            column,
            value: spans[column].value(packet),
            column_type: types[column],
        })
        .collect();
    let mut out = Vec::new();
    splice_row(layout, packet, spans, &identity, &mut out).expect("identity splice");
    assert_eq!(out, packet);

    let long = vec![0xA5; 400];
    let replacements = [
        Replacement {
            column: 2,
            value: Some(&long),
            column_type: ColumnType::MYSQL_TYPE_VAR_STRING,
        },
        Replacement {
            column: 3,
            value: None,
            column_type: ColumnType::MYSQL_TYPE_STRING,
        },
        Replacement {
            column: 4,
            value: Some(b"short"),
            column_type: ColumnType::MYSQL_TYPE_BLOB,
        },
    ];
    splice_row(layout, packet, spans, &replacements, &mut out).expect("splice");
    assert_eq!(out[3], packet[3], "the sequence id is kept");
    let mut again = Vec::new();
    layout.walk(&out, &mut again).expect("walk the spliced row");
    assert_eq!(again[0].value(&out), spans[0].value(packet));
    assert_eq!(again[1].value(&out), spans[1].value(packet));
    assert_eq!(again[2].value(&out), Some(&long[..]));
    assert_eq!(again[3].value(&out), None);
    assert_eq!(again[4].value(&out), Some(&b"short"[..]));
}

#[test]
fn text_rows_of_sysbench_columns_walk_and_splice() {
    let _server = encbench_test_support::shared_server();
    let mut conn = Conn::open("wire_text", false);
    load(&mut conn);
    let reply = conn.query("SELECT id, k, c, pad, note FROM sbtest1 ORDER BY id");
    assert_eq!(reply[0].0, ReplyPacket::ColumnCount(5));
    assert_eq!(reply[6].0, ReplyPacket::ColumnsEof);
    assert_eq!(
        reply.last().map(|r| r.0),
        Some(ReplyPacket::ResultEnd {
            more_results: false
        })
    );
    let (columns, packets) = result_of(&reply);
    let layout = RowLayout::from_columns(RowFormat::Text, &columns).expect("layout");
    check_rows(&layout, &packets);
}

#[test]
fn text_rows_with_deprecate_eof_end_with_ok() {
    let _server = encbench_test_support::shared_server();
    let mut conn = Conn::open("wire_text_deof", true);
    load(&mut conn);
    let reply = conn.query("SELECT id, k, c, pad, note FROM sbtest1 ORDER BY id");
    assert!(!reply.iter().any(|r| r.0 == ReplyPacket::ColumnsEof));
    assert_eq!(reply[6].0, ReplyPacket::Row(RowFormat::Text));
    let (columns, packets) = result_of(&reply);
    let layout = RowLayout::from_columns(RowFormat::Text, &columns).expect("layout");
    check_rows(&layout, &packets);
}

/// Prepares `sql`: the statement's parameters and its reply.
fn prepare(conn: &mut Conn, sql: &str) -> (StmtParams, Vec<(ReplyPacket, Vec<u8>)>) {
    let reply = conn.prepare(sql);
    assert!(
        matches!(reply[0].0, ReplyPacket::PrepareOk { .. }),
        "{sql}: {reply:?}"
    );
    let params = StmtParams::from_prepare_ok(&reply[0].1).expect("prepare OK");
    (params, reply)
}

/// A client's COM_STMT_EXECUTE of `params` (mysql_common's, as mysql_async sends it).
fn execute_packet(statement_id: u32, params: &[Value]) -> Vec<u8> {
    let (request, _) = ComStmtExecuteRequestBuilder::new(statement_id).build(params);
    let mut payload = Vec::new();
    request.serialize(&mut payload);
    frame(0, &payload)
}

#[test]
fn binary_rows_of_sysbench_columns_walk_and_splice() {
    let _server = encbench_test_support::shared_server();
    let mut conn = Conn::open("wire_binary", false);
    load(&mut conn);
    let (mut params, prepared) = prepare(
        &mut conn,
        "SELECT id, k, c, pad, note FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY id",
    );
    assert_eq!((params.count(), params.columns()), (2, 5));
    assert!(prepared.iter().any(|r| r.0 == ReplyPacket::ParamsEof));
    assert!(
        prepared
            .iter()
            .any(|r| r.0 == ReplyPacket::PrepareColumnsEof)
    );
    let packet = execute_packet(params.statement_id(), &[Value::Int(1), Value::Int(4)]);
    let execute = params.parse(&packet).expect("parse the client's execute");
    assert!(execute.new_params_bound());
    assert_eq!(
        execute.param(1).and_then(|p| p.value),
        Some(&4i64.to_le_bytes()[..])
    );
    conn.send_framed(&packet);
    let reply = conn.reply(ReplyKind::Execute);
    assert_eq!(reply[0].0, ReplyPacket::ColumnCount(5));
    let (columns, packets) = result_of(&reply);
    assert_eq!(columns[1].column_type(), ColumnType::MYSQL_TYPE_LONG);
    assert_eq!(columns[2].column_type(), ColumnType::MYSQL_TYPE_STRING);
    let layout = RowLayout::from_columns(RowFormat::Binary, &columns).expect("layout");
    check_rows(&layout, &packets);
}

#[test]
fn rewritten_execute_stores_sealed_bytes_in_varbinary_columns() {
    let _server = encbench_test_support::shared_server();
    let mut conn = Conn::open("wire_sealed", false);
    conn.query_ok("DROP TABLE IF EXISTS enc");
    // oltp's encrypted columns: VARBINARY sized for the envelope (k's fits it exactly).
    conn.query_ok(
        "CREATE TABLE enc (id INT NOT NULL PRIMARY KEY, k VARBINARY(41) NOT NULL, \
         c VARBINARY(200) NOT NULL, pad VARBINARY(100) NULL)",
    );
    let (mut params, _) = prepare(
        &mut conn,
        "INSERT INTO enc (id, k, c, pad) VALUES (?, ?, ?, ?)",
    );
    // Bytes a character set would mangle: NUL, invalid UTF-8, trailing spaces.
    let sealed_k: Vec<u8> = (0..=40u8).map(|b| b.wrapping_mul(37) ^ 0xC3).collect();
    let mut sealed_c: Vec<u8> = vec![0x00, 0xFF, 0xFE, 0xC0, 0x80];
    sealed_c.extend((0..150).map(|i| (i * 7 % 256) as u8));
    sealed_c.extend_from_slice(b"   ");
    let mut out = Vec::new();
    for (id, sealed_c) in [(1, &sealed_c[..]), (2, &sealed_c[3..])] {
        let client = [
            Value::Int(id),
            Value::Int(42),
            Value::Bytes(b"plain c".to_vec()),
            Value::NULL,
        ];
        let mut packet = execute_packet(params.statement_id(), &client);
        if id == 2 {
            packet = without_types(&packet, 4);
        }
        let execute = params.parse(&packet).expect("parse");
        assert_eq!(execute.new_params_bound(), id == 1);
        assert_eq!(execute.param(3).and_then(|p| p.value), None);
        let replacements = [
            ParamReplacement {
                param: 1,
                param_type: ParamType::SEALED,
                value: Some(&sealed_k),
            },
            ParamReplacement {
                param: 2,
                param_type: ParamType::SEALED,
                value: Some(sealed_c),
            },
        ];
        execute.rewrite(&replacements, &mut out).expect("rewrite");
        conn.send_framed(&out);
        let reply = conn.reply(ReplyKind::Execute);
        assert!(
            matches!(reply[..], [(ReplyPacket::Ok { .. }, _)]),
            "the server takes the re-written execute: {:?}",
            String::from_utf8_lossy(&reply[0].1)
        );
    }
    let (mut select, _) = prepare(&mut conn, "SELECT id, k, c, pad FROM enc ORDER BY id");
    let packet = execute_packet(select.statement_id(), &[]);
    select
        .parse(&packet)
        .expect("parse an execute without parameters");
    conn.send_framed(&packet);
    let reply = conn.reply(ReplyKind::Execute);
    let (columns, packets) = result_of(&reply);
    let layout = RowLayout::from_columns(RowFormat::Binary, &columns).expect("layout");
    let mut spans = Vec::new();
    for (packet, c) in packets.iter().zip([&sealed_c[..], &sealed_c[3..]]) {
        layout.walk(packet, &mut spans).expect("walk");
        assert_eq!(
            spans[1].value(packet),
            Some(&sealed_k[..]),
            "k stored byte for byte"
        );
        assert_eq!(spans[2].value(packet), Some(c), "c stored byte for byte");
        assert_eq!(spans[3].value(packet), None);
    }
}

/// `packet` (a COM_STMT_EXECUTE of `n` > 0 parameters with types) as libmariadb sends
/// later executes: `new_params_bound = 0`, no types.
fn without_types(packet: &[u8], n: usize) -> Vec<u8> {
    let payload = &packet[4..];
    let bitmap_end = 10 + n.div_ceil(8);
    assert_eq!(payload[bitmap_end], 1);
    let mut out = payload[..bitmap_end].to_vec();
    out.push(0);
    out.extend_from_slice(&payload[bitmap_end + 1 + 2 * n..]);
    frame(packet[3], &out)
}

#[test]
fn multi_results_and_err_after_rows() {
    let _server = encbench_test_support::shared_server();
    let mut conn = Conn::open("wire_multi", false);
    load(&mut conn);
    let reply = conn.query("SELECT 1; SELECT 2, NULL; DO 1");
    let kinds: Vec<ReplyPacket> = reply.iter().map(|r| r.0).collect();
    let end = |more_results| ReplyPacket::ResultEnd { more_results };
    let def = |index| ReplyPacket::ColumnDefinition { index };
    let row = ReplyPacket::Row(RowFormat::Text);
    assert_eq!(
        kinds,
        [
            ReplyPacket::ColumnCount(1),
            def(0),
            ReplyPacket::ColumnsEof,
            row,
            end(true),
            ReplyPacket::ColumnCount(2),
            def(0),
            def(1),
            ReplyPacket::ColumnsEof,
            row,
            end(true),
            ReplyPacket::Ok {
                more_results: false
            },
        ]
    );
    let layout =
        RowLayout::new(RowFormat::Text, [ColumnType::MYSQL_TYPE_LONGLONG; 2]).expect("layout");
    let mut spans = Vec::new();
    layout.walk(&reply[9].1, &mut spans).expect("walk");
    assert_eq!(spans[0].value(&reply[9].1), Some(&b"2"[..]));
    assert!(spans[1].null);

    // A statement after an earlier one fails: its ERR ends the reply.
    let reply = conn.query("SELECT 1; SELECT * FROM no_such_table");
    assert_eq!(reply.last().map(|r| r.0), Some(ReplyPacket::Err));

    // A scalar subquery returning two rows for the second row: row 1 is sent, then ERR.
    let reply = conn.query(
        "SELECT (SELECT s.id FROM sbtest1 s WHERE s.id <= x.id) FROM sbtest1 x WHERE x.id <= 2",
    );
    let kinds: Vec<ReplyPacket> = reply.iter().map(|r| r.0).collect();
    assert_eq!(
        kinds,
        [
            ReplyPacket::ColumnCount(1),
            def(0),
            ReplyPacket::ColumnsEof,
            row,
            ReplyPacket::Err,
        ]
    );
}
