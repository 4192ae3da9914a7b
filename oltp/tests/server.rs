//! Tests of `encbench_oltp::server` against a real `mariadbd` (no mocks).
//!
//! Each test runs its own private server in a fresh temporary directory. They need MariaDB
//! installed (`.ci/run` installs `mariadb-server`) and never skip: a server that cannot start
//! fails the test, in CI as anywhere.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use encbench_oltp::at_rest::AtRest;
use encbench_oltp::server::{
    BENCH_USER, BIN_DIR_ENV, Layout, Lease, PrivateServer, Profile, SERVER_USER, ServerConfig,
    ServerError, server_base,
};
use tempfile::TempDir;

/// A temporary directory the server can reach (as root it runs as `mysql`).
fn tempdir() -> TempDir {
    common::server_tempdir()
}

/// A fresh temporary directory and the default settings of a server in it.
fn fresh() -> (TempDir, ServerConfig) {
    let dir = tempdir();
    let cfg = ServerConfig::new(dir.path());
    (dir, cfg)
}

/// [`fresh`], and the server started there.
fn fresh_started() -> (TempDir, ServerConfig, PrivateServer) {
    let (dir, cfg) = fresh();
    let server = start(&cfg);
    (dir, cfg, server)
}

#[allow(dead_code)] // each test binary uses a subset of the helpers
mod common;
use common::start;

/// The `mariadb` command-line client.
fn client() -> PathBuf {
    let packaged = Path::new("/usr/bin/mariadb");
    if packaged.exists() {
        packaged.to_path_buf()
    } else {
        PathBuf::from("mariadb")
    }
}

/// Runs `query` as the benchmark user with `password` over TCP on 127.0.0.1; the rows,
/// tab-separated.
fn try_sql(port: u16, password: &str, query: &str) -> Result<String, String> {
    let login = [
        format!("-P{port}"),
        format!("-u{BENCH_USER}"),
        format!("-p{password}"),
    ];
    run_client(&["-h127.0.0.1", "--protocol=TCP"], &login, query)
}

