//! sysbench's `sbtest` schema, plaintext or with `c` and `pad` as envelopes:
//! naming, DDL, the parallel loader (`prepare`), checks before a run, and `cleanup`.
//!
//! Each encryption choice gets its own database so one server holds all of them
//! side by side: plaintext tables in `DB` (default `sbtest`, as sysbench), tables
//! sealed with an algorithm in `DB_<algorithm>` (e.g. `sbtest_aes_256_gcm`). Every
//! backend of one algorithm reads the same tables (the envelope does not depend on
//! the library). Rows are generated from a seed per table, so every database holds
//! the same plaintext and results can be compared value by value.
//!
//! A table `encbench_meta` in each database records how it was prepared; it is
//! written last, so a `prepare` that did not finish is detected by `run`.

use std::sync::Arc;

use anyhow::{Context, Result, bail};
use encbench_crypto::{Algorithm, envelope};
use mysql_async::prelude::*;
use mysql_async::{Conn, Opts, OptsBuilder, Params, Value};

use crate::columns::{Codec, Column, ColumnMode, Columns, Encrypt, k_plaintext};
use crate::rand::{C_LEN, PAD_LEN, RandType, SbRng};

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

/// The SQL type of an encrypted column holding values of at most `len` bytes
/// in `mode` under `algorithm`.
fn envelope_type(len: usize, algorithm: Algorithm, mode: ColumnMode) -> String {
    let overhead = match mode {
        ColumnMode::Deterministic => envelope::deterministic_overhead(algorithm),
        _ => envelope::overhead(algorithm),
    };
    format!("VARBINARY({})", len + overhead)
}

/// Table name `sbtestN`.
pub fn table_name(n: u32) -> String {
    format!("sbtest{n}")
}

/// `CREATE TABLE` for table `n`: sysbench's schema; under encryption the
/// encrypted columns of `columns` are `VARBINARY` sized for the envelope (CHAR
/// would strip trailing bytes). `auto_inc` and `secondary` are sysbench's
/// `--auto-inc` and `--secondary`.
pub fn create_table_sql(
    n: u32,
    algorithm: Option<Algorithm>,
    columns: Columns,
    auto_inc: bool,
    secondary: bool,
) -> String {
    let typed = |name: Column, plain: String, len: usize| match algorithm {
        Some(a) if columns.mode(name) != ColumnMode::Plain => {
            envelope_type(len, a, columns.mode(name))
        }
        _ => plain,
    };
    let k = match algorithm {
        Some(a) if columns.k != ColumnMode::Plain => {
            format!("{} DEFAULT '' NOT NULL", envelope_type(4, a, columns.k))
        }
        _ => "INTEGER DEFAULT '0' NOT NULL".to_string(),
    };
    let c = typed(Column::C, format!("CHAR({C_CHAR_LEN})"), C_CHAR_LEN);
    let pad = typed(Column::Pad, format!("CHAR({PAD_CHAR_LEN})"), PAD_CHAR_LEN);
    let id = if auto_inc {
        "INTEGER NOT NULL AUTO_INCREMENT"
    } else {
        "INTEGER NOT NULL"
    };
    let key = if secondary { "KEY xid" } else { "PRIMARY KEY" };
    format!(
        "CREATE TABLE sbtest{n}(\n  id {id},\n  k {k},\n  \
         c {c} DEFAULT '' NOT NULL,\n  pad {pad} DEFAULT '' NOT NULL,\n  {key} (id)\n) ENGINE = innodb"
    )
}

/// Connection options for `url` on database `db`: TCP even on localhost (never
/// the Unix socket), and a statement cache of `stmt_cache` entries.
///
/// # Errors
/// `url` is not a valid `mysql://` URL.
pub fn conn_opts(url: &str, db: Option<&str>, stmt_cache: usize) -> Result<Opts> {
    let opts = Opts::from_url(url).map_err(|e| {
        anyhow::anyhow!(
            "--mysql-url {url:?} is not a valid mysql:// URL ({e}): use mysql://USER:PASS@HOST:PORT"
        )
    })?;
    let b = OptsBuilder::from_opts(opts)
        .prefer_socket(false)
        .stmt_cache_size(stmt_cache.max(16))
        .db_name(db.map(str::to_string));
    Ok(b.into())
}

