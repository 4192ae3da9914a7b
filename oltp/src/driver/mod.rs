//! The database-driver seam: every statement a worker sends goes through
//! [`Connection`], so the workloads (`crate::workload`) never know which server
//! or client library they talk to.
//!
//! The trait is small on purpose (go-tpc's `Workloader` / driver split):
//! connect (with TLS options), prepare, run a prepared statement with
//! [`Param`]s and read its rows, run a text statement (BEGIN, COMMIT, ...), and
//! the [`ErrorKind`]s the workloads count (deadlock, lock wait, lost connection).
//! Rows are read through [`Row`], whose column values are borrowed bytes the
//! column codec opens in place; no type of any one client library (its `Row`,
//! its `Value`) appears here, so a lean driver that decodes packets straight
//! into borrowed slices fits as well as `mysql_async`.
//!
//! The methods return futures. A blocking driver fits too: each worker is one
//! OS thread with its own current-thread runtime (`crate::worker`), so a driver
//! may do its I/O synchronously inside the future and return it ready.
//!
//! Implementations: [`mysql`] (`mysql_async` on `tokio`, MariaDB and MySQL) and
//! [`postgres`] (`tokio-postgres`, PostgreSQL), chosen by name ([`DbDriver`],
//! sysbench's `--db-driver`) in one place: `with_driver!`.

use std::fmt;
use std::future::Future;
use std::path::PathBuf;

pub mod mysql;
pub(crate) mod mysql_text;
pub(crate) mod pg_text;
pub mod pg_tls;
pub mod postgres;
mod tls_failure;

pub use mysql::MysqlConnection;
pub use postgres::PostgresConnection;
pub(crate) use tls_failure::tls_failure;

/// A value bound to a statement placeholder.
///
/// `Text` and `Binary` are kept apart because servers type them apart (a
/// MySQL text-protocol literal is `'..'` or `X'..'`; PostgreSQL has `text` and
/// `bytea`): sysbench's `c`/`pad` strings are text, envelopes are binary.
/// `Debug` shows lengths only: a value may be plaintext.
#[derive(Clone, Copy)]
pub enum Param<'a> {
    /// An integer (`id`, plaintext `k`, range bounds).
    Int(i64),
    /// A character string (sysbench's digits-and-dashes values).
    Text(&'a [u8]),
    /// Binary data (a column envelope).
    Binary(&'a [u8]),
}

impl fmt::Debug for Param<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Param::Int(n) => write!(f, "Int({n})"),
            Param::Text(b) => write!(f, "Text({} bytes)", b.len()),
            Param::Binary(b) => write!(f, "Binary({} bytes)", b.len()),
        }
    }
}

impl From<u32> for Param<'_> {
    fn from(n: u32) -> Self {
        Param::Int(i64::from(n))
    }
}

impl From<i64> for Param<'_> {
    fn from(n: i64) -> Self {
        Param::Int(n)
    }
}

/// One row of a result set, as the driver holds it; valid only inside the
/// row callback of [`Connection::query`].
pub trait Row {
    /// Column `i` (0-based) as an integer: `None` for NULL, a missing column,
    /// or a value that is not an integer (text digits are parsed).
    fn int(&mut self, i: usize) -> Option<i64>;

    /// Column `i` as bytes, mutable so an envelope can be opened in place:
    /// `None` for NULL or a missing column. Integers come as their decimal digits.
    fn bytes(&mut self, i: usize) -> Option<&mut [u8]>;

    /// Column `i` as bytes when the row has that column: `Some(None)` for
    /// NULL, `None` past the last column.
    fn column(&mut self, i: usize) -> Option<Option<&[u8]>>;

    /// Column `i` as an owned buffer, for values the caller keeps (a range's
    /// `c` values, sorted after decryption). The default copies
    /// [`Row::bytes`]; a driver that already owns a buffer per value moves it
    /// out instead.
    fn take_bytes(&mut self, i: usize) -> Option<Vec<u8>> {
        self.bytes(i).map(|b| b.to_vec())
    }
}

/// The database driver, as sysbench's `--db-driver` names it (`drv_mysql.c`,
/// `drv_pgsql.c`); `with_driver!` turns it into its [`Connection`] type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum DbDriver {
    /// MariaDB or MySQL (mysql_async).
    Mysql,
    /// PostgreSQL (tokio-postgres).
    Pgsql,
}

