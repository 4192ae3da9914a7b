//! mysql-wire's server-side COM_STMT_EXECUTE parser and re-writer on arbitrary client bytes:
//! what a client (or anyone reaching the proxy's port) could send.
//!
//! - Never a panic.
//! - A parsed execute has one parameter per placeholder, each value the size its type says.
//! - Re-written with no replacement, it parses back (with a fresh statement cache, since it
//!   always carries the types) to the same types and values.
//! - Re-written with sealed bytes in place of chosen parameters, it parses back to those
//!   bytes typed `MYSQL_TYPE_BLOB`, the other parameters unchanged; on error `out` is empty.
//!
//! Input: a byte (low 6 bits: parameter count; bit 7: the payload is raw, else it gets a
//! valid header for statement 1), a byte where to split the rest in two executes (the
//! second may rely on the types the first sent), a byte choosing parameters to replace,
//! then the bytes.
#![no_main]

use encbench_mysql_wire::rows::BinaryEncoding;
use encbench_mysql_wire::stmt::{ParamReplacement, ParamType, StmtExecute, StmtParams};
use libfuzzer_sys::fuzz_target;

fn frame(payload: &[u8]) -> Vec<u8> {
    let len = payload.len();
    let mut packet = vec![len as u8, (len >> 8) as u8, (len >> 16) as u8, 0];
    packet.extend_from_slice(payload);
    packet
}

fn check(parsed: &StmtExecute<'_, '_>, count: usize, choose: u8, source: &[u8]) {
    assert_eq!(parsed.param_count(), count);
    let params: Vec<_> = parsed.params().collect();
    assert_eq!(params.len(), count);
    for p in &params {
        let encoding = BinaryEncoding::of(p.param_type.column_type).expect("a binary type");
        if let (Some(v), BinaryEncoding::Fixed(n)) = (p.value, encoding) {
            assert_eq!(v.len(), n);
        }
    }
    let mut out = Vec::new();
    parsed.rewrite(&[], &mut out).expect("identity re-write");
    let mut fresh = StmtParams::new(parsed.statement_id(), count as u16, 0);
    let again = fresh.parse(&out).expect("the re-written execute parses");
    assert_eq!(again.params().collect::<Vec<_>>(), params);

    let replacements: Vec<ParamReplacement<'_>> = (0..count)
        .filter(|i| choose & (1 << (i % 8)) != 0)
        .map(|i| ParamReplacement {
            param: i,
            param_type: ParamType::SEALED,
            value: (i % 5 != 4).then(|| &source[..source.len().min(i * 13)]),
        })
        .collect();
    match parsed.rewrite(&replacements, &mut out) {
        Ok(()) => {
            let again = fresh.parse(&out).expect("the re-written execute parses");
            let mut pending = replacements.iter().peekable();
            for (i, p) in params.iter().enumerate() {
                let got = again.param(i).expect("param");
                match pending.next_if(|r| r.param == i) {
                    Some(r) => {
                        assert_eq!(got.param_type, ParamType::SEALED);
                        assert_eq!(got.value, r.value);
                    }
                    None => assert_eq!(got, *p),
                }
            }
        }
        Err(_) => assert!(out.is_empty()),
    }
}

fuzz_target!(|data: &[u8]| {
    let [mode, split, choose, rest @ ..] = data else {
        return;
    };
    let count = usize::from(mode & 0x3F);
    let (first, second) = rest.split_at(usize::from(*split).min(rest.len()));
    let mut stmt = StmtParams::new(1, count as u16, 0);
    for body in [first, second] {
        let payload = if mode & 0x80 != 0 {
            body.to_vec()
        } else {
            let mut p = vec![0x17, 1, 0, 0, 0, 0, 1, 0, 0, 0];
            p.extend_from_slice(body);
            p
        };
        let packet = frame(&payload);
        if let Ok(parsed) = stmt.parse(&packet) {
            check(&parsed, count, *choose, data);
        }
    }
});