/// Runs the `mariadb` client (`--no-defaults`, then `args` and `login`) on
/// `query`; the rows, tab-separated, or its error output.
fn run_client(args: &[&str], login: &[String], query: &str) -> Result<String, String> {
    let out = Command::new(client())
        .arg("--no-defaults")
        .args(args)
        .args(login)
        .args(["-N", "-B", "-e", query])
        .output()
        .map_err(|e| format!("cannot run mariadb: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).trim().to_string())
    }
}

fn sql(server: &PrivateServer, query: &str) -> String {
    try_sql(server.port(), server.password(), query).unwrap_or_else(|e| panic!("{query}: {e}"))
}

/// The fields of `/proc/PID/stat` after `comm`, from the state (field 3) on.
fn stat_fields(pid: u32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    Some(rest.split_whitespace().map(str::to_string).collect())
}

/// Whether `pid` is a live process (a zombie counts as gone).
fn alive(pid: u32) -> bool {
    stat_fields(pid)
        .is_some_and(|f| !matches!(f.first().map(String::as_str), None | Some("Z" | "X")))
}

/// A process as itself, not its reusable pid: the pid and its start time (field
/// 22 of `/proc/PID/stat`, clock ticks after boot).
fn identity(pid: u32) -> (u32, u64) {
    let start = stat_fields(pid)
        .and_then(|f| f.get(22 - 3)?.parse().ok())
        .unwrap_or_else(|| panic!("no start time for live pid {pid}"));
    (pid, start)
}

/// Runs `query` as root over the Unix socket `socket` (a path of this test's own
/// directory, so only this test's server can answer it).
fn try_socket_sql(socket: &Path, query: &str) -> Result<String, String> {
    let socket = format!("--socket={}", socket.display());
    run_client(&[], &[socket, "-uroot".to_string()], query)
}

/// The server's data directory as it names it (`@@datadir`): which server answers.
fn datadir(server: &PrivateServer) -> String {
    sql(server, "SELECT @@datadir")
}

/// Whether the server of data directory `datadir` answers on TCP `port` to the
/// benchmark user with `password` (once freed, the port may be another test's
/// server's, which is not this one).
fn answers_on(port: u16, password: &str, datadir: &str) -> bool {
    try_sql(port, password, "SELECT @@datadir").is_ok_and(|d| d == datadir)
}

#[test]
fn cold_start_tcp_login_and_attach() {
    let (dir, cfg) = fresh();

    let t = Instant::now();
    let server = start(&cfg);
    eprintln!(
        "cold start (install-db + bootstrap + start): {:?}",
        t.elapsed()
    );
    assert!(server.started_here());
    assert!(alive(server.pid()));
    assert_eq!(server.base_dir(), dir.path());
    assert_eq!(server.socket_path(), dir.path().join("mariadb/sock"));
    assert!(dir.path().join("mariadb/data").is_dir());
    assert!(!dir.path().join("mariadb/data.tmp").exists());
    // The URL carries the random password of the 0600 file beside the data.
    let password = std::fs::read_to_string(dir.path().join("mariadb/password"))
        .unwrap_or_else(|e| panic!("password file: {e}"));
    let password = password.trim();
    assert_eq!(password.len(), 32, "a 32-character password");
    assert!(password.bytes().all(|b| b.is_ascii_alphanumeric()));
    assert_ne!(password, "encbench");
    assert_eq!(server.password(), password);
    assert_eq!(server.password_file(), dir.path().join("mariadb/password"));
    assert_eq!(
        server.url(),
        format!("mysql://encbench:{password}@127.0.0.1:{}/", server.port())
    );
    assert!(
        !format!("{server:?}").contains(password),
        "Debug shows the password"
    );

    // The benchmark user logs in over TCP and is who we asked for (no anonymous user
    // shadows it); the server has our settings.
    assert_eq!(sql(&server, "SELECT 1"), "1");
    assert_eq!(sql(&server, "SELECT CURRENT_USER()"), "encbench@127.0.0.1");
    // mysql_async with the server's options logs in over TCP too: `prefer_socket` off, or
    // it would move to the socket and match `encbench@localhost`.
    let over_opts = common::runtime().block_on(async {
        use mysql_async::prelude::Queryable as _;
        let opts = encbench_oltp::driver::mysql::private_server_opts(&server);
        let mut conn = mysql_async::Conn::new(opts).await.expect("connects");
        let user: Option<String> = conn
            .query_first("SELECT CURRENT_USER()")
            .await
            .expect("query");
        conn.disconnect().await.expect("disconnect");
        user
    });
    assert_eq!(over_opts.as_deref(), Some("encbench@127.0.0.1"));
    assert_eq!(
        sql(
            &server,
            "SELECT COUNT(*) FROM mysql.global_priv WHERE User = ''"
        ),
        "0"
    );
    assert_eq!(
        sql(
            &server,
            "SELECT @@port, @@max_connections, @@max_prepared_stmt_count, \
             @@innodb_buffer_pool_size, @@log_bin"
        ),
        format!("{}\t2000\t1048576\t1073741824\t0", server.port())
    );
    let port_file = std::fs::read_to_string(dir.path().join("mariadb/port"))
        .unwrap_or_else(|e| panic!("port file: {e}"));
    assert_eq!(port_file.trim(), server.port().to_string());

    // root over the socket, without a password: the socket's directory is the
    // owner's alone.
    assert_eq!(
        try_socket_sql(server.socket_path(), "SELECT CURRENT_USER()"),
        Ok("root@localhost".to_string())
    );
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(dir.path().join("mariadb"))
            .expect("server directory")
            .permissions()
            .mode();
        assert_eq!(
            mode & 0o777,
            0o700,
            "the server directory is the owner's only"
        );
    }
    // No root over TCP (mariadb-install-db's passwordless root@127.0.0.1 and
    // root@::1 are dropped), and the benchmark user needs its password.
    assert_eq!(
        sql(
            &server,
            "SELECT COUNT(*) FROM mysql.global_priv WHERE User = 'root' AND Host <> 'localhost'"
        ),
        "0"
    );
    let tcp = |login: &[String]| {
        run_client(
            &["-h127.0.0.1", "--protocol=TCP"],
            login,
            "SELECT CURRENT_USER()",
        )
    };
    let port = format!("-P{}", server.port());
    let e = tcp(&[port.clone(), "-uroot".to_string()]).expect_err("root over TCP");
    assert!(e.contains("Access denied"), "{e}");
    let e = tcp(&[port.clone(), format!("-u{BENCH_USER}")]).expect_err("no password");
    assert!(e.contains("Access denied"), "{e}");

    // A second start attaches: same process, same port; dropping it leaves the server up.
    let t = Instant::now();
    let attached = start(&cfg);
    eprintln!("attach: {:?}", t.elapsed());
    assert!(!attached.started_here());
    assert_eq!(attached.port(), server.port());
    assert_eq!(attached.pid(), server.pid());
    assert_eq!(attached.socket_path(), server.socket_path());
    drop(attached);
    assert_eq!(sql(&server, "SELECT 2"), "2");

    let pid = server.pid();
    server.stop().unwrap_or_else(|e| panic!("stop failed: {e}"));
    assert!(!alive(pid));

    let t = Instant::now();
    let warm = start(&cfg);
    eprintln!("warm start: {:?}", t.elapsed());
    assert!(warm.started_here());
    assert_eq!(sql(&warm, "SELECT 3"), "3");
}

