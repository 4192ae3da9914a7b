//! sysbench's `--db-ps-mode`: server-side prepared statements (`auto`, the
//! default) or the text protocol with the values inlined in the SQL
//! (`disable`), as sysbench sends statements when it emulates prepared
//! statements.
//!
//! A session's statements are [`Stmt`]s: a prepared [`Statement`], or the SQL
//! split at its `?` placeholders. Both run through the same calls
//! ([`Stmt::for_each`], [`Stmt::first`], [`Stmt::drop_result`]), and the rows
//! of both protocols go through the same code: `mysql_async` converts a text
//! row's digits to integers on `take`, and `c`/`pad` values are bytes in both.
//!
//! Text mode needs no `max_prepared_stmt_count` budget, which makes it the
//! way to run against a server whose limit cannot be raised.
//!
//! Values inlined in text mode: integers as decimal digits, byte strings as
//! quoted strings with `'` and `\` escaped, or, under column encryption
//! (envelopes are binary), as hex literals `X'..'`.

use std::fmt::Write as _;

use mysql_async::prelude::*;
use mysql_async::{Conn, Row, Statement, Value};

/// `--db-ps-mode`: how statements are sent.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum PsMode {
    /// Server-side prepared statements (sysbench's default, `auto`).
    #[default]
    #[serde(rename = "auto")]
    Auto,
    /// The text protocol, values inlined in the SQL (`disable`).
    #[serde(rename = "disable")]
    Disable,
}

impl PsMode {
    /// sysbench's name for the mode.
    pub fn name(self) -> &'static str {
        match self {
            PsMode::Auto => "auto",
            PsMode::Disable => "disable",
        }
    }

    /// Whether statements are server-side prepared.
    pub fn prepares(self) -> bool {
        self == PsMode::Auto
    }
}

