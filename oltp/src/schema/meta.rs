//! What a database holds: its `sbtestN` tables and the `encbench_meta` that
//! `prepare` marks `state=loading` first and `done` last, and the checks `run`
//! and `prepare` make of them (tables without `encbench_meta`, as sysbench
//! prepares them, are checked as sysbench would leave them).

use anyhow::{Result, bail};

use crate::at_rest::AtRest;
use crate::columns::{Columns, Encrypt};
use crate::driver::{Connection, DbDriver, with_driver};

use super::lock::{another_prepare, prepare_running};
use super::{DEFAULT_SEED, DataSet, Dialect, connect, database_exists, scalar, table_name};

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
    /// [`STATE_LOADING`] from the start of a `prepare` until its last step,
    /// then [`STATE_DONE`] (also when the table predates the entry).
    pub state: String,
}

/// `encbench_meta`'s `state` while `prepare` loads: written before any table.
pub const STATE_LOADING: &str = "loading";
/// `encbench_meta`'s `state` once `prepare` finished: written last.
pub const STATE_DONE: &str = "done";

impl Meta {
    /// Whether the `prepare` that wrote it did not finish.
    pub fn is_loading(&self) -> bool {
        self.state == STATE_LOADING
    }
}

/// `oltp cleanup` for `encrypt`'s database of `data` on a `dialect` server,
/// as a user types it (with the flags that chose the server, [`DataSet::server`]).
pub fn cleanup_command(dialect: Dialect, data: &DataSet, encrypt: Encrypt) -> String {
    format!(
        "oltp cleanup --encrypt {}{}{}{}{}{}",
        encrypt.name(),
        layout_flags(data, encrypt),
        dialect.flags(&data.db),
        data.server,
        tls_flags(data),
        at_rest_flag(data.at_rest)
    )
}

/// `oltp prepare` of `data` for `encrypts` (one `--encrypt` list) on a
/// `dialect` server, as a user types it (with the flags that chose the
/// server, [`DataSet::server`]).
pub fn prepare_command(dialect: Dialect, data: &DataSet, encrypts: &[Encrypt]) -> String {
    let layout = encrypts
        .iter()
        .find(|e| e.algorithm().is_some())
        .map_or_else(String::new, |e| layout_flags(data, *e));
    format!(
        "oltp prepare --tables {} --table-size {} --encrypt {}{}{}{}{}{}",
        data.tables,
        data.table_size,
        encrypt_list(encrypts),
        layout,
        dialect.flags(&data.db),
        data.server,
        tls_flags(data),
        at_rest_flag(data.at_rest)
    )
}

/// `encrypts`' names as one `--encrypt` list (`none,openssl:aes-256-gcm`).
pub(crate) fn encrypt_list(encrypts: &[Encrypt]) -> String {
    encrypts
        .iter()
        .map(|e| e.name())
        .collect::<Vec<_>>()
        .join(",")
}

/// ` --at-rest MODE` for tables on `mode`'s server (each mode has its own), as
/// the suggested commands end; empty for `off`.
pub(crate) fn at_rest_flag(mode: AtRest) -> String {
    match mode {
        AtRest::Off => String::new(),
        mode => format!(" --at-rest {}", mode.name()),
    }
}

/// ` --tls MODE --tls-ca FILE` of the TLS `data`'s connections use
/// ([`DataSet::tls`]), as the suggested commands carry them (a server that
/// refuses plain TCP needs them); empty without TLS.
pub(crate) fn tls_flags(data: &DataSet) -> String {
    let Some(tls) = &data.tls else {
        return String::new();
    };
    let mode = match tls.mode {
        crate::driver::TlsMode::VerifyIdentity => "on",
        other => other.name(),
    };
    match &tls.ca {
        Some(ca) => format!(
            " --tls {mode} --tls-ca {}",
            super::server_flags::shell_word(&ca.to_string_lossy())
        ),
        None => format!(" --tls {mode}"),
    }
}

fn layout_flags(data: &DataSet, encrypt: Encrypt) -> String {
    if encrypt.algorithm().is_some() {
        data.columns.flags()
    } else {
        String::new()
    }
}

