//! What a database holds of pgbench's: the four tables, [`META_TABLE`] when
//! `oltp prepare` made them, and their scale as pgbench itself reads it
//! (`count(*)` of `pgbench_branches`); the checks `run` and `prepare` make
//! of them, and the drop `cleanup` does.

use anyhow::{Result, bail};

use crate::columns::{Codec, Encrypt};
use crate::driver::{Connection, Row as _};
use crate::schema::lock::{another_prepare, prepare_running};
use crate::schema::{DataSet, Dialect, NotPrepared, STATE_DONE, connect, database_exists, scalar};

use super::{
    Fillers, META_TABLE, PgbenchPrepare, Table, cleanup_command, open_filler, prepare_command,
};

/// What [`META_TABLE`] says about pgbench tables `oltp prepare` made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgbenchMeta {
    /// Algorithm name, or `none`.
    pub algorithm: String,
    /// `loading` until the last step of `prepare`, then `done`.
    pub state: String,
    /// `--scale` at prepare.
    pub scale: u32,
    /// Which fillers are sealed ([`Fillers::meta`]; empty for plaintext).
    pub fillers: String,
}

/// Reads [`META_TABLE`] of the database `conn` is connected to; `None`
/// when there is none (no oltp prepare, or tables of stock `pgbench -i`).
///
/// # Errors
/// Query failures.
pub async fn read_meta<C: Connection>(conn: &mut C) -> Result<Option<PgbenchMeta>> {
    let d = Dialect::Postgres;
    if scalar(conn, &d.tables_like_sql(&d.literal(META_TABLE)))
        .await?
        .is_none()
    {
        return Ok(None);
    }
    let rows = conn
        .query_text(&format!("SELECT name, value FROM {META_TABLE}"))
        .await?;
    let get = |k: &str| {
        rows.iter()
            .find(|r| r.first().cloned().flatten().as_deref() == Some(k))
            .and_then(|r| r.get(1).cloned().flatten())
            .unwrap_or_default()
    };
    Ok(Some(PgbenchMeta {
        algorithm: get("algorithm"),
        state: get("state"),
        scale: get("scale").parse().unwrap_or(0),
        fillers: get("fillers"),
    }))
}

/// Which of pgbench's four tables exist in the database `conn` is connected to.
async fn existing<C: Connection>(conn: &mut C) -> Result<Vec<Table>> {
    let d = Dialect::Postgres;
    let names: Vec<String> = conn
        .query_text(&d.tables_like_sql(&d.literal("pgbench\\_%")))
        .await?
        .into_iter()
        .filter_map(|r| r.into_iter().next().flatten())
        .collect();
    Ok(Table::ALL
        .into_iter()
        .filter(|t| names.iter().any(|n| n == t.name()))
        .collect())
}