#[test]
fn stop_then_start_keeps_data() {
    let (dir, cfg, server) = fresh_started();
    sql(
        &server,
        "CREATE DATABASE kept; CREATE TABLE kept.t (id INT PRIMARY KEY, c CHAR(10)); \
         INSERT INTO kept.t VALUES (1, 'persisted')",
    );
    let (pid, port, data) = (server.pid(), server.port(), datadir(&server));
    let (process, socket) = (identity(pid), server.socket_path().to_path_buf());
    let password = server.password().to_string();
    server.stop().unwrap_or_else(|e| panic!("stop failed: {e}"));
    assert!(!alive(pid));
    assert!(
        !answers_on(port, &password, &data),
        "still answering after stop"
    );
    assert!(
        try_socket_sql(&socket, "SELECT 1").is_err(),
        "still answering on its socket after stop"
    );
    assert!(!dir.path().join("mariadb/port").exists());

    let again = start(&cfg);
    assert!(again.started_here());
    assert_ne!(identity(again.pid()), process, "a new process");
    assert_eq!(
        again.password(),
        password,
        "the password is made once and kept"
    );
    assert_eq!(
        sql(&again, "SELECT c FROM kept.t WHERE id = 1"),
        "persisted"
    );
    again.stop().unwrap_or_else(|e| panic!("stop failed: {e}"));
}

#[test]
fn kill_then_start_recovers() {
    let (_dir, cfg) = fresh();

    // Killed through an attached handle: the starting handle's stop then finds it gone.
    let server = start(&cfg);
    sql(
        &server,
        "CREATE DATABASE crash; CREATE TABLE crash.t (id INT PRIMARY KEY); \
         INSERT INTO crash.t VALUES (1)",
    );
    let data = datadir(&server);
    let attached = start(&cfg);
    assert!(!attached.started_here());
    attached
        .kill()
        .unwrap_or_else(|e| panic!("kill failed: {e}"));
    assert!(!alive(server.pid()));
    assert!(!answers_on(server.port(), server.password(), &data));
    assert!(try_socket_sql(server.socket_path(), "SELECT 1").is_err());
    server
        .stop()
        .unwrap_or_else(|e| panic!("stop after kill: {e}"));
    drop(attached);

    // Killed through the starting handle.
    let second = start(&cfg);
    assert!(second.started_here());
    assert_eq!(sql(&second, "SELECT COUNT(*) FROM crash.t"), "1");
    sql(&second, "INSERT INTO crash.t VALUES (2)");
    second.kill().unwrap_or_else(|e| panic!("kill failed: {e}"));
    assert!(!alive(second.pid()));
    // Killing twice is fine.
    second.kill().unwrap_or_else(|e| panic!("second kill: {e}"));
    drop(second);

    let third = start(&cfg);
    assert!(third.started_here());
    assert_eq!(sql(&third, "SELECT COUNT(*) FROM crash.t"), "2");
}

