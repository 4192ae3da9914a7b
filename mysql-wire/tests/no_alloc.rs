//! Once its buffers are warm, the hot path allocates nothing: walking a row, splicing it,
//! parsing a COM_STMT_EXECUTE and re-writing it. A counting global allocator (this test
//! binary's own) counts the allocations made on the test's thread while it measures.

// A GlobalAlloc is an unsafe trait: this wrapper forwards every call to the system
// allocator unchanged and only counts.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

use encbench_mysql_wire::rows::{RowFormat, RowLayout};
use encbench_mysql_wire::splice::{Replacement, splice_row};
use encbench_mysql_wire::stmt::{ParamReplacement, ParamType, StmtParams};
use mysql_common::constants::ColumnType;
use mysql_common::io::BufMutExt as _;

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
}

fn count() {
    if COUNTING.with(Cell::get) {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
    }
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: the caller's contract, passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations made on this thread by `f`.
fn allocations_of(f: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    COUNTING.with(|c| c.set(true));
    f();
    COUNTING.with(|c| c.set(false));
    ALLOCATIONS.load(Ordering::Relaxed) - before
}

fn frame(payload: &[u8]) -> Vec<u8> {
    let len = payload.len();
    let mut packet = vec![len as u8, (len >> 8) as u8, (len >> 16) as u8, 1];
    packet.extend_from_slice(payload);
    packet
}

/// sysbench rows (id, k, c, pad) as binary rows: `i` selects the values.
fn binary_row(i: u32) -> Vec<u8> {
    let mut p = vec![0x00, 0x00];
    p.extend_from_slice(&i.to_le_bytes());
    p.extend_from_slice(&(i * 7).to_le_bytes());
    p.put_lenenc_str(&[b'c'; 119]);
    p.put_lenenc_str(&[b'p'; 59]);
    frame(&p)
}

#[test]
fn walk_splice_parse_and_rewrite_allocate_nothing_once_warm() {
    let types = [
        ColumnType::MYSQL_TYPE_LONG,
        ColumnType::MYSQL_TYPE_LONG,
        ColumnType::MYSQL_TYPE_STRING,
        ColumnType::MYSQL_TYPE_STRING,
    ];
    let layout = RowLayout::new(RowFormat::Binary, types).expect("layout");
    assert_eq!(
        allocations_of(|| drop(std::hint::black_box(vec![1u8; 10]))),
        1,
        "the counter counts"
    );
    let rows: Vec<Vec<u8>> = (0..1000).map(binary_row).collect();
    // Plaintext as the proxy would decrypt it: shorter and longer than the stored values.
    let c = vec![b'C'; 300];
    let pad = vec![b'P'; 20];
    let replacements = [
        Replacement {
            column: 2,
            value: Some(&c),
            column_type: ColumnType::MYSQL_TYPE_STRING,
        },
        Replacement {
            column: 3,
            value: Some(&pad),
            column_type: ColumnType::MYSQL_TYPE_STRING,
        },
    ];
    let mut spans = Vec::new();
    let mut out = Vec::new();
    let walk_and_splice = |spans: &mut Vec<_>, out: &mut Vec<u8>| {
        let mut bytes = 0;
        for row in &rows {
            layout.walk(row, spans).expect("walk");
            splice_row(&layout, row, spans, &replacements, out).expect("splice");
            bytes += out.len();
            // A row with nothing to replace is not copied.
            splice_row(&layout, row, spans, &[], out).expect("no replacement");
            assert!(out.is_empty());
        }
        bytes
    };
    walk_and_splice(&mut spans, &mut out); // warm: spans and out grow once
    let mut bytes = 0;
    let n = allocations_of(|| bytes = walk_and_splice(&mut spans, &mut out));
    assert_eq!(n, 0, "walking and splicing warm rows allocates nothing");
    assert!(bytes > 1000 * 320, "the rows were spliced");

    // COM_STMT_EXECUTE of sysbench's insert (id, k, c, pad), with and without types.
    let mut payload = vec![0x17, 3, 0, 0, 0, 0, 1, 0, 0, 0, 0x00, 1];
    for t in [ColumnType::MYSQL_TYPE_LONG, ColumnType::MYSQL_TYPE_LONG] {
        payload.extend_from_slice(&[t as u8, 0]);
    }
    for _ in 0..2 {
        payload.extend_from_slice(&[ColumnType::MYSQL_TYPE_STRING as u8, 0]);
    }
    payload.extend_from_slice(&5u32.to_le_bytes());
    payload.extend_from_slice(&9u32.to_le_bytes());
    payload.put_lenenc_str(&[b'c'; 119]);
    payload.put_lenenc_str(&[b'p'; 59]);
    let execute = frame(&payload);
    let sealed = vec![0x5A; 160];
    let sealed_replacements = [
        ParamReplacement {
            param: 2,
            param_type: ParamType::SEALED,
            value: Some(&sealed),
        },
        ParamReplacement {
            param: 3,
            param_type: ParamType::SEALED,
            value: Some(&sealed[..100]),
        },
    ];
    let mut stmt = StmtParams::new(3, 4, 0);
    let mut rewritten = Vec::new();
    let parse_and_rewrite = |stmt: &mut StmtParams, out: &mut Vec<u8>| {
        for _ in 0..1000 {
            let parsed = stmt.parse(&execute).expect("parse");
            parsed.rewrite(&sealed_replacements, out).expect("rewrite");
        }
    };
    parse_and_rewrite(&mut stmt, &mut rewritten);
    let n = allocations_of(|| parse_and_rewrite(&mut stmt, &mut rewritten));
    assert_eq!(
        n, 0,
        "parsing and re-writing warm executes allocates nothing"
    );
    assert_eq!(rewritten.len(), execute.len() + 41 + 41);
}

#[test]
fn following_a_reply_allocates_nothing() {
    use encbench_mysql_wire::reply::{Reply, ReplyKind};
    use mysql_common::constants::CapabilityFlags;
    let caps = CapabilityFlags::CLIENT_PROTOCOL_41 | CapabilityFlags::CLIENT_SESSION_TRACK;
    // A result set of 1000 sysbench rows, then an OK of a second statement, as the proxy
    // feeds them: column count, 4 definitions, EOF, rows, EOF (more results), OK.
    let mut packets = vec![frame(&[4])];
    packets.extend((0..4).map(|_| frame(b"\x03def")));
    packets.push(frame(&[0xFE, 0, 0, 0, 0]));
    packets.extend((0..1000).map(binary_row));
    packets.push(frame(&[0xFE, 0, 0, 0x08, 0]));
    packets.push(frame(&[0x00, 1, 0, 0, 0, 0, 0, 0]));
    let mut reply = Reply::new(ReplyKind::Execute, caps);
    let n = allocations_of(|| {
        for p in &packets {
            std::hint::black_box(reply.feed(p).expect("reply packet"));
        }
    });
    assert!(reply.is_done());
    assert_eq!(n, 0, "following a reply allocates nothing");
}
