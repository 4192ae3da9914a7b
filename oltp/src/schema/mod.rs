//! sysbench's `sbtest` schema, plaintext or with `c` and `pad` as envelopes:
//! naming and DDL here; the parallel loader ([`prepare`]), the checks of what
//! is prepared ([`check_prepared`]) and [`cleanup`] in their own files. Every
//! statement goes through the [`crate::driver`] seam, generic over the driver.
//!
//! Each encryption choice gets its own database so one server holds all of them
//! side by side: plaintext tables in `DB` (default `sbtest`, as sysbench), tables
//! sealed with an algorithm in `DB_<algorithm>` (e.g. `sbtest_aes_256_gcm`). Every
//! backend of one algorithm reads the same tables (the envelope does not depend on
//! the library). Rows are generated from a seed per table, so every database holds
//! the same plaintext and results can be compared value by value. On PostgreSQL each
//! is a database of its own too; every catalog query runs on a connection to the
//! database it is about, with unqualified names, so the same steps run on both
//! servers, the SQL that differs coming from [`Dialect`].
//!
//! A table `encbench_meta` in each database records how it was prepared: its
//! `state=loading` is written before any table and set to `done` last, so a
//! `prepare` that did not finish is detected by `run` and by the next `prepare`;
//! the prepare lock it holds meanwhile (`lock.rs`) tells that apart from a
//! `prepare` running now.

use anyhow::Result;
use encbench_crypto::Algorithm;

use crate::at_rest::AtRest;
use crate::columns::{Columns, Encrypt};
use crate::driver::{ConnectOptions, Connection, DbError, TlsOptions};

mod cleanup;
mod dialect;
mod load;
mod lock;
mod meta;
pub mod pgbench;
mod server_flags;

pub use cleanup::{cleanup, cleanup_all, encrypted_databases};
pub use dialect::Dialect;
pub use load::{PrepareOptions, load_table, plaintext_canary, prepare, table_seed};
pub use meta::{
    Meta, NotPrepared, STATE_DONE, STATE_LOADING, check_not_prepared, check_prepared,
    cleanup_command, existing_tables, incomplete_tables, prepare_command, read_meta,
};
pub use server_flags::{PASSWORD_PLACEHOLDER, ServerFlags};

/// sysbench 1.0's `CHAR(120)` for `c`.
pub const C_CHAR_LEN: usize = 120;
/// sysbench 1.0's `CHAR(60)` for `pad`.
pub const PAD_CHAR_LEN: usize = 60;
/// Largest multi-row INSERT batch in bytes (sysbench flushes before 512 KiB).
pub const INSERT_BATCH_BYTES: usize = 512 * 1024;
/// Default seed of the row generator; table `n` uses `seed + n`.
pub const DEFAULT_SEED: u64 = 0x5eed;

/// The data set to create or use.
#[derive(Clone, Debug)]
pub struct DataSet {
    /// Base database name (`--mysql-db`, default `sbtest`).
    pub db: String,
    /// Number of tables (`--tables`), named `sbtest1..=sbtestN`.
    pub tables: u32,
    /// Rows per table (`--table-size`).
    pub table_size: u32,
    /// Which columns encrypted tables encrypt, and how (`--encrypt-columns`,
    /// `--deterministic`).
    pub columns: Columns,
    /// The at-rest mode of the server that holds the tables (`--at-rest`; each
    /// mode has a private server of its own), named in the `prepare` and
    /// `cleanup` commands that messages suggest.
    pub at_rest: AtRest,
    /// The flags that chose the server (`--mysql-url`/`--pgsql-url`,
    /// `--password-file`, `--base-dir`) as typed, password hidden: the
    /// suggested commands carry them, so they act on the same server.
    pub server: ServerFlags,
    /// The TLS of every administrative connection to the server (`--tls` of
    /// `prepare` and `cleanup`; with `run`, its TLS level when `--tls` lists
    /// one); `None`: plain TCP.
    pub tls: Option<TlsOptions>,
}

impl DataSet {
    /// The database that holds the tables for `encrypt`: `db` for plaintext,
    /// `db_<algorithm with '-' as '_'><layout suffix>` otherwise (see
    /// [`Columns::db_suffix`]; none for the default `c,pad`).
    pub fn database(&self, encrypt: Encrypt) -> String {
        database_for(&self.db, encrypt.algorithm(), self.columns)
    }
}

/// The database name for `algorithm` (or plaintext) and `columns` under base name `db`.
pub fn database_for(db: &str, algorithm: Option<Algorithm>, columns: Columns) -> String {
    match algorithm {
        None => db.to_string(),
        Some(a) => format!("{db}_{}{}", a.name().replace('-', "_"), columns.db_suffix()),
    }
}

/// Table name `sbtestN`.
pub fn table_name(n: u32) -> String {
    format!("sbtest{n}")
}

/// `CREATE TABLE` for table `n` in MySQL's dialect ([`Dialect::create_table_sql`]).
pub fn create_table_sql(
    n: u32,
    algorithm: Option<Algorithm>,
    columns: Columns,
    auto_inc: bool,
    secondary: bool,
) -> String {
    Dialect::Mysql.create_table_sql(n, algorithm, columns, auto_inc, secondary)
}

