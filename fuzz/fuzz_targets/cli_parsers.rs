//! The text parsers of the command lines: column-bench `--columns`,
//! `--schema-file` (its text) and `--mix`; oltp `--mysql-url` (the options
//! `mysql_opts` builds, `target`), `--pgsql-url` (the tokio-postgres `Config`
//! `pg_config` builds, its `target`) and column-bench's URL redaction. Every URL
//! input goes to both drivers' parsers.
//!
//! - Never a panic.
//! - An accepted shape: every column named once, lengths at most
//!   `MAX_VALUE_LEN`, MIN <= MAX; the values generated for it have those lengths.
//! - An accepted mix: queries per transaction finite and > 0, counts finite
//!   and >= 0.
//! - An accepted `--mysql-url` never names a Unix socket; an accepted
//!   `--pgsql-url` is a `postgres://` or `postgresql://` URL.
//! - A URL that breaks the rule for `@` (`encbench_common::password::check_at_signs`:
//!   one `@`, ending USER:PASS before the host) is refused by both drivers and
//!   described by neither `target` (tokio-postgres read `u:p@ss@h` as host
//!   `ss@h`); a password put in with `with_password` is read back exactly by both.
//! - No password of a URL (8+ characters, no separator, found nowhere else in the URL; the
//!   credentials' or a `password=` parameter's) in an error message of oltp or
//!   column-bench, in either `target`, or in `redact`.
//!
//! Input: parser selector, then the text.
#![no_main]

use column_bench::capacity::Mix;
use column_bench::shape::{Lengths, MAX_VALUE_LEN, Shape, plaintexts, redact};
use encbench_common::password::{check_at_signs, with_password};
use encbench_oltp::driver::ConnectOptions;
use encbench_oltp::driver::mysql::{mysql_opts, target};
use encbench_oltp::driver::postgres::{pg_config, target as pg_target};
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
    let passwords: Vec<&str> = [password_of(text), password_param(text)]
        .into_iter()
        .flatten()
        .collect();
    let check = |what: &str, message: &str| {
        for p in &passwords {
            assert!(!message.contains(p), "{what} shows the password: {message}");
        }
    };
    let at_rule_broken = check_at_signs(text).is_err();
    match mysql_opts(&ConnectOptions::new(text)) {
        Ok(opts) => {
            assert!(
                opts.socket().is_none(),
                "an accepted --mysql-url names a socket"
            );
            assert!(!at_rule_broken, "an accepted --mysql-url breaks the @ rule");
        }
        Err(e) => check("mysql_opts's error", &e.to_string()),
    }
    if at_rule_broken {
        assert_eq!(
            target(text),
            "(invalid URL)",
            "target of a URL breaking the @ rule"
        );
        assert_eq!(
            pg_target(text),
            "(invalid URL)",
            "pg target of a URL breaking the @ rule"
        );
        assert!(
            pg_config(&ConnectOptions::new(text)).is_err(),
            "pg_config accepts a URL breaking the @ rule"
        );
    }
    password_round_trip(text);
    check("target", &target(text));
    check("redact", &redact(text));
    // tokio-postgres ends the credentials at the first '@' (the url crate at the
    // last): the password it would hide is its own reading's.
    let pg_passwords: Vec<&str> = [pg_password_of(text), pg_password_param(text)]
        .into_iter()
        .flatten()
        .collect();
    let check = |what: &str, message: &str| {
        for p in &pg_passwords {
            assert!(!message.contains(p), "{what} shows the password: {message}");
        }
    };
    match pg_config(&ConnectOptions::new(text)) {
        Ok(cfg) => {
            assert!(
                text.starts_with("postgres://") || text.starts_with("postgresql://"),
                "an accepted --pgsql-url that is not a postgres:// URL"
            );
            let _ = (cfg.get_hosts(), cfg.get_ports(), cfg.get_dbname());
        }
        Err(e) => check("pg_config's error", &e.to_string()),
    }
    check("postgres target", &pg_target(text));
}

/// A password taken from `text` (its first 12 characters, any bytes) put into
/// `mysql://u@127.0.0.1:3306/db` and `postgres://u@127.0.0.1:5432/db` by
/// `with_password` is what both drivers read back.
fn password_round_trip(text: &str) {
    let password: String = text.chars().take(12).collect();
    let my = with_password("mysql://u@127.0.0.1:3306/db", &password, "--mysql-url")
        .expect("a well-formed URL takes any password");
    let opts =
        mysql_opts(&ConnectOptions::new(my.as_str())).expect("the URL with the password is valid");
    assert_eq!(
        opts.pass().unwrap_or(""),
        password,
        "mysql_async reads another password"
    );
    let pg = with_password("postgres://u@127.0.0.1:5432/db", &password, "--pgsql-url")
        .expect("a well-formed URL takes any password");
    let cfg =
        pg_config(&ConnectOptions::new(pg.as_str())).expect("the URL with the password is valid");
    assert_eq!(
        cfg.get_password().unwrap_or(b""),
        password.as_bytes(),
        "tokio-postgres reads another password"
    );
    assert_eq!(pg_target(&pg), "u@127.0.0.1:5432/db");
}

