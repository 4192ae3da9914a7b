//! Every check of `oltp run` that can fail, done before a worker starts: the
//! server's facts and limits, the prepared tables and their layout, the keys
//! (one value of every encrypted column opened), the TLS session, encryption
//! at rest, and the prepared-statement budget of every thread count. What
//! passes is the list of [`Mode`]s the grid runs.

use anyhow::{Context, Result, bail};

use crate::columns::{Codec, Column, Encrypt, TableAad, keys::load_codec};
use crate::config::RunConfig;
use crate::driver::{ConnectOptions, Connection, Row as _, TlsMode, TlsOptions, TlsSession};
use crate::schema::{Dialect, check_prepared, connect};
use crate::workload::{Options, Workload};

/// Server facts read before a run.
#[derive(Clone, Debug)]
pub struct ServerInfo {
    /// `SELECT VERSION()`.
    pub version: String,
    /// What the results call the server ([`Dialect::engine`]): `mariadb`,
    /// `mysql` or `postgresql`.
    pub engine: String,
    /// `@@max_prepared_stmt_count`; `None` on a server without such a cap
    /// (PostgreSQL).
    pub max_prepared_stmt_count: Option<u64>,
    /// Prepared statements open on the server now (`Prepared_stmt_count`).
    pub prepared_stmt_count: u64,
    /// `max_connections`.
    pub max_connections: u64,
    /// Server settings recorded with every result (name -> value), as
    /// [`Dialect::settings_sql`] lists them.
    pub settings: std::collections::BTreeMap<String, String>,
}

/// One combination of the grid besides the thread count.
#[derive(Clone, Debug)]
pub struct Mode {
    /// Column encryption.
    pub encrypt: Encrypt,
    /// Its codec.
    pub codec: Codec,
    /// The TLS session a probe connection negotiated, when TLS is on.
    pub tls: Option<TlsSession>,
}

/// What the checks found: the server and the grid's modes (TLS outermost,
/// then encryption, in the order given).
#[derive(Clone, Debug)]
pub struct Checked {
    /// The server's facts.
    pub info: ServerInfo,
    /// The modes to run at every thread count.
    pub modes: Vec<Mode>,
    /// A pgbench workload's scale, as its tables have it (1 for sysbench's).
    pub scale: u32,
}

/// Refuses a grid of which two or more `--encrypt` choices have no database
/// yet, naming one `oltp prepare` of them all (a message per choice would name
/// `--encrypt none` first and the next one only on the next try); one missing
/// database is left to the checks of each choice, which name its prepare.
///
/// # Errors
/// The missing databases and the prepare of them; query failures.
async fn check_any_prepared<C: Connection>(
    conn: &mut C,
    dialect: Dialect,
    cfg: &RunConfig,
) -> Result<()> {
    let mut missing = Vec::new();
    for &e in &cfg.encrypts {
        if !crate::schema::database_exists(conn, dialect, &cfg.data.database(e)).await? {
            missing.push(e);
        }
    }
    if missing.len() < 2 {
        return Ok(());
    }
    let dbs: Vec<String> = missing.iter().map(|e| cfg.data.database(*e)).collect();
    if cfg.workload.is_pgbench() {
        let fillers = if missing.iter().any(|e| e.algorithm().is_some()) {
            crate::schema::pgbench::Fillers::of(cfg.data.columns)?
        } else {
            crate::schema::pgbench::Fillers::Accounts
        };
        let prepare = crate::schema::pgbench::prepare_command(
            cfg.workload.name(),
            cfg.scale.unwrap_or(1),
            &cfg.data,
            &missing,
            fillers,
        );
        bail!(
            "{} have no pgbench tables: run `{prepare}` first",
            dbs.join(", ")
        );
    }
    let prepare = crate::schema::prepare_command(dialect, &cfg.data, &missing);
    bail!(
        "{} not found: run `{prepare}` first",
        dbs.iter()
            .map(|d| format!("{d}.{}", crate::schema::table_name(1)))
            .collect::<Vec<_>>()
            .join(", ")
    );
}