/// Set in the child run of [`missing_binaries_give_install_message`].
const CHILD_MARKER: &str = "ENCBENCH_TEST_MISSING_BINARIES_CHILD";

#[test]
fn missing_binaries_give_install_message() {
    if std::env::var_os(CHILD_MARKER).is_some() {
        // The child: binaries are searched only in an empty directory.
        let dir = tempdir();
        let err = match PrivateServer::start(&ServerConfig::new(dir.path())) {
            Ok(_) => panic!("started without binaries"),
            Err(e) => e,
        };
        assert!(
            matches!(err, ServerError::BinariesNotFound { .. }),
            "{err:?}"
        );
        let msg = err.to_string();
        let empty = std::env::var(BIN_DIR_ENV).unwrap_or_default();
        assert!(
            msg.starts_with(&format!(
                "MariaDB server binaries not found (looked for mariadbd in {empty})"
            )),
            "{msg}"
        );
        assert!(msg.contains("'apt-get install mariadb-server'"), "{msg}");
        assert!(msg.contains("--mysql-url"), "{msg}");
        assert!(!msg.contains('\n'), "{msg}");
        assert!(!dir.path().join("mariadb").exists());
        return;
    }
    // The parent: run this very test in a child process with the binary search path pointed
    // at an empty directory (setting the variable in this multi-threaded process would race
    // the other tests).
    let empty = tempdir();
    let exe = std::env::current_exe().unwrap_or_else(|e| panic!("current_exe: {e}"));
    let out = Command::new(exe)
        .args([
            "--exact",
            "missing_binaries_give_install_message",
            "--test-threads=1",
        ])
        .env(CHILD_MARKER, "1")
        .env(BIN_DIR_ENV, empty.path())
        .output()
        .unwrap_or_else(|e| panic!("cannot run the test binary: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "child run failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn failed_start_quotes_err_log_and_leaves_the_directory_usable() {
    let (dir, mut cfg) = fresh();
    cfg.extra_args = vec!["--no-such-flag-for-encbench".into()];
    let err = match PrivateServer::start(&cfg) {
        Ok(_) => panic!("started with a bogus flag"),
        Err(e) => e,
    };
    assert!(matches!(err, ServerError::StartFailed { .. }), "{err:?}");
    let msg = err.to_string();
    let first = msg.lines().next().unwrap_or_default();
    assert!(first.starts_with("mariadbd exited during start"), "{msg}");
    assert!(
        first.contains("unknown option '--no-such-flag-for-encbench'"),
        "{msg}"
    );
    assert!(first.contains("err.log"), "{msg}");
    assert!(msg.lines().count() > 1, "no err.log tail: {msg}");

    let server = start(&ServerConfig::new(dir.path()));
    assert!(server.started_here());
    assert_eq!(sql(&server, "SELECT 1"), "1");
}

#[test]
fn other_extra_args_restart_the_server() {
    let (dir, _, first) = fresh_started();
    assert_eq!(sql(&first, "SELECT @@max_connections"), "2000");
    let first_process = identity(first.pid());

    let mut tuned = ServerConfig::new(dir.path());
    tuned.extra_args = vec!["--max-connections=77".into()];
    let second = start(&tuned);
    assert!(second.started_here(), "not restarted for other flags");
    assert_ne!(identity(second.pid()), first_process, "a new process");
    assert!(!alive(first.pid()));
    assert_eq!(sql(&second, "SELECT @@max_connections"), "77");

    // Same flags: attach.
    let third = start(&tuned);
    assert!(!third.started_here());
    assert_eq!(third.pid(), second.pid());

    first
        .stop()
        .unwrap_or_else(|e| panic!("stop of the replaced server: {e}"));
    assert_eq!(sql(&second, "SELECT 1"), "1");
}

#[test]
fn concurrent_starts_start_once() {
    let (_dir, cfg) = fresh();
    let servers: Vec<PrivateServer> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..2).map(|_| s.spawn(|| start(&cfg))).collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| panic!("start panicked")))
            .collect()
    });
    let started = servers.iter().filter(|s| s.started_here()).count();
    assert_eq!(started, 1, "both or neither started the server");
    assert_eq!(servers[0].port(), servers[1].port());
    assert_eq!(servers[0].pid(), servers[1].pid());
    assert_eq!(sql(&servers[0], "SELECT 1"), "1");
}