/// The first two columns of every row `sql` returns, as text (NULL and
/// missing columns as empty strings).
async fn string_pairs<C: Connection>(conn: &mut C, sql: &str) -> Result<Vec<(String, String)>> {
    let rows = conn.query_text(sql).await?;
    Ok(rows
        .into_iter()
        .map(|r| {
            let mut it = r.into_iter().map(Option::unwrap_or_default);
            (it.next().unwrap_or_default(), it.next().unwrap_or_default())
        })
        .collect())
}

/// Reads `encbench_meta` of the database `conn` is connected to; `None` when
/// the table does not exist.
///
/// # Errors
/// Query failures.
pub async fn read_meta<C: Connection>(conn: &mut C, dialect: Dialect) -> Result<Option<Meta>> {
    // Text protocol, so that `--db-ps-mode disable` needs no prepared statement.
    let sql = dialect.tables_like_sql(&dialect.literal("encbench_meta"));
    if scalar(conn, &sql).await?.is_none() {
        return Ok(None);
    }
    let rows = string_pairs(conn, "SELECT name, value FROM encbench_meta").await?;
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
        state: rows
            .iter()
            .find(|(n, _)| n == "state")
            .map_or_else(|| STATE_DONE.to_string(), |(_, v)| v.clone()),
    }))
}

/// The numbers N of the `sbtestN` tables in the database `conn` is
/// connected to, ascending.
///
/// # Errors
/// Query failures.
pub async fn existing_tables<C: Connection>(conn: &mut C, dialect: Dialect) -> Result<Vec<u32>> {
    // Text protocol, so that `--db-ps-mode disable` needs no prepared statement.
    let sql = dialect.tables_like_sql(&dialect.literal("sbtest%"));
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

/// What is wrong with plaintext tables that have no `encbench_meta` (as
/// sysbench prepares them) in database `db`, which `conn` is connected to, checked as sysbench leaves them: each of
/// `sbtest1..=sbtest<tables>` holds ids up to `table_size` and has its index
/// `k_N` (sysbench's default `create_secondary`). `None`: they look complete.
///
/// The rows are checked with `MAX(id)`, one primary-key (or `xid`) lookup per
/// table, not `COUNT(*)`, a scan of every row (6.25 M rows at 250 x 25,000):
/// sysbench and oltp load each table in id order, 1 up, so a table whose load
/// stopped holds ids below `table_size`, and the index is created after the
/// rows, so it is missing too. `MAX(id)` also accepts tables a delete or insert
/// workload ran on (their count differs from `table_size`), as sysbench does.
///
/// # Errors
/// Query failures.
pub async fn incomplete_tables<C: Connection>(
    conn: &mut C,
    dialect: Dialect,
    db: &str,
    tables: u32,
    table_size: u32,
) -> Result<Option<String>> {
    for n in 1..=tables {
        let max = scalar(conn, &format!("SELECT MAX(id) FROM {}", table_name(n)))
            .await?
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0);
        if max < u64::from(table_size) {
            return Ok(Some(format!(
                "{db}.{} holds ids up to {max} of --table-size {table_size}",
                table_name(n)
            )));
        }
    }
    let indexes = string_pairs(conn, dialect.k_indexes_sql()).await?;
    for n in 1..=tables {
        let (table, index) = (table_name(n), format!("k_{n}"));
        if !indexes.iter().any(|(t, i)| *t == table && *i == index) {
            return Ok(Some(format!("{db}.{table} has no index {index}")));
        }
    }
    Ok(None)
}

/// A data set that is not prepared as a command asks for: what the check
/// found and the fix it names for a user (a command line to run, a flag to
/// give), apart, so that a caller that prepares data sets itself
/// (`encbench-reproduce`) can show what was found alone. Displayed as one
/// line, `{what}: {fix}` (or `{what}; {fix}` after a sentence that has its own
/// colon).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{what}{}{fix}", if *.after_semicolon { "; " } else { ": " })]
pub struct NotPrepared {
    /// What the check found, e.g. `sbtest_none.sbtest1 not found`.
    pub what: String,
    /// The fix for a user, e.g. ``run `oltp prepare ...` first``.
    pub fix: String,
    /// `what` and `fix` joined by `; ` rather than `: `.
    after_semicolon: bool,
}

