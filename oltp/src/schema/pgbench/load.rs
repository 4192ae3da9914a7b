//! `pgbench -i -s SCALE` (its default steps `dtgvp`, client-side generation):
//! the four tables created and loaded in one transaction with `COPY ... FROM
//! STDIN` (`pgbench_accounts` `WITH (FREEZE ON)`, as pgbench 15 does on a
//! server of version 14 or later), then `VACUUM ANALYZE` of each, then the
//! primary keys. [`META_TABLE`] says `state=loading` before the first table
//! and `done` after the last step.

use std::time::Instant;

use anyhow::{Result, anyhow};

use crate::columns::{Codec, Encrypt};
use crate::driver::{Connection, DbDriver, DbError, ErrorKind, Param, with_driver};
use crate::schema::lock::{PrepareLock, another_prepare};
use crate::schema::{DataSet, Dialect, STATE_DONE, STATE_LOADING, connect, database_exists};

use super::{
    ACCOUNTS_PER_SCALE, BRANCHES_PER_SCALE, Fillers, META_TABLE, TELLERS_PER_SCALE, Table,
    check_not_prepared, cleanup_command, seal_filler,
};

/// What `oltp prepare --workload pgbench_*` loads.
#[derive(Clone, Debug)]
pub struct PgbenchPrepare {
    /// The database that holds the tables (`DB`, or `DB_<algorithm>`).
    pub db: String,
    /// The data set (base database `--pgsql-db`, server flags, at-rest
    /// mode), for the commands messages name.
    pub data: DataSet,
    /// `--scale` (pgbench's `-s`).
    pub scale: u32,
    /// `--fillfactor` (pgbench's `-F`), 10 to 100.
    pub fillfactor: u32,
    /// Which fillers `encrypt` seals.
    pub fillers: Fillers,
    /// The column encryption.
    pub encrypt: Encrypt,
    /// The active key id (0 for plaintext).
    pub key_id: u32,
}

/// How long each of `pgbench -i`'s steps took, as pgbench 15 prints them after
/// `done in`: what `oltp prepare` prints, so the two can be compared step by step.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LoadTimes {
    /// Creating the database when missing (pgbench needs it made beforehand), s.
    pub create_database_s: f64,
    /// `create tables` (the mark table with it), s.
    pub create_tables_s: f64,
    /// `client-side generate`: the COPYs and their commit, s.
    pub generate_s: f64,
    /// `vacuum`: `VACUUM ANALYZE` of each table, s.
    pub vacuum_s: f64,
    /// `primary keys`, s.
    pub primary_keys_s: f64,
}

/// Rows of `pgbench_accounts` per COPY chunk sent.
const CHUNK_ROWS: u32 = 10_000;

/// Loads pgbench's tables into `p.db` on the PostgreSQL server of `url`,
/// fillers sealed with `codec`, and says how long each step took. `progress`
/// is called with the accounts rows sent so far by each chunk.
///
/// # Errors
/// The database already holds pgbench tables (run `cleanup`), another
/// prepare of it is running (wait for it), the server is
/// not PostgreSQL, or any database or sealing error; once loading began the
/// error says the database is half loaded and names the cleanup command.
pub async fn prepare(
    url: &str,
    p: &PgbenchPrepare,
    codec: &Codec,
    progress: &(dyn Fn(u64) + Send + Sync),
) -> Result<LoadTimes> {
    with_driver!(DbDriver::of_url(url), C => prepare_with::<C>(url, p, codec, progress).await)
}

/// [`prepare`] over driver `C`, which must be PostgreSQL's.
async fn prepare_with<C: Connection>(
    url: &str,
    p: &PgbenchPrepare,
    codec: &Codec,
    progress: &(dyn Fn(u64) + Send + Sync),
) -> Result<LoadTimes> {
    if C::DRIVER != DbDriver::Pgsql {
        anyhow::bail!(
            "pgbench's tables need PostgreSQL (fillfactor, COPY, VACUUM): add --db-driver pgsql"
        );
    }
    // Held until the last step, as sysbench's prepare holds it.
    let Some(lock) =
        PrepareLock::<C>::take(Dialect::Postgres, url, p.data.tls.as_ref(), &p.db).await?
    else {
        return Err(another_prepare(&p.db));
    };
    if let Err(e) = check_not_prepared::<C>(url, p, true).await {
        lock.release().await;
        return Err(e);
    }
    let cleanup = cleanup_command(&p.data, p.encrypt, p.fillers);
    let loading = async {
        let t = Instant::now();
        let mut server: C = connect(url, p.data.tls.as_ref(), None).await?;
        if !database_exists(&mut server, Dialect::Postgres, &p.db).await? {
            server
                .simple(&format!(
                    "CREATE DATABASE {}",
                    Dialect::Postgres.ident(&p.db)
                ))
                .await?;
        }
        server.close().await;
        let create_database_s = t.elapsed().as_secs_f64();
        let mut conn: C = connect(url, p.data.tls.as_ref(), Some(&p.db)).await?;
        let times = load(&mut conn, p, codec, progress).await?;
        conn.close().await;
        anyhow::Ok(LoadTimes {
            create_database_s,
            ..times
        })
    };
    let loaded = loading.await;
    lock.release().await;
    loaded.map_err(|e| {
        let lost = e.chain().any(|c| {
            c.downcast_ref::<DbError>()
                .is_some_and(|d| d.kind() == ErrorKind::ConnectionLost)
        });
        let why = if lost { " (the server went away)" } else { "" };
        anyhow!(
            "prepare failed{why} ({e:#}): {} is half loaded; run `{cleanup}` before preparing again",
            p.db
        )
    })
}