#[test]
fn half_done_initialisation_is_redone() {
    let dir = tempdir();
    let tmp = dir.path().join("mariadb/data.tmp");
    std::fs::create_dir_all(tmp.join("mysql"))
        .unwrap_or_else(|e| panic!("cannot create {}: {e}", tmp.display()));
    std::fs::write(tmp.join("ibdata1"), b"torn").unwrap_or_else(|e| panic!("write: {e}"));

    let server = start(&ServerConfig::new(dir.path()));
    assert!(server.started_here());
    assert!(!tmp.exists());
    assert_eq!(sql(&server, "SELECT CURRENT_USER()"), "encbench@127.0.0.1");
}

#[test]
fn the_port_is_kept_across_restarts_unless_taken() {
    let (_dir, cfg, first) = fresh_started();
    let port = first.port();
    first.stop().unwrap_or_else(|e| panic!("stop failed: {e}"));

    // Restarted: the same port, so a URL printed before the stop still works.
    let again = start(&cfg);
    assert!(again.started_here());
    assert_eq!(again.port(), port, "the port changed across a restart");
    assert_eq!(sql(&again, "SELECT @@port"), port.to_string());
    again.stop().unwrap_or_else(|e| panic!("stop failed: {e}"));

    // Someone else listens on it now: another port that works, and that one is kept.
    let squatter = std::net::TcpListener::bind(("127.0.0.1", port))
        .unwrap_or_else(|e| panic!("cannot listen on the freed port {port}: {e}"));
    let moved = start(&cfg);
    assert!(moved.started_here());
    assert_ne!(
        moved.port(),
        port,
        "started on a port someone else listens on"
    );
    assert_eq!(sql(&moved, "SELECT @@port"), moved.port().to_string());
    let new_port = moved.port();
    moved.stop().unwrap_or_else(|e| panic!("stop failed: {e}"));
    drop(squatter);

    let kept = start(&cfg);
    assert_eq!(kept.port(), new_port, "the new port was not recorded");
    assert_eq!(sql(&kept, "SELECT 1"), "1");
}

/// The real uid of process `pid` (`Uid:` of `/proc/PID/status`).
fn uid_of(pid: u32) -> u32 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_else(|e| panic!("/proc/{pid}/status: {e}"));
    status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|r| r.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| panic!("no Uid in /proc/{pid}/status"))
}

