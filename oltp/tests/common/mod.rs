//! Helpers every oltp integration test file needs, written once (the rustls
//! `tests/common/mod.rs` idea): the in-process CLI, the `oltp` binary, the
//! flags of its commands ([`Cmd`]), sessions and raw connections to inspect
//! tables, and report accessors. What every crate's tests share (private
//! servers, JSON files, temporary directories) is `encbench_test_support`'s,
//! re-exported here under the names these files use.
//!
//! Each test binary (`oltp/tests/*.rs`) compiles this module on its own and uses
//! a subset of it, hence the `#[allow(dead_code)]` where `mod common;` is declared.

pub mod relay;
pub mod tls_proxy;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use clap::Parser;
use encbench_oltp::cli::Cli;
use encbench_oltp::columns::keys::load_codec;
use encbench_oltp::columns::{Codec, Column, Columns, Encrypt, TableAad};
use encbench_oltp::commands::execute;
use encbench_oltp::driver::mysql::mysql_opts;
use encbench_oltp::driver::{
    ConnectOptions, Connection as _, MysqlConnection, PostgresConnection, PsMode,
};
use encbench_oltp::schema::DataSet;
use encbench_oltp::workload::{Params, Session, Workload};
use mysql_async::prelude::*;
use serde_json::Value;
use tempfile::TempDir;

// What every crate's tests share, under the names these test files use.
#[allow(unused_imports)]
pub use encbench_test_support::{
    SharedPg, SharedServer, Use, VERDICTS, default_server, once, read_json, runtime,
    server_tempdir, shared_pg, shared_server, shared_server_alone, start, start_pg, start_server,
    strings, u, utf8, write_key_file,
};

/// A temporary directory the private PostgreSQL can reach when the tests run as root
/// (the server then runs as `postgres`): mode 0755 whatever the umask.
pub fn pg_tempdir() -> TempDir {
    server_tempdir()
}

/// `--tables` of every prepared data set in these tests.
pub const TABLES: u32 = 2;
/// `--table-size` of every prepared data set in these tests.
pub const ROWS: u32 = 1000;
/// The AEAD most tests encrypt with.
pub const AEAD: &str = "rustcrypto:aes-256-gcm";

/// Runs the CLI in-process with `args` (without the program name); Ok(complete)
/// or the error text (`{:#}`, or clap's message).
pub async fn cli<S: AsRef<str>>(args: &[S]) -> Result<bool, String> {
    let args = std::iter::once("oltp").chain(args.iter().map(AsRef::as_ref));
    let cli = Cli::try_parse_from(args).map_err(|e| e.to_string())?;
    execute(cli).await.map_err(|e| format!("{e:#}"))
}

/// The `oltp` binary with `args` and `ENCBENCH_HOME` set to `home`, to run or spawn.
pub fn oltp_command<S: AsRef<std::ffi::OsStr>>(home: &Path, args: &[S]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_oltp"));
    c.args(args).env("ENCBENCH_HOME", home);
    c
}

/// Runs the `oltp` binary with `args` and `ENCBENCH_HOME` set to `home`.
pub fn oltp_bin<S: AsRef<std::ffi::OsStr>>(home: &Path, args: &[S]) -> Output {
    oltp_command(home, args)
        .output()
        .expect("run the oltp binary")
}