/// Runs every check for `cfg` over driver `C` (of `dialect`, which `cfg.url`'s
/// scheme names).
///
/// # Errors
/// The first check that fails, with the fix in the message.
pub async fn check<C: Connection>(dialect: Dialect, cfg: &RunConfig) -> Result<Checked> {
    // One administrative connection, and one to each database checked, for
    // every check but TLS's probe; with TLS when the grid has a TLS level
    // (`cfg.data.tls`), so a server that refuses plain TCP can be used.
    let mut conn: C = connect(&cfg.url, cfg.data.tls.as_ref(), None).await?;
    if cfg.data.tls.is_some() && cfg.tls.contains(&false) {
        // The grid's plain-TCP runs: their connection is tried first, so a server
        // that refuses plain TCP fails now, naming --tls.
        connect::<C>(&cfg.url, None, None).await?.close().await;
    }
    let info = server_info(&mut conn, dialect).await?;
    check_any_prepared(&mut conn, dialect, cfg).await?;
    let mut codecs = Vec::new();
    let mut scale: Option<(u32, String)> = None;
    for &e in &cfg.encrypts {
        let db = cfg.data.database(e);
        if cfg.workload.is_pgbench() {
            let fillers = match e.algorithm() {
                Some(_) => crate::schema::pgbench::Fillers::of(cfg.data.columns)?,
                None => crate::schema::pgbench::Fillers::Accounts,
            };
            let want = cfg.scale.or(scale.as_ref().map(|(s, _)| *s));
            let (found, mut db_conn) = crate::schema::pgbench::check_prepared(
                &mut conn,
                &cfg.url,
                cfg.workload.name(),
                &cfg.data,
                &db,
                e,
                fillers,
                want,
            )
            .await?;
            let codec = load_codec(e, cfg.data.columns, cfg.key_file.as_deref(), &cfg.base_dir)?;
            crate::schema::pgbench::check_keys(&mut db_conn, &db, fillers, &codec).await?;
            db_conn.close().await;
            scale.get_or_insert((found, db));
            codecs.push((e, codec));
            continue;
        }
        let (meta, mut db_conn) =
            check_prepared(dialect, &mut conn, &cfg.url, &cfg.data, e).await?;
        let codec = load_codec(e, cfg.data.columns, cfg.key_file.as_deref(), &cfg.base_dir)?;
        check_keys(&mut db_conn, &db, &codec).await?;
        if let (Some(active), Some(m)) = (codec.deterministic_key_id(), &meta) {
            // Equality lookups only match values sealed under the same key.
            if active != m.key_id {
                bail!(
                    "{db}: the deterministic columns were sealed under key id {}, but the key file's active (highest) key id is {active}: lookups by equality would match nothing; use a key file whose highest id is {}, or re-encrypt (cleanup and prepare again)",
                    m.key_id,
                    m.key_id
                );
            }
        }
        if cfg.at_rest == crate::at_rest::AtRest::Innodb {
            check_at_rest(&mut db_conn, &db, cfg.data.tables).await?;
        }
        db_conn.close().await;
        codecs.push((e, codec));
    }
    conn.close().await;
    let mut sessions = Vec::new();
    for &tls in &cfg.tls {
        sessions.push(if tls {
            Some(probe_tls::<C>(&cfg.url, cfg.tls_ca.clone(), cfg.tls_mode).await?)
        } else {
            None
        });
    }
    for &t in &cfg.threads {
        check_budget(&info, cfg.workload, &cfg.options, cfg.data.tables, t)?;
    }
    let mut modes = Vec::new();
    for tls in &sessions {
        for (e, codec) in &codecs {
            modes.push(Mode {
                encrypt: *e,
                codec: codec.clone(),
                tls: tls.clone(),
            });
        }
    }
    Ok(Checked {
        info,
        modes,
        scale: scale.map_or(1, |(s, _)| s),
    })
}

/// One TLS connection: what it negotiated, or why there is none.
async fn probe_tls<C: Connection>(
    url: &str,
    ca: Option<std::path::PathBuf>,
    mode: TlsMode,
) -> Result<TlsSession> {
    let mut opts = ConnectOptions::new(url);
    opts.tls = Some(TlsOptions {
        ca: ca.clone(),
        mode,
    });
    let conn = C::connect(&opts).await.map_err(|e| {
        let postgres = C::DRIVER == crate::driver::DbDriver::Pgsql;
        crate::driver::tls_failure(&e, ca.as_deref(), mode, postgres)
    })?;
    let session = conn
        .tls_session()
        .cloned()
        .context("--tls: the driver reported no TLS session")?;
    conn.close().await;
    Ok(session)
}