/// Connects, with an error that names the URL (without password) and the fix.
///
/// # Errors
/// The server cannot be reached or refuses the login.
pub async fn connect(opts: Opts) -> Result<Conn> {
    let target = format!(
        "{}@{}:{}",
        opts.user().unwrap_or(""),
        opts.ip_or_hostname(),
        opts.tcp_port()
    );
    Conn::new(opts)
        .await
        .map_err(|e| anyhow::anyhow!("cannot connect to MySQL server {target}: {e}: check --mysql-url (host, port, user, password), or omit it to use the private server"))
}

/// What `encbench_meta` says about a prepared database.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Meta {
    /// Algorithm name, or `none`.
    pub algorithm: String,
    /// Active key id at prepare time (0 for plaintext).
    pub key_id: u32,
    /// Tables prepared.
    pub tables: u32,
    /// Rows per table.
    pub table_size: u32,
    /// Row generator seed.
    pub seed: u64,
    /// Encrypted columns as [`Columns::meta`] (`c:randomized,pad:randomized`
    /// when the table predates the entry).
    pub columns: String,
}

/// Reads `db.encbench_meta`; `None` when the table does not exist.
///
/// # Errors
/// Query failures.
pub async fn read_meta(conn: &mut Conn, db: &str) -> Result<Option<Meta>> {
    // Text protocol, so that `--db-ps-mode disable` needs no prepared statement.
    let mut sql = String::from(
        "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_NAME = 'encbench_meta' AND TABLE_SCHEMA = ",
    );
    crate::driver::mysql_text::push_quoted(&mut sql, db);
    let exists: Option<String> = conn.query_first(sql).await?;
    if exists.is_none() {
        return Ok(None);
    }
    let rows: Vec<(String, String)> = conn
        .query(format!("SELECT name, value FROM `{db}`.encbench_meta"))
        .await?;
    let get = |k: &str| {
        rows.iter()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    Ok(Some(Meta {
        algorithm: get("algorithm"),
        key_id: get("key_id").parse().unwrap_or(0),
        tables: get("tables").parse().unwrap_or(0),
        table_size: get("table_size").parse().unwrap_or(0),
        seed: get("seed").parse().unwrap_or(DEFAULT_SEED),
        columns: rows
            .iter()
            .find(|(n, _)| n == "columns")
            .map_or_else(|| Columns::DEFAULT.meta(), |(_, v)| v.clone()),
    }))
}

/// The numbers N of the `sbtestN` tables that exist in `db`, ascending.
///
/// # Errors
/// Query failures.
pub async fn existing_tables(conn: &mut Conn, db: &str) -> Result<Vec<u32>> {
    // Text protocol, so that `--db-ps-mode disable` needs no prepared statement.
    let mut sql = String::from(
        "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_NAME LIKE 'sbtest%' AND TABLE_SCHEMA = ",
    );
    crate::driver::mysql_text::push_quoted(&mut sql, db);
    let names: Vec<String> = conn.query(sql).await?;
    let mut n: Vec<u32> = names
        .iter()
        .filter_map(|t| t.strip_prefix("sbtest")?.parse().ok())
        .collect();
    n.sort_unstable();
    Ok(n)
}

/// Checks that `encrypt`'s database holds a finished `prepare` of at least
/// `data.tables` tables; returns its meta (None for sysbench-prepared plaintext).
///
/// # Errors
/// Missing tables, unfinished prepare, or tables prepared for another algorithm,
/// each with the command that fixes it.
pub async fn check_prepared(
    conn: &mut Conn,
    data: &DataSet,
    encrypt: Encrypt,
) -> Result<Option<Meta>> {
    let db = data.database(encrypt);
    let existing = existing_tables(conn, &db).await?;
    let missing = (1..=data.tables).find(|n| existing.binary_search(n).is_err());
    let meta = read_meta(conn, &db).await?;
    let enc_flag = match encrypt.algorithm() {
        None => "none".to_string(),
        Some(_) => encrypt.name(),
    };
    if let Some(n) = missing {
        let layout = if encrypt.algorithm().is_some() {
            data.columns.flags()
        } else {
            String::new()
        };
        bail!(
            "{db}.{} not found: run `oltp prepare --tables {} --table-size {} --encrypt {enc_flag}{layout}{}` first",
            table_name(n),
            data.tables,
            data.table_size,
            if data.db == "sbtest" {
                String::new()
            } else {
                format!(" --mysql-db {}", data.db)
            }
        );
    }
    match (&meta, encrypt.algorithm()) {
        (None, None) => Ok(None),
        (None, Some(_)) => bail!(
            "{db} has tables but no encbench_meta: the prepare did not finish; run `oltp cleanup --encrypt {enc_flag}{layout}` and `oltp prepare --encrypt {enc_flag}{layout}` again",
            layout = data.columns.flags()
        ),
        (Some(m), alg) => {
            let want = alg.map_or("none", |a| a.name());
            if m.algorithm != want {
                bail!(
                    "{db} was prepared for {}, not {want}: run `oltp cleanup` and prepare again",
                    m.algorithm
                );
            }
            if alg.is_some() && m.columns != data.columns.meta() {
                bail!(
                    "{db} was prepared with columns {}, the run asks for {}: give the same --encrypt-columns and --deterministic as prepare",
                    m.columns,
                    data.columns.meta()
                );
            }
            if m.table_size != data.table_size {
                bail!(
                    "{db} was prepared with --table-size {}, the run asks for {}: use --table-size {} (ids are drawn from 1..=table-size)",
                    m.table_size,
                    data.table_size,
                    m.table_size
                );
            }
            if m.tables < data.tables {
                bail!(
                    "{db} was prepared with --tables {}, the run asks for {}: use --tables {} or prepare again",
                    m.tables,
                    data.tables,
                    m.tables
                );
            }
            Ok(meta)
        }
    }
}

/// Checks that none of the databases for `encrypts` holds sbtest tables yet, so
/// `prepare` refuses before it loads anything.
///
/// # Errors
/// A database already holds tables (the message names the cleanup command).
pub async fn check_not_prepared(url: &str, data: &DataSet, encrypts: &[Encrypt]) -> Result<()> {
    let mut conn = connect(conn_opts(url, None, 16)?).await?;
    for e in encrypts {
        let db = data.database(*e);
        if !existing_tables(&mut conn, &db).await?.is_empty()
            || read_meta(&mut conn, &db).await?.is_some()
        {
            bail!(
                "{db} already holds sbtest tables: run `oltp cleanup --encrypt {}{}` first, or use them as they are",
                e.name(),
                if e.algorithm().is_some() {
                    data.columns.flags()
                } else {
                    String::new()
                }
            );
        }
    }
    conn.disconnect().await?;
    Ok(())
}

/// Options of `prepare`.
#[derive(Clone, Debug)]
pub struct PrepareOptions {
    /// Concurrent loader connections (`--threads`); worker t loads tables t+1, t+1+threads, ...
    pub threads: u32,
    /// Row generator seed.
    pub seed: u64,
    /// Whether to create the secondary index `k_N` after loading (sysbench's `create_secondary`).
    pub create_secondary: bool,
    /// `id` as AUTO_INCREMENT (sysbench's `auto_inc`).
    pub auto_inc: bool,
    /// `KEY xid (id)` in place of the primary key (sysbench's `secondary`).
    pub secondary: bool,
}

/// Creates and loads the tables of `data` for `encrypt` with `codec` (which must
/// match `encrypt`), as sysbench's `prepare` does, then writes `encbench_meta`.
/// `progress` is called with the number of rows inserted so far by each batch.
///
/// # Errors
/// A table already exists (run `cleanup`), or any database or sealing error.
pub async fn prepare(
    url: &str,
    data: &DataSet,
    encrypt: Encrypt,
    codec: Codec,
    key_id: u32,
    opts: &PrepareOptions,
    progress: Arc<dyn Fn(u64) + Send + Sync>,
) -> Result<()> {
    let db = data.database(encrypt);
    check_not_prepared(url, data, &[encrypt]).await?;
    let mut admin = connect(conn_opts(url, None, 16)?).await?;
    admin
        .query_drop(format!("CREATE DATABASE IF NOT EXISTS `{db}`"))
        .await?;
    let threads = opts.threads.clamp(1, data.tables.max(1));
    let mut tasks = Vec::new();
    for t in 0..threads {
        let tables: Vec<u32> = (t + 1..=data.tables).step_by(threads as usize).collect();
        let (url, db, codec, progress, seed, size) = (
            url.to_string(),
            db.clone(),
            codec.clone(),
            progress.clone(),
            opts.seed,
            data.table_size,
        );
        let table_opts = opts.clone();
        let alg = encrypt.algorithm();
        let columns = data.columns;
        tasks.push(tokio::spawn(async move {
            let mut conn = connect(conn_opts(&url, Some(&db), 16)?).await?;
            for n in tables {
                load_table(
                    &mut conn,
                    n,
                    size,
                    alg,
                    columns,
                    &codec,
                    seed,
                    &table_opts,
                    &*progress,
                )
                .await?;
            }
            conn.disconnect().await?;
            anyhow::Ok(())
        }));
    }
    for t in tasks {
        t.await.context("loader task panicked")??;
    }
    admin
        .query_drop(format!(
            "CREATE TABLE `{db}`.encbench_meta (name VARCHAR(64) PRIMARY KEY, value VARCHAR(255) NOT NULL) ENGINE = innodb"
        ))
        .await?;
    let algorithm = encrypt.algorithm().map_or("none", |a| a.name());
    admin
        .exec_batch(
            format!("INSERT INTO `{db}`.encbench_meta (name, value) VALUES (?, ?)"),
            [
                ("algorithm", algorithm.to_string()),
                ("key_id", key_id.to_string()),
                ("tables", data.tables.to_string()),
                ("table_size", data.table_size.to_string()),
                ("seed", opts.seed.to_string()),
                (
                    "envelope_version",
                    if encrypt.algorithm().is_some() && data.columns.any_deterministic() {
                        format!("{},{}", envelope::VERSION, envelope::DETERMINISTIC_VERSION)
                    } else {
                        envelope::VERSION.to_string()
                    },
                ),
                (
                    "columns",
                    if encrypt.algorithm().is_some() {
                        data.columns.meta()
                    } else {
                        String::new()
                    },
                ),
            ],
        )
        .await?;
    admin.disconnect().await?;
    Ok(())
}

/// The seed of table `n`'s row generator.
pub fn table_seed(seed: u64, n: u32) -> u64 {
    seed.wrapping_add(u64::from(n))
}

#[allow(clippy::too_many_arguments)]
async fn load_table(
    conn: &mut Conn,
    n: u32,
    size: u32,
    alg: Option<Algorithm>,
    columns: Columns,
    codec: &Codec,
    seed: u64,
    opts: &PrepareOptions,
    progress: &(dyn Fn(u64) + Send + Sync),
) -> Result<()> {
    conn.query_drop(create_table_sql(
        n,
        alg,
        columns,
        opts.auto_inc,
        opts.secondary,
    ))
    .await?;
    let table = table_name(n);
    // An upper bound of the envelopes' overhead, for the batch size.
    let overhead = alg.map_or(0, |a| {
        envelope::overhead(a).max(envelope::deterministic_overhead(a))
    });
    let row_bytes = 4 * 8 + C_LEN + PAD_LEN + 3 * overhead;
    let batch = (INSERT_BATCH_BYTES / row_bytes).max(1) as u32;
    let mut rng = SbRng::seeded(table_seed(seed, n), RandType::Special);
    let mut stmt_full = None;
    let mut done: u32 = 0;
    let (mut c_buf, mut pad_buf, mut k_buf) = (Vec::new(), Vec::new(), Vec::new());
    let k_plain = codec.mode(Column::K) == ColumnMode::Plain;
    while done < size {
        let rows = batch.min(size - done);
        let sql = insert_sql(&table, rows);
        let stmt = if rows == batch {
            match &stmt_full {
                Some(s) => s,
                None => stmt_full.insert(conn.prep(sql).await?),
            }
        } else {
            &conn.prep(sql).await?
        };
        let mut params = Vec::with_capacity(rows as usize * 4);
        for id in done + 1..=done + rows {
            let k = rng.id(1, size);
            let c = rng.c_value();
            let pad = rng.pad_value();
            codec.seal(&table, Column::C, i64::from(id), &c, &mut c_buf)?;
            codec.seal(&table, Column::Pad, i64::from(id), &pad, &mut pad_buf)?;
            params.push(Value::Int(i64::from(id)));
            if k_plain {
                params.push(Value::Int(i64::from(k)));
            } else {
                codec.seal(
                    &table,
                    Column::K,
                    i64::from(id),
                    &k_plaintext(i64::from(k)),
                    &mut k_buf,
                )?;
                params.push(Value::Bytes(k_buf.clone()));
            }
            params.push(Value::Bytes(c_buf.clone()));
            params.push(Value::Bytes(pad_buf.clone()));
        }
        conn.exec_drop(stmt, Params::Positional(params)).await?;
        done += rows;
        progress(u64::from(rows));
    }
    if opts.create_secondary {
        conn.query_drop(format!("CREATE INDEX k_{n} ON {table}(k)"))
            .await?;
    }
    Ok(())
}

fn insert_sql(table: &str, rows: u32) -> String {
    let mut sql = format!("INSERT INTO {table}(id, k, c, pad) VALUES ");
    for i in 0..rows {
        if i > 0 {
            sql.push(',');
        }
        sql.push_str("(?,?,?,?)");
    }
    sql
}

/// The encrypted databases under base name `db` (any algorithm and column
/// layout, finished or not): databases named `db_<algorithm>` or
/// `db_<algorithm>_<layout>` ([`Columns::db_suffix`]), as `prepare` names them.
///
/// # Errors
/// Query failures.
pub async fn encrypted_databases(conn: &mut Conn, db: &str) -> Result<Vec<String>> {
    let like = format!("{}\\_%", db.replace('_', "\\_"));
    let names: Vec<String> = conn
        .exec(
            "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE ? ORDER BY SCHEMA_NAME",
            (like,),
        )
        .await?;
    Ok(names
        .into_iter()
        .filter(|n| is_encrypted_database(db, n))
        .collect())
}

/// Whether `name` is how `prepare` names an encrypted database under `db`.
fn is_encrypted_database(db: &str, name: &str) -> bool {
    let Some(rest) = name.strip_prefix(db).and_then(|r| r.strip_prefix('_')) else {
        return false;
    };
    Algorithm::ALL.iter().any(|a| {
        let alg = a.name().replace('-', "_");
        match rest.strip_prefix(alg.as_str()) {
            Some("") => true,
            Some(layout) => layout
                .strip_prefix('_')
                .is_some_and(|l| !l.is_empty() && l.bytes().all(|b| b"kcpd".contains(&b))),
            None => false,
        }
    })
}

/// `cleanup --encrypt all`: the plaintext tables of `data.db` and every
/// encrypted database under it ([`encrypted_databases`]). Returns the databases touched.
///
/// # Errors
/// Database errors.
pub async fn cleanup_all(url: &str, data: &DataSet) -> Result<Vec<String>> {
    let mut dropped = cleanup(url, data, &[Encrypt::None]).await?;
    let mut conn = connect(conn_opts(url, None, 16)?).await?;
    for db in encrypted_databases(&mut conn, &data.db).await? {
        conn.query_drop(format!("DROP DATABASE IF EXISTS `{db}`"))
            .await?;
        dropped.push(db);
    }
    conn.disconnect().await?;
    Ok(dropped)
}

/// Drops every `sbtestN` table and `encbench_meta` of the
/// databases for `encrypts`; an encrypted database (`DB_<algorithm>`) is dropped
/// whole. Returns the databases touched.
///
/// # Errors
/// Database errors.
pub async fn cleanup(url: &str, data: &DataSet, encrypts: &[Encrypt]) -> Result<Vec<String>> {
    let mut conn = connect(conn_opts(url, None, 16)?).await?;
    let mut dropped: Vec<String> = Vec::new();
    for e in encrypts {
        let db = data.database(*e);
        let exists: Option<String> = conn
            .exec_first(
                "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?",
                (db.as_str(),),
            )
            .await?;
        if exists.is_none() || dropped.contains(&db) {
            continue;
        }
        if e.algorithm().is_some() {
            conn.query_drop(format!("DROP DATABASE IF EXISTS `{db}`"))
                .await?;
        } else {
            conn.query_drop(format!("DROP TABLE IF EXISTS `{db}`.encbench_meta"))
                .await?;
            for n in existing_tables(&mut conn, &db).await? {
                conn.query_drop(format!("DROP TABLE IF EXISTS `{db}`.sbtest{n}"))
                    .await?;
            }
        }
        dropped.push(db);
    }
    conn.disconnect().await?;
    Ok(dropped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encrypted_database_names_are_recognised_exactly() {
        for n in [
            "sbtest_aes_256_gcm",
            "sbtest_aes_256_siv_kdcp",
            "sbtest_aes_256_cbc_hmac_sha256_kdcdpd",
            "sbtest_chacha20_poly1305_k",
        ] {
            assert!(is_encrypted_database("sbtest", n), "{n}");
        }
        for n in [
            "sbtest",
            "sbtest_sb",
            "sbtest_aes_256_gcm_",
            "sbtest_aes_256_gcm_x",
            "sbtest_aes_256_gcmx",
            "other_aes_256_gcm",
        ] {
            assert!(!is_encrypted_database("sbtest", n), "{n}");
        }
    }
}
