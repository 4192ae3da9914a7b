//! sysbench's `sbtest` schema, plaintext or with `c` and `pad` as envelopes:
//! naming and DDL here; the parallel loader ([`prepare`]), the checks of what
//! is prepared ([`check_prepared`]) and [`cleanup`] in their own files. Every
//! statement goes through the [`crate::driver`] seam (MySQL's dialect).
//!
//! Each encryption choice gets its own database so one server holds all of them
//! side by side: plaintext tables in `DB` (default `sbtest`, as sysbench), tables
//! sealed with an algorithm in `DB_<algorithm>` (e.g. `sbtest_aes_256_gcm`). Every
//! backend of one algorithm reads the same tables (the envelope does not depend on
//! the library). Rows are generated from a seed per table, so every database holds
//! the same plaintext and results can be compared value by value.
//!
//! A table `encbench_meta` in each database records how it was prepared: its
//! `state=loading` is written before any table and set to `done` last, so a
//! `prepare` that did not finish is detected by `run` and by the next `prepare`.

use anyhow::Result;
use encbench_crypto::Algorithm;

use crate::columns::{Columns, Encrypt};
use crate::driver::{ConnectOptions, Connection, MysqlConnection, mysql};

mod cleanup;
mod dialect;
mod load;
mod meta;

pub use cleanup::{cleanup, cleanup_all, encrypted_databases};
pub use dialect::Dialect;
pub use load::{PrepareOptions, load_table, prepare, table_seed};
pub use meta::{
    Meta, STATE_DONE, STATE_LOADING, check_not_prepared, check_prepared, cleanup_command,
    existing_tables, incomplete_tables, prepare_command, read_meta,
};

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

/// An administrative connection to `url` (database `db`, if any) over the
/// text protocol, with an error that names the server (never the password)
/// and the fix.
///
/// # Errors
/// `url` is not a valid `mysql://` URL, or the server cannot be reached or
/// refuses the login.
pub async fn connect(url: &str, db: Option<&str>) -> Result<MysqlConnection> {
    let mut opts = ConnectOptions::new(url);
    opts.database = db.map(str::to_string);
    mysql::mysql_opts(&opts)?;
    MysqlConnection::connect(&opts).await.map_err(|e| {
        anyhow::anyhow!(
            "cannot connect to MySQL server {}: {e}: check --mysql-url (host, port, user, password), or omit it to use the private server",
            mysql::target(url)
        )
    })
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

/// A quoted SQL string literal of `s` (MySQL's escaping).
pub(crate) fn quoted(s: &str) -> String {
    let mut out = String::new();
    crate::driver::mysql_text::push_quoted(&mut out, s);
    out
}