/// `pgbench -i`'s steps on `conn` (connected to `p.db`): the mark, the
/// tables, their rows, vacuum, primary keys, the mark done; how long each took.
///
/// # Errors
/// A statement, a COPY or sealing a filler failed.
async fn load<C: Connection>(
    conn: &mut C,
    p: &PgbenchPrepare,
    codec: &Codec,
    progress: &(dyn Fn(u64) + Send + Sync),
) -> Result<LoadTimes> {
    let mut times = LoadTimes::default();
    let mut step = Instant::now();
    let mut lap = |into: &mut f64| {
        *into = step.elapsed().as_secs_f64();
        step = Instant::now();
    };
    let fillers = p.encrypt.algorithm().map(|_| p.fillers);
    // The mark first: until it says done, run and prepare refuse these tables.
    conn.simple(&format!(
        "CREATE TABLE {META_TABLE} (name VARCHAR(64) PRIMARY KEY, value VARCHAR(255) NOT NULL)"
    ))
    .await?;
    let insert = format!("INSERT INTO {META_TABLE} (name, value) VALUES (?, ?)");
    conn.execute_text(
        &insert,
        &[Param::Text(b"state"), Param::Text(STATE_LOADING.as_bytes())],
    )
    .await?;
    // The scale with the mark: the commands a half-loaded database's
    // messages suggest prepare the scale it was given.
    conn.execute_text(
        &insert,
        &[
            Param::Text(b"scale"),
            Param::Text(p.scale.to_string().as_bytes()),
        ],
    )
    .await?;
    // pgbench's "create tables" and "client-side generate" in one transaction,
    // so that COPY FREEZE may write the accounts frozen (no vacuum rewrite).
    conn.simple("BEGIN").await?;
    for t in Table::ALL {
        conn.simple(&t.create_sql(p.scale, p.fillfactor, fillers))
            .await?;
    }
    lap(&mut times.create_tables_s);
    copy_branches_and_tellers(conn, p.scale).await?;
    copy_accounts(conn, p.scale, codec, fillers, progress).await?;
    conn.simple("COMMIT").await?;
    lap(&mut times.generate_s);
    // pgbench's "vacuum" step, then "primary keys".
    for t in [
        Table::Branches,
        Table::Tellers,
        Table::Accounts,
        Table::History,
    ] {
        conn.simple(&format!("vacuum analyze {}", t.name())).await?;
    }
    lap(&mut times.vacuum_s);
    for t in [Table::Branches, Table::Tellers, Table::Accounts] {
        if let Some(key) = t.key() {
            conn.simple(&format!("alter table {} add primary key ({key})", t.name()))
                .await?;
        }
    }
    lap(&mut times.primary_keys_s);
    mark_done(conn, p, fillers, &insert).await?;
    Ok(times)
}

/// Branches and tellers of `scale`, copied as pgbench copies them.
///
/// # Errors
/// The COPYs failed.
async fn copy_branches_and_tellers<C: Connection>(conn: &mut C, scale: u32) -> Result<()> {
    // Branches and tellers: (key, bid, 0, NULL filler), as pgbench inserts them.
    let branches = scale * BRANCHES_PER_SCALE;
    let mut rows = Vec::with_capacity(branches as usize * 8);
    for bid in 1..=branches {
        rows.extend_from_slice(format!("{bid}\t0\t\\N\n").as_bytes());
    }
    conn.copy_in(
        "copy pgbench_branches (bid, bbalance, filler) from stdin",
        std::iter::once(Ok(rows)),
    )
    .await?;
    let tellers = scale * TELLERS_PER_SCALE;
    let mut rows = Vec::with_capacity(tellers as usize * 12);
    for tid in 1..=tellers {
        let bid = (tid - 1) / TELLERS_PER_SCALE + 1;
        rows.extend_from_slice(format!("{tid}\t{bid}\t0\t\\N\n").as_bytes());
    }
    conn.copy_in(
        "copy pgbench_tellers (tid, bid, tbalance, filler) from stdin",
        std::iter::once(Ok(rows)),
    )
    .await?;
    Ok(())
}