impl NotPrepared {
    /// `what` and `fix`, displayed as `{what}: {fix}`.
    pub fn new(what: String, fix: String) -> NotPrepared {
        NotPrepared {
            what,
            fix,
            after_semicolon: false,
        }
    }

    /// `what` and `fix`, displayed as `{what}; {fix}` (`what` has a colon of its own).
    pub fn after_semicolon(what: String, fix: String) -> NotPrepared {
        NotPrepared {
            what,
            fix,
            after_semicolon: true,
        }
    }
}

/// Checks that `encrypt`'s database holds a finished `prepare` of at least
/// `data.tables` tables on the server of `url` (`admin` is connected to it);
/// returns its meta (None for sysbench-prepared plaintext, which must hold
/// every row and index sysbench creates: [`incomplete_tables`]) and a
/// connection to the database.
///
/// # Errors
/// Missing tables, unfinished prepare, incomplete sysbench tables, or tables
/// prepared for another algorithm, each with the commands that fix it.
pub async fn check_prepared<C: Connection>(
    dialect: Dialect,
    admin: &mut C,
    url: &str,
    data: &DataSet,
    encrypt: Encrypt,
) -> Result<(Option<Meta>, C)> {
    let db = data.database(encrypt);
    let (cleanup, prepare) = (
        cleanup_command(dialect, data, encrypt),
        prepare_command(dialect, data, &[encrypt]),
    );
    if !database_exists(admin, dialect, &db).await? {
        return Err(NotPrepared::new(
            format!("{db}.{} not found", table_name(1)),
            format!("run `{prepare}` first"),
        )
        .into());
    }
    let mut conn: C = connect(url, data.tls.as_ref(), Some(&db)).await?;
    let mut meta = read_meta(&mut conn, dialect).await?;
    if meta.as_ref().is_some_and(Meta::is_loading) {
        if prepare_running::<C>(dialect, url, data.tls.as_ref(), &db).await? {
            bail!(
                "{db} is being loaded by a prepare running now: wait for it to finish, then run again"
            );
        }
        // Read again: a prepare that ended meanwhile marked it done.
        meta = read_meta(&mut conn, dialect).await?;
    }
    if meta.as_ref().is_some_and(Meta::is_loading) {
        return Err(NotPrepared::new(
            format!("{db} is half loaded (a prepare did not finish)"),
            format!("run `{cleanup}`, then `{prepare}`"),
        )
        .into());
    }
    if let (Some(m), alg) = (&meta, encrypt.algorithm()) {
        let want = alg.map_or("none", |a| a.name());
        if m.algorithm != want {
            return Err(NotPrepared::new(
                format!("{db} was prepared for {}, not {want}", m.algorithm),
                format!("run `{cleanup}` and prepare again"),
            )
            .into());
        }
        if alg.is_some() && m.columns != data.columns.meta() {
            return Err(NotPrepared::new(
                format!(
                    "{db} was prepared with columns {}, the run asks for {}",
                    m.columns,
                    data.columns.meta()
                ),
                "give the same --encrypt-columns and --deterministic as prepare".to_string(),
            )
            .into());
        }
        if m.table_size != data.table_size {
            return Err(NotPrepared::new(
                format!(
                    "{db} was prepared with --table-size {}, the run asks for {}",
                    m.table_size, data.table_size
                ),
                format!(
                    "use --table-size {} (ids are drawn from 1..=table-size)",
                    m.table_size
                ),
            )
            .into());
        }
        if m.tables < data.tables {
            return Err(NotPrepared::new(
                format!(
                    "{db} was prepared with --tables {}, the run asks for {}",
                    m.tables, data.tables
                ),
                format!("use --tables {} or prepare again", m.tables),
            )
            .into());
        }
    }
    let existing = existing_tables(&mut conn, dialect).await?;
    if let Some(n) = (1..=data.tables).find(|n| existing.binary_search(n).is_err()) {
        // With nothing left over, prepare works; otherwise it refuses until cleanup.
        if existing.is_empty() && meta.is_none() {
            return Err(NotPrepared::new(
                format!("{db}.{} not found", table_name(n)),
                format!("run `{prepare}` first"),
            )
            .into());
        }
        return Err(NotPrepared::new(
            format!("{db}.{} not found", table_name(n)),
            format!("run `{cleanup}`, then `{prepare}`"),
        )
        .into());
    }
    match (&meta, encrypt.algorithm()) {
        (None, None) => {
            if let Some(problem) =
                incomplete_tables(&mut conn, dialect, &db, data.tables, data.table_size).await?
            {
                return Err(NotPrepared::after_semicolon(
                    format!("{problem} and no encbench_meta: a prepare did not finish"),
                    format!("run `{cleanup}`, then `{prepare}`"),
                )
                .into());
            }
            Ok((None, conn))
        }
        (None, Some(_)) => Err(NotPrepared::after_semicolon(
            format!("{db} has tables but no encbench_meta: the prepare did not finish"),
            format!("run `{cleanup}`, then `{prepare}`"),
        )
        .into()),
        (Some(_), _) => Ok((meta, conn)),
    }
}

