//! Helpers every oltp integration test file needs, written once (the rustls
//! `tests/common/mod.rs` idea): the in-process CLI, the `oltp` binary, private
//! MariaDB servers (one per test, or one shared by a whole test binary),
//! sessions and raw connections to inspect tables, and JSON report accessors.
//!
//! Each test binary (`oltp/tests/*.rs`) compiles this module on its own and uses
//! a subset of it, hence the `#[allow(dead_code)]` where `mod common;` is declared.

pub mod relay;
pub mod tls_proxy;

use std::collections::BTreeMap;
use std::os::unix::process::CommandExt as _;
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Output, Stdio};
use std::sync::{OnceLock, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

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
use encbench_oltp::server::{PrivateServer, ServerConfig};
use encbench_oltp::workload::{Params, Session, Workload};
use mysql_async::prelude::*;
use serde_json::Value;
use tempfile::TempDir;

/// `--tables` of every prepared data set in these tests.
pub const TABLES: u32 = 2;
/// `--table-size` of every prepared data set in these tests.
pub const ROWS: u32 = 1000;
/// The AEAD most tests encrypt with.
pub const AEAD: &str = "rustcrypto:aes-256-gcm";

/// A two-worker tokio runtime, as the `oltp` binary builds.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime")
}

/// `args` as owned strings.
pub fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

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

/// `path` as UTF-8 (every path in these tests is).
pub fn utf8(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

/// Starts a private server for `cfg`; a server that cannot start fails the test
/// (never skips).
pub fn start(cfg: &ServerConfig) -> PrivateServer {
    PrivateServer::start(cfg).unwrap_or_else(|e| panic!("private MariaDB server must start: {e}"))
}

/// Starts a private server with default settings in `dir`.
pub fn start_server(dir: &Path) -> PrivateServer {
    start(&ServerConfig::new(dir))
}

/// A watchdog of the server `pid` whose base directory is `dir` (see
/// [`SharedServer`]): when this test binary exits, it sends SIG`signal` (`TERM`:
/// MariaDB's clean shutdown, `INT`: PostgreSQL's fast shutdown), SIGKILL after
/// 60 s, and removes `dir`. Keep the pair alive as long as the server.
fn watchdog(pid: u32, signal: &str, dir: &Path) -> (Child, ChildStdin) {
    let script = r#"read _ignored
kill -"$3" "$1" 2>/dev/null
i=0
while kill -0 "$1" 2>/dev/null && [ "$i" -lt 600 ]; do sleep 0.1; i=$((i+1)); done
kill -KILL "$1" 2>/dev/null
rm -rf "$2""#;
    let mut child = Command::new("sh")
        .args(["-c", script, "sh"])
        .arg(pid.to_string())
        .arg(dir)
        .arg(signal)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .expect("start the shared server's watchdog");
    let stdin = child.stdin.take().expect("watchdog stdin");
    (child, stdin)
}

/// A private server shared by the tests of one test binary.
///
/// Statics are never dropped, so the server's `Drop` never runs: a watchdog
/// (`sh`, in its own process group so a Ctrl-C meant for the tests leaves it
/// alone) blocks reading a pipe whose only write end this process holds. When
/// the test binary exits, however it exits (end of the run, panic, SIGKILL), the
/// kernel closes that end, the watchdog's read returns, and it stops the server
/// with SIGTERM (a clean shutdown; SIGKILL after 60 s) and removes the directory.
pub struct SharedServer {
    server: PrivateServer,
    dir: TempDir,
    url: String,
    _watchdog: (Child, ChildStdin),
}

impl SharedServer {
    /// Starts a server with `cfg(dir)` in a fresh temporary directory, watched.
    pub fn start(cfg: impl FnOnce(&Path) -> ServerConfig) -> SharedServer {
        let dir = server_tempdir();
        let server = start(&cfg(dir.path()));
        let watchdog = watchdog(server.pid(), "TERM", dir.path());
        let url = server.url();
        SharedServer {
            server,
            dir,
            url,
            _watchdog: watchdog,
        }
    }

    /// `mysql://…@127.0.0.1:PORT/`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The server.
    pub fn server(&self) -> &PrivateServer {
        &self.server
    }

    /// The server's temporary directory (removed by the watchdog).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }
}

/// Tests sharing a server hold this lock: shared for ordinary tests, exclusive
/// for a test that changes the server's global settings (`SET GLOBAL ...`).
static GLOBALS: RwLock<()> = RwLock::new(());

/// A test's use of the shared server: the server, the lock on its global
/// settings, and a scratch directory of its own (base directory, JSON files).
pub struct Use {
    pub shared: &'static SharedServer,
    pub url: String,
    pub scratch: TempDir,
    _lock: Guard,
}

enum Guard {
    Shared(#[allow(dead_code)] RwLockReadGuard<'static, ()>),
    Exclusive(#[allow(dead_code)] RwLockWriteGuard<'static, ()>),
}

impl Use {
    /// `<scratch>/home`: this test's base directory (key files).
    pub fn base(&self) -> std::path::PathBuf {
        self.scratch.path().join("home")
    }

    /// A file in the scratch directory.
    pub fn file(&self, name: &str) -> std::path::PathBuf {
        self.scratch.path().join(name)
    }
}

/// The default-settings server shared by this test binary.
pub fn default_server() -> &'static SharedServer {
    static SERVER: OnceLock<SharedServer> = OnceLock::new();
    SERVER.get_or_init(|| SharedServer::start(|dir| ServerConfig::new(dir)))
}

fn use_of(shared: &'static SharedServer, lock: Guard) -> Use {
    Use {
        shared,
        url: shared.url().to_string(),
        scratch: tempfile::tempdir().expect("tempdir"),
        _lock: lock,
    }
}

/// The shared server for a test that leaves its global settings alone (give
/// each test its own `--mysql-db`).
pub fn shared_server() -> Use {
    let lock = GLOBALS.read().unwrap_or_else(PoisonError::into_inner);
    use_of(default_server(), Guard::Shared(lock))
}

/// The shared server alone, for a test that changes global settings.
pub fn shared_server_alone() -> Use {
    let lock = GLOBALS.write().unwrap_or_else(PoisonError::into_inner);
    use_of(default_server(), Guard::Exclusive(lock))
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

/// The JSON file at `path`.
pub fn read_json(path: &Path) -> Value {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_slice(&bytes).expect("valid json")
}

/// A count in a report.
pub fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
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

/// Keeps an async value computed once per test binary (e.g. tables prepared on
/// the shared server): the first test to ask computes it on its own runtime.
pub fn once<T: Send + Sync>(
    cell: &'static OnceLock<T>,
    init: impl std::future::Future<Output = T>,
) -> &'static T {
    cell.get_or_init(|| runtime().block_on(init))
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

/// Writes a key file readable by its owner only (0600), as `oltp` requires.
pub fn write_key_file(path: &Path, contents: &str) {
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)
        .expect("create key file");
    std::io::Write::write_all(&mut f, contents.as_bytes()).expect("write key file");
}

/// A temporary directory a private server can reach when the tests run as root (MariaDB
/// then runs as `mysql`, PostgreSQL as `postgres`): mode 0755 whatever the umask.
pub fn server_tempdir() -> TempDir {
    pg_tempdir()
}

/// A temporary directory the private PostgreSQL can reach when the tests run as root
/// (the server then runs as `postgres`): mode 0755 whatever the umask.
pub fn pg_tempdir() -> TempDir {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755))
        .expect("chmod tempdir");
    dir
}

