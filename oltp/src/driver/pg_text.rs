//! SQL text for PostgreSQL: the workload's `?` placeholders numbered `$1..$n` for a
//! prepared statement (as sysbench's pgsql driver rewrites them), or replaced by literals
//! for the simple-query protocol (`--db-ps-mode disable`): integers as digits, text as a
//! standard string `'..'` (`'` doubled; `standard_conforming_strings` is on by default
//! since PostgreSQL 9.1, so `\` is not special), binary data as `'\x..'::bytea`.

use std::fmt::Write as _;

use super::{DbError, ErrorKind, Param};

/// `sql` with its `?` numbered `$1, $2, ...` (the workload's SQL has no `?` in a literal).
pub fn numbered(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + 8);
    let mut n = 0;
    for ch in sql.chars() {
        if ch == '?' {
            n += 1;
            let _ = write!(out, "${n}");
        } else {
            out.push(ch);
        }
    }
    out
}

/// Writes `sql` with `params` inlined at its `?` into `out` (cleared first).
///
/// # Errors
/// A parameter count that does not match, or text that is not UTF-8 or holds NUL
/// (PostgreSQL text cannot hold NUL).
pub fn render(sql: &str, params: &[Param<'_>], out: &mut String) -> Result<(), DbError> {
    let pieces: Vec<&str> = sql.split('?').collect();
    if pieces.len() - 1 != params.len() {
        return Err(DbError::new(
            ErrorKind::Other,
            format!(
                "statement has {} placeholders but {} values were given",
                pieces.len() - 1,
                params.len()
            ),
        ));
    }
    out.clear();
    for (i, piece) in pieces.iter().enumerate() {
        out.push_str(piece);
        let Some(p) = params.get(i) else { break };
        match *p {
            Param::Int(n) => {
                let _ = write!(out, "{n}");
            }
            Param::Binary(b) => push_bytea(out, b),
            Param::Text(b) => match std::str::from_utf8(b) {
                Ok(s) if !s.contains('\0') => push_quoted(out, s),
                _ => {
                    return Err(DbError::new(
                        ErrorKind::Other,
                        "a text value is not UTF-8 or holds NUL: PostgreSQL text cannot store it",
                    ));
                }
            },
        }
    }
    Ok(())
}

/// `'..'` with `'` doubled.
pub fn push_quoted(out: &mut String, s: &str) {
    out.reserve(2 + s.len());
    out.push('\'');
    for ch in s.chars() {
        if ch == '\'' {
            out.push('\'');
        }
        out.push(ch);
    }
    out.push('\'');
}

/// `'\x..'::bytea` with two lowercase hex digits per byte.
pub fn push_bytea(out: &mut String, bytes: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.reserve(12 + 2 * bytes.len());
    out.push_str("'\\x");
    for b in bytes {
        out.push(char::from(HEX[usize::from(b >> 4)]));
        out.push(char::from(HEX[usize::from(b & 0xf)]));
    }
    out.push_str("'::bytea");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_numbered() {
        assert_eq!(
            numbered("SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ?"),
            "SELECT c FROM sbtest1 WHERE id BETWEEN $1 AND $2"
        );
        assert_eq!(numbered("SELECT 1"), "SELECT 1");
    }

    #[test]
    fn values_are_inlined_as_postgresql_literals() {
        let mut out = String::new();
        render(
            "UPDATE t SET c=?, pad=? WHERE id=?",
            &[
                Param::Text(b"it's\\"),
                Param::Binary(&[0, 0xab]),
                Param::Int(-7),
            ],
            &mut out,
        )
        .expect("render");
        assert_eq!(
            out,
            r"UPDATE t SET c='it''s\', pad='\x00ab'::bytea WHERE id=-7"
        );
        assert!(render("SELECT ?", &[], &mut out).is_err());
        assert!(render("SELECT ?", &[Param::Text(b"a\0b")], &mut out).is_err());
    }
}
