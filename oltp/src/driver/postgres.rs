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
//! shutdown codes 57P01-57P03 are [`ErrorKind::ConnectionLost`].
//!
//! TLS (`pg_tls`): with TLS options the connection asks for TLS (`sslmode=require` on the
//! wire: a server that declines is an error, never a plaintext session), verifies the
//! server as the [`TlsMode`](super::TlsMode) asks, and then asks the server itself:
//! `SELECT ssl, version, cipher FROM pg_stat_ssl WHERE pid = pg_backend_pid()` must say
//! `ssl = true` with a cipher, else the connection is refused ([`ErrorKind::Tls`]); that
//! row is the connection's [`TlsSession`]. Without TLS options no TLS is attempted
//! (`sslmode=disable`). `sslmode` in the URL is refused: `--tls` says it.

use std::error::Error as _;
use std::future::Future;
use std::pin::Pin;
use std::str::FromStr;
use std::task::Poll;

use bytes::BytesMut;
use futures_util::TryStreamExt as _;
use tokio_postgres::config::SslMode;
use tokio_postgres::types::{FromSql, IsNull, ToSql, Type, to_sql_checked};
use tokio_postgres::{Client, Config, NoTls, SimpleQueryMessage, Statement};

use super::pg_text::{numbered, render};
use super::pg_tls;
use super::{
    ConnectOptions, Connection, DbDriver, DbError, ErrorKind, Param, PsMode, Row, TlsSession,
};

/// `tokio-postgres`' `Connection` (the socket's I/O: it writes the requests the
/// [`Client`] queues and routes the server's responses back), as a future that ends when
/// the connection does.
type Io = Pin<Box<dyn Future<Output = Result<(), tokio_postgres::Error>> + Send>>;