/// Runs the `oltp` binary as [`oltp_bin`] does, killed if it has not ended
/// after `limit`: for inputs that used to block it (a FIFO never written). The
/// limit is a hang detector, far above the time the command takes.
///
/// # Panics
/// The binary is still running after `limit` (it is killed first).
pub fn oltp_bin_within<S: AsRef<std::ffi::OsStr>>(
    home: &Path,
    args: &[S],
    limit: std::time::Duration,
) -> Output {
    let mut child = oltp_command(home, args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn the oltp binary");
    let until = std::time::Instant::now() + limit;
    while child.try_wait().expect("wait for oltp").is_none() {
        if std::time::Instant::now() >= until {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "oltp {:?} still ran after {limit:?}",
                args.iter()
                    .map(|a| a.as_ref().to_owned())
                    .collect::<Vec<_>>()
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    child.wait_with_output().expect("oltp output")
}

/// The flags every command of these tests starts with: `command` on database
/// `db` of `url` with the key files of `base`, `TABLES` x `ROWS`; then `extra`.
pub fn args(
    command: &str,
    url: &str,
    base: impl AsRef<Path>,
    db: &str,
    extra: &[&str],
) -> Vec<String> {
    let (tables, rows) = (TABLES.to_string(), ROWS.to_string());
    sized_args(command, url, base, db, (&tables, &rows), extra)
}

/// [`args`] with `--tables` and `--table-size` of `(tables, size)`.
pub fn sized_args(
    command: &str,
    url: &str,
    base: impl AsRef<Path>,
    db: &str,
    (tables, size): (&str, &str),
    extra: &[&str],
) -> Vec<String> {
    let mut args = strings(&[
        command,
        "--mysql-url",
        url,
        "--base-dir",
        utf8(base.as_ref()),
        "--mysql-db",
        db,
        "--tables",
        tables,
        "--table-size",
        size,
    ]);
    args.extend(strings(extra));
    args
}

/// The argv of one `oltp` command, built so that a test shows only what it
/// changes: the server flags first ([`Cmd::mysql`], [`Cmd::pgsql`]), then one
/// call a flag, e.g. `Cmd::mysql("run", &url, &base, db).workload("oltp_point_select")
/// .threads(2).time(1).build()`.
#[derive(Clone, Debug)]
pub struct Cmd(Vec<String>);

impl Cmd {
    /// `command` on database `db` of MariaDB `url`, key files in `base`,
    /// `TABLES` x `ROWS` ([`args`]).
    pub fn mysql(command: &str, url: &str, base: impl AsRef<Path>, db: &str) -> Cmd {
        Cmd(args(command, url, base, db, &[]))
    }

    /// `command` on database `db` of PostgreSQL `url` (`None`: the private server
    /// of `base`), key files in `base`, no table flags ([`pg_data_args`]).
    pub fn pgsql(command: &str, url: Option<&str>, base: &Path, db: &str) -> Cmd {
        Cmd(pg_data_args(command, url, base, db, &[]))
    }

    /// `--NAME VALUE`.
    pub fn flag(mut self, name: &str, value: impl std::fmt::Display) -> Cmd {
        self.0.push(format!("--{name}"));
        self.0.push(value.to_string());
        self
    }

    /// `--NAME`, a flag without a value.
    pub fn switch(mut self, name: &str) -> Cmd {
        self.0.push(format!("--{name}"));
        self
    }

    /// `--workload NAME`.
    pub fn workload(self, name: &str) -> Cmd {
        self.flag("workload", name)
    }

    /// `--threads N`.
    pub fn threads(self, n: u32) -> Cmd {
        self.flag("threads", n)
    }

    /// `--time SECS` (0: no time limit).
    pub fn time(self, secs: u32) -> Cmd {
        self.flag("time", secs)
    }

    /// `--events N` (0: no event limit).
    pub fn events(self, n: u64) -> Cmd {
        self.flag("events", n)
    }

    /// `--rate PER_SECOND` (an open loop).
    pub fn rate(self, per_second: impl std::fmt::Display) -> Cmd {
        self.flag("rate", per_second)
    }

    /// `--encrypt NAMES`.
    pub fn encrypt(self, names: &str) -> Cmd {
        self.flag("encrypt", names)
    }

    /// `--report-interval SECS`.
    pub fn report_interval(self, secs: u32) -> Cmd {
        self.flag("report-interval", secs)
    }

    /// `extra`, as written.
    pub fn extend(mut self, extra: &[&str]) -> Cmd {
        self.0.extend(strings(extra));
        self
    }

    /// The argv, without the program name.
    pub fn build(self) -> Vec<String> {
        self.0
    }
}

/// `oltp prepare` of `encrypt` into `--mysql-db db`, `TABLES` x `ROWS`, two
/// threads, with the extra flags `extra` (e.g. the column layout).
pub async fn prepare(url: &str, base: &Path, db: &str, encrypt: &str, extra: &[&str]) {
    let flags = [&["--threads", "2", "--encrypt", encrypt], extra].concat();
    assert_eq!(
        cli(&args("prepare", url, base, db, &flags)).await,
        Ok(true),
        "prepare {db} {encrypt} {extra:?}"
    );
}

/// The flags that chose the server, as the commands messages suggest end
/// with them: ` --mysql-url URL --base-dir BASE`, the URL's password shown as
/// `PASSWORD` ([`encbench_oltp::schema::ServerFlags`]).
pub fn shown(url: &str, base: &Path) -> String {
    encbench_oltp::schema::ServerFlags::new("--mysql-url", Some(url), None, Some(base)).to_string()
}

/// [`shown`] of PostgreSQL: ` --pgsql-url URL` when given, ` --base-dir BASE`.
pub fn pg_shown(url: Option<&str>, base: &Path) -> String {
    encbench_oltp::schema::ServerFlags::new("--pgsql-url", url, None, Some(base)).to_string()
}

/// The data set of these tests under base name `db` with `columns`.
pub fn data_set(db: &str, columns: Columns) -> DataSet {
    DataSet {
        db: db.into(),
        tables: TABLES,
        table_size: ROWS,
        columns,
        at_rest: Default::default(),
        server: Default::default(),
        tls: None,
    }
}

/// The codec for `encrypt` and `columns` with the key files of `base`.
pub fn codec(base: &Path, encrypt: &str, columns: Columns) -> Codec {
    let encrypt = Encrypt::parse(encrypt).expect("encrypt name");
    load_codec(encrypt, columns, None, base).expect("key file")
}

/// A [`Session`] of `workload` on the tables of `encrypt` and `columns` under
/// `db`, with the key files of `base`, over protocol `ps_mode`.
pub async fn session(
    url: &str,
    base: &Path,
    db: &str,
    encrypt: &str,
    columns: Columns,
    workload: Workload,
    ps_mode: PsMode,
) -> Session<MysqlConnection> {
    let codec = codec(base, encrypt, columns);
    let encrypt = Encrypt::parse(encrypt).expect("encrypt name");
    let opts = ConnectOptions::new(url).database(data_set(db, columns).database(encrypt));
    let mut params = Params::new(TABLES, ROWS);
    params.opts.db_ps_mode = ps_mode;
    Session::connect(opts, workload, codec, params)
        .await
        .expect("session")
}

/// A raw connection to inspect or change the server (`db` selected when given).
pub async fn conn(url: &str, db: Option<&str>) -> mysql_async::Conn {
    let opts = match db {
        Some(db) => ConnectOptions::new(url).database(db),
        None => ConnectOptions::new(url),
    };
    mysql_async::Conn::new(mysql_opts(&opts).expect("opts"))
        .await
        .expect("conn")
}

/// Rows of a table: id -> (k, c, pad).
pub type Rows = BTreeMap<i64, (i64, Vec<u8>, Vec<u8>)>;

/// Every row of `db.sbtestN` as id -> (k, c, pad), `c` and `pad` opened with `codec`.
pub async fn table_rows(url: &str, db: &str, n: u32, codec: &Codec) -> Rows {
    let mut conn = conn(url, Some(db)).await;
    let rows: Vec<(i64, i64, Vec<u8>, Vec<u8>)> = conn
        .query(format!("SELECT id, k, c, pad FROM sbtest{n}"))
        .await
        .expect("select");
    conn.disconnect().await.expect("disconnect");
    let table = format!("sbtest{n}");
    let aad = TableAad::new(table.as_str()).expect("table name fits");
    rows.into_iter()
        .map(|(id, k, mut c, mut pad)| {
            codec
                .open_in_place(&aad, Column::C, id, &mut c)
                .unwrap_or_else(|e| panic!("{db}.{table} id {id} c must open: {e}"));
            codec
                .open_in_place(&aad, Column::Pad, id, &mut pad)
                .unwrap_or_else(|e| panic!("{db}.{table} id {id} pad must open: {e}"));
            (id, (k, c, pad))
        })
        .collect()
}

/// `SHOW GLOBAL STATUS` counter `name` (0 when absent).
pub async fn global_status(url: &str, name: &str) -> u64 {
    let mut conn = conn(url, None).await;
    let row: Option<(String, u64)> = conn
        .exec_first("SHOW GLOBAL STATUS WHERE Variable_name = ?", (name,))
        .await
        .expect("status");
    conn.disconnect().await.expect("disconnect");
    row.map_or(0, |(_, v)| v)
}

/// Count of statement kind `kind` in a run (0 when absent).
pub fn kind_count(run: &Value, kind: &str) -> u64 {
    run["statements"]
        .as_array()
        .expect("statements")
        .iter()
        .find(|s| s["kind"] == kind)
        .map_or(0, |s| u(&s["count"]))
}

/// Sets global `max_prepared_stmt_count` to `n` and returns the value it had.
pub async fn set_max_prepared_stmt_count(conn: &mut mysql_async::Conn, n: u64) -> u64 {
    let old: Option<u64> = conn
        .query_first("SELECT @@GLOBAL.max_prepared_stmt_count")
        .await
        .expect("max_prepared_stmt_count");
    conn.query_drop(format!("SET GLOBAL max_prepared_stmt_count = {n}"))
        .await
        .expect("set");
    old.expect("a value")
}

/// `prepare|run|cleanup` flags of the data set `db` on PostgreSQL `url` (`None`: the
/// private server of `base`), key files (and that server) in `base`, `(tables, size)`.
pub fn pg_args(
    cmd: &str,
    url: Option<&str>,
    base: &Path,
    db: &str,
    (tables, size): (u32, u32),
) -> Vec<String> {
    let (tables, size) = (tables.to_string(), size.to_string());
    pg_data_args(
        cmd,
        url,
        base,
        db,
        &["--tables", &tables, "--table-size", &size],
    )
}

/// [`pg_args`] without the sysbench table flags (a pgbench workload sizes its
/// tables with `--scale`), then `extra`.
pub fn pg_data_args(
    cmd: &str,
    url: Option<&str>,
    base: &Path,
    db: &str,
    extra: &[&str],
) -> Vec<String> {
    let mut v = strings(&[cmd, "--db-driver", "pgsql"]);
    if let Some(url) = url {
        v.extend(strings(&["--pgsql-url", url]));
    }
    v.extend(strings(&["--base-dir", utf8(base), "--pgsql-db", db]));
    v.extend(strings(extra));
    v
}

/// A pgbench data set on the shared PostgreSQL ([`shared_pg`]): database `db`
/// made by `oltp prepare --workload pgbench_select_only --scale 1`, its keys
/// and JSON files in `base`.
pub struct PgbenchDb {
    /// The shared server.
    pub pg: &'static SharedPg,
    /// The base directory of the `oltp` commands on it.
    pub base: TempDir,
    /// The base database.
    pub db: &'static str,
}

/// Prepares [`PgbenchDb`] `db` (a name of its own per test: the server is
/// shared); a prepare that fails fails the test.
pub fn pgbench_select_only(db: &'static str) -> PgbenchDb {
    let pg = shared_pg();
    let base = pg_tempdir();
    let args = pg_data_args(
        "prepare",
        Some(pg.url()),
        base.path(),
        db,
        &["--workload", "pgbench_select_only", "--scale", "1"],
    );
    assert_eq!(runtime().block_on(cli(&args)), Ok(true), "prepare {db}");
    PgbenchDb { pg, base, db }
}

/// A line of pgbench 15's report (or of oltp's in its layout) as a regex
/// matching a whole line of a longer text: `(?m)^PATTERN$`.
pub fn pgbench_line(pattern: &str) -> regex::Regex {
    regex::Regex::new(&format!("(?m)^{pattern}$"))
        .unwrap_or_else(|e| panic!("regex {pattern}: {e}"))
}

/// A connection to database `db` of PostgreSQL `url` (`None`: the URL's); one that
/// cannot connect fails the test.
pub async fn pg(url: &str, db: Option<&str>) -> PostgresConnection {
    let mut opts = ConnectOptions::new(url);
    opts.database = db.map(str::to_string);
    PostgresConnection::connect(&opts)
        .await
        .unwrap_or_else(|e| panic!("connect to {db:?}: {e}"))
}

/// The single value of `sql` on database `db` of PostgreSQL `url` (`None`: the URL's),
/// as text; `None` for no row or SQL NULL.
pub async fn pg_scalar(url: &str, db: Option<&str>, sql: &str) -> Option<String> {
    let mut c = pg(url, db).await;
    let v = c
        .query_text(sql)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
        .into_iter()
        .next()
        .and_then(|r| r.into_iter().next().flatten());
    c.close().await;
    v
}

/// Waits (up to 120 s) until `db`'s prepare has written its loading mark and
/// the first rows of sbtest1.
pub async fn wait_until_loading(url: &str, db: &str) {
    let mut c = conn(url, None).await;
    let t0 = std::time::Instant::now();
    loop {
        let state: Option<String> = c
            .query_first(format!(
                "SELECT value FROM information_schema.TABLES t JOIN `{db}`.encbench_meta m ON m.name = 'state' WHERE t.TABLE_SCHEMA = '{db}' AND t.TABLE_NAME = 'sbtest1'"
            ))
            .await
            .unwrap_or(None);
        if state.as_deref() == Some("loading") {
            let row: Option<i64> = c
                .query_first(format!("SELECT id FROM `{db}`.sbtest1 LIMIT 1"))
                .await
                .unwrap_or(None);
            if row.is_some() {
                break;
            }
        }
        assert!(
            t0.elapsed() < std::time::Duration::from_secs(120),
            "{db}: prepare never started loading"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    c.disconnect().await.expect("disconnect");
}

/// Stock `sysbench` on database `db` of the shared PostgreSQL `pg`, as its
/// benchmark user over TCP, with `args` after the connection flags (the table
/// flags, the script and its command).
pub fn stock_sysbench_pgsql(pg: &SharedPg, db: &str, args: &[&str]) -> Output {
    let server = pg.server();
    let password = std::fs::read_to_string(server.layout().password_file()).expect("password");
    Command::new("sysbench")
        .args([
            "--db-driver=pgsql".to_string(),
            "--pgsql-host=127.0.0.1".to_string(),
            format!("--pgsql-port={}", server.port()),
            "--pgsql-user=encbench".to_string(),
            format!("--pgsql-password={}", password.trim()),
            format!("--pgsql-db={db}"),
        ])
        .args(args)
        .output()
        .expect("run sysbench (apt-get install sysbench)")
}
