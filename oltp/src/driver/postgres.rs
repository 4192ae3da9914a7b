//! [`Connection`] over `tokio-postgres`, for PostgreSQL.
//!
//! As sysbench's pgsql driver (`drv_pgsql.c`): the workload's `?` placeholders become
//! `$1..$n` at prepare, statements are prepared once per connection (extended protocol,
//! server-side prepared statements). Values are sent in binary format in the type the
//! server inferred for each placeholder ([`Param::Int`] as `int2`/`int4`/`int8`,
//! [`Param::Text`] as text, [`Param::Binary`] as `bytea`). `--db-ps-mode disable` sends
//! each statement with its values inlined as PostgreSQL literals (`pg_text`) and no
//! statement kept on the server: statements without rows over the simple-query protocol,
//! those with rows as one unnamed extended-protocol statement (`query_typed`, one round
//! trip), so every row arrives typed and in binary (the simple protocol would send
//! `bytea` as hex text with no column types). `CHAR(n)` values are read without their
//! pad spaces, as MySQL returns them (PostgreSQL sends them padded to `n`).
//!
//! Errors: deadlock_detected (40P01), unique_violation (23505) and
//! serialization_failure (40001) are ignorable, the three codes sysbench's
//! `pgsql_check_status` ignores; a closed connection, an I/O error, class 08 and the
//! shutdown codes 57P01-57P03 are [`ErrorKind::ConnectionLost`]. TLS is not built yet: a
//! connection with TLS options is refused ([`ErrorKind::Tls`]), never sent in plaintext.

use std::error::Error as _;
use std::str::FromStr;

use bytes::BytesMut;
use tokio_postgres::error::SqlState;
use tokio_postgres::types::{FromSql, IsNull, ToSql, Type, to_sql_checked};
use tokio_postgres::{Client, Config, NoTls, SimpleQueryMessage, Statement};

use super::pg_text::{numbered, render};
use super::{ConnectOptions, Connection, DbError, ErrorKind, Param, PsMode, Row, TlsSession};

/// One `tokio-postgres` connection (its I/O task runs on the caller's runtime).
pub struct PostgresConnection {
    client: Client,
    ps_mode: PsMode,
    sql: String,
}

/// A statement of a [`PostgresConnection`].
pub enum PostgresStatement {
    /// `--db-ps-mode auto`: prepared on the server.
    Prepared(Statement),
    /// `--db-ps-mode disable`: the SQL, values inlined at each run.
    Text(String),
}

/// `tokio-postgres` configuration of `opts.url` (`postgres://` or `postgresql://`), with
/// `opts.database` as the database when given.
///
/// # Errors
/// Not a PostgreSQL URL.
pub fn pg_config(opts: &ConnectOptions) -> Result<Config, DbError> {
    let url = &opts.url;
    if !(url.starts_with("postgres://") || url.starts_with("postgresql://")) {
        // In fixed words: text that is no URL (a key-value string) is not echoed, not even
        // as `target` (fuzz/regressions/cli_parsers/password-in-pg-kv-host).
        return Err(DbError::new(
            ErrorKind::Other,
            "--pgsql-url is not a postgres:// URL: use postgres://USER:PASS@HOST:PORT/DB",
        ));
    }
    let mut cfg = Config::from_str(url).map_err(|e| {
        DbError::new(
            ErrorKind::Other,
            format!(
                "--pgsql-url {} is not a valid postgres:// URL ({e}): use postgres://USER:PASS@HOST:PORT/DB",
                target(url)
            ),
        )
    })?;
    if let Some(db) = &opts.database {
        cfg.dbname(db);
    }
    Ok(cfg)
}

