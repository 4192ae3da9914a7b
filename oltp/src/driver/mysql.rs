//! [`Connection`] over `mysql_async` on `tokio`, for MariaDB and MySQL.
//!
//! TCP always (never the Unix socket, even on localhost); TLS through
//! mysql_async's rustls with the aws-lc-rs provider, verified against the given
//! CA only, and checked on every connection: the server must report a
//! non-empty `Ssl_cipher`. `--db-ps-mode disable` sends statements over the
//! text protocol with the values inlined (`mysql_text`).

use mysql_async::prelude::*;
use mysql_async::{Conn, Opts, OptsBuilder, SslOpts, Statement, Value};

use super::mysql_text::TextStatement;
use super::{
    ConnectOptions, Connection, DbDriver, DbError, ErrorKind, Param, PsMode, Row, TlsSession,
};
use crate::server::{BENCH_USER, PrivateServer};

/// One `mysql_async` connection.
pub struct MysqlConnection {
    conn: Conn,
    ps_mode: PsMode,
    tls: Option<TlsSession>,
    /// Text mode's SQL, reused between statements.
    sql: String,
}

/// A statement of a [`MysqlConnection`]: server-side prepared, or SQL split at
/// its placeholders for inlining (text mode).
pub enum MysqlStatement {
    /// `--db-ps-mode auto`.
    Prepared(Statement),
    /// `--db-ps-mode disable`.
    Text(TextStatement),
}

/// `mysql_async` options for `opts`: TCP even on localhost (a `?socket=` in the
/// URL is refused), the statement cache
/// sized to `opts.statements` (at least 16), the database, and TLS.
///
/// # Errors
/// `opts.url` is not a valid `mysql://` URL, has an unescaped `@` in USER:PASS
/// ([`encbench_common::password::check_at_signs`]), or names a Unix socket;
/// `--tls-ca` cannot be read ([`super::pg_tls::read_ca`]).
pub fn mysql_opts(opts: &ConnectOptions) -> Result<Opts, DbError> {
    let url = &opts.url;
    // mysql_async (the url crate) would read u:p@ss@h as user u, host h, but
    // tokio-postgres as host ss@h: one rule for both drivers, the libpq advice.
    encbench_common::password::check_at_signs(url)
        .map_err(|e| DbError::new(ErrorKind::Other, format!("--mysql-url: {e}")))?;
    if let Some(key) = tls_parameter(url) {
        let name = super::tls_parameter_name(&key, &MYSQL_TLS_PARAMETERS);
        return Err(DbError::new(
            ErrorKind::Other,
            format!(
                "--mysql-url has {name}: oltp sets TLS with --tls (off, on, verify-ca, required) and --tls-ca FILE; remove it from the URL"
            ),
        ));
    }
    // The URL itself is not repeated: it may hold the password (found by
    // fuzz/fuzz_targets/cli_parsers.rs).
    let parsed = Opts::from_url(url).map_err(|e| {
        DbError::new(
            ErrorKind::Other,
            format!(
                "--mysql-url is not a valid mysql:// URL ({}): use mysql://USER@HOST:PORT, the password in --password-file F or $MYSQL_PWD",
                url_problem(&e)
            ),
        )
    })?;
    if parsed.socket().is_some() {
        // mysql_async would use the socket despite prefer_socket(false), and
        // TLS over it fails with "Packets out of sync": refuse it here.
        return Err(DbError::new(
            ErrorKind::Other,
            "--mysql-url has ?socket=: oltp connects over TCP only (TLS and the measurements assume it); remove ?socket= and give HOST:PORT",
        ));
    }
    // The url crate keeps an IPv6 literal's brackets ("[::1]"), which
    // mysql_async would then resolve as a host name and fail: pass the address.
    let host = unbracket(parsed.ip_or_hostname()).to_string();
    let mut b = OptsBuilder::from_opts(parsed)
        .ip_or_hostname(host)
        .prefer_socket(false)
        .stmt_cache_size(opts.statements.max(16))
        .db_name(opts.database.clone());
    if let Some(tls) = &opts.tls {
        super::install_tls_provider();
        let mut ssl = SslOpts::default();
        match tls.mode {
            super::TlsMode::Required => ssl = ssl.with_danger_accept_invalid_certs(true),
            super::TlsMode::VerifyCa => ssl = ssl.with_danger_skip_domain_validation(true),
            super::TlsMode::VerifyIdentity => {}
        }
        if let Some(ca) = &tls.ca {
            // Read here, bounded: given the path, mysql_async would read it whole
            // at every connection.
            let pem = super::pg_tls::read_ca(ca)?;
            ssl = ssl
                .with_root_certs(vec![pem.into()])
                .with_disable_built_in_roots(true);
        }
        b = b.ssl_opts(ssl);
    }
    Ok(b.into())
}