/// Reads [`ServerInfo`] in `dialect`.
///
/// # Errors
/// Connection or query failures.
pub async fn server_info<C: Connection>(conn: &mut C, dialect: Dialect) -> Result<ServerInfo> {
    let row = conn
        .query_text(dialect.version_sql())
        .await?
        .into_iter()
        .next()
        .context("server returned no row for SELECT VERSION()")?;
    let col = |i: usize| row.get(i).cloned().flatten().unwrap_or_default();
    let version = col(0);
    let max_connections = col(1)
        .parse()
        .with_context(|| format!("server returned {:?} for max_connections", col(1)))?;
    let mut settings = std::collections::BTreeMap::new();
    // A variable this server does not have (e.g. innodb_encrypt_tables on
    // MySQL) is simply not recorded.
    for row in conn.query_text(&dialect.settings_sql()).await? {
        let mut it = row.into_iter();
        if let (Some(Some(name)), Some(Some(value))) = (it.next(), it.next()) {
            settings.insert(name, value);
        }
    }
    let (max_prepared_stmt_count, prepared_stmt_count) = match dialect {
        // PostgreSQL has no server-wide cap on prepared statements.
        Dialect::Postgres => (None, 0),
        Dialect::Mysql => {
            let max = settings
                .get("max_prepared_stmt_count")
                .cloned()
                .unwrap_or_default();
            let max = max.parse().with_context(|| {
                format!("server returned {max:?} for @@max_prepared_stmt_count")
            })?;
            let open = conn
                .query_text("SHOW GLOBAL STATUS LIKE 'Prepared_stmt_count'")
                .await?;
            let now = open
                .first()
                .and_then(|r| r.get(1).cloned().flatten())
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            (Some(max), now)
        }
    };
    Ok(ServerInfo {
        engine: dialect.engine(&version).to_string(),
        version,
        max_prepared_stmt_count,
        prepared_stmt_count,
        max_connections,
        settings,
    })
}

/// Connections oltp opens beside the workers' (the probe and the monitor),
/// counted against `max_connections`.
const OWN_CONNECTIONS: u64 = 2;

/// Checks that `threads` connections, each holding the workload's prepared
/// statements for every table, fit the server's limits.
///
/// # Errors
/// Too many prepared statements or connections, with the setting to change.
pub fn check_budget(
    info: &ServerInfo,
    workload: Workload,
    options: &Options,
    tables: u32,
    threads: u32,
) -> Result<()> {
    let per_conn = workload.statements_per_connection(tables, options.range_selects) as u64;
    // --db-ps-mode disable prepares nothing.
    let per_conn = if options.db_ps_mode.prepares() {
        per_conn
    } else {
        0
    };
    let need = per_conn * u64::from(threads);
    // Every limit the grid exceeds, in one line (one at a time hid the next).
    let mut over = Vec::new();
    if let Some(max) = info.max_prepared_stmt_count
        && need > max.saturating_sub(info.prepared_stmt_count)
    {
        over.push(format!(
            "{} x {} x {} statements = {need} prepared statements, but the server allows {} \
             (max_prepared_stmt_count, {} in use): run SET GLOBAL max_prepared_stmt_count = {} (at most 1048576), use --db-ps-mode disable (text protocol, no prepared statements), or use fewer --threads or --tables",
            crate::report::count(u64::from(threads), "thread", "threads"),
            crate::report::count(u64::from(tables), "table", "tables"),
            workload.statements_per_table(options.range_selects),
            max,
            info.prepared_stmt_count,
            (need + info.prepared_stmt_count).min(1_048_576)
        ));
    }
    // One connection per thread, plus oltp's own probe and monitor connections.
    let connections = u64::from(threads) + OWN_CONNECTIONS;
    if connections > info.max_connections {
        let raise = connections + 8;
        let fix = if info.engine == "postgresql" {
            format!(
                "run ALTER SYSTEM SET max_connections = {raise} and restart the server, or use at most {} --threads",
                info.max_connections.saturating_sub(OWN_CONNECTIONS)
            )
        } else {
            format!("run SET GLOBAL max_connections = {raise}, or use fewer --threads")
        };
        over.push(format!(
            "{threads} threads need {connections} connections ({threads} workers and {OWN_CONNECTIONS} of oltp's own), but max_connections is {}: {fix}",
            info.max_connections,
        ));
    }
    if !over.is_empty() {
        bail!("{}", over.join("; and "));
    }
    Ok(())
}