impl DbDriver {
    /// The driver whose URL scheme `url` has: `postgres://` or `postgresql://`
    /// is `pgsql`, anything else `mysql` (the command line checks a URL's
    /// scheme against `--db-driver` before anything connects).
    pub fn of_url(url: &str) -> DbDriver {
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            DbDriver::Pgsql
        } else {
            DbDriver::Mysql
        }
    }

    /// `mysql` or `pgsql`, as `--db-driver` spells it.
    pub fn name(self) -> &'static str {
        match self {
            DbDriver::Mysql => "mysql",
            DbDriver::Pgsql => "pgsql",
        }
    }

    /// The SQL dialect of the driver's servers.
    pub fn dialect(self) -> Dialect {
        match self {
            DbDriver::Mysql => Dialect::Mysql,
            DbDriver::Pgsql => Dialect::Postgres,
        }
    }
}

/// Which server's SQL: the driver's dialect. The SQL that differs per dialect
/// is `crate::schema::dialect`'s.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// MariaDB and MySQL.
    Mysql,
    /// PostgreSQL.
    Postgres,
}

impl Dialect {
    /// The dialect of a server URL, its driver's ([`DbDriver::of_url`]):
    /// `postgres://` or `postgresql://` is PostgreSQL, anything else MySQL's.
    pub fn of_url(url: &str) -> Dialect {
        DbDriver::of_url(url).dialect()
    }
}

impl fmt::Display for DbDriver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Evaluates `$body` with the type name `$C` standing for the [`Connection`] of
/// the [`DbDriver`] `$driver`: the one place a driver's name becomes its
/// connection type, so the code it runs (the worker loop above all) is
/// generic over `C` and monomorphised, with no dynamic dispatch per query.
///
/// ```ignore
/// with_driver!(driver, C => run_with::<C>(cfg).await)
/// ```
#[macro_export]
macro_rules! with_driver {
    ($driver:expr, $C:ident => $body:expr) => {
        match $driver {
            $crate::driver::DbDriver::Mysql => {
                type $C = $crate::driver::mysql::MysqlConnection;
                $body
            }
            $crate::driver::DbDriver::Pgsql => {
                type $C = $crate::driver::postgres::PostgresConnection;
                $body
            }
        }
    };
}
pub use crate::with_driver;

/// What kind of failure a [`DbError`] is, as the workloads count it (sysbench's
/// `--mysql-ignore-errors` default list and its reconnect codes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A deadlock (MySQL 1213, PostgreSQL 40P01): the transaction was rolled back; restart it.
    Deadlock,
    /// A lock wait timeout (MySQL 1205): the statement was rolled back; restart.
    LockWaitTimeout,
    /// The row changed since it was read (MySQL 1020); restart.
    RecordChanged,
    /// The transaction could not be serialized (PostgreSQL 40001); restart.
    SerializationFailure,
    /// A unique key already holds the value (PostgreSQL 23505, which sysbench's pgsql
    /// driver ignores: its `oltp_insert` may draw a taken id); restart.
    DuplicateKey,
    /// The connection is gone (MySQL client errors 2006, 2011, 2013, 2055,
    /// server shutdown 1053, 1927; an I/O error): reconnect and restart.
    ConnectionLost,
    /// TLS was asked for but the session is not encrypted, or TLS failed.
    Tls,
    /// Anything else: the run stops.
    Other,
}

/// MySQL and MariaDB codes of a lost connection, sysbench's reconnect codes
/// (`drv_mysql.c`): client errors 2006 (server gone away), 2011, 2013 (lost
/// during a query) and 2055 (lost at the handshake); server errors 1053
/// (server shutdown) and 1927 (connection killed).
const MYSQL_CONNECTION_LOST: [u16; 6] = [2013, 2055, 2006, 2011, 1927, 1053];

impl ErrorKind {
    /// The kind of MySQL / MariaDB error code `code` (a server error, or a
    /// client error of the 2000 range): 1213 deadlock, 1205 lock wait timeout
    /// and 1020 record changed (sysbench's default `--mysql-ignore-errors`),
    /// the lost-connection codes (2006, 2011, 2013, 2055, 1053, 1927), anything else
    /// [`ErrorKind::Other`].
    pub fn of_mysql_code(code: u16) -> ErrorKind {
        match code {
            1213 => ErrorKind::Deadlock,
            1205 => ErrorKind::LockWaitTimeout,
            1020 => ErrorKind::RecordChanged,
            c if MYSQL_CONNECTION_LOST.contains(&c) => ErrorKind::ConnectionLost,
            _ => ErrorKind::Other,
        }
    }

