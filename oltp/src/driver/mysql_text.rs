//! `--db-ps-mode disable` for MySQL: a statement's SQL split at its `?`
//! placeholders, and the values inlined as sysbench sends them when it emulates
//! prepared statements: integers as decimal digits, text as a quoted string
//! (`'` and `\` escaped), binary data (envelopes) as a hex literal `X'..'`.

use std::fmt::Write as _;

use super::{DbError, ErrorKind, Param};

/// SQL with `?` placeholders, split for inlining values.
#[derive(Clone, Debug)]
pub struct TextStatement {
    /// The SQL between placeholders: one more piece than there are `?`.
    pieces: Vec<String>,
}

impl TextStatement {
    /// Splits `sql` at its `?` placeholders (the workload's SQL has no `?` in
    /// a literal).
    pub fn new(sql: &str) -> TextStatement {
        TextStatement {
            pieces: sql.split('?').map(str::to_string).collect(),
        }
    }

    /// Placeholders in the SQL.
    pub fn num_params(&self) -> usize {
        self.pieces.len() - 1
    }

    /// Writes the SQL with `params` inlined into `out` (cleared first).
    ///
    /// # Errors
    /// A parameter count that does not match the placeholders.
    pub fn render(&self, params: &[Param<'_>], out: &mut String) -> Result<(), DbError> {
        if params.len() != self.num_params() {
            return Err(DbError::new(
                ErrorKind::Other,
                format!(
                    "statement has {} placeholders but {} values were given",
                    self.num_params(),
                    params.len()
                ),
            ));
        }
        out.clear();
        for (i, piece) in self.pieces.iter().enumerate() {
            out.push_str(piece);
            let Some(p) = params.get(i) else { break };
            match *p {
                Param::Int(n) => {
                    let _ = write!(out, "{n}");
                }
                Param::Binary(b) => push_hex_literal(out, b),
                Param::Text(b) => match std::str::from_utf8(b) {
                    Ok(s) => push_quoted(out, s),
                    Err(_) => push_hex_literal(out, b),
                },
            }
        }
        Ok(())
    }
}

/// `X'..'` with two lowercase hex digits per byte.
pub fn push_hex_literal(out: &mut String, bytes: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.reserve(3 + 2 * bytes.len());
    out.push_str("X'");
    for b in bytes {
        out.push(char::from(HEX[usize::from(b >> 4)]));
        out.push(char::from(HEX[usize::from(b & 0xf)]));
    }
    out.push('\'');
}

/// Appends `s` as a quoted string literal, `'` and `\` escaped (what
/// `mysql_real_escape_string` does to the characters that can end or change a
/// quoted string; NUL, CR, LF and Ctrl-Z too).
pub fn push_quoted(out: &mut String, s: &str) {
    out.reserve(2 + s.len());
    out.push('\'');
    for ch in s.chars() {
        match ch {
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            '\0' => out.push_str("\\0"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\u{1a}' => out.push_str("\\Z"),
            c => out.push(c),
        }
    }
    out.push('\'');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inlines_integers_text_and_binary() {
        let mut out = String::new();
        let t = TextStatement::new("UPDATE t SET c=? WHERE id=?");
        t.render(&[Param::Text(b"1-2'\\"), Param::Int(7)], &mut out)
            .expect("render");
        assert_eq!(out, r"UPDATE t SET c='1-2\'\\' WHERE id=7");
        let t = TextStatement::new("SELECT c FROM t WHERE id BETWEEN ? AND ?");
        t.render(&[Param::Int(-3), Param::Int(5)], &mut out)
            .expect("render");
        assert_eq!(out, "SELECT c FROM t WHERE id BETWEEN -3 AND 5");
        let t = TextStatement::new("INSERT INTO t (c) VALUES (?)");
        t.render(&[Param::Binary(&[0, 0xab, 0xff])], &mut out)
            .expect("render");
        assert_eq!(out, "INSERT INTO t (c) VALUES (X'00abff')");
        assert!(t.render(&[], &mut out).is_err());
    }
}
