//! The text parsers of the command lines: column-bench `--columns`,
//! `--schema-file` (its text) and `--mix`; oltp `--mysql-url` (the options
//! `mysql_opts` builds, `target`) and column-bench's URL redaction.
//!
//! - Never a panic.
//! - An accepted shape: every column named once, lengths at most
//!   `MAX_VALUE_LEN`, MIN <= MAX; the values generated for it have those lengths.
//! - An accepted mix: queries per transaction finite and > 0, counts finite
//!   and >= 0.
//! - An accepted `--mysql-url` never names a Unix socket.
//! - No password of a URL (8+ characters, found nowhere else in the URL) in an
//!   error message of oltp or column-bench, in `target`, or in `redact`.
//!
//! Input: parser selector, then the text.
#![no_main]

use column_bench::capacity::Mix;
use column_bench::shape::{Lengths, MAX_VALUE_LEN, Shape, plaintexts, redact};
use encbench_oltp::driver::ConnectOptions;
use encbench_oltp::driver::mysql::{mysql_opts, target};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, text)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(text) else {
        return;
    };
    match selector % 4 {
        0 => shape(Shape::parse_columns(text)),
        1 => shape(Shape::parse_schema(text, "schema file fuzz.schema")),
        2 => mix(text),
        _ => url(text),
    }
});

fn shape(parsed: column_bench::Result<Shape>) {
    let Ok(shape) = parsed else { return };
    assert!(!shape.columns.is_empty(), "a shape without columns");
    for (i, c) in shape.columns.iter().enumerate() {
        assert!(
            shape.columns[..i].iter().all(|o| o.name != c.name),
            "column {:?} twice",
            c.name
        );
        let (min, max) = match c.lengths {
            Lengths::Fixed { bytes } => (bytes, bytes),
            Lengths::Uniform { min, max } => (min, max),
            Lengths::Sampled { .. } => panic!("a parsed shape with sampled lengths"),
        };
        assert!(min <= max && max <= MAX_VALUE_LEN, "lengths {min}-{max}");
        if max <= 4096 {
            for v in plaintexts(c, 3, 7) {
                assert!(
                    (min..=max).contains(&v.len()),
                    "a generated value of {} bytes",
                    v.len()
                );
            }
        }
    }
    for c in &shape.columns {
        let _ = c.lengths.describe();
    }
}

fn mix(text: &str) {
    let Ok(m) = Mix::parse(text) else { return };
    assert!(
        m.queries_per_txn.is_finite() && m.queries_per_txn > 0.0,
        "queries {}",
        m.queries_per_txn
    );
    for (_, n) in m.opens.iter().chain(&m.seals) {
        assert!(n.is_finite() && *n >= 0.0, "count {n}");
    }
    let _ = m.columns().count();
    let _ = m.seals_any();
}

fn url(text: &str) {
    let password = password_of(text);
    let check = |what: &str, message: &str| {
        if let Some(p) = password {
            assert!(!message.contains(p), "{what} shows the password: {message}");
        }
    };
    match mysql_opts(&ConnectOptions::new(text)) {
        Ok(opts) => assert!(
            opts.socket().is_none(),
            "an accepted --mysql-url names a socket"
        ),
        Err(e) => check("mysql_opts's error", &e.to_string()),
    }
    check("target", &target(text));
    check("redact", &redact(text));
}

/// The password of `url` (between the first `:` after `://` and the last `@`,
/// within the authority), when it is 8+ characters and appears once in the
/// URL (so a message can hold it only by showing the password).
fn password_of(url: &str) -> Option<&str> {
    let s = url.find("://")?;
    let at = url.rfind('@')?;
    let creds = url.get(s + 3..at)?;
    if creds.contains(['/', '?', '#']) {
        // Not in the authority: that '@' is in the path, query or fragment.
        return None;
    }
    let (_, password) = creds.split_once(':')?;
    // A '*' could meet redact's mask ("***") and the host after it.
    (password.len() >= 8
        && !password.contains('*')
        && url.matches(password).count() == 1
        && !FIXED.contains(password))
    .then_some(password)
}

/// Text the messages hold whatever the URL.
const FIXED: &str = "--mysql-url is not a valid mysql:// URL: use mysql://USER:PASS@HOST:PORT \
    the scheme is not mysql, cannot parse it: an unknown URL parameter, a URL parameter has an invalid value, \
    a URL parameter needs a feature this build lacks, invalid or incomplete \
    has ?socket=: oltp connects over TCP only (TLS and the measurements assume it); remove ?socket= and give HOST:PORT \
    (invalid URL) :***";