    /// The kind of PostgreSQL SQLSTATE `code` (five characters): 40P01
    /// deadlock_detected, 40001 serialization_failure and 23505
    /// unique_violation (the three sysbench's `pgsql_check_status` ignores);
    /// class 08 (connection exception) and 57P01-57P03 (admin shutdown, crash
    /// shutdown, cannot connect now) a lost connection; anything else
    /// [`ErrorKind::Other`].
    pub fn of_sqlstate(code: &str) -> ErrorKind {
        match code {
            "40P01" => ErrorKind::Deadlock,
            "40001" => ErrorKind::SerializationFailure,
            "23505" => ErrorKind::DuplicateKey,
            "57P01" | "57P02" | "57P03" => ErrorKind::ConnectionLost,
            c if c.starts_with("08") => ErrorKind::ConnectionLost,
            _ => ErrorKind::Other,
        }
    }

    /// Whether sysbench ignores it by default (counts it and restarts the event).
    pub fn is_ignorable(self) -> bool {
        matches!(
            self,
            ErrorKind::Deadlock
                | ErrorKind::LockWaitTimeout
                | ErrorKind::RecordChanged
                | ErrorKind::SerializationFailure
                | ErrorKind::DuplicateKey
        )
    }
}

/// A driver or server error with its [`ErrorKind`]; `Display` is the driver's
/// own message (the server's error text and code where it sent one).
#[derive(Debug)]
pub struct DbError {
    kind: ErrorKind,
    source: Box<dyn std::error::Error + Send + Sync + 'static>,
}

impl DbError {
    /// `source` classified as `kind`.
    pub fn new(
        kind: ErrorKind,
        source: impl Into<Box<dyn std::error::Error + Send + Sync + 'static>>,
    ) -> DbError {
        DbError {
            kind,
            source: source.into(),
        }
    }

    /// How the workloads treat it.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }
}

impl fmt::Display for DbError {
    /// The driver's message, each repeated `": "` segment once (mysql_async
    /// prints "Input/output error: Input/output error: ...").
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = self.source.to_string();
        f.write_str(&encbench_common::cli_error::repeated_segments_once(&text))
    }
}

impl std::error::Error for DbError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.source()
    }
}

/// How statements are sent: sysbench's `--db-ps-mode`.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum PsMode {
    /// Server-side prepared statements (sysbench's default, `auto`).
    #[default]
    #[serde(rename = "auto")]
    Auto,
    /// The text protocol, values inlined in the SQL (`disable`): needs no
    /// prepared-statement budget on the server.
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

impl fmt::Display for PsMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
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

/// Makes rustls' aws-lc-rs provider the process's default, once (later calls
/// do nothing). rustls is built with two providers (aws-lc-rs and ring, for
/// tls-bench), so a TLS configuration built without naming one (as
/// `mysql_async` builds its own) would otherwise panic: "Could not
/// automatically determine the process-level CryptoProvider". Called first by
/// [`crate::commands::execute`] and again before each TLS connection.
pub fn install_tls_provider() {
    // An error means a provider is installed already: the first one stays.
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
}

/// The first parameter of `url`'s query string (its key percent-decoded, as
/// the drivers decode it) that `is_tls` says sets TLS: such a parameter would
/// bypass `--tls`, so the drivers refuse it, naming it ([`tls_parameter_name`]).
/// `None`: no query, or no such key.
pub(crate) fn tls_url_parameter(url: &str, is_tls: impl Fn(&str) -> bool) -> Option<String> {
    let query = url.split_once('?')?.1;
    let query = query.split_once('#').map_or(query, |(q, _)| q);
    query.split('&').find_map(|kv| {
        let key = kv.split_once('=').map_or(kv, |(k, _)| k);
        let key = percent_encoding::percent_decode_str(key)
            .decode_utf8_lossy()
            .to_ascii_lowercase();
        is_tls(&key).then_some(key)
    })
}

/// How a refusal names the TLS parameter `key`: the key itself when it is one of
/// the driver's `known` names, else fixed words. The key is text cut from the
/// URL, which in a malformed URL may hold the password (found by
/// fuzz/fuzz_targets/cli_parsers.rs): only names the driver defines are echoed.
pub(crate) fn tls_parameter_name(key: &str, known: &[&str]) -> String {
    if known.contains(&key) {
        format!("{key}=")
    } else {
        "a TLS parameter (ssl or tls in its name)".to_string()
    }
}