/// `USER@HOST:PORT/DB` of `url`, for messages (never the password); `(invalid URL)` for
/// text that is not a `postgres://` / `postgresql://` URL (tokio-postgres would parse a
/// key-value string, whose `host=` may hold anything: found by
/// fuzz/fuzz_targets/cli_parsers.rs).
pub fn target(url: &str) -> String {
    if !(url.starts_with("postgres://") || url.starts_with("postgresql://")) {
        return "(invalid URL)".to_string();
    }
    match Config::from_str(url) {
        Ok(c) => {
            let host = match c.get_hosts().first() {
                Some(tokio_postgres::config::Host::Tcp(h)) => h.clone(),
                Some(tokio_postgres::config::Host::Unix(p)) => p.display().to_string(),
                None => "localhost".into(),
            };
            format!(
                "{}@{host}:{}/{}",
                c.get_user().unwrap_or(""),
                c.get_ports().first().copied().unwrap_or(5432),
                c.get_dbname().unwrap_or("")
            )
        }
        Err(_) => "(invalid URL)".to_string(),
    }
}

/// The [`ErrorKind`] of a `tokio-postgres` error.
pub fn classify(e: &tokio_postgres::Error) -> ErrorKind {
    if e.is_closed() {
        return ErrorKind::ConnectionLost;
    }
    if let Some(code) = e.code() {
        return match code {
            c if *c == SqlState::T_R_DEADLOCK_DETECTED => ErrorKind::Deadlock,
            c if *c == SqlState::T_R_SERIALIZATION_FAILURE => ErrorKind::SerializationFailure,
            c if *c == SqlState::UNIQUE_VIOLATION => ErrorKind::DuplicateKey,
            c if *c == SqlState::ADMIN_SHUTDOWN
                || *c == SqlState::CRASH_SHUTDOWN
                || *c == SqlState::CANNOT_CONNECT_NOW
                || c.code().starts_with("08") =>
            {
                ErrorKind::ConnectionLost
            }
            _ => ErrorKind::Other,
        };
    }
    if e.source().is_some_and(|s| s.is::<std::io::Error>()) {
        return ErrorKind::ConnectionLost;
    }
    ErrorKind::Other
}

fn db_error(e: tokio_postgres::Error) -> DbError {
    let kind = classify(&e);
    // tokio-postgres' Display of a server error is only "db error": add the server's text.
    match e.as_db_error() {
        Some(d) => DbError::new(
            kind,
            format!(
                "{}: {} (SQLSTATE {})",
                d.severity(),
                d.message(),
                d.code().code()
            ),
        ),
        None => DbError::new(kind, e),
    }
}

/// A [`Param`] in the wire format of the placeholder's type.
#[derive(Debug)]
struct Bound<'a>(Param<'a>);

impl ToSql for Bound<'_> {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut BytesMut,
    ) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        match self.0 {
            Param::Int(n) => match *ty {
                Type::INT2 => i16::try_from(n)?.to_sql(ty, out),
                Type::INT4 => i32::try_from(n)?.to_sql(ty, out),
                Type::INT8 => n.to_sql(ty, out),
                // A text-typed placeholder (e.g. in a concatenation): the digits.
                _ => n.to_string().as_str().to_sql(ty, out),
            },
            Param::Text(b) => match *ty {
                Type::BYTEA => b.to_sql(ty, out),
                _ => std::str::from_utf8(b)?.to_sql(ty, out),
            },
            Param::Binary(b) => match *ty {
                Type::BYTEA => b.to_sql(ty, out),
                _ => Err(
                    format!("binary value for a {ty} placeholder: the column must be bytea").into(),
                ),
            },
        }
    }

    fn accepts(ty: &Type) -> bool {
        matches!(
            *ty,
            Type::INT2
                | Type::INT4
                | Type::INT8
                | Type::TEXT
                | Type::VARCHAR
                | Type::BPCHAR
                | Type::NAME
                | Type::UNKNOWN
                | Type::BYTEA
        )
    }

    to_sql_checked!();
}

/// A column value as the raw bytes the server sent (binary format).
struct Raw<'a>(&'a [u8]);

impl<'a> FromSql<'a> for Raw<'a> {
    fn from_sql(
        _: &Type,
        raw: &'a [u8],
    ) -> Result<Raw<'a>, Box<dyn std::error::Error + Sync + Send>> {
        Ok(Raw(raw))
    }

    fn accepts(_: &Type) -> bool {
        true
    }
}