/// The first TLS parameter in `url`'s query string: `mysql_async`'s
/// `require_ssl`, `verify_ca`, `verify_identity` and `built_in_roots` (its
/// `Opts::from_url`), or any other key naming ssl or tls (`ssl-mode`,
/// `ssl_ca`, ... of other clients), which `--tls` and `--tls-ca` set instead.
pub fn tls_parameter(url: &str) -> Option<String> {
    super::tls_url_parameter(url, |key| {
        MYSQL_TLS_PARAMETERS.contains(&key) || key.contains("ssl") || key.contains("tls")
    })
}

/// mysql_async 0.37's TLS URL parameters, and MySQL's spellings of the TLS mode
/// a user may try: the names a refusal echoes.
const MYSQL_TLS_PARAMETERS: [&str; 8] = [
    "require_ssl",
    "verify_ca",
    "verify_identity",
    "built_in_roots",
    "ssl-mode",
    "ssl_mode",
    "sslmode",
    "tls",
];

/// What is wrong with a URL `mysql_async` refused, in fixed words: its own
/// message quotes pieces of the URL (the scheme, a parameter and its value),
/// which may hold the password (found by fuzz/fuzz_targets/cli_parsers.rs).
fn url_problem(e: &mysql_async::UrlError) -> String {
    use mysql_async::UrlError as U;
    match e {
        U::UnsupportedScheme { .. } => "the scheme is not mysql".to_string(),
        U::Parse(p) => format!("cannot parse it: {p}"),
        U::UnknownParameter { .. } => "an unknown URL parameter".to_string(),
        U::InvalidParamValue { .. } => "a URL parameter has an invalid value".to_string(),
        U::FeatureRequired { .. } => "a URL parameter needs a feature this build lacks".to_string(),
        _ => "invalid or incomplete".to_string(),
    }
}

/// The address inside an IPv6 literal's brackets (`[::1]` -> `::1`); any other
/// host unchanged.
fn unbracket(host: &str) -> &str {
    host.strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host)
}

/// `USER@HOST:PORT` of `url`, for messages (never the password); an IPv6
/// address in brackets, as in the URL; `(invalid URL)` for one `mysql_opts` refuses
/// as unparsable or for an unescaped `@`.
pub fn target(url: &str) -> String {
    if encbench_common::password::check_at_signs(url).is_err() {
        return "(invalid URL)".to_string();
    }
    match Opts::from_url(url) {
        Ok(o) => {
            let host = unbracket(o.ip_or_hostname());
            let host = if host.contains(':') {
                format!("[{host}]")
            } else {
                host.to_string()
            };
            format!("{}@{}:{}", o.user().unwrap_or(""), host, o.tcp_port())
        }
        Err(_) => "(invalid URL)".to_string(),
    }
}

/// mysql_async options for the private server's [`url`](PrivateServer::url) with
/// `prefer_socket` off, so connections really use TCP (and TLS when the caller
/// adds it).
pub fn private_server_opts(server: &PrivateServer) -> Opts {
    OptsBuilder::default()
        .ip_or_hostname("127.0.0.1")
        .tcp_port(server.port())
        .user(Some(BENCH_USER))
        .pass(Some(server.password()))
        .prefer_socket(false)
        .into()
}

/// The [`ErrorKind`] of a `mysql_async` error: a server error's code by
/// [`ErrorKind::of_mysql_code`]; an I/O error or a closed connection is a lost
/// connection.
pub fn classify(e: &mysql_async::Error) -> ErrorKind {
    match e {
        mysql_async::Error::Server(s) => ErrorKind::of_mysql_code(s.code),
        mysql_async::Error::Io(_) => ErrorKind::ConnectionLost,
        mysql_async::Error::Driver(
            mysql_async::DriverError::ConnectionClosed | mysql_async::DriverError::PoolDisconnected,
        ) => ErrorKind::ConnectionLost,
        _ => ErrorKind::Other,
    }
}