/// The password of a `postgres://` URL as tokio-postgres reads it: after the
/// first `:` of the text up to the first `@` after `://`, when it is 8+
/// characters and appears once in the text.
fn pg_password_of(text: &str) -> Option<&str> {
    let rest = text
        .strip_prefix("postgres://")
        .or_else(|| text.strip_prefix("postgresql://"))?;
    let creds = &rest[..rest.find('@')?];
    let (_, password) = creds.split_once(':')?;
    (password.len() >= 8
        && !password.contains(SEPARATORS)
        && text.matches(password).count() == 1
        && !FIXED.contains(password))
    .then_some(password)
}

/// Characters a password must not hold for the check to count it: both
/// drivers' `target` print `USER@HOST:PORT` (PostgreSQL's with `/DB`), so a
/// password with a separator could be spelt by the other fields and a default
/// port put together (found: `postgres://ec:yp:5432/@mgyp`, whose password
/// `yp:5432/` is the end of `ec@mgyp:5432/`; and `mysql://uolna:mysql:330@hotapmysql:`,
/// whose password `mysql:330` is inside `uolna@hotapmysql:3306`); `%` (decoded
/// fields could spell it) and `*` (redact's mask). A password without them can
/// appear in a message only inside one field, and the text holds it once: only
/// by showing it.
const SEPARATORS: [char; 9] = ['@', ':', '/', '?', '#', '&', '=', '%', '*'];

/// The value of a `password=` parameter (in a URL's query, after `?` or `&`;
/// in the key-value form, at the start or after whitespace), up to `&`,
/// whitespace or the end, when it is 8+ characters, without a [`SEPARATORS`]
/// character (`%` would be decoded) and appears once in the text. Elsewhere (e.g. inside a URL's host)
/// `password=` is no parameter.
fn password_param(text: &str) -> Option<&str> {
    let in_url = text.contains("://");
    let start = text.match_indices("password=").map(|(i, _)| i).find(|&i| {
        let before = text[..i].chars().next_back();
        if in_url {
            text[..i].contains('?') && matches!(before, Some('?' | '&'))
        } else {
            before.is_none_or(char::is_whitespace)
        }
    })? + "password=".len();
    let rest = &text[start..];
    let end = rest
        .find(|c: char| c == '&' || c.is_whitespace())
        .unwrap_or(rest.len());
    let password = &rest[..end];
    (password.len() >= 8
        && !password.contains(SEPARATORS)
        && text.matches(password).count() == 1
        && !FIXED.contains(password))
    .then_some(password)
}

/// [`password_param`] as tokio-postgres reads a `postgres://` URL: its
/// credentials run to the first `@` after `://`, past any `/` or `?`, so a
/// `password=` before that `@` is part of the user name (which messages may
/// show), not a parameter.
fn pg_password_param(text: &str) -> Option<&str> {
    let password = password_param(text)?;
    let scheme_end = ["postgres://", "postgresql://"]
        .into_iter()
        .find(|s| text.starts_with(s))
        .map(str::len);
    if let Some(after) = scheme_end
        && let Some(at) = text[after..].find('@')
    {
        let offset = password.as_ptr() as usize - text.as_ptr() as usize;
        if offset < after + at {
            return None;
        }
    }
    Some(password)
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
    (password.len() >= 8
        && !password.contains(SEPARATORS)
        && url.matches(password).count() == 1
        && !FIXED.contains(password))
    .then_some(password)
}

/// Text the messages hold whatever the URL.
const FIXED: &str = "--mysql-url is not a valid mysql:// URL: use mysql://USER:PASS@HOST:PORT \
    use mysql://USER@HOST:PORT, the password in --password-file F or $MYSQL_PWD \
    the scheme is not mysql, cannot parse it: an unknown URL parameter, a URL parameter has an invalid value, \
    a URL parameter needs a feature this build lacks, invalid or incomplete \
    has ?socket=: oltp connects over TCP only (TLS and the measurements assume it); remove ?socket= and give HOST:PORT \
    (invalid URL) :*** \
    is not a postgres:// URL: use postgres://USER@HOST:PORT/DB, the password in --password-file F or $PGPASSWORD is not a valid postgres:// URL \
    invalid connection string: unexpected EOF unterminated parameter invalid value for option unknown option \
    @localhost:5432/ (not shown: not a SCHEME://USER:PASSWORD@HOST URL) \
    --mysql-url: --pgsql-url: an @ must appear once, ending USER:PASS before the host: \
    percent-encode @ as %40 in the password (and / ? # as %2F %3F %23) \
    has a TLS parameter (ssl or tls in its name): oltp sets TLS with --tls (off, on, verify-ca, required) \
    and --tls-ca FILE; remove it from the URL (off, on = sslmode=verify-full, verify-ca, required) \
    require_ssl= verify_ca= verify_identity= built_in_roots= ssl-mode= ssl_mode= sslmode= tls= \
    sslnegotiation= sslcompression= sslcert= sslkey= sslpassword= sslcertmode= sslrootcert= \
    sslcrl= sslcrldir= sslsni= ssl_min_protocol_version= ssl_max_protocol_version=";