/// A row behind [`Row`]: binary values decoded by column type. Values handed out
/// mutable are copied once into the row's own buffers (`tokio-postgres` keeps the
/// row's bytes shared and immutable).
pub struct PostgresRow {
    row: tokio_postgres::Row,
    owned: Vec<Option<Option<Vec<u8>>>>,
}

impl PostgresRow {
    fn new(row: tokio_postgres::Row) -> PostgresRow {
        PostgresRow {
            owned: Vec::new(),
            row,
        }
    }

    /// Column `i` as bytes: `None` past the end, `Some(None)` for NULL. Integers
    /// become their decimal digits, `CHAR(n)` loses its pad spaces.
    fn value(&self, i: usize) -> Option<Option<Vec<u8>>> {
        let ty = self.row.columns().get(i)?.type_();
        let raw: Option<Raw<'_>> = self.row.try_get(i).ok()?;
        Some(raw.map(|Raw(b)| match int_of(ty, b) {
            Some(n) => n.to_string().into_bytes(),
            None if *ty == Type::BPCHAR => {
                b[..b.iter().rposition(|&c| c != b' ').map_or(0, |p| p + 1)].to_vec()
            }
            None => b.to_vec(),
        }))
    }
}

/// A binary-format integer of type `ty`.
fn int_of(ty: &Type, b: &[u8]) -> Option<i64> {
    match *ty {
        Type::INT2 => Some(i64::from(i16::from_be_bytes(b.try_into().ok()?))),
        Type::INT4 => Some(i64::from(i32::from_be_bytes(b.try_into().ok()?))),
        Type::INT8 => Some(i64::from_be_bytes(b.try_into().ok()?)),
        _ => None,
    }
}

impl Row for PostgresRow {
    fn int(&mut self, i: usize) -> Option<i64> {
        let ty = self.row.columns().get(i)?.type_();
        let raw: Option<Raw<'_>> = self.row.try_get(i).ok()?;
        let Raw(b) = raw?;
        match int_of(ty, b) {
            Some(n) => Some(n),
            None => std::str::from_utf8(b).ok()?.trim().parse().ok(),
        }
    }

    fn bytes(&mut self, i: usize) -> Option<&mut [u8]> {
        if i >= self.row.len() {
            return None;
        }
        if self.owned.len() <= i {
            self.owned.resize_with(self.row.len(), || None);
        }
        if self.owned[i].is_none() {
            self.owned[i] = Some(self.value(i).flatten());
        }
        self.owned[i].as_mut()?.as_deref_mut()
    }

    fn column(&mut self, i: usize) -> Option<Option<&[u8]>> {
        if i >= self.row.len() {
            return None;
        }
        Some(self.bytes(i).map(|b| &*b))
    }

    fn take_bytes(&mut self, i: usize) -> Option<Vec<u8>> {
        match self.owned.get_mut(i).and_then(Option::take) {
            Some(v) => v,
            None => self.value(i).flatten(),
        }
    }
}

impl PostgresConnection {
    /// `sql` over the simple-query protocol: the rows it changed.
    async fn no_rows(&mut self, sql: &str) -> Result<u64, DbError> {
        let mut affected = 0;
        for m in self.client.simple_query(sql).await.map_err(db_error)? {
            if let SimpleQueryMessage::CommandComplete(n) = m {
                affected += n;
            }
        }
        Ok(affected)
    }

    /// `sql` (no placeholders) as one unnamed statement: `each` on every row.
    async fn rows<F: FnMut(&mut PostgresRow) + Send>(
        &mut self,
        sql: &str,
        mut each: F,
    ) -> Result<(), DbError> {
        for r in self.client.query_typed(sql, &[]).await.map_err(db_error)? {
            each(&mut PostgresRow::new(r));
        }
        Ok(())
    }
}