/// An administrative connection of driver `C` to `url` (database `db`, if
/// any; else the URL's own), with TLS when `tls` is given (checked encrypted
/// as every TLS connection is), with an error that names the server (never the
/// password) and the fix.
///
/// # Errors
/// `url` is not a valid URL of the driver, the server cannot be reached or
/// refuses the login, refuses plain TCP (without `tls`: the error names
/// `--tls`), or TLS fails (the cause and fix, as `run`'s TLS probe names them).
pub async fn connect<C: Connection>(
    url: &str,
    tls: Option<&TlsOptions>,
    db: Option<&str>,
) -> Result<C> {
    let mut opts = ConnectOptions::new(url);
    opts.database = db.map(str::to_string);
    opts.tls = tls.cloned();
    let dialect = C::DRIVER.dialect();
    C::check_options(&opts)?;
    let target = C::target(url);
    let e = match C::connect(&opts).await {
        Ok(conn) => return Ok(conn),
        Err(e) => e,
    };
    if refused(&e) {
        // Nothing listens there: the one cause worth naming alone.
        let at = target.rsplit_once('@').map_or(target.as_str(), |(_, h)| h);
        let at = at.split('/').next().unwrap_or(at);
        anyhow::bail!(
            "connection refused at {at}: is {} running there? correct {}, or omit it to use the private server",
            match dialect {
                Dialect::Mysql => "MariaDB (or MySQL)",
                Dialect::Postgres => "PostgreSQL",
            },
            dialect.url_flag()
        );
    }
    let postgres = dialect == Dialect::Postgres;
    let mut why = plaintext_refused(&e, postgres);
    if why.is_none() && tls.is_none() && !postgres && e.to_string().contains("ERROR 1045 ") {
        // MariaDB refuses a plain-TCP login under require_secure_transport=ON
        // with the error of a wrong password (1045), as MySQL does for a user
        // created with REQUIRE SSL: the same login over TLS tells them apart.
        why = logs_in_with_tls::<C>(&opts).await.then_some(
            "it accepts the login over TLS only: require_secure_transport=ON, or a user with REQUIRE SSL",
        );
    }
    if let Some(why) = why {
        let at = target.split('/').next().unwrap_or(&target);
        anyhow::bail!(
            "{} server {at} refuses connections without TLS ({why}): give --tls on (or verify-ca, or required), with --tls-ca FILE holding its CA unless it is the private server, and no off in a --tls list",
            dialect.server_name()
        );
    }
    if let Some(t) = tls
        && !server_error(&e)
    {
        return Err(crate::driver::tls_failure(
            &e,
            t.ca.as_deref(),
            t.mode,
            postgres,
        ));
    }
    let within = db.map(|d| format!(" (database {d})")).unwrap_or_default();
    anyhow::bail!(
        "cannot connect to {} server {target}{within}: {e}: check {} (host, port, user, password), or omit it to use the private server",
        dialect.server_name(),
        dialect.url_flag()
    )
}

/// Whether the login of `opts` succeeds over TLS (`--tls required`: the
/// certificate not checked, as nothing is sent but the login, which the plain-TCP
/// attempt sent already): asked only after a plain-TCP login was refused.
async fn logs_in_with_tls<C: Connection>(opts: &ConnectOptions) -> bool {
    let mut tls = opts.clone();
    tls.tls = Some(TlsOptions {
        ca: None,
        mode: crate::driver::TlsMode::Required,
    });
    match C::connect(&tls).await {
        Ok(conn) => {
            conn.close().await;
            true
        }
        Err(_) => false,
    }
}

/// Why the server refused a plain-TCP login, when that is what `e` says:
/// MySQL's error 3159 (`require_secure_transport=ON`; MariaDB answers 1045
/// instead, see [`connect`]), or a
/// PostgreSQL `pg_hba.conf` with no line for an unencrypted connection (its
/// "no pg_hba.conf entry ... no encryption", SQLSTATE 28000). `None` for any
/// other error.
fn plaintext_refused(e: &DbError, postgres: bool) -> Option<&'static str> {
    let text = e.to_string();
    if postgres {
        (text.contains("no pg_hba.conf entry") && text.contains("no encryption"))
            .then_some("pg_hba.conf has no line for connections without TLS")
    } else {
        (text.contains("ERROR 3159 ") || text.contains("require_secure_transport"))
            .then_some("require_secure_transport=ON")
    }
}

/// Whether `e` is an error the server sent (a refused login, an unknown
/// database: the MySQL driver's "Server error" with a code, PostgreSQL's
/// SQLSTATE), as opposed to a failure to reach it or to set TLS up.
fn server_error(e: &DbError) -> bool {
    let text = e.to_string();
    text.contains("Server error: `ERROR ") || text.contains("(SQLSTATE ")
}

/// Whether `e` is a refused TCP connection (`ECONNREFUSED`: no server listens
/// at the address): an [`std::io::Error`] of that kind in its chain, or the
/// system's text for it (a driver may keep the I/O error as text only).
fn refused(e: &crate::driver::DbError) -> bool {
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(c) = cur {
        if c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::ConnectionRefused)
        {
            return true;
        }
        cur = c.source();
    }
    e.to_string().contains("Connection refused")
}

/// The single text value of `sql`'s first row and column (`None`: no row, or NULL).
///
/// # Errors
/// Query failures.
pub(crate) async fn scalar<C: Connection>(conn: &mut C, sql: &str) -> Result<Option<String>> {
    Ok(conn
        .query_text(sql)
        .await?
        .into_iter()
        .next()
        .and_then(|r| r.into_iter().next().flatten()))
}

/// Whether database `db` exists on the server `admin` is connected to.
///
/// # Errors
/// Query failures.
pub async fn database_exists<C: Connection>(
    admin: &mut C,
    dialect: Dialect,
    db: &str,
) -> Result<bool> {
    let sql = dialect.database_exists_sql(&dialect.literal(db));
    Ok(scalar(admin, &sql).await?.is_some())
}