/// Owner uid and permission bits of `path`.
fn owner_mode(path: &Path) -> (u32, u32) {
    use std::os::unix::fs::MetadataExt as _;
    let m = std::fs::metadata(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    (m.uid(), m.mode() & 0o7777)
}

/// The private server is locked down as a careful deployment
/// would be. Root over TCP, the benchmark user without or with a wrong password, and
/// (when the tests run as root) the socket as another OS user (`nobody`) all fail;
/// `secure_file_priv` is the empty directory we set and no file can be written or read
/// through the server; started by root, `mariadbd` runs as `mysql`, which owns the data
/// directory, the socket's 0700 directory and the error log, while the password file
/// stays ours, 0600.
#[test]
fn the_private_server_is_locked_down() {
    let (dir, _cfg, server) = fresh_started();
    let port = format!("-P{}", server.port());
    let tcp = |login: &[String]| {
        run_client(
            &["-h127.0.0.1", "--protocol=TCP"],
            login,
            "SELECT CURRENT_USER()",
        )
    };
    let e = tcp(&[port.clone(), "-uroot".to_string()]).expect_err("root over TCP");
    assert!(e.contains("Access denied"), "{e}");
    let e = tcp(&[port.clone(), format!("-u{BENCH_USER}")]).expect_err("no password");
    assert!(e.contains("Access denied"), "{e}");
    let e = tcp(&[
        port.clone(),
        format!("-u{BENCH_USER}"),
        "-pencbench".to_string(),
    ])
    .expect_err("the old fixed password");
    assert!(e.contains("Access denied"), "{e}");
    let wrong: String = server.password().chars().rev().collect();
    let e = tcp(&[
        port.clone(),
        format!("-u{BENCH_USER}"),
        format!("-p{wrong}"),
    ])
    .expect_err("a wrong password");
    assert!(e.contains("Access denied"), "{e}");
    assert_eq!(sql(&server, "SELECT CURRENT_USER()"), "encbench@127.0.0.1");

    // No file in or out through the server.
    let none = dir.path().join("mariadb/no-files");
    assert_eq!(
        sql(&server, "SELECT @@secure_file_priv"),
        format!("{}/", none.display())
    );
    assert_eq!(
        std::fs::read_dir(&none).expect("no-files").count(),
        0,
        "no-files is empty"
    );
    assert_eq!(owner_mode(&none).1, 0o500);
    let out = dir.path().join("out.txt");
    let e = try_sql(
        server.port(),
        server.password(),
        &format!("SELECT 1 INTO OUTFILE '{}'", out.display()),
    )
    .expect_err("INTO OUTFILE outside secure_file_priv");
    assert!(e.contains("--secure-file-priv"), "{e}");
    let e = try_sql(
        server.port(),
        server.password(),
        &format!("SELECT 1 INTO OUTFILE '{}/x'", none.display()),
    )
    .expect_err("INTO OUTFILE into the closed directory");
    assert!(e.contains("Permission denied"), "{e}");
    assert!(!out.exists() && !none.join("x").exists());
    assert_eq!(
        sql(&server, "SELECT LOAD_FILE('/etc/passwd') IS NULL"),
        "1",
        "LOAD_FILE reads the machine's files"
    );

    // Who runs it and owns what.
    let me = nix::unistd::geteuid();
    let server_uid = if me.is_root() {
        nix::unistd::User::from_name(SERVER_USER)
            .expect("user lookup")
            .expect("the mysql user (mariadb-server creates it)")
            .uid
            .as_raw()
    } else {
        me.as_raw()
    };
    assert_eq!(uid_of(server.pid()), server_uid, "mariadbd's uid");
    let mdir = dir.path().join("mariadb");
    assert_eq!(owner_mode(&mdir), (server_uid, 0o700));
    assert_eq!(owner_mode(&mdir.join("data")).0, server_uid);
    assert_eq!(owner_mode(&mdir.join("err.log")).0, server_uid);
    assert_eq!(owner_mode(&mdir.join("password")), (me.as_raw(), 0o600));

    // The socket from another OS user: its directory is closed to it.
    if me.is_root() {
        use std::os::unix::process::CommandExt as _;
        let nobody = nix::unistd::User::from_name("nobody")
            .expect("user lookup")
            .expect("a nobody user");
        let out = Command::new(client())
            .arg("--no-defaults")
            .arg(format!("--socket={}", server.socket_path().display()))
            .args(["-uroot", "-N", "-B", "-e", "SELECT CURRENT_USER()"])
            .uid(nobody.uid.as_raw())
            .gid(nobody.gid.as_raw())
            .output()
            .expect("run mariadb as nobody");
        let e = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "nobody got in over the socket");
        assert!(e.contains("Can't connect") && e.contains("13"), "{e}");
    } else {
        eprintln!("not root: the socket as another OS user is not tried");
    }
}