/// TLS on a connection: verified against `ca` (PEM) when given, else against
/// the built-in web PKI roots, as far as `mode` asks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TlsOptions {
    /// CA certificate (PEM) the server's certificate must chain to.
    pub ca: Option<PathBuf>,
    /// How much of the server's certificate is checked.
    pub mode: TlsMode,
}

/// How a TLS connection checks the server, MySQL's `--ssl-mode` levels
/// (`REQUIRED`, `VERIFY_CA`, `VERIFY_IDENTITY`). Every level encrypts, and
/// every connection checks that the server reports a cipher: only the
/// certificate checks differ.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TlsMode {
    /// Encrypted, the certificate not verified (MySQL's `REQUIRED`): for a
    /// server whose certificate cannot be verified (e.g. an X.509 v1
    /// certificate, which rustls refuses). Open to an active man in the middle.
    Required,
    /// The certificate must chain to the CA; its host name is not checked
    /// (`VERIFY_CA`).
    VerifyCa,
    /// The certificate must chain to the CA and name the host of the URL
    /// (`VERIFY_IDENTITY`, the default).
    #[default]
    VerifyIdentity,
}

impl TlsMode {
    /// `required`, `verify-ca` or `verify-identity`, as `--tls` spells it.
    pub fn name(self) -> &'static str {
        match self {
            TlsMode::Required => "required",
            TlsMode::VerifyCa => "verify-ca",
            TlsMode::VerifyIdentity => "verify-identity",
        }
    }

    /// The level as the server's own clients call it, for text: [`Self::name`],
    /// except `verify-full` (libpq's `sslmode`) for `verify-identity` on
    /// PostgreSQL (`postgres`).
    pub fn label(self, postgres: bool) -> &'static str {
        match self {
            TlsMode::VerifyIdentity if postgres => "verify-full",
            other => other.name(),
        }
    }
}

/// What a TLS session negotiated, as the server reports it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TlsSession {
    /// Protocol version, e.g. `TLSv1.3`.
    pub version: String,
    /// Cipher suite, e.g. `TLS_AES_256_GCM_SHA384`.
    pub cipher: String,
}

/// Where and how to connect: everything a driver needs, in no driver's types.
/// `Debug` shows the URL without its password.
#[derive(Clone)]
pub struct ConnectOptions {
    /// The server URL (`mysql://USER:PASS@HOST:PORT`).
    pub url: String,
    /// Default database, if any.
    pub database: Option<String>,
    /// TLS, or `None` for plain TCP. With TLS every connection checks that the
    /// session really is encrypted, so a plaintext fallback cannot pass.
    pub tls: Option<TlsOptions>,
    /// Prepared or text protocol.
    pub ps_mode: PsMode,
    /// Prepared statements the connection keeps open (the workload's count plus
    /// headroom): a driver with a statement cache sizes it to this.
    pub statements: usize,
}

impl fmt::Debug for ConnectOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ConnectOptions")
            .field(
                "url",
                &encbench_common::password::ServerUrl::from(self.url.as_str()),
            )
            .field("database", &self.database)
            .field("tls", &self.tls)
            .field("ps_mode", &self.ps_mode)
            .field("statements", &self.statements)
            .finish()
    }
}

impl ConnectOptions {
    /// `url` with no database, no TLS, prepared statements, room for 16.
    pub fn new(url: impl Into<String>) -> ConnectOptions {
        ConnectOptions {
            url: url.into(),
            database: None,
            tls: None,
            ps_mode: PsMode::Auto,
            statements: 16,
        }
    }

    /// The same with default database `db`.
    pub fn database(mut self, db: impl Into<String>) -> ConnectOptions {
        self.database = Some(db.into());
        self
    }
}

/// One client connection: what every workload statement goes through.
///
/// Futures are `Send` so a connection can serve the admin steps of a
/// multi-threaded runtime as well as a worker's current-thread one.
///
/// The ways to send a statement differ in two things, how it is sent and what
/// comes back:
///
/// | method | sent as | values | returns |
/// |---|---|---|---|
/// | [`query`](Self::query) | a [`prepare`](Self::prepare)d statement | [`Param`]s | each row to a callback |
/// | [`execute`](Self::execute) | a prepared statement | [`Param`]s | affected rows |
/// | [`simple`](Self::simple) | text | none | affected rows (rows dropped) |
/// | [`execute_text`](Self::execute_text) | text, unprepared | [`Param`]s inlined as literals | affected rows |
/// | [`simple_query`](Self::simple_query) | text | none | each row to a callback |
/// | [`query_text`](Self::query_text) | text | none | every row as owned strings (admin only) |
///
/// A prepared statement is server-side with [`PsMode::Auto`] and text with its
/// values inlined with [`PsMode::Disable`]: the workloads' code is the same.
pub trait Connection: Sized + Send {
    /// The driver this is, which knows its SQL dialect ([`DbDriver::dialect`]).
    const DRIVER: DbDriver;