/// Checks that none of the databases for `encrypts` holds sbtest tables yet, so
/// `prepare` refuses before it loads anything.
///
/// # Errors
/// A database already holds tables, is being loaded by another prepare
/// running now (the message says to wait for it), or is half loaded (the
/// message names the cleanup command).
pub async fn check_not_prepared(url: &str, data: &DataSet, encrypts: &[Encrypt]) -> Result<()> {
    with_driver!(DbDriver::of_url(url), C => {
        not_prepared::<C>(C::DRIVER.dialect(), url, data, encrypts, false).await
    })
}

/// [`check_not_prepared`]; `locked_here`: this process holds the databases'
/// prepare locks ([`super::lock`]), so a `loading` mark is a prepare that
/// did not finish, never another one running.
pub(super) async fn not_prepared<C: Connection>(
    dialect: Dialect,
    url: &str,
    data: &DataSet,
    encrypts: &[Encrypt],
    locked_here: bool,
) -> Result<()> {
    let mut admin: C = connect(url, data.tls.as_ref(), None).await?;
    for e in encrypts {
        let db = data.database(*e);
        if !database_exists(&mut admin, dialect, &db).await? {
            continue;
        }
        let cleanup = cleanup_command(dialect, data, *e);
        let mut conn: C = connect(url, data.tls.as_ref(), Some(&db)).await?;
        let existing = existing_tables(&mut conn, dialect).await?;
        let mut meta = read_meta(&mut conn, dialect).await?;
        if meta.as_ref().is_some_and(Meta::is_loading) && !locked_here {
            if prepare_running::<C>(dialect, url, data.tls.as_ref(), &db).await? {
                return Err(another_prepare(&db));
            }
            // Read again: a prepare that ended meanwhile marked it done.
            meta = read_meta(&mut conn, dialect).await?;
        }
        let problem = match &meta {
            Some(m) if m.is_loading() => Some("a prepare did not finish".to_string()),
            Some(_) => None,
            None if existing.is_empty() => {
                conn.close().await;
                continue;
            }
            None if e.algorithm().is_some() => Some("no encbench_meta".to_string()),
            None => incomplete_tables(&mut conn, dialect, &db, data.tables, data.table_size)
                .await?
                .map(|p| format!("{p}, no encbench_meta")),
        };
        match problem {
            Some(problem) => {
                bail!("{db} is half loaded ({problem}): run `{cleanup}` first, then prepare again")
            }
            None => bail!(
                "{db} already holds sbtest tables: run `{cleanup}` first, or use them as they are"
            ),
        }
    }
    admin.close().await;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_commands_name_the_at_rest_server_of_the_data_set() {
        let mut data = DataSet {
            db: "sbtest".into(),
            tables: 2,
            table_size: 500,
            columns: Columns::default(),
            at_rest: AtRest::Off,
            server: Default::default(),
            tls: None,
        };
        assert_eq!(
            prepare_command(Dialect::Mysql, &data, &[Encrypt::None]),
            "oltp prepare --tables 2 --table-size 500 --encrypt none"
        );
        // New-user finding: the mode was left out, naming another server's prepare.
        data.at_rest = AtRest::Gocryptfs;
        assert_eq!(
            prepare_command(Dialect::Postgres, &data, &[Encrypt::None]),
            "oltp prepare --tables 2 --table-size 500 --encrypt none --db-driver pgsql --at-rest gocryptfs"
        );
        assert_eq!(
            cleanup_command(Dialect::Mysql, &data, Encrypt::None),
            "oltp cleanup --encrypt none --at-rest gocryptfs"
        );
    }

    #[test]
    fn the_commands_carry_the_server_flags_and_every_encrypt_named() {
        let data = DataSet {
            db: "s1".into(),
            tables: 1,
            table_size: 10,
            columns: Columns::default(),
            at_rest: AtRest::Off,
            server: super::super::ServerFlags::new(
                "--mysql-url",
                Some("mysql://u:secret@db1:3306/"),
                None,
                Some(std::path::Path::new("/srv/e")),
            ),
            tls: None,
        };
        let aead = Encrypt::parse("openssl:aes-256-gcm").expect("compiled in");
        assert_eq!(
            prepare_command(Dialect::Mysql, &data, &[Encrypt::None, aead]),
            "oltp prepare --tables 1 --table-size 10 --encrypt none,openssl:aes-256-gcm --mysql-db s1 --mysql-url mysql://u:PASSWORD@db1:3306/ --base-dir /srv/e"
        );
        assert_eq!(
            cleanup_command(Dialect::Mysql, &data, aead),
            "oltp cleanup --encrypt openssl:aes-256-gcm --mysql-db s1 --mysql-url mysql://u:PASSWORD@db1:3306/ --base-dir /srv/e"
        );
    }

    #[test]
    fn the_commands_carry_the_tls_the_connections_use() {
        let mut data = DataSet {
            db: "sbtest".into(),
            tables: 1,
            table_size: 10,
            columns: Columns::default(),
            at_rest: AtRest::Off,
            server: Default::default(),
            tls: Some(crate::driver::TlsOptions {
                ca: Some("/srv/my ca.pem".into()),
                mode: crate::driver::TlsMode::VerifyIdentity,
            }),
        };
        assert_eq!(
            cleanup_command(Dialect::Mysql, &data, Encrypt::None),
            "oltp cleanup --encrypt none --tls on --tls-ca '/srv/my ca.pem'"
        );
        data.tls = Some(crate::driver::TlsOptions {
            ca: None,
            mode: crate::driver::TlsMode::Required,
        });
        assert_eq!(
            prepare_command(Dialect::Postgres, &data, &[Encrypt::None]),
            "oltp prepare --tables 1 --table-size 10 --encrypt none --db-driver pgsql --tls required"
        );
    }

    #[test]
    fn not_prepared_keeps_what_and_fix_apart_and_shows_them_on_one_line() {
        let e = NotPrepared::new(
            "sbtest_none.sbtest1 not found".into(),
            "run `oltp prepare --encrypt none` first".into(),
        );
        assert_eq!(
            e.to_string(),
            "sbtest_none.sbtest1 not found: run `oltp prepare --encrypt none` first"
        );
        let e = NotPrepared::after_semicolon(
            "sbtest1 has no index k_1 and no encbench_meta: a prepare did not finish".into(),
            "run `oltp cleanup`, then `oltp prepare`".into(),
        );
        assert_eq!(
            e.to_string(),
            "sbtest1 has no index k_1 and no encbench_meta: a prepare did not finish; run `oltp cleanup`, then `oltp prepare`"
        );
        assert_eq!(e.fix, "run `oltp cleanup`, then `oltp prepare`");
    }
}