/// Starts the private PostgreSQL in `dir`; one that cannot start fails the test
/// (never skips).
pub fn start_pg(dir: &Path) -> encbench_oltp::server::postgres::PgServer {
    encbench_oltp::server::postgres::PgServer::start(dir)
        .unwrap_or_else(|e| panic!("private PostgreSQL must start: {e}"))
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

/// A private PostgreSQL shared by one test binary, stopped by a watchdog when the
/// binary exits as [`SharedServer`] is (SIGINT: PostgreSQL's fast shutdown).
pub struct SharedPg {
    server: encbench_oltp::server::postgres::PgServer,
    dir: TempDir,
    url: String,
    _watchdog: (Child, ChildStdin),
}

impl SharedPg {
    /// `postgres://encbench:…@127.0.0.1:PORT/postgres`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The server.
    pub fn server(&self) -> &encbench_oltp::server::postgres::PgServer {
        &self.server
    }

    /// Its base directory (removed by the watchdog).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The URL with database `db` in place of `postgres`.
    pub fn url_of(&self, db: &str) -> String {
        let base = self
            .url
            .rsplit_once('/')
            .map_or(self.url.as_str(), |(b, _)| b);
        format!("{base}/{db}")
    }
}

/// The private PostgreSQL shared by this test binary.
pub fn shared_pg() -> &'static SharedPg {
    static SERVER: OnceLock<SharedPg> = OnceLock::new();
    SERVER.get_or_init(|| {
        let dir = pg_tempdir();
        let server = start_pg(dir.path());
        let watchdog = watchdog(server.pid(), "INT", dir.path());
        let url = server.url();
        SharedPg {
            server,
            dir,
            url,
            _watchdog: watchdog,
        }
    })
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
