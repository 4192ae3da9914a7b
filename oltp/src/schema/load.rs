//! sysbench's `prepare`: the tables of a data set created and loaded in
//! parallel (multi-row prepared INSERTs under 512 KiB, as sysbench batches),
//! values sealed under column encryption; `encbench_meta` says `state=loading`
//! before any table is created and `done` once everything is written.

use std::sync::Arc;

use anyhow::{Context, Result, anyhow};
use encbench_crypto::{Algorithm, envelope};

use crate::columns::{Codec, Column, ColumnMode, Columns, Encrypt, TableAad, k_plaintext};
use crate::driver::{Connection, DbDriver, DbError, ErrorKind, Param, with_driver};
use crate::sb_rand::{C_LEN, PAD_LEN, RandType, SbRng};

use super::lock::{PrepareLock, another_prepare};
use super::meta::not_prepared;
use super::{
    DataSet, Dialect, INSERT_BATCH_BYTES, STATE_DONE, STATE_LOADING, cleanup_command, connect,
    database_exists, table_name,
};

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
/// match `encrypt`), as sysbench's `prepare` does: `encbench_meta` with
/// `state=loading` first, then the tables, then the rest of `encbench_meta` and
/// `state=done`. `progress` is called with the number of rows inserted so far
/// by each batch.
///
/// # Errors
/// A table already exists (run `cleanup`), another prepare of the database
/// is running (wait for it), or any database or sealing error;
/// once loading began, the error says the database is half loaded and names
/// the cleanup command (and that the server went away when the connection
/// was lost).
pub async fn prepare(
    url: &str,
    data: &DataSet,
    encrypt: Encrypt,
    codec: Codec,
    key_id: u32,
    opts: &PrepareOptions,
    progress: Arc<dyn Fn(u64) + Send + Sync>,
) -> Result<()> {
    with_driver!(DbDriver::of_url(url), C => {
        prepare_with::<C>(C::DRIVER.dialect(), url, data, encrypt, codec, key_id, opts, progress)
            .await
    })
}

#[allow(clippy::too_many_arguments)]
async fn prepare_with<C: Connection + 'static>(
    dialect: Dialect,
    url: &str,
    data: &DataSet,
    encrypt: Encrypt,
    codec: Codec,
    key_id: u32,
    opts: &PrepareOptions,
    progress: Arc<dyn Fn(u64) + Send + Sync>,
) -> Result<()> {
    let db = data.database(encrypt);
    // Held until the last step: another prepare of `db` waits for it, then
    // refuses, and a `loading` mark found meanwhile is told from a dead one.
    let Some(lock) = PrepareLock::<C>::take(dialect, url, data.tls.as_ref(), &db).await? else {
        return Err(another_prepare(&db));
    };
    if let Err(e) = not_prepared::<C>(dialect, url, data, &[encrypt], true).await {
        lock.release().await;
        return Err(e);
    }
    let loading = async {
        let mut server: C = connect(url, data.tls.as_ref(), None).await?;
        if !database_exists(&mut server, dialect, &db).await? {
            server
                .simple(&format!("CREATE DATABASE {}", dialect.ident(&db)))
                .await?;
        }
        server.close().await;
        let mut admin: C = connect(url, data.tls.as_ref(), Some(&db)).await?;
        // The mark first: until it says done, run and prepare refuse these tables.
        admin.simple(&dialect.create_meta_sql()).await?;
        let insert = "INSERT INTO encbench_meta (name, value) VALUES (?, ?)";
        admin
            .execute_text(
                insert,
                &[Param::Text(b"state"), Param::Text(STATE_LOADING.as_bytes())],
            )
            .await?;
        let threads = opts.threads.clamp(1, data.tables.max(1));
        let mut tasks = Vec::new();
        for t in 0..threads {
            let tables: Vec<u32> = (t + 1..=data.tables).step_by(threads as usize).collect();
            let (url, tls, db, codec, progress, seed, size) = (
                url.to_string(),
                data.tls.clone(),
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
                let mut conn: C = connect(&url, tls.as_ref(), Some(&db)).await?;
                for n in tables {
                    load_table(
                        &mut conn,
                        dialect,
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
                conn.close().await;
                anyhow::Ok(())
            }));
        }
        for t in tasks {
            t.await.context("loader task panicked")??;
        }
        let algorithm = encrypt.algorithm().map_or("none", |a| a.name());
        let entries = [
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
        ];
        for (name, value) in &entries {
            admin
                .execute_text(
                    insert,
                    &[Param::Text(name.as_bytes()), Param::Text(value.as_bytes())],
                )
                .await?;
        }
        admin
            .execute_text(
                "UPDATE encbench_meta SET value = ? WHERE name = 'state'",
                &[Param::Text(STATE_DONE.as_bytes())],
            )
            .await?;
        admin.close().await;
        anyhow::Ok(())
    };
    let loaded = loading.await;
    lock.release().await;
    loaded.map_err(|e| half_loaded(&e, &db, &cleanup_command(dialect, data, encrypt)))
}