    /// A prepared statement (or, in text mode, the SQL ready for inlining).
    type Statement: Send + Sync;

    /// The driver's row, handed to the row callbacks (a concrete type, so the
    /// per-row path is statically dispatched and inlined).
    type Row: Row;

    /// `USER@HOST:PORT` of `url` (PostgreSQL: `USER@HOST:PORT/DB`) for
    /// messages, never the password; `(invalid URL)` for one the driver cannot
    /// read.
    fn target(url: &str) -> String;

    /// Checks `opts` as [`Connection::connect`] does before it connects (the
    /// URL, its parameters, the TLS CA file), so a caller can tell these
    /// errors from a failure to connect.
    ///
    /// # Errors
    /// What `connect` would refuse before connecting, naming the flag.
    fn check_options(opts: &ConnectOptions) -> Result<(), DbError>;

    /// Connects; with `opts.tls`, checks that the session is encrypted.
    ///
    /// # Errors
    /// The server is unreachable, refuses the login, or TLS fails
    /// ([`ErrorKind::Tls`]).
    fn connect(opts: &ConnectOptions) -> impl Future<Output = Result<Self, DbError>> + Send;

    /// The negotiated TLS session, when the connection uses TLS.
    fn tls_session(&self) -> Option<&TlsSession>;

    /// Prepares `sql` (placeholders `?`) in the connection's [`PsMode`].
    ///
    /// # Errors
    /// The server refuses the statement.
    fn prepare(
        &mut self,
        sql: &str,
    ) -> impl Future<Output = Result<Self::Statement, DbError>> + Send;