/// The accounts of `scale`, copied in chunks of [`CHUNK_ROWS`] (`fillers`
/// say whether the filler is sealed with `codec`), `progress` told the rows
/// of each chunk.
///
/// # Errors
/// The COPY or sealing a filler failed.
async fn copy_accounts<C: Connection>(
    conn: &mut C,
    scale: u32,
    codec: &Codec,
    fillers: Option<Fillers>,
    progress: &(dyn Fn(u64) + Send + Sync),
) -> Result<()> {
    // Accounts: (aid, (aid - 1) / 100000 + 1, 0, '') as pgbench 15 copies
    // them; the empty filler is char(84)'s 84 blanks, sealed as such when
    // encrypted.
    let accounts = scale * ACCOUNTS_PER_SCALE;
    let sealed = fillers.is_some_and(|f| f.encrypts(Table::Accounts));
    let blank = [b' '; 84];
    let mut next = 1u32;
    let mut envelope = Vec::with_capacity(160);
    let chunks = std::iter::from_fn(|| {
        if next > accounts {
            return None;
        }
        let last = accounts.min(next.saturating_add(CHUNK_ROWS - 1));
        let per_row = if sealed { 260 } else { 20 };
        let mut out = Vec::with_capacity((last - next + 1) as usize * per_row);
        for aid in next..=last {
            let bid = (aid - 1) / ACCOUNTS_PER_SCALE + 1;
            push_int(&mut out, aid);
            out.push(b'\t');
            push_int(&mut out, bid);
            out.extend_from_slice(b"\t0\t");
            if sealed {
                if let Err(e) = seal_filler(
                    codec,
                    Table::Accounts,
                    i64::from(aid),
                    &blank,
                    &mut envelope,
                ) {
                    return Some(Err(DbError::new(
                        ErrorKind::Other,
                        format!("sealing pgbench_accounts.filler aid={aid}: {e}"),
                    )));
                }
                // bytea in COPY's text format: \x and hex, the backslash escaped.
                out.extend_from_slice(b"\\\\x");
                push_hex(&mut out, &envelope);
            }
            out.push(b'\n');
        }
        progress(u64::from(last - next + 1));
        next = last + 1;
        Some(Ok(out))
    });
    conn.copy_in(
        "copy pgbench_accounts (aid, bid, abalance, filler) from stdin with (freeze on)",
        chunks,
    )
    .await?;
    Ok(())
}

/// Records the data set's settings in [`META_TABLE`] (with `insert`), then
/// marks it done.
///
/// # Errors
/// A statement failed.
async fn mark_done<C: Connection>(
    conn: &mut C,
    p: &PgbenchPrepare,
    fillers: Option<Fillers>,
    insert: &str,
) -> Result<()> {
    let entries = [
        (
            "algorithm",
            p.encrypt.algorithm().map_or("none", |a| a.name()),
        ),
        ("key_id", &p.key_id.to_string()),
        ("fillfactor", &p.fillfactor.to_string()),
        ("fillers", fillers.map_or("", Fillers::meta)),
    ];
    for (name, value) in entries {
        conn.execute_text(
            insert,
            &[Param::Text(name.as_bytes()), Param::Text(value.as_bytes())],
        )
        .await?;
    }
    conn.execute_text(
        &format!("UPDATE {META_TABLE} SET value = ? WHERE name = 'state'"),
        &[Param::Text(STATE_DONE.as_bytes())],
    )
    .await?;
    Ok(())
}

/// Appends the decimal digits of `n`.
fn push_int(out: &mut Vec<u8>, n: u32) {
    let mut buf = [0u8; 10];
    let mut i = buf.len();
    let mut n = n;
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&buf[i..]);
}

/// Appends `bytes` as lower-case hex.
fn push_hex(out: &mut Vec<u8>, bytes: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for &b in bytes {
        out.push(HEX[usize::from(b >> 4)]);
        out.push(HEX[usize::from(b & 15)]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_and_hex() {
        let mut v = Vec::new();
        for n in [0, 7, 10, 100_000, u32::MAX] {
            v.clear();
            push_int(&mut v, n);
            assert_eq!(v, n.to_string().as_bytes());
        }
        v.clear();
        push_hex(&mut v, &[0, 0xab, 0x10]);
        assert_eq!(v, b"00ab10");
    }
}