/// A data directory made by an older oltp: no password file (the fixed `encbench`
/// password), or, as root, files owned by root. A start refuses it in one line naming
/// the fix, also when its server is running (it is stopped first), and the fix works.
#[test]
fn an_old_data_dir_is_refused_naming_the_fix() {
    let (dir, cfg, server) = fresh_started();
    let pid = server.pid();
    let password_file = dir.path().join("mariadb/password");
    // Running, then its password file gone (as an older oltp left it).
    std::fs::remove_file(&password_file).expect("remove password");
    server.detach();
    let e = PrivateServer::start(&cfg)
        .expect_err("an old data dir")
        .to_string();
    let data = dir.path().join("mariadb/data");
    assert!(
        matches!(
            PrivateServer::start(&cfg),
            Err(ServerError::OldDataDir { .. })
        ),
        "a second start refuses it too"
    );
    assert!(
        e.contains("older oltp")
            && e.contains("fixed password")
            && e.contains(&format!("rm -rf {}", data.display())),
        "{e}"
    );
    assert!(!e.contains('\n'), "one line: {e}");
    assert!(!alive(pid), "the old server was stopped");

    if nix::unistd::geteuid().is_root() {
        // Files owned by root (a server run as root): refused too.
        std::fs::write(&password_file, "x\n").expect("password file");
        std::os::unix::fs::chown(&data, Some(0), Some(0)).expect("chown");
        let e = PrivateServer::start(&cfg)
            .expect_err("root's data dir")
            .to_string();
        assert!(e.contains("belong to root") && e.contains("rm -rf"), "{e}");
    }

    // The fix named works: a new data directory, a new password.
    std::fs::remove_dir_all(&data).expect("rm -rf data");
    let fresh = start(&cfg);
    assert!(fresh.started_here());
    assert_eq!(sql(&fresh, "SELECT CURRENT_USER()"), "encbench@127.0.0.1");
}

/// A lease of the private server of `base` (default settings, no `--at-rest`).
async fn lease(base: &Path) -> Lease {
    Lease::open(None, base, AtRest::Off, Profile::Default, None)
        .await
        .unwrap_or_else(|e| panic!("private MariaDB server must start: {e}"))
}

/// Whether the server of `lease` answers a query.
async fn answers(lease: &Lease) -> bool {
    use mysql_async::prelude::Queryable as _;
    let mut conn = common::conn(&lease.url, None).await;
    let one: Option<u32> = conn.query_first("SELECT 1").await.expect("SELECT 1");
    conn.disconnect().await.expect("disconnect");
    one == Some(1)
}

#[test]
fn two_leases_of_one_process_are_two_users() {
    let dir = tempdir();
    let base = dir.path().join("home");
    let layout = Layout::new(server_base(&base, AtRest::Off));
    common::runtime().block_on(async {
        // The first lease starts the server (so it is ephemeral), the second attaches.
        let first = lease(&base).await;
        let pid = first.server_pid().expect("a private server");
        assert!(
            layout.ephemeral_marker().exists(),
            "started by a lease: ephemeral"
        );
        let second = lease(&base).await;
        assert_eq!(second.server_pid(), Some(pid), "the same server");
        let mine = layout.user_files(std::process::id());
        assert_eq!(mine.len(), 2, "one registration per lease: {mine:?}");

        // The first to finish leaves the server to the second.
        first.finish().await.expect("finish the first lease");
        assert!(alive(pid), "the second lease still uses the server");
        assert!(
            answers(&second).await,
            "the server answers the second lease"
        );
        assert_eq!(layout.user_files(std::process::id()).len(), 1);

        // The last one stops it: it was started by a lease.
        second.finish().await.expect("finish the second lease");
        assert!(!alive(pid), "the last lease stopped the ephemeral server");
        assert!(layout.user_files(std::process::id()).is_empty());
        assert!(!layout.ephemeral_marker().exists());
    });
}