    /// Runs `statement` with `params` and calls `each` on every row.
    ///
    /// # Errors
    /// Server or connection errors; a parameter count that does not match.
    fn query<F: FnMut(&mut Self::Row) + Send>(
        &mut self,
        statement: &Self::Statement,
        params: &[Param<'_>],
        each: F,
    ) -> impl Future<Output = Result<(), DbError>> + Send;

    /// Runs a statement that returns no rows (DML); returns the affected rows.
    ///
    /// # Errors
    /// Server or connection errors.
    fn execute(
        &mut self,
        statement: &Self::Statement,
        params: &[Param<'_>],
    ) -> impl Future<Output = Result<u64, DbError>> + Send;

    /// Sends `sql` as text (BEGIN, COMMIT, DDL, a statement with its values
    /// inlined); returns the affected rows. A result set is read and dropped.
    ///
    /// # Errors
    /// Server or connection errors.
    fn simple(&mut self, sql: &str) -> impl Future<Output = Result<u64, DbError>> + Send;

    /// Sends `sql` over the text protocol with `params` inlined at its `?`
    /// placeholders as literals of the server's dialect (sysbench's
    /// `oltp_insert` sends its INSERT this way); returns the affected rows.
    ///
    /// # Errors
    /// Server or connection errors; a parameter count that does not match.
    fn execute_text(
        &mut self,
        sql: &str,
        params: &[Param<'_>],
    ) -> impl Future<Output = Result<u64, DbError>> + Send;

    /// Sends `sql` as text and calls `each` on every row of its result.
    ///
    /// # Errors
    /// Server or connection errors.
    fn simple_query<F: FnMut(&mut Self::Row) + Send>(
        &mut self,
        sql: &str,
        each: F,
    ) -> impl Future<Output = Result<(), DbError>> + Send;

    /// Streams `chunks` (rows in the text format of `sql`, a `COPY ... FROM
    /// STDIN`) to the server; returns the rows copied. Only PostgreSQL has
    /// COPY: the default refuses, naming the statement's first word.
    ///
    /// # Errors
    /// Server or connection errors, an error a chunk carries, or a driver
    /// without COPY.
    fn copy_in<I>(
        &mut self,
        sql: &str,
        chunks: I,
    ) -> impl Future<Output = Result<u64, DbError>> + Send
    where
        I: Iterator<Item = Result<Vec<u8>, DbError>> + Send,
    {
        let what = sql
            .split_whitespace()
            .next()
            .unwrap_or_default()
            .to_string();
        drop(chunks);
        async move {
            Err(DbError::new(
                ErrorKind::Other,
                format!("{what} ... FROM STDIN is PostgreSQL's: this driver has no COPY"),
            ))
        }
    }

    /// Closes the connection politely (errors are of no interest by then).
    fn close(self) -> impl Future<Output = ()> + Send;

    /// Sends `sql` as text and returns every row, each column as text
    /// (`None` for NULL): for the few administrative queries (server version,
    /// settings, catalog lookups), never on a measured path.
    ///
    /// # Errors
    /// Server or connection errors.
    fn query_text(
        &mut self,
        sql: &str,
    ) -> impl Future<Output = Result<Vec<Vec<Option<String>>>, DbError>> + Send {
        async move {
            let mut rows = Vec::new();
            self.simple_query(sql, |row: &mut Self::Row| {
                let mut cols = Vec::new();
                let mut i = 0;
                while let Some(c) = row.column(i) {
                    cols.push(c.map(|b| String::from_utf8_lossy(b).into_owned()));
                    i += 1;
                }
                rows.push(cols);
            })
            .await?;
            Ok(rows)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// sysbench's default `--mysql-ignore-errors` (1213, 1020, 1205) and its
    /// reconnect codes; a duplicate key (1062) is not ignored on MySQL.
    #[test]
    fn mysql_codes() {
        for (code, kind) in [
            (1213, ErrorKind::Deadlock),
            (1205, ErrorKind::LockWaitTimeout),
            (1020, ErrorKind::RecordChanged),
            (2006, ErrorKind::ConnectionLost),
            (2011, ErrorKind::ConnectionLost),
            (2013, ErrorKind::ConnectionLost),
            (2055, ErrorKind::ConnectionLost),
            (1053, ErrorKind::ConnectionLost),
            (1927, ErrorKind::ConnectionLost),
            (1062, ErrorKind::Other),
            (1146, ErrorKind::Other),
            (0, ErrorKind::Other),
        ] {
            assert_eq!(ErrorKind::of_mysql_code(code), kind, "{code}");
        }
        for ignored in [1213, 1205, 1020] {
            assert!(
                ErrorKind::of_mysql_code(ignored).is_ignorable(),
                "{ignored}"
            );
        }
        assert!(!ErrorKind::of_mysql_code(2013).is_ignorable());
    }

    /// The three SQLSTATEs sysbench's `pgsql_check_status` ignores, and the
    /// ones of a lost connection.
    #[test]
    fn sqlstates() {
        for (code, kind) in [
            ("40P01", ErrorKind::Deadlock),
            ("40001", ErrorKind::SerializationFailure),
            ("23505", ErrorKind::DuplicateKey),
            ("57P01", ErrorKind::ConnectionLost),
            ("57P02", ErrorKind::ConnectionLost),
            ("57P03", ErrorKind::ConnectionLost),
            ("08000", ErrorKind::ConnectionLost),
            ("08006", ErrorKind::ConnectionLost),
            ("55P03", ErrorKind::Other),
            ("57014", ErrorKind::Other),
            ("42P01", ErrorKind::Other),
            ("", ErrorKind::Other),
        ] {
            assert_eq!(ErrorKind::of_sqlstate(code), kind, "{code}");
        }
        for ignored in ["40P01", "40001", "23505"] {
            assert!(ErrorKind::of_sqlstate(ignored).is_ignorable(), "{ignored}");
        }
        assert!(!ErrorKind::of_sqlstate("57P01").is_ignorable());
    }

    #[test]
    fn a_driver_is_named_as_sysbench_names_it() {
        use clap::ValueEnum as _;
        for d in DbDriver::value_variants() {
            let v = d.to_possible_value().expect("a value");
            assert_eq!(v.get_name(), d.name());
        }
        assert_eq!(DbDriver::of_url("postgresql://u@h/db"), DbDriver::Pgsql);
        assert_eq!(DbDriver::of_url("postgres://u@h/db"), DbDriver::Pgsql);
        assert_eq!(DbDriver::of_url("mysql://u@h"), DbDriver::Mysql);
        assert_eq!(DbDriver::Pgsql.dialect(), Dialect::Postgres);
        assert_eq!(DbDriver::Mysql.dialect(), Dialect::Mysql);
    }
}
