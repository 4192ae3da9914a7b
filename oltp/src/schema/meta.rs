//! What a database holds: its `sbtestN` tables and the `encbench_meta` that
//! `prepare` writes last, and the checks `run` and `prepare` make of them.

use anyhow::{Result, bail};

use crate::columns::{Columns, Encrypt};
use crate::driver::Connection;

use super::{DEFAULT_SEED, DataSet, connect, quoted, scalar, table_name};

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
pub async fn read_meta<C: Connection>(conn: &mut C, db: &str) -> Result<Option<Meta>> {
    // Text protocol, so that `--db-ps-mode disable` needs no prepared statement.
    let sql = format!(
        "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_NAME = 'encbench_meta' AND TABLE_SCHEMA = {}",
        quoted(db)
    );
    if scalar(conn, &sql).await?.is_none() {
        return Ok(None);
    }
    let rows: Vec<(String, String)> = conn
        .query_text(&format!("SELECT name, value FROM `{db}`.encbench_meta"))
        .await?
        .into_iter()
        .map(|r| {
            let mut it = r.into_iter().map(Option::unwrap_or_default);
            (it.next().unwrap_or_default(), it.next().unwrap_or_default())
        })
        .collect();
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
pub async fn existing_tables<C: Connection>(conn: &mut C, db: &str) -> Result<Vec<u32>> {
    // Text protocol, so that `--db-ps-mode disable` needs no prepared statement.
    let sql = format!(
        "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_NAME LIKE 'sbtest%' AND TABLE_SCHEMA = {}",
        quoted(db)
    );
    let mut n: Vec<u32> = conn
        .query_text(&sql)
        .await?
        .into_iter()
        .filter_map(|r| r.into_iter().next().flatten())
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
pub async fn check_prepared<C: Connection>(
    conn: &mut C,
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
    let mut conn = connect(url, None).await?;
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
    conn.close().await;
    Ok(())
}