/// Opens every encrypted column of the first row of `sbtest1` of database
/// `db` (which `conn` is connected to) to prove the keys fit the data before a run.
///
/// # Errors
/// A value does not open: the message names table, column, id and key id.
pub async fn check_keys<C: Connection>(conn: &mut C, db: &str, codec: &Codec) -> Result<()> {
    if !codec.is_encrypted() {
        return Ok(());
    }
    let mut first: Option<(Option<i64>, [Vec<u8>; 3])> = None;
    conn.simple_query(
        // `db` is letters, digits and '_' (config checks --mysql-db).
        "SELECT id, k, c, pad FROM sbtest1 ORDER BY id LIMIT 1",
        |row: &mut C::Row| {
            let id = row.int(0);
            let mut col = |i: usize| row.take_bytes(i).unwrap_or_default();
            first = Some((id, [col(1), col(2), col(3)]));
        },
    )
    .await?;
    if let Some((id, values)) = first {
        let id = id.context("sbtest1 row without id")?;
        let table = TableAad::new("sbtest1")?;
        for (column, mut v) in [Column::K, Column::C, Column::Pad].into_iter().zip(values) {
            codec
                .open_in_place(&table, column, id, &mut v)
                .map_err(|e| anyhow::anyhow!("{db}.sbtest1.{column} id={id}: {e}"))?;
        }
    }
    Ok(())
}

/// Checks that every `sbtest` table of `db` is encrypted at rest
/// (`ENCRYPTION_SCHEME = 1` in `information_schema.INNODB_TABLESPACES_ENCRYPTION`).
///
/// # Errors
/// The server has no at-rest encryption, or a table is not (yet) encrypted.
pub async fn check_at_rest<C: Connection>(conn: &mut C, db: &str, tables: u32) -> Result<()> {
    let enabled = conn
        .query_text("SELECT @@innodb_encrypt_tables")
        .await
        .context("cannot read @@innodb_encrypt_tables")?
        .first()
        .and_then(|r| r.first().cloned().flatten())
        .unwrap_or_default();
    if !matches!(enabled.to_ascii_uppercase().as_str(), "ON" | "FORCE" | "1") {
        bail!(
            "--at-rest: the server has innodb_encrypt_tables={enabled}: start it with file_key_management and innodb_encrypt_tables=ON (the private server does this with --at-rest)"
        );
    }
    // Text protocol: `db` is checked to be letters, digits and '_' (config).
    let rows = conn
        .query_text(&format!(
            "SELECT NAME, ENCRYPTION_SCHEME FROM information_schema.INNODB_TABLESPACES_ENCRYPTION WHERE NAME LIKE '{db}/sbtest%'"
        ))
        .await?;
    for n in 1..=tables {
        let name = format!("{db}/sbtest{n}");
        let scheme = rows
            .iter()
            .find(|r| r.first().cloned().flatten().as_deref() == Some(name.as_str()))
            .map(|r| r.get(1).cloned().flatten().unwrap_or_default());
        match scheme.as_deref() {
            Some("1") => {}
            Some(_) => bail!(
                "--at-rest: {name} is not encrypted yet (background encryption threads are working on it): wait and run again"
            ),
            None => bail!(
                "--at-rest: {name} is not listed in INNODB_TABLESPACES_ENCRYPTION: it is not encrypted at rest"
            ),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(max_prepared: u64, max_connections: u64) -> ServerInfo {
        ServerInfo {
            version: "10.11".into(),
            engine: "mariadb".into(),
            max_prepared_stmt_count: Some(max_prepared),
            prepared_stmt_count: 0,
            max_connections,
            settings: Default::default(),
        }
    }

    #[test]
    fn every_limit_the_grid_exceeds_is_named_at_once() {
        let (w, o) = (Workload::OltpReadOnly, Options::default());
        assert!(check_budget(&server(1_000_000, 1000), w, &o, 2, 8).is_ok());
        let both = check_budget(&server(10, 5), w, &o, 2, 8)
            .expect_err("both limits")
            .to_string();
        assert!(
            both.contains("max_prepared_stmt_count") && both.contains("max_connections is 5"),
            "{both}"
        );
        assert!(!both.contains('\n'), "one line: {both}");
        let one = check_budget(&server(1_000_000, 5), w, &o, 2, 8)
            .expect_err("connections")
            .to_string();
        assert!(!one.contains("max_prepared_stmt_count"), "{one}");
        assert!(one.contains("8 threads need 10 connections"), "{one}");
        let mut pg = server(1_000_000, 500);
        pg.engine = "postgresql".into();
        pg.max_prepared_stmt_count = None;
        assert!(check_budget(&pg, w, &o, 2, 498).is_ok());
        let pg = check_budget(&pg, w, &o, 2, 500)
            .expect_err("connections")
            .to_string();
        assert!(
            pg.contains("ALTER SYSTEM SET max_connections") && !pg.contains("SET GLOBAL"),
            "{pg}"
        );
    }
}