impl std::fmt::Display for PsMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Parses `--db-ps-mode`: `auto` or `disable` (sysbench 1.0's values).
///
/// # Errors
/// Any other word, with the valid values.
pub fn parse_ps_mode(s: &str) -> Result<PsMode, String> {
    match s.to_ascii_lowercase().as_str() {
        "auto" => Ok(PsMode::Auto),
        "disable" => Ok(PsMode::Disable),
        _ => Err(format!("{s:?}: use auto or disable")),
    }
}

/// SQL with `?` placeholders, split for inlining values (text mode).
#[derive(Clone, Debug)]
pub struct TextStatement {
    /// The SQL between placeholders: one more piece than there are `?`.
    pieces: Vec<String>,
    /// Byte strings as `X'..'` (column encryption: envelopes are binary).
    hex_bytes: bool,
}

impl TextStatement {
    /// Splits `sql` at its `?` placeholders (the workload's SQL has no `?` in
    /// a literal). `hex_bytes`: inline byte strings as hex literals.
    pub fn new(sql: &str, hex_bytes: bool) -> TextStatement {
        TextStatement {
            pieces: sql.split('?').map(str::to_string).collect(),
            hex_bytes,
        }
    }

    /// Placeholders in the SQL.
    pub fn num_params(&self) -> usize {
        self.pieces.len() - 1
    }

    /// Writes the SQL with `params` inlined into `out` (cleared first).
    ///
    /// # Errors
    /// A parameter count that does not match the placeholders, or a value
    /// kind the workload never binds (floats, dates).
    pub fn render(&self, params: &[Value], out: &mut String) -> Result<(), mysql_async::Error> {
        if params.len() != self.num_params() {
            return Err(mysql_async::DriverError::StmtParamsMismatch {
                required: self.num_params() as u16,
                supplied: params.len(),
            }
            .into());
        }
        out.clear();
        for (i, piece) in self.pieces.iter().enumerate() {
            out.push_str(piece);
            let Some(v) = params.get(i) else { break };
            match v {
                Value::NULL => out.push_str("NULL"),
                Value::Int(n) => {
                    let _ = write!(out, "{n}");
                }
                Value::UInt(n) => {
                    let _ = write!(out, "{n}");
                }
                Value::Bytes(b) if self.hex_bytes => push_hex_literal(out, b),
                Value::Bytes(b) => match std::str::from_utf8(b) {
                    Ok(s) => push_quoted(out, s),
                    Err(_) => push_hex_literal(out, b),
                },
                _ => {
                    return Err(mysql_async::Error::Other(
                        "--db-ps-mode disable inlines integers and strings only".into(),
                    ));
                }
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

/// One statement of a session: server-side prepared, or SQL for the text protocol.
#[derive(Clone, Debug)]
pub enum Stmt {
    /// `--db-ps-mode auto`.
    Prepared(Statement),
    /// `--db-ps-mode disable`.
    Text(TextStatement),
}

impl Stmt {
    /// Prepares `sql` on `conn` (`auto`) or keeps it for inlining (`disable`;
    /// `hex_bytes`: byte strings as `X'..'`).
    ///
    /// # Errors
    /// The server refuses the statement (auto).
    pub async fn new(
        conn: &mut Conn,
        mode: PsMode,
        sql: String,
        hex_bytes: bool,
    ) -> Result<Stmt, mysql_async::Error> {
        Ok(match mode {
            PsMode::Auto => Stmt::Prepared(conn.prep(sql).await?),
            PsMode::Disable => Stmt::Text(TextStatement::new(&sql, hex_bytes)),
        })
    }

    /// Runs the statement with `params` and calls `f` on every row of its
    /// result set. `sql` is scratch space for text mode's SQL.
    ///
    /// # Errors
    /// Server or connection errors.
    pub async fn for_each<F: FnMut(Row)>(
        &self,
        conn: &mut Conn,
        params: Vec<Value>,
        sql: &mut String,
        f: F,
    ) -> Result<(), mysql_async::Error> {
        match self {
            Stmt::Prepared(st) => {
                conn.exec_iter(st, mysql_async::Params::Positional(params))
                    .await?
                    .for_each_and_drop(f)
                    .await
            }
            Stmt::Text(t) => {
                t.render(&params, sql)?;
                conn.query_iter(sql.as_str())
                    .await?
                    .for_each_and_drop(f)
                    .await
            }
        }
    }

    /// Runs the statement with `params`; its first row as `T` (`None`: no row).
    ///
    /// # Errors
    /// Server or connection errors, or a row that does not convert to `T`.
    pub async fn first<T: FromRow + Send + 'static>(
        &self,
        conn: &mut Conn,
        params: Vec<Value>,
        sql: &mut String,
    ) -> Result<Option<T>, mysql_async::Error> {
        match self {
            Stmt::Prepared(st) => {
                conn.exec_first(st, mysql_async::Params::Positional(params))
                    .await
            }
            Stmt::Text(t) => {
                t.render(&params, sql)?;
                conn.query_first(sql.as_str()).await
            }
        }
    }

    /// Runs a statement that returns no rows (DML); `conn.affected_rows()`
    /// tells what it changed.
    ///
    /// # Errors
    /// Server or connection errors.
    pub async fn drop_result(
        &self,
        conn: &mut Conn,
        params: Vec<Value>,
        sql: &mut String,
    ) -> Result<(), mysql_async::Error> {
        match self {
            Stmt::Prepared(st) => {
                conn.exec_drop(st, mysql_async::Params::Positional(params))
                    .await
            }
            Stmt::Text(t) => {
                t.render(&params, sql)?;
                conn.query_drop(sql.as_str()).await
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inlines_integers_strings_and_hex() {
        let mut out = String::new();
        let t = TextStatement::new("UPDATE t SET c=? WHERE id=?", false);
        t.render(&[Value::from(&b"1-2'\\"[..]), Value::from(7u32)], &mut out)
            .expect("render");
        assert_eq!(out, r"UPDATE t SET c='1-2\'\\' WHERE id=7");
        let t = TextStatement::new("SELECT c FROM t WHERE id BETWEEN ? AND ?", true);
        t.render(&[Value::from(-3i64), Value::from(5u32)], &mut out)
            .expect("render");
        assert_eq!(out, "SELECT c FROM t WHERE id BETWEEN -3 AND 5");
        let t = TextStatement::new("INSERT INTO t (c) VALUES (?)", true);
        t.render(&[Value::Bytes(vec![0, 0xab, 0xff])], &mut out)
            .expect("render");
        assert_eq!(out, "INSERT INTO t (c) VALUES (X'00abff')");
        assert!(t.render(&[], &mut out).is_err());
    }

    #[test]
    fn parses_sysbench_values() {
        assert_eq!(parse_ps_mode("auto"), Ok(PsMode::Auto));
        assert_eq!(parse_ps_mode("DISABLE"), Ok(PsMode::Disable));
        let e = parse_ps_mode("bogus").expect_err("bogus");
        assert!(e.contains("auto") && e.contains("disable"), "{e}");
    }
}