/// `e`, a failure after loading began, as one line naming the half-loaded
/// database and the cleanup command.
fn half_loaded(e: &anyhow::Error, db: &str, cleanup: &str) -> anyhow::Error {
    let lost = e.chain().any(|c| {
        c.downcast_ref::<DbError>()
            .is_some_and(|d| d.kind() == ErrorKind::ConnectionLost)
    });
    if lost {
        anyhow!(
            "prepare lost the connection to the server ({e:#}): the server went away, {db} is half loaded; once the server is up, run `{cleanup}` before preparing again"
        )
    } else {
        anyhow!(
            "prepare failed ({e:#}): {db} is half loaded; run `{cleanup}` before preparing again"
        )
    }
}

/// The seed of table `n`'s row generator.
pub fn table_seed(seed: u64, n: u32) -> u64 {
    seed.wrapping_add(u64::from(n))
}

/// The `c` value of row 1 of `sbtest1` as prepare writes it with `seed` and `table_size`
/// rows per table (the loader draws `k`, then `c`, per row: [`load_table`]): the needle the
/// at-rest search looks for.
pub fn plaintext_canary(seed: u64, table_size: u32) -> Vec<u8> {
    let mut rng = SbRng::seeded(table_seed(seed, 1), RandType::Special);
    let _k = rng.id(1, table_size);
    rng.c_value().to_vec()
}

/// Creates table `n` in `dialect` on `conn` (whose default database holds it) and
/// loads `size` rows from seed `seed` (rows sealed with `codec` for `alg` and
/// `columns`), in multi-row prepared INSERTs under [`INSERT_BATCH_BYTES`]; then
/// the index `k_N` and the dialect's [`Dialect::after_load`] statements.
/// `progress` is called with the rows of each batch.
///
/// # Errors
/// The table exists, or any database or sealing error (the table is then half loaded).
#[allow(clippy::too_many_arguments)]
pub async fn load_table<C: Connection>(
    conn: &mut C,
    dialect: Dialect,
    n: u32,
    size: u32,
    alg: Option<Algorithm>,
    columns: Columns,
    codec: &Codec,
    seed: u64,
    opts: &PrepareOptions,
    progress: &(dyn Fn(u64) + Send + Sync),
) -> Result<()> {
    conn.simple(&dialect.create_table_sql(n, alg, columns, opts.auto_inc, opts.secondary))
        .await?;
    let table = table_name(n);
    let aad = TableAad::new(table.as_str())?;
    // An upper bound of the envelopes' overhead, for the batch size.
    let overhead = alg.map_or(0, |a| {
        envelope::overhead(a).max(envelope::deterministic_overhead(a))
    });
    let row_bytes = 4 * 8 + C_LEN + PAD_LEN + 3 * overhead;
    let batch = (INSERT_BATCH_BYTES / row_bytes).max(1) as u32;
    let mut rng = SbRng::seeded(table_seed(seed, n), RandType::Special);
    let mut stmt_full = None;
    let mut done: u32 = 0;
    let k_plain = codec.mode(Column::K) == ColumnMode::Plain;
    // One batch's rows, sealed before the statement borrows them.
    let mut values: Vec<SealedRow> = Vec::new();
    while done < size {
        let rows = batch.min(size - done);
        let sql = insert_sql(&table, rows);
        let partial;
        let stmt = if rows == batch {
            match &stmt_full {
                Some(s) => s,
                None => stmt_full.insert(conn.prepare(&sql).await?),
            }
        } else {
            partial = conn.prepare(&sql).await?;
            &partial
        };
        values.clear();
        for id in done + 1..=done + rows {
            let k = rng.id(1, size);
            let c = rng.c_value();
            let pad = rng.pad_value();
            let (mut kb, mut cb, mut pb) = (Vec::new(), Vec::new(), Vec::new());
            codec.seal(&aad, Column::C, i64::from(id), &c, &mut cb)?;
            codec.seal(&aad, Column::Pad, i64::from(id), &pad, &mut pb)?;
            if !k_plain {
                codec.seal(
                    &aad,
                    Column::K,
                    i64::from(id),
                    &k_plaintext(i64::from(k)),
                    &mut kb,
                )?;
            }
            values.push((id, k, kb, cb, pb));
        }
        let mut params = Vec::with_capacity(rows as usize * 4);
        for (id, k, kb, cb, pb) in &values {
            params.push(Param::from(*id));
            params.push(if k_plain {
                Param::from(*k)
            } else {
                Param::Binary(kb)
            });
            params.push(stored(codec, Column::C, cb));
            params.push(stored(codec, Column::Pad, pb));
        }
        conn.execute(stmt, &params).await?;
        done += rows;
        progress(u64::from(rows));
    }
    if opts.create_secondary {
        conn.simple(&format!("CREATE INDEX k_{n} ON {table}(k)"))
            .await?;
    }
    for sql in dialect.after_load(n, opts.auto_inc, opts.secondary) {
        conn.simple(&sql).await?;
    }
    Ok(())
}

/// One row of a load batch: id, plaintext k, and the stored k (empty when
/// plaintext), c and pad.
type SealedRow = (u32, u32, Vec<u8>, Vec<u8>, Vec<u8>);

/// A stored value as a parameter: text in a plaintext column, an envelope
/// (binary) in an encrypted one.
fn stored<'v>(codec: &Codec, column: Column, v: &'v [u8]) -> Param<'v> {
    if codec.mode(column) == ColumnMode::Plain {
        Param::Text(v)
    } else {
        Param::Binary(v)
    }
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