#[test]
fn an_older_oltps_registration_counts_while_its_process_lives() {
    let dir = tempdir();
    let base = dir.path().join("home");
    let layout = Layout::new(server_base(&base, AtRest::Off));
    // A process standing for an older oltp, registered as `users/<pid>`.
    let mut older = Command::new("sleep")
        .arg("600")
        .spawn()
        .expect("spawn sleep");
    let older_file = layout.users_dir().join(older.id().to_string());
    common::runtime().block_on(async {
        let first = lease(&base).await;
        let pid = first.server_pid().expect("a private server");
        std::fs::write(&older_file, b"").expect("write the older registration");
        first.finish().await.expect("finish");
        assert!(
            alive(pid),
            "the older oltp's live registration keeps the server"
        );
        assert!(older_file.exists());

        // Once its process is gone, its file is stale: the next last lease stops the server.
        older.kill().expect("kill sleep");
        older.wait().expect("wait for sleep");
        let again = lease(&base).await;
        assert_eq!(again.server_pid(), Some(pid), "attached to the same server");
        again.finish().await.expect("finish");
        assert!(
            !alive(pid),
            "stopped: no live user left, and it is ephemeral"
        );
        assert!(!older_file.exists(), "the stale registration was removed");
    });
}

#[test]
fn a_run_beside_another_oltp_on_the_same_server_warns_and_records_its_pid() {
    let dir = tempdir();
    let base = dir.path().join("home");
    let b = common::utf8(&base).to_string();
    let sized = [
        "--base-dir",
        b.as_str(),
        "--mysql-db",
        "shared",
        "--tables",
        "1",
        "--table-size",
        "100",
        "--encrypt",
        "none",
    ];
    let json = dir.path().join("run.json");
    let run: Vec<&str> = ["run", "--time", "1", "--workload", "oltp_point_select"]
        .into_iter()
        .chain(sized)
        .chain(["--json-out", common::utf8(&json)])
        .collect();
    let prepared = common::oltp_bin(&base, &[&["prepare"][..], &sized[..]].concat());
    assert!(prepared.status.success(), "prepare: {prepared:?}");
    let shared_with = |json: &Path| -> Vec<Vec<u64>> {
        common::read_json(json)["runs"]
            .as_array()
            .expect("runs")
            .iter()
            .map(|r| {
                r["shared_with"]
                    .as_array()
                    .expect("shared_with: an array")
                    .iter()
                    .map(common::u)
                    .collect()
            })
            .collect()
    };
    let me = std::process::id();
    common::runtime().block_on(async {
        // This test process holds a lease of the server while the oltp binary runs.
        let held = lease(&base).await;
        let out = common::oltp_bin(&base, &run);
        assert!(out.status.success(), "run: {out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let warnings: Vec<&str> = stderr.lines().filter(|l| l.starts_with("Warning: ")).collect();
        assert_eq!(
            warnings,
            [format!(
                "Warning: oltp pid {me} uses the same private server: the runs share its cores, so these figures are not comparable with a quiet run's (recorded as shared_with in the JSON); wait for it to end, or give each run its own --base-dir (or ENCBENCH_HOME)"
            )],
            "{stderr}"
        );
        assert_eq!(shared_with(&json), [vec![u64::from(me)]]);
        held.finish().await.expect("finish the lease");
    });
    // Alone: no warning, nothing recorded.
    let out = common::oltp_bin(&base, &run);
    assert!(out.status.success(), "run: {out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("Warning: "), "{stderr}");
    assert_eq!(shared_with(&json), [Vec::<u64>::new()]);
}