fn db_error(e: mysql_async::Error) -> DbError {
    DbError::new(classify(&e), e)
}

/// Refuses `params` unless there is one per placeholder of `st`: `mysql_async`
/// would refuse them too, but by closing the connection.
///
/// # Errors
/// The counts differ.
#[inline(always)]
fn check_count(st: &Statement, params: &[Param<'_>]) -> Result<(), DbError> {
    if usize::from(st.num_params()) == params.len() {
        return Ok(());
    }
    Err(DbError::new(
        ErrorKind::Other,
        format!(
            "statement has {} placeholders but {} values were given",
            st.num_params(),
            params.len()
        ),
    ))
}

/// The `mysql_async` value of a parameter.
#[inline(always)]
fn value(p: &Param<'_>) -> Value {
    match *p {
        Param::Int(n) => Value::Int(n),
        Param::Text(b) | Param::Binary(b) => Value::Bytes(b.to_vec()),
    }
}

#[inline(always)]
fn positional(params: &[Param<'_>]) -> mysql_async::Params {
    mysql_async::Params::Positional(params.iter().map(value).collect())
}

/// A `mysql_async` row behind [`Row`]: its values, taken out of the row
/// whole (no copy); bytes are handed out in place, integers in a text row are
/// parsed from their digits.
#[derive(Debug)]
pub struct MysqlRow {
    values: Vec<Option<Value>>,
}

impl MysqlRow {
    #[inline(always)]
    fn new(row: mysql_async::Row) -> MysqlRow {
        MysqlRow {
            values: row.unwrap_raw(),
        }
    }
}

impl Row for MysqlRow {
    #[inline(always)]
    fn int(&mut self, i: usize) -> Option<i64> {
        match self.values.get(i)?.as_ref()? {
            Value::Int(n) => Some(*n),
            Value::UInt(n) => i64::try_from(*n).ok(),
            Value::Bytes(b) => std::str::from_utf8(b).ok()?.trim().parse().ok(),
            _ => None,
        }
    }

    #[inline]
    fn bytes(&mut self, i: usize) -> Option<&mut [u8]> {
        let slot = self.values.get_mut(i)?;
        let digits = match slot.as_ref()? {
            Value::Bytes(_) => None,
            Value::Int(n) => Some(n.to_string()),
            Value::UInt(n) => Some(n.to_string()),
            _ => return None,
        };
        if let Some(d) = digits {
            *slot = Some(Value::Bytes(d.into_bytes()));
        }
        match slot {
            Some(Value::Bytes(b)) => Some(b.as_mut_slice()),
            _ => None,
        }
    }

    #[inline]
    fn column(&mut self, i: usize) -> Option<Option<&[u8]>> {
        if i >= self.values.len() {
            return None;
        }
        Some(self.bytes(i).map(|b| &*b))
    }

    #[inline(always)]
    fn take_bytes(&mut self, i: usize) -> Option<Vec<u8>> {
        match self.values.get_mut(i)?.take()? {
            Value::Bytes(b) => Some(b),
            Value::Int(n) => Some(n.to_string().into_bytes()),
            Value::UInt(n) => Some(n.to_string().into_bytes()),
            _ => None,
        }
    }
}

/// Reads the session's `Ssl_version` and `Ssl_cipher`.
///
/// # Errors
/// The query fails, or the cipher is empty: the connection is not encrypted.
async fn tls_session(conn: &mut Conn) -> Result<TlsSession, DbError> {
    let rows: Vec<(String, String)> = conn
        .query("SHOW SESSION STATUS WHERE Variable_name IN ('Ssl_version', 'Ssl_cipher')")
        .await
        .map_err(db_error)?;
    let get = |k: &str| {
        rows.iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(k))
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    let s = TlsSession {
        version: get("Ssl_version"),
        cipher: get("Ssl_cipher"),
    };
    if s.cipher.is_empty() {
        return Err(DbError::new(
            ErrorKind::Tls,
            "--tls on, but the server reports an empty Ssl_cipher for this connection: it is not encrypted",
        ));
    }
    Ok(s)
}

impl Connection for MysqlConnection {
    const DRIVER: DbDriver = DbDriver::Mysql;
    type Statement = MysqlStatement;
    type Row = MysqlRow;

    fn target(url: &str) -> String {
        target(url)
    }

    fn check_options(opts: &ConnectOptions) -> Result<(), DbError> {
        mysql_opts(opts).map(drop)
    }

    async fn connect(opts: &ConnectOptions) -> Result<Self, DbError> {
        let mut conn = Conn::new(mysql_opts(opts)?).await.map_err(db_error)?;
        let tls = match opts.tls {
            Some(_) => Some(tls_session(&mut conn).await?),
            None => None,
        };
        Ok(MysqlConnection {
            conn,
            ps_mode: opts.ps_mode,
            tls,
            sql: String::with_capacity(256),
        })
    }

    fn tls_session(&self) -> Option<&TlsSession> {
        self.tls.as_ref()
    }

    async fn prepare(&mut self, sql: &str) -> Result<MysqlStatement, DbError> {
        Ok(match self.ps_mode {
            PsMode::Auto => MysqlStatement::Prepared(self.conn.prep(sql).await.map_err(db_error)?),
            PsMode::Disable => MysqlStatement::Text(TextStatement::new(sql)),
        })
    }

    async fn query<F: FnMut(&mut MysqlRow) + Send>(
        &mut self,
        statement: &MysqlStatement,
        params: &[Param<'_>],
        mut each: F,
    ) -> Result<(), DbError> {
        let f = |row| each(&mut MysqlRow::new(row));
        match statement {
            MysqlStatement::Prepared(st) => {
                check_count(st, params)?;
                self.conn
                    .exec_iter(st, positional(params))
                    .await
                    .map_err(db_error)?
                    .for_each_and_drop(f)
                    .await
            }
            MysqlStatement::Text(t) => {
                t.render(params, &mut self.sql)?;
                self.conn
                    .query_iter(self.sql.as_str())
                    .await
                    .map_err(db_error)?
                    .for_each_and_drop(f)
                    .await
            }
        }
        .map_err(db_error)
    }

    async fn execute(
        &mut self,
        statement: &MysqlStatement,
        params: &[Param<'_>],
    ) -> Result<u64, DbError> {
        match statement {
            MysqlStatement::Prepared(st) => {
                check_count(st, params)?;
                self.conn.exec_drop(st, positional(params)).await
            }
            MysqlStatement::Text(t) => {
                t.render(params, &mut self.sql)?;
                self.conn.query_drop(self.sql.as_str()).await
            }
        }
        .map_err(db_error)?;
        Ok(self.conn.affected_rows())
    }

    async fn simple(&mut self, sql: &str) -> Result<u64, DbError> {
        self.conn.query_drop(sql).await.map_err(db_error)?;
        Ok(self.conn.affected_rows())
    }

    async fn execute_text(&mut self, sql: &str, params: &[Param<'_>]) -> Result<u64, DbError> {
        TextStatement::new(sql).render(params, &mut self.sql)?;
        self.conn
            .query_drop(self.sql.as_str())
            .await
            .map_err(db_error)?;
        Ok(self.conn.affected_rows())
    }

    async fn simple_query<F: FnMut(&mut MysqlRow) + Send>(
        &mut self,
        sql: &str,
        mut each: F,
    ) -> Result<(), DbError> {
        self.conn
            .query_iter(sql)
            .await
            .map_err(db_error)?
            .for_each_and_drop(|row| each(&mut MysqlRow::new(row)))
            .await
            .map_err(db_error)
    }

    async fn close(self) {
        let _ = self.conn.disconnect().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression (fuzz/regressions/cli_parsers/password-in-url-error): the
    /// error of an invalid --mysql-url repeated the URL, password included.
    #[test]
    fn an_invalid_url_error_does_not_show_the_password() {
        let url = "mysql://u:a-long-password@host:notaport";
        let e = mysql_opts(&ConnectOptions::new(url)).expect_err("an invalid port is refused");
        let text = e.to_string();
        assert!(text.contains("--mysql-url"), "{text}");
        assert!(!text.contains("a-long-password"), "{text}");
    }

    /// Regression (fuzz/regressions/cli_parsers/password-in-tls-parameter): in
    /// a malformed URL the "key" of a TLS parameter is text that may hold the
    /// password; only the driver's own parameter names are echoed.
    #[test]
    fn a_tls_parameter_is_named_without_echoing_url_text() {
        let url = "mysql://u@h/db?x=1&tls-text-cut-from-the-url-canary=1";
        let e = mysql_opts(&ConnectOptions::new(url))
            .expect_err("a TLS parameter is refused")
            .to_string();
        assert!(
            e.starts_with("--mysql-url has a TLS parameter (ssl or tls in its name): "),
            "{e}"
        );
        assert!(!e.contains("canary"), "{e}");
    }

    /// The same rule for '@' as the PostgreSQL driver (which would read
    /// `p@ss@h` as host `ss@h`): refused with the fix, `%40` accepted.
    #[test]
    fn an_at_in_the_password_is_refused_as_for_postgresql() {
        let url = "mysql://u:p@ss-canary@127.0.0.1:3306/db";
        let e = mysql_opts(&ConnectOptions::new(url))
            .expect_err("an unescaped @ is refused")
            .to_string();
        assert!(
            e.contains("percent-encode @ as %40") && !e.contains("canary"),
            "{e}"
        );
        assert_eq!(target(url), "(invalid URL)");
        let encoded = "mysql://u:p%40ss-canary@127.0.0.1:3306/db";
        let opts = mysql_opts(&ConnectOptions::new(encoded)).expect("%40 is accepted");
        assert_eq!(opts.pass(), Some("p@ss-canary"));
        assert_eq!(target(encoded), "u@127.0.0.1:3306");
    }
}

#[cfg(test)]
mod url_tests {
    use super::*;

    /// mysql_async's TLS parameters would bypass --tls (and `require_ssl` made
    /// it build a rustls configuration with no provider chosen: a panic).
    #[test]
    fn tls_parameters_are_refused_naming_tls() {
        for (query, key) in [
            ("require_ssl=true&verify_ca=false", "require_ssl"),
            ("verify_ca=false", "verify_ca"),
            ("stmt_cache_size=8&verify_identity=false", "verify_identity"),
            ("built_in_roots=false", "built_in_roots"),
            ("require%5Fssl=true", "require_ssl"),
            ("REQUIRE_SSL=true", "require_ssl"),
            ("ssl-mode=DISABLED", "ssl-mode"),
        ] {
            let url = format!("mysql://u:secretpass@127.0.0.1:3306/?{query}");
            let e = mysql_opts(&ConnectOptions::new(url.as_str()))
                .expect_err("refused")
                .to_string();
            assert_eq!(
                e,
                format!(
                    "--mysql-url has {key}=: oltp sets TLS with --tls (off, on, verify-ca, required) and --tls-ca FILE; remove it from the URL"
                )
            );
        }
        assert!(
            mysql_opts(&ConnectOptions::new(
                "mysql://u@127.0.0.1:3306/?stmt_cache_size=8"
            ))
            .is_ok()
        );
    }

    #[test]
    fn a_refused_url_is_described_without_echoing_it() {
        // The fuzz input that found it: the scheme held the password's text.
        for url in [
            "mykkkkkkkkkkkkkksql://u:kkkkkkksql@h:1/",
            "mysql://u:secretpass@h:1/?pool_min=secretpass",
            "mysql://u:secretpass@h:1/?secretpass=1",
        ] {
            let e = mysql_opts(&ConnectOptions::new(url))
                .expect_err("refused")
                .to_string();
            assert!(!e.contains("kkkkkksql") && !e.contains("secretpass"), "{e}");
            assert!(
                e.starts_with("--mysql-url is not a valid mysql:// URL ("),
                "{e}"
            );
            // The fix keeps the password off the command line.
            assert!(
                e.ends_with(
                    "use mysql://USER@HOST:PORT, the password in --password-file F or $MYSQL_PWD"
                ),
                "{e}"
            );
        }
    }
}