/// Refuses to load into `p.db` when it holds pgbench tables or their
/// record already (`pgbench -i` drops them; oltp leaves them to `cleanup`).
/// `locked_here`: this process holds `p.db`'s prepare lock, so a `loading`
/// record is a prepare that did not finish, never another one running.
///
/// # Errors
/// The database holds pgbench tables, finished or half loaded (the message
/// names the cleanup command), or another prepare is loading it now (the
/// message says to wait for it).
pub async fn check_not_prepared<C: Connection>(
    url: &str,
    p: &PgbenchPrepare,
    locked_here: bool,
) -> Result<()> {
    let mut admin: C = connect(url, p.data.tls.as_ref(), None).await?;
    let exists = database_exists(&mut admin, Dialect::Postgres, &p.db).await?;
    admin.close().await;
    if !exists {
        return Ok(());
    }
    let mut conn: C = connect(url, p.data.tls.as_ref(), Some(&p.db)).await?;
    let tables = existing(&mut conn).await?;
    let mut meta = read_meta(&mut conn).await?;
    if meta.as_ref().is_some_and(|m| m.state != STATE_DONE) && !locked_here {
        if prepare_running::<C>(Dialect::Postgres, url, p.data.tls.as_ref(), &p.db).await? {
            conn.close().await;
            return Err(another_prepare(&p.db));
        }
        // Read again: a prepare that ended meanwhile marked it done.
        meta = read_meta(&mut conn).await?;
    }
    conn.close().await;
    let cleanup = cleanup_command(&p.data, p.encrypt, p.fillers);
    match meta {
        Some(m) if m.state != STATE_DONE => bail!(
            "{} is half loaded (a prepare of pgbench's tables did not finish): run `{cleanup}` first, then prepare again",
            p.db
        ),
        Some(_) => bail!(
            "{} already holds pgbench's tables: run `{cleanup}` first, or use them as they are",
            p.db
        ),
        None if !tables.is_empty() => bail!(
            "{} already holds {} (from pgbench -i?): run `{cleanup}` first, or use them as they are",
            p.db,
            tables
                .iter()
                .map(|t| t.name())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        None => Ok(()),
    }
}

/// Checks that `db` on the server of `url` (`admin` is connected to it)
/// holds pgbench's four tables, finished, for `encrypt` with `fillers`, and
/// of scale `want` when given; the commands its errors suggest name `data`'s
/// base database, server and at-rest mode. Returns the tables' scale
/// (`count(*)` of `pgbench_branches`, as pgbench reads it) and a connection
/// to the database.
///
/// # Errors
/// Missing or half-loaded tables, tables of another algorithm or layout, a
/// scale that differs from `want`; each one line with the command that fixes it.
#[allow(clippy::too_many_arguments)]
pub async fn check_prepared<C: Connection>(
    admin: &mut C,
    url: &str,
    workload: &str,
    data: &DataSet,
    db: &str,
    encrypt: Encrypt,
    fillers: Fillers,
    want: Option<u32>,
) -> Result<(u32, C)> {
    let cleanup = cleanup_command(data, encrypt, fillers);
    if !database_exists(admin, Dialect::Postgres, db).await? {
        let prepare = prepare_command(workload, want.unwrap_or(1), data, &[encrypt], fillers);
        return Err(NotPrepared::new(
            format!("{db} has no pgbench tables"),
            format!("run `{prepare}` first"),
        )
        .into());
    }
    let mut conn: C = connect(url, data.tls.as_ref(), Some(db)).await?;
    let mut meta = read_meta(&mut conn).await?;
    if meta.as_ref().is_some_and(|m| m.state != STATE_DONE) {
        if prepare_running::<C>(Dialect::Postgres, url, data.tls.as_ref(), db).await? {
            bail!(
                "{db} is being loaded by a prepare running now: wait for it to finish, then run again"
            );
        }
        // Read again: a prepare that ended meanwhile marked it done.
        meta = read_meta(&mut conn).await?;
    }
    // The scale asked for, else the one the tables were (being) prepared
    // with, else pgbench's default.
    let scale_hint = want
        .or(meta.as_ref().map(|m| m.scale).filter(|&s| s > 0))
        .unwrap_or(1);
    let prepare = prepare_command(workload, scale_hint, data, &[encrypt], fillers);
    let tables = existing(&mut conn).await?;
    if let Some(m) = &meta {
        if m.state != STATE_DONE {
            return Err(NotPrepared::new(
                format!("{db} is half loaded (a prepare of pgbench's tables did not finish)"),
                format!("run `{cleanup}`, then `{prepare}`"),
            )
            .into());
        }
        let alg = encrypt.algorithm().map_or("none", |a| a.name());
        if m.algorithm != alg {
            return Err(NotPrepared::new(
                format!(
                    "{db}'s pgbench tables were prepared for {}, not {alg}",
                    m.algorithm
                ),
                format!("run `{cleanup}` and prepare again"),
            )
            .into());
        }
        if encrypt.algorithm().is_some() && m.fillers != fillers.meta() {
            return Err(NotPrepared::new(
                format!(
                    "{db}'s pgbench tables seal {}, the run asks for {}",
                    m.fillers,
                    fillers.meta()
                ),
                "give the same --encrypt-columns as prepare".to_string(),
            )
            .into());
        }
    }
    if tables.len() < Table::ALL.len() {
        if tables.is_empty() && meta.is_none() {
            return Err(NotPrepared::new(
                format!("{db} has no pgbench tables"),
                format!("run `{prepare}` first"),
            )
            .into());
        }
        let missing: Vec<&str> = Table::ALL
            .into_iter()
            .filter(|t| !tables.contains(t))
            .map(Table::name)
            .collect();
        return Err(NotPrepared::new(
            format!("{db} lacks {}", missing.join(", ")),
            format!("run `{cleanup}`, then `{prepare}`"),
        )
        .into());
    }
    if meta.is_none() && encrypt.algorithm().is_some() {
        return Err(NotPrepared::after_semicolon(
            format!(
                "{db} has pgbench tables but no {META_TABLE}: they are not oltp's encrypted tables"
            ),
            format!("run `{cleanup}`, then `{prepare}`"),
        )
        .into());
    }
    let scale: u32 = scalar(&mut conn, "select count(*) from pgbench_branches")
        .await?
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    if scale == 0 {
        return Err(NotPrepared::new(
            format!("{db}.pgbench_branches is empty (scale 0)"),
            format!("run `{cleanup}`, then `{prepare}`"),
        )
        .into());
    }
    if let Some(w) = want
        && w != scale
    {
        return Err(NotPrepared::new(
            format!(
                "{db}'s pgbench tables have scale {scale} (count(*) of pgbench_branches), the run asks for --scale {w}"
            ),
            format!(
                "use --scale {scale}, or run `{cleanup}` and `{}`",
                prepare_command(workload, w, data, &[encrypt], fillers)
            ),
        )
        .into());
    }
    Ok((scale, conn))
}

/// Opens the first stored filler of every table whose filler `fillers`
/// seals, in database `db` (`conn` is connected to it), to prove the keys of
/// `codec` fit the data before a run.
///
/// # Errors
/// A filler does not open: the message names table, key and row.
pub async fn check_keys<C: Connection>(
    conn: &mut C,
    db: &str,
    fillers: Fillers,
    codec: &Codec,
) -> Result<()> {
    if !codec.is_encrypted() {
        return Ok(());
    }
    for t in [Table::Accounts, Table::Tellers, Table::Branches] {
        if fillers.encrypts(t) {
            check_first_filler(conn, db, t, codec).await?;
        }
    }
    Ok(())
}

/// Opens the filler of the first row of `t` holding one (none: nothing to check).
async fn check_first_filler<C: Connection>(
    conn: &mut C,
    db: &str,
    t: Table,
    codec: &Codec,
) -> Result<()> {
    let Some(key) = t.key() else {
        return Ok(());
    };
    let mut first: Option<(Option<i64>, Vec<u8>)> = None;
    conn.simple_query(
        &format!(
            "SELECT {key}, filler FROM {} WHERE filler IS NOT NULL ORDER BY {key} LIMIT 1",
            t.name()
        ),
        |row: &mut C::Row| first = Some((row.int(0), row.take_bytes(1).unwrap_or_default())),
    )
    .await?;
    if let Some((Some(id), mut v)) = first {
        open_filler(codec, t, id, &mut v)
            .map_err(|e| anyhow::anyhow!("{db}.{}.filler {key}={id}: {e}", t.name()))?;
    }
    Ok(())
}

/// Drops pgbench's four tables and [`META_TABLE`] from the database `conn`
/// is connected to; true when any of them existed.
///
/// # Errors
/// The server refuses the DROP.
pub async fn drop_tables<C: Connection>(conn: &mut C, dialect: Dialect) -> Result<bool> {
    if dialect != Dialect::Postgres {
        return Ok(false);
    }
    let tables = existing(conn).await?;
    let meta = read_meta(conn).await?.is_some();
    for t in &tables {
        conn.simple(&format!("DROP TABLE IF EXISTS {}", t.name()))
            .await?;
    }
    conn.simple(&format!("DROP TABLE IF EXISTS {META_TABLE}"))
        .await?;
    Ok(meta || !tables.is_empty())
}