/// One `tokio-postgres` connection. Its I/O is not a task of its own: every request polls
/// it in the caller's task (`drive`), so a statement costs no hop through the runtime's
/// scheduler to another task and back (callgrind, docs/measurements.md, oltp vs stock pgbench 15).
pub struct PostgresConnection {
    client: Client,
    /// `None` once the connection ended (closed, or an I/O error): requests then fail as
    /// closed ([`ErrorKind::ConnectionLost`]).
    io: Option<Io>,
    ps_mode: PsMode,
    tls: Option<TlsSession>,
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
/// Not a PostgreSQL URL, one with an unescaped `@` in USER:PASS
/// ([`encbench_common::password::check_at_signs`]), or one with an `ssl*` parameter
/// (`sslmode`, `sslrootcert`, ...: TLS is `--tls`'s).
pub fn pg_config(opts: &ConnectOptions) -> Result<Config, DbError> {
    let url = &opts.url;
    if !(url.starts_with("postgres://") || url.starts_with("postgresql://")) {
        // In fixed words: text that is no URL (a key-value string) is not echoed, not even
        // as `target` (fuzz/regressions/cli_parsers/password-in-pg-kv-host).
        return Err(DbError::new(
            ErrorKind::Other,
            "--pgsql-url is not a postgres:// URL: use postgres://USER@HOST:PORT/DB, the password in --password-file F or $PGPASSWORD",
        ));
    }
    // tokio-postgres ends USER:PASS at the first '@' of the text: the rest of a
    // password holding '@' would become the host, shown in messages.
    encbench_common::password::check_at_signs(url)
        .map_err(|e| DbError::new(ErrorKind::Other, format!("--pgsql-url: {e}")))?;
    if let Some(key) = ssl_parameter(url) {
        let name = super::tls_parameter_name(&key, &PG_TLS_PARAMETERS);
        return Err(DbError::new(
            ErrorKind::Other,
            format!(
                "--pgsql-url has {name}: oltp sets TLS with --tls (off, on = sslmode=verify-full, verify-ca, required) and --tls-ca FILE; remove it from the URL"
            ),
        ));
    }
    let mut cfg = Config::from_str(url).map_err(|e| {
        DbError::new(
            ErrorKind::Other,
            format!(
                "--pgsql-url {} is not a valid postgres:// URL ({e}): use postgres://USER@HOST:PORT/DB, the password in --password-file F or $PGPASSWORD",
                target(url)
            ),
        )
    })?;
    if let Some(db) = &opts.database {
        cfg.dbname(db);
    }
    Ok(cfg)
}

/// The first TLS parameter in `url`'s query string: libpq's `ssl*` keys
/// (`sslmode`, `sslnegotiation`, `sslrootcert`, `sslcert`, `sslkey`, ...), which
/// `--tls` and `--tls-ca` set instead.
fn ssl_parameter(url: &str) -> Option<String> {
    super::tls_url_parameter(url, |key| key.starts_with("ssl"))
}

/// libpq's TLS connection parameters (PostgreSQL 15, "Parameter Key Words"):
/// the names a refusal echoes.
const PG_TLS_PARAMETERS: [&str; 13] = [
    "sslmode",
    "sslnegotiation",
    "sslcompression",
    "sslcert",
    "sslkey",
    "sslpassword",
    "sslcertmode",
    "sslrootcert",
    "sslcrl",
    "sslcrldir",
    "sslsni",
    "ssl_min_protocol_version",
    "ssl_max_protocol_version",
];

/// What `pg_stat_ssl` says of the session: its [`TlsSession`] when `ssl` is true with a
/// cipher.
///
/// # Errors
/// No row, `ssl = false` or no cipher ([`ErrorKind::Tls`]): the session is not encrypted.
fn session_of(row: Option<(bool, Option<String>, Option<String>)>) -> Result<TlsSession, DbError> {
    match row {
        Some((true, Some(version), Some(cipher))) if !cipher.is_empty() => {
            Ok(TlsSession { version, cipher })
        }
        _ => Err(DbError::new(
            ErrorKind::Tls,
            "--tls: PostgreSQL reports this connection as not encrypted (pg_stat_ssl.ssl is not true for pg_backend_pid()): oltp refuses to run in plaintext; check that nothing between oltp and the server ends TLS, or run with --tls off",
        )),
    }
}

/// Reads the session's row of `pg_stat_ssl` ([`session_of`]).
async fn ssl_session(client: &Client) -> Result<TlsSession, DbError> {
    let row = client
        .query_opt(
            "SELECT ssl, version, cipher FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
            &[],
        )
        .await
        .map_err(db_error)?;
    let row = match row {
        Some(r) => Some((
            r.try_get::<_, bool>(0).map_err(db_error)?,
            r.try_get::<_, Option<String>>(1).map_err(db_error)?,
            r.try_get::<_, Option<String>>(2).map_err(db_error)?,
        )),
        None => None,
    };
    session_of(row)
}

/// A failed TLS connect, its cause in the text: the server's own error (a refused
/// login) as [`db_error`] gives it; a handshake failure (the server declined
/// TLS, or rustls refused its certificate) is [`ErrorKind::Other`] (not worth a
/// reconnect), with rustls' error name in the text for the caller to explain
/// (`crate::preflight`); anything else (I/O) is classified as usual.
fn tls_connect_error(e: tokio_postgres::Error) -> DbError {
    if e.as_db_error().is_some() {
        // The handshake passed and the server answered (a refused login): its own error.
        return db_error(e);
    }
    let rustls = e
        .source()
        .and_then(|s| s.downcast_ref::<std::io::Error>())
        .and_then(|io| io.get_ref())
        .and_then(|inner| inner.downcast_ref::<rustls::Error>());
    // tokio-postgres' Display is only "error performing TLS handshake": add the cause.
    let text = match e.source() {
        Some(cause) => format!("{e}: {cause}"),
        None => e.to_string(),
    };
    match rustls {
        Some(r) => {
            let name = format!("{r:?}");
            if text.contains(&name) {
                DbError::new(ErrorKind::Other, text)
            } else {
                DbError::new(ErrorKind::Other, format!("{text} ({name})"))
            }
        }
        // tokio-postgres' own: "server does not support TLS" (its answer to SSLRequest was N).
        None if e.source().is_some_and(|c| !c.is::<std::io::Error>()) => {
            DbError::new(ErrorKind::Other, text)
        }
        // I/O (e.g. the server went away mid-handshake): a reconnect may help.
        None => DbError::new(classify(&e), text),
    }
}

/// `USER@HOST:PORT/DB` of `url`, for messages (never the password); `(invalid URL)` for
/// a URL with an unescaped `@` in USER:PASS and for
/// text that is not a `postgres://` / `postgresql://` URL (tokio-postgres would parse a
/// key-value string, whose `host=` may hold anything: found by
/// fuzz/fuzz_targets/cli_parsers.rs).
pub fn target(url: &str) -> String {
    if !(url.starts_with("postgres://") || url.starts_with("postgresql://"))
        || encbench_common::password::check_at_signs(url).is_err()
    {
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

/// The [`ErrorKind`] of a `tokio-postgres` error: a closed connection is a lost
/// one; a server error's SQLSTATE by [`ErrorKind::of_sqlstate`]; an I/O error
/// a lost connection.
pub fn classify(e: &tokio_postgres::Error) -> ErrorKind {
    if e.is_closed() {
        return ErrorKind::ConnectionLost;
    }
    if let Some(code) = e.code() {
        return ErrorKind::of_sqlstate(code.code());
    }
    if e.source().is_some_and(|s| s.is::<std::io::Error>()) {
        return ErrorKind::ConnectionLost;
    }
    ErrorKind::Other
}

/// Runs `request` (a [`Client`] call) to its end, polling the connection's I/O `io` in
/// the same task: the request queues its messages, `io` writes them and reads the
/// answers, and the request is polled again at once when `io` made progress. When `io`
/// ends it is dropped, which fails every pending request as closed.
async fn drive<F: Future>(io: &mut Option<Io>, request: F) -> F::Output {
    let mut request = std::pin::pin!(request);
    std::future::poll_fn(move |cx| {
        if let Poll::Ready(v) = request.as_mut().poll(cx) {
            return Poll::Ready(v);
        }
        if io.as_mut().is_some_and(|c| c.as_mut().poll(cx).is_ready()) {
            *io = None;
        }
        request.as_mut().poll(cx)
    })
    .await
}

/// The server asked for a password and the URL had none: tokio-postgres says only
/// "invalid configuration: password missing", which names neither cause nor fix.
/// Asked of connect errors only (the login is where a password is missing).
fn no_password(e: &tokio_postgres::Error) -> Option<DbError> {
    // tokio-postgres' Display is the kind alone ("invalid configuration"); the cause is
    // its source.
    e.source()
        .is_some_and(|c| c.to_string().contains("password missing"))
        .then(|| {
        DbError::new(
            ErrorKind::Other,
            "the server asks for a password and none was given: give --password-file F (one line, mode 0600) or $PGPASSWORD",
        )
    })
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
        let messages = drive(&mut self.io, self.client.simple_query(sql)).await;
        for m in messages.map_err(db_error)? {
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
        let rows = drive(&mut self.io, self.client.query_typed(sql, &[])).await;
        for r in rows.map_err(db_error)? {
            each(&mut PostgresRow::new(r));
        }
        Ok(())
    }
}

/// `params` as `tokio-postgres` parameters, borrowed in place (an exact-size iterator,
/// as `query_raw` / `execute_raw` take: nothing allocated per statement).
fn bound<'a>(params: &'a [Param<'a>]) -> impl ExactSizeIterator<Item = Bound<'a>> + Send + 'a {
    params.iter().map(|p| Bound(*p))
}

impl Connection for PostgresConnection {
    const DRIVER: DbDriver = DbDriver::Pgsql;
    type Statement = PostgresStatement;
    type Row = PostgresRow;

    fn target(url: &str) -> String {
        target(url)
    }

    fn check_options(opts: &ConnectOptions) -> Result<(), DbError> {
        pg_config(opts).map(drop)
    }

    async fn connect(opts: &ConnectOptions) -> Result<Self, DbError> {
        let mut cfg = pg_config(opts)?;
        // The connection's I/O is polled by each request (`drive`); its errors surface
        // on the client.
        let (client, io, tls): (Client, Io, _) = match &opts.tls {
            None => {
                cfg.ssl_mode(SslMode::Disable);
                let (client, connection) = cfg
                    .connect(NoTls)
                    .await
                    .map_err(|e| no_password(&e).unwrap_or_else(|| db_error(e)))?;
                (client, Box::pin(connection), None)
            }
            Some(t) => {
                cfg.ssl_mode(SslMode::Require);
                let (client, connection) = cfg
                    .connect(pg_tls::connector(t)?)
                    .await
                    .map_err(|e| no_password(&e).unwrap_or_else(|| tls_connect_error(e)))?;
                (client, Box::pin(connection), Some(()))
            }
        };
        let mut io = Some(io);
        let tls = match tls {
            Some(()) => Some(drive(&mut io, ssl_session(&client)).await?),
            None => None,
        };
        Ok(PostgresConnection {
            client,
            io,
            ps_mode: opts.ps_mode,
            tls,
            sql: String::with_capacity(256),
        })
    }

    fn tls_session(&self) -> Option<&TlsSession> {
        self.tls.as_ref()
    }

    async fn prepare(&mut self, sql: &str) -> Result<PostgresStatement, DbError> {
        Ok(match self.ps_mode {
            PsMode::Auto => PostgresStatement::Prepared(
                drive(&mut self.io, self.client.prepare(&numbered(sql)))
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
                // `query_raw` over the borrowed params, its rows taken as they stream:
                // no Vec of params, of `&dyn ToSql` or of rows per statement (`query`
                // builds all three).
                let client = &self.client;
                let request = async move {
                    let rows = client.query_raw(st, bound(params)).await?;
                    let mut rows = std::pin::pin!(rows);
                    while let Some(r) = rows.try_next().await? {
                        each(&mut PostgresRow::new(r));
                    }
                    Ok(())
                };
                drive(&mut self.io, request).await.map_err(db_error)
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
                drive(&mut self.io, self.client.execute_raw(st, bound(params)))
                    .await
                    .map_err(db_error)
            }
            PostgresStatement::Text(sql) => self.execute_text(sql, params).await,
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

    async fn copy_in<I>(&mut self, sql: &str, chunks: I) -> Result<u64, DbError>
    where
        I: Iterator<Item = Result<Vec<u8>, DbError>> + Send,
    {
        use futures_util::SinkExt as _;
        let sink = drive(&mut self.io, self.client.copy_in(sql))
            .await
            .map_err(db_error)?;
        let mut sink = std::pin::pin!(sink);
        for chunk in chunks {
            drive(&mut self.io, sink.send(bytes::Bytes::from(chunk?)))
                .await
                .map_err(db_error)?;
        }
        drive(&mut self.io, sink.as_mut().finish())
            .await
            .map_err(db_error)
    }

    async fn close(self) {
        // Dropping the client queues Terminate; the I/O then sends it and ends.
        let PostgresConnection { client, io, .. } = self;
        drop(client);
        if let Some(io) = io {
            let _ = io.await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_encrypted_session_passes() {
        let ok = session_of(Some((
            true,
            Some("TLSv1.3".into()),
            Some("TLS_AES_256_GCM_SHA384".into()),
        )))
        .expect("encrypted");
        assert_eq!(ok.version, "TLSv1.3");
        for row in [
            None,
            Some((false, None, None)),
            Some((true, Some("TLSv1.3".into()), None)),
            Some((true, Some("TLSv1.3".into()), Some(String::new()))),
        ] {
            let e = session_of(row).expect_err("not encrypted");
            assert_eq!(e.kind(), ErrorKind::Tls);
            assert!(e.to_string().contains("--tls off"), "{e}");
        }
    }

    #[test]
    fn sslmode_in_the_url_is_refused_naming_tls() {
        for url in [
            "postgres://u:p@h:5432/db?sslmode=require",
            "postgres://u:p@h:5432/db?application_name=x&SSLMODE=disable",
            "postgres://u:p@h:5432/db?sslnegotiation=direct",
            "postgres://u:p@h:5432/db?sslrootcert=/tmp/ca.pem",
            "postgres://u:p@h:5432/db?ssl%6Dode=disable",
        ] {
            let e = pg_config(&ConnectOptions::new(url)).expect_err("refused");
            let text = e.to_string();
            assert!(text.contains("--tls") && !text.contains("u:p"), "{text}");
        }
        assert!(
            pg_config(&ConnectOptions::new(
                "postgres://u:p@h:5432/db?application_name=x"
            ))
            .is_ok()
        );
    }

    /// tokio-postgres ends USER:PASS at the first '@', so `p@ss-canary@host`
    /// was read as password `p`, host `ss-canary@host`, shown by `target` and errors.
    #[test]
    fn an_at_in_the_password_is_refused_and_never_shown() {
        let url = "postgres://u:p@ss-canary@127.0.0.1:5432/db";
        assert_eq!(target(url), "(invalid URL)");
        let e = pg_config(&ConnectOptions::new(url))
            .expect_err("an unescaped @ is refused")
            .to_string();
        assert!(e.contains("percent-encode @ as %40"), "{e}");
        assert!(!e.contains("canary") && !e.contains("ss-"), "{e}");
        let encoded = "postgres://u:p%40ss-canary@127.0.0.1:5432/db";
        let cfg = pg_config(&ConnectOptions::new(encoded)).expect("%40 is accepted");
        assert_eq!(cfg.get_password(), Some(&b"p@ss-canary"[..]));
        assert_eq!(target(encoded), "u@127.0.0.1:5432/db");
        let debug = format!("{:?}", ConnectOptions::new(encoded));
        assert!(!debug.contains("canary"), "{debug}");
    }

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