fn bound<'a>(params: &'a [Param<'a>]) -> Vec<Bound<'a>> {
    params.iter().map(|p| Bound(*p)).collect()
}

fn refs<'a>(b: &'a [Bound<'a>]) -> Vec<&'a (dyn ToSql + Sync)> {
    b.iter().map(|p| p as &(dyn ToSql + Sync)).collect()
}

impl Connection for PostgresConnection {
    type Statement = PostgresStatement;
    type Row = PostgresRow;

    async fn connect(opts: &ConnectOptions) -> Result<Self, DbError> {
        let cfg = pg_config(opts)?;
        if opts.tls.is_some() {
            return Err(DbError::new(
                ErrorKind::Tls,
                "--tls on is not built for --db-driver pgsql yet: use --tls off",
            ));
        }
        let (client, connection) = cfg.connect(NoTls).await.map_err(db_error)?;
        tokio::spawn(async move {
            // Ends when the client is dropped or the server goes; errors surface on the client.
            let _ = connection.await;
        });
        Ok(PostgresConnection {
            client,
            ps_mode: opts.ps_mode,
            sql: String::with_capacity(256),
        })
    }

    fn tls_session(&self) -> Option<&TlsSession> {
        None
    }

    async fn prepare(&mut self, sql: &str) -> Result<PostgresStatement, DbError> {
        Ok(match self.ps_mode {
            PsMode::Auto => PostgresStatement::Prepared(
                self.client
                    .prepare(&numbered(sql))
                    .await
                    .map_err(db_error)?,
            ),
            PsMode::Disable => PostgresStatement::Text(sql.to_string()),
        })
    }

    async fn query<F: FnMut(&mut PostgresRow) + Send>(
        &mut self,
        statement: &PostgresStatement,
        params: &[Param<'_>],
        mut each: F,
    ) -> Result<(), DbError> {
        match statement {
            PostgresStatement::Prepared(st) => {
                let b = bound(params);
                let rows = self.client.query(st, &refs(&b)).await.map_err(db_error)?;
                for r in rows {
                    each(&mut PostgresRow::new(r));
                }
                Ok(())
            }
            PostgresStatement::Text(sql) => {
                let mut out = std::mem::take(&mut self.sql);
                render(sql, params, &mut out)?;
                let r = self.rows(&out, each).await;
                self.sql = out;
                r
            }
        }
    }

    async fn execute(
        &mut self,
        statement: &PostgresStatement,
        params: &[Param<'_>],
    ) -> Result<u64, DbError> {
        match statement {
            PostgresStatement::Prepared(st) => {
                let b = bound(params);
                self.client.execute(st, &refs(&b)).await.map_err(db_error)
            }
            PostgresStatement::Text(sql) => self.execute_text(&sql.clone(), params).await,
        }
    }

    async fn simple(&mut self, sql: &str) -> Result<u64, DbError> {
        self.no_rows(sql).await
    }

    async fn execute_text(&mut self, sql: &str, params: &[Param<'_>]) -> Result<u64, DbError> {
        let mut out = std::mem::take(&mut self.sql);
        render(sql, params, &mut out)?;
        let r = self.no_rows(&out).await;
        self.sql = out;
        r
    }

    async fn simple_query<F: FnMut(&mut PostgresRow) + Send>(
        &mut self,
        sql: &str,
        each: F,
    ) -> Result<(), DbError> {
        self.rows(sql, each).await
    }

    async fn close(self) {
        drop(self.client);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fuzz finding (cli_parsers, `fuzz/regressions/cli_parsers/password-in-pg-kv-host`):
    /// a `--pgsql-url` that is a key-value string was described by `target`, which
    /// printed its `host=` value whole, with a URL and its password inside.
    #[test]
    fn text_that_is_no_postgres_url_is_never_echoed() {
        let text = "host=mysql://u:a-long-password@h port=5432";
        assert_eq!(target(text), "(invalid URL)");
        let e = pg_config(&ConnectOptions::new(text))
            .expect_err("not a postgres:// URL")
            .to_string();
        assert!(!e.contains("a-long-password"), "{e}");
        assert!(e.contains("is not a postgres:// URL"), "{e}");
        assert_eq!(
            target("postgres://u:a-long-password@127.0.0.1:5433/db"),
            "u@127.0.0.1:5433/db"
        );
    }
}
