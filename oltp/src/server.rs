//! A private `mariadbd` for benchmarks and tests, run from a directory of our own.
//!
//! [`PrivateServer::start`] initialises a data directory on first use, starts `mariadbd` on a
//! free loopback port and waits until it answers; a second `start` on the same directory (from
//! this process or another one) attaches to the running server instead. Everything lives in
//! `<base>/mariadb/`:
//!
//! | path | what |
//! | --- | --- |
//! | `data/` | the data directory; it exists only once fully initialised |
//! | `data.tmp/` | initialisation in progress (or left by a failed one: wiped and redone) |
//! | `sock`, `pid`, `err.log` | the server's Unix socket, pid file and error log |
//! | `port` | the TCP port (decimal) of the running server, for processes that attach |
//! | `args.json` | the `extra_args` the running server was started with |
//! | `tmp/` | the server's temporary files (`--tmpdir`), never the shared /tmp |
//! | `install.log` | output of `mariadb-install-db` and the bootstrap that creates the users |
//! | `lock` | `flock`ed while a process starts or stops the server |
//!
//! The server runs with `--no-defaults` (no `/etc/mysql` configuration), listens on
//! 127.0.0.1 only, and has a benchmark user [`BENCH_USER`] / [`BENCH_PASSWORD`] with all
//! privileges on `localhost` (socket) and `127.0.0.1` (TCP); `root` logs in over the socket
//! without a password. Facts behind the flags: `shared/spec/mariadb.md`.
//!
//! Nothing here prints: every outcome is a return value.

use std::ffi::OsString;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::net::{Ipv4Addr, TcpListener};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

/// The benchmark user created in every private server, for `localhost` and `127.0.0.1`.
pub const BENCH_USER: &str = "encbench";

/// The password of [`BENCH_USER`]. Not a secret: the server listens on loopback only.
pub const BENCH_PASSWORD: &str = "encbench";

/// Environment variable naming the base directory; see [`default_base_dir`].
pub const HOME_ENV: &str = "ENCBENCH_HOME";

/// Environment variable with directories (`:`-separated, like `PATH`) searched for the MariaDB
/// binaries *instead of* `PATH` and [`DEFAULT_BIN_DIRS`].
pub const BIN_DIR_ENV: &str = "ENCBENCH_MARIADB_BIN_DIR";

/// Directories searched for the MariaDB binaries after `PATH` (`/usr/sbin` is Debian's
/// `mariadbd`, `/usr/local/mysql/bin` the layout of the upstream tarballs).
pub const DEFAULT_BIN_DIRS: [&str; 4] = [
    "/usr/sbin",
    "/usr/bin",
    "/usr/local/mysql/bin",
    "/usr/local/bin",
];

/// How long [`PrivateServer::start`] waits for a server to answer queries.
pub const START_TIMEOUT: Duration = Duration::from_secs(60);

/// How long [`PrivateServer::stop`] waits for a clean shutdown before `SIGKILL`.
pub const STOP_TIMEOUT: Duration = Duration::from_secs(60);

/// How long a start or stop waits for another process that holds the base directory's lock
/// (long enough for that process to initialise and start a server itself).
const LOCK_TIMEOUT: Duration = Duration::from_secs(300);

/// Lines of `err.log` quoted when the server fails to start.
const LOG_TAIL_LINES: usize = 20;

/// Longest Unix socket path: `sun_path` is 108 bytes on Linux, including the NUL.
const SOCKET_PATH_MAX: usize = 107;

/// Attempts at starting when the free port we picked is taken before `mariadbd` binds it.
const PORT_ATTEMPTS: usize = 3;

/// Flags every private server gets, after the paths and before `extra_args`
/// (values from `shared/spec/mariadb.md`: sysbench with many threads needs more than the
/// default 151 connections and 16382 prepared statements).
const SERVER_FLAGS: [&str; 6] = [
    "--bind-address=127.0.0.1",
    "--skip-name-resolve",
    "--max-connections=2000",
    "--max-prepared-stmt-count=1048576",
    "--innodb-buffer-pool-size=1G",
    "--skip-log-bin",
];

/// Run by `mariadbd --bootstrap` on a fresh data directory: drop the anonymous users (they
/// shadow `encbench@localhost`, spec) and create the benchmark user.
const BOOTSTRAP_SQL: &str = "\
USE mysql;
FLUSH PRIVILEGES;
DELETE FROM mysql.global_priv WHERE User = '';
CREATE USER 'encbench'@'localhost' IDENTIFIED BY 'encbench';
CREATE USER 'encbench'@'127.0.0.1' IDENTIFIED BY 'encbench';
GRANT ALL PRIVILEGES ON *.* TO 'encbench'@'localhost';
GRANT ALL PRIVILEGES ON *.* TO 'encbench'@'127.0.0.1';
FLUSH PRIVILEGES;
";

/// Where the private server keeps its files when no directory is given.
///
/// `$ENCBENCH_HOME` if set, else `$XDG_DATA_HOME/encbench` (when absolute), else
/// `$HOME/.local/share/encbench`, else `<temp dir>/encbench`. The server itself lives in
/// `<base>/mariadb/` (see the [module docs](self)).
pub fn default_base_dir() -> PathBuf {
    fn var(name: &str) -> Option<PathBuf> {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    }
    if let Some(dir) = var(HOME_ENV) {
        return dir;
    }
    if let Some(dir) = var("XDG_DATA_HOME").filter(|d| d.is_absolute()) {
        return dir.join("encbench");
    }
    if let Some(home) = var("HOME") {
        return home.join(".local/share/encbench");
    }
    std::env::temp_dir().join("encbench")
}

/// How to run a private server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerConfig {
    /// The base directory; the server lives in `<base_dir>/mariadb/`. Relative paths are taken
    /// from the current directory.
    pub base_dir: PathBuf,
    /// Extra `mariadbd` flags, appended after ours (so they override them), e.g.
    /// `--ssl-cert=...` or `--innodb-encrypt-tables=ON`. A server already running on the
    /// directory with other extra flags is restarted by [`PrivateServer::start`].
    pub extra_args: Vec<String>,
}

impl ServerConfig {
    /// A configuration for `base_dir` with no extra flags.
    pub fn new(base_dir: impl Into<PathBuf>) -> Self {
        Self {
            base_dir: base_dir.into(),
            extra_args: Vec::new(),
        }
    }
}

/// Why a private server could not be started, stopped or killed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServerError {
    /// `mariadbd`, `mariadb-install-db` or `mariadb-admin` is not installed.
    #[error(
        "MariaDB server binaries not found (looked for {binary} in {looked_in}): install them \
         with 'apt-get install mariadb-server' (Debian/Ubuntu), or pass --mysql-url to use \
         another server"
    )]
    BinariesNotFound {
        /// The binary looked for first (e.g. `mariadbd`).
        binary: &'static str,
        /// The directories searched, `, `-separated.
        looked_in: String,
    },
    /// The base directory is too deep for a Unix socket path.
    #[error(
        "socket path {} is {len} bytes, over the {SOCKET_PATH_MAX}-byte limit of Unix sockets: \
         use a shorter base directory ({HOME_ENV})",
        path.display()
    )]
    SocketPathTooLong {
        /// The socket path that would have been used.
        path: PathBuf,
        /// Its length in bytes.
        len: usize,
    },
    /// A file operation or running a program failed.
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        /// What was being done, e.g. `create directory`, `run`.
        action: &'static str,
        /// The file, directory or program.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: io::Error,
    },
    /// `mariadb-install-db` or the bootstrap creating the benchmark user failed; the data
    /// directory was not created, so the next start tries again.
    #[error("{summary}; see {}{log_tail}", log.display())]
    InitFailed {
        /// One line: which step failed and how.
        summary: String,
        /// The log with the full output.
        log: PathBuf,
        /// Its last lines, each on its own line after a leading newline (may be empty).
        log_tail: String,
    },
    /// `mariadbd` exited before answering queries.
    #[error("{summary}; see {}{log_tail}", log.display())]
    StartFailed {
        /// One line: the exit status and the first error `mariadbd` logged.
        summary: String,
        /// The server's `err.log`.
        log: PathBuf,
        /// The last lines this start wrote to it, after a leading newline.
        log_tail: String,
    },
    /// `mariadbd` kept running but did not answer within [`START_TIMEOUT`]; it was killed.
    #[error(
        "mariadbd did not answer on {} within {secs} s and was killed; see {}{log_tail}",
        socket.display(),
        log.display()
    )]
    StartTimedOut {
        /// The socket polled.
        socket: PathBuf,
        /// The time waited, in seconds.
        secs: u64,
        /// The server's `err.log`.
        log: PathBuf,
        /// The last lines this start wrote to it, after a leading newline.
        log_tail: String,
    },
    /// A `mariadbd` of someone else holds the data directory but does not answer.
    #[error(
        "mariadbd (pid {pid}) runs on {} but did not answer on {} within {secs} s: stop it \
         with 'kill {pid}' and start again",
        data_dir.display(),
        socket.display()
    )]
    Unresponsive {
        /// Its process id.
        pid: u32,
        /// Its data directory.
        data_dir: PathBuf,
        /// The socket polled.
        socket: PathBuf,
        /// The time waited, in seconds.
        secs: u64,
    },
    /// Another process held the base directory's lock for too long.
    #[error(
        "{} stayed locked by another process for {secs} s: wait for it, or remove the lock \
         file if no encbench process runs",
        path.display()
    )]
    LockTimedOut {
        /// The lock file.
        path: PathBuf,
        /// The time waited, in seconds.
        secs: u64,
    },
    /// The server did not shut down cleanly within [`STOP_TIMEOUT`] and was killed with
    /// `SIGKILL` (it is gone; its next start runs crash recovery).
    #[error(
        "mariadbd (pid {pid}) did not shut down within {secs} s and was killed; see {}",
        log.display()
    )]
    StopTimedOut {
        /// Its process id.
        pid: u32,
        /// The time waited, in seconds.
        secs: u64,
        /// The server's `err.log`.
        log: PathBuf,
    },
    /// Sending a signal to the server failed.
    #[error("cannot send SIG{signal} to mariadbd (pid {pid}): {detail}")]
    Signal {
        /// The signal name without `SIG`, e.g. `KILL`.
        signal: &'static str,
        /// The process id.
        pid: u32,
        /// What went wrong.
        detail: String,
    },
}

type Result<T, E = ServerError> = std::result::Result<T, E>;

/// A running private `mariadbd`, started by this handle or attached to.
///
/// Dropping a handle that started the server stops it cleanly (best effort, errors ignored);
/// an attached handle leaves the server running. The handle is `Send + Sync`.
#[derive(Debug)]
pub struct PrivateServer {
    layout: Layout,
    bins: Binaries,
    port: u16,
    pid: u32,
    started_here: bool,
    /// The `mariadbd` child while started here and not yet reaped.
    child: Mutex<Option<Child>>,
}

impl PrivateServer {
    /// Starts the server, initialising the data directory on first use, or attaches to one
    /// already running on that directory (then [`stop`](Self::stop) leaves it running).
    ///
    /// Blocks until the server answers on its socket (at most [`START_TIMEOUT`], plus the
    /// initialisation on first use: ~2 s here). Concurrent starts on one directory, from any
    /// process, are serialised by a lock file: one starts, the others attach. A running server
    /// whose recorded `extra_args` differ from `cfg.extra_args` is shut down and started again
    /// with `cfg`'s flags (this handle then counts as having started it).
    ///
    /// # Errors
    ///
    /// [`ServerError::BinariesNotFound`] when MariaDB is not installed,
    /// [`ServerError::InitFailed`], [`ServerError::StartFailed`] (quoting the tail of
    /// `err.log`), [`ServerError::StartTimedOut`], [`ServerError::Unresponsive`],
    /// [`ServerError::LockTimedOut`], [`ServerError::SocketPathTooLong`], and
    /// [`ServerError::Io`] for the files in the base directory.
    pub fn start(cfg: &ServerConfig) -> Result<PrivateServer> {
        let bins = Binaries::find()?;
        let layout = Layout::new(&cfg.base_dir)?;
        fs::create_dir_all(&layout.dir).map_err(io_err("create directory", &layout.dir))?;
        let lock = layout.lock.clone();
        with_lock(&lock, || start_locked(cfg, bins, layout))
    }

    /// `mysql://encbench:encbench@127.0.0.1:PORT/`: TCP on loopback, no database selected.
    ///
    /// mysql_async would still swap a loopback TCP connection for the Unix socket: append
    /// `?prefer_socket=false`, or use [`opts`](Self::opts).
    pub fn url(&self) -> String {
        format!(
            "mysql://{BENCH_USER}:{BENCH_PASSWORD}@127.0.0.1:{}/",
            self.port
        )
    }

    /// mysql_async options for [`url`](Self::url) with `prefer_socket` off, so connections
    /// really use TCP (and TLS when the caller adds it).
    pub fn opts(&self) -> mysql_async::Opts {
        mysql_async::OptsBuilder::default()
            .ip_or_hostname("127.0.0.1")
            .tcp_port(self.port)
            .user(Some(BENCH_USER))
            .pass(Some(BENCH_PASSWORD))
            .prefer_socket(false)
            .into()
    }

    /// The TCP port on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The Unix socket, `<base>/mariadb/sock` (`root` logs in here without a password).
    pub fn socket_path(&self) -> &Path {
        &self.layout.socket
    }

    /// The base directory, made absolute.
    pub fn base_dir(&self) -> &Path {
        &self.layout.base
    }

    /// The data directory, `<base>/mariadb/data`.
    pub fn data_dir(&self) -> &Path {
        &self.layout.data
    }

    /// The server's error log, `<base>/mariadb/err.log`.
    pub fn err_log_path(&self) -> &Path {
        &self.layout.err_log
    }

    /// The `mariadbd` process id.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// Whether this handle started the process (`false`: it attached to a running one).
    pub fn started_here(&self) -> bool {
        self.started_here
    }

    /// Shuts the server down cleanly if this handle started it; an attached handle leaves it
    /// running.
    ///
    /// Sends `SIGTERM` (or `mariadb-admin shutdown` if that fails), waits for the process to
    /// exit for at most [`STOP_TIMEOUT`], then kills it with `SIGKILL`. A server that already
    /// exited (e.g. after [`kill`](Self::kill)) counts as stopped.
    ///
    /// # Errors
    ///
    /// [`ServerError::StopTimedOut`] when `SIGKILL` was needed (the process is gone all the
    /// same), [`ServerError::Io`] when waiting for the process fails.
    pub fn stop(mut self) -> Result<()> {
        self.shutdown()
    }

    /// Kills the server abruptly with `SIGKILL` and waits until it is gone, whether this handle
    /// started it or attached (for failure tests: "server killed mid-run"). The next
    /// [`start`](Self::start) runs InnoDB crash recovery. Killing a server that is already gone
    /// succeeds.
    ///
    /// # Errors
    ///
    /// [`ServerError::Signal`] when the signal cannot be sent or the process outlives it,
    /// [`ServerError::Io`] when waiting for our child fails.
    pub fn kill(&self) -> Result<()> {
        let mut child = self.lock_child();
        if let Some(c) = child.as_mut() {
            let reaped = c
                .try_wait()
                .map_err(io_err("wait for", &self.bins.mariadbd))?;
            if reaped.is_none() {
                c.kill().map_err(|e| ServerError::Signal {
                    signal: "KILL",
                    pid: self.pid,
                    detail: e.to_string(),
                })?;
                c.wait().map_err(io_err("wait for", &self.bins.mariadbd))?;
            }
            *child = None;
            return Ok(());
        }
        drop(child);
        if !is_server_of(self.pid, &self.layout.data) {
            return Ok(());
        }
        send_signal(self.pid, "KILL")?;
        let deadline = Instant::now() + Duration::from_secs(10);
        while is_alive(self.pid) {
            if Instant::now() >= deadline {
                return Err(ServerError::Signal {
                    signal: "KILL",
                    pid: self.pid,
                    detail: "the process is still there after 10 s".into(),
                });
            }
            thread::sleep(Duration::from_millis(20));
        }
        Ok(())
    }

    /// Leaves the server running when this handle goes away, whether it started
    /// it or attached (`oltp server start`); a later [`start`](Self::start) attaches.
    pub fn detach(mut self) {
        self.started_here = false;
        // Dropping a `Child` neither kills nor waits for it.
        drop(self.lock_child().take());
    }

    /// Shuts the server down cleanly whether this handle started it or attached
    /// to it (`oltp server stop`).
    ///
    /// # Errors
    ///
    /// As [`stop`](Self::stop).
    pub fn stop_any(mut self) -> Result<()> {
        if self.lock_child().is_some() {
            return self.shutdown();
        }
        let (bins, layout, pid) = (self.bins.clone(), self.layout.clone(), self.pid);
        self.started_here = false;
        with_lock(&layout.lock, || {
            if is_server_of(pid, &layout.data) {
                shutdown_foreign(&bins, &layout, pid)?;
            }
            let _ = fs::remove_file(&layout.port);
            Ok(())
        })
    }

    fn lock_child(&self) -> MutexGuard<'_, Option<Child>> {
        self.child.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Stops the child if there is one; idempotent.
    fn shutdown(&mut self) -> Result<()> {
        let Some(mut child) = self.lock_child().take() else {
            return Ok(());
        };
        if child
            .try_wait()
            .map_err(io_err("wait for", &self.bins.mariadbd))?
            .is_some()
        {
            return Ok(());
        }
        // Hold the directory lock so a concurrent start waits for the end of the shutdown
        // rather than racing it; stop anyway if the lock cannot be had.
        let mut result = None;
        let _ = with_lock(&self.layout.lock, || {
            result = Some(self.shutdown_child(&mut child));
            Ok(())
        });
        match result {
            Some(r) => r,
            None => self.shutdown_child(&mut child),
        }
    }

    fn shutdown_child(&self, child: &mut Child) -> Result<()> {
        if send_signal(self.pid, "TERM").is_err() {
            // No `kill` to run: ask the server itself.
            let _ = admin(&self.bins, &self.layout.socket)
                .arg("shutdown")
                .status();
        }
        let deadline = Instant::now() + STOP_TIMEOUT;
        loop {
            if child
                .try_wait()
                .map_err(io_err("wait for", &self.bins.mariadbd))?
                .is_some()
            {
                let _ = fs::remove_file(&self.layout.port);
                return Ok(());
            }
            if Instant::now() >= deadline {
                let _ = child.kill();
                child
                    .wait()
                    .map_err(io_err("wait for", &self.bins.mariadbd))?;
                let _ = fs::remove_file(&self.layout.port);
                return Err(ServerError::StopTimedOut {
                    pid: self.pid,
                    secs: STOP_TIMEOUT.as_secs(),
                    log: self.layout.err_log.clone(),
                });
            }
            thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for PrivateServer {
    fn drop(&mut self) {
        let _ = self.shutdown();
    }
}

/// The body of [`PrivateServer::start`], run while holding the directory lock.
fn start_locked(cfg: &ServerConfig, bins: Binaries, layout: Layout) -> Result<PrivateServer> {
    if let Some(pid) = read_pid(&layout.pid).filter(|&p| is_server_of(p, &layout.data)) {
        match wait_answering(&bins, &layout, pid)? {
            Answer::Ready if recorded_args(&layout).as_ref() == Some(&cfg.extra_args) => {
                let port = match read_port(&layout.port) {
                    Some(port) => port,
                    None => query_port(&bins, &layout)?,
                };
                return Ok(PrivateServer {
                    layout,
                    bins,
                    port,
                    pid,
                    started_here: false,
                    child: Mutex::new(None),
                });
            }
            // Other flags: restart with ours.
            Answer::Ready => shutdown_foreign(&bins, &layout, pid)?,
            Answer::Gone => {}
        }
    }
    for stale in [&layout.pid, &layout.socket, &layout.port] {
        let _ = fs::remove_file(stale);
    }
    let as_root = running_as_root(&layout.dir);
    if !layout.data.is_dir() {
        initialise(&bins, &layout, as_root)?;
    }
    launch(cfg, bins, layout, as_root)
}

/// Creates `data/`: `mariadb-install-db` and the user bootstrap into `data.tmp/`, then a
/// rename, so `data/` exists only when complete.
fn initialise(bins: &Binaries, layout: &Layout, as_root: bool) -> Result<()> {
    if layout.data_tmp.exists() {
        fs::remove_dir_all(&layout.data_tmp)
            .map_err(io_err("remove directory", &layout.data_tmp))?;
    }
    // A temporary directory of our own: servers initialising side by side in the shared
    // /tmp collide on temporary table names (seen: "Unknown table 'mysql.tmp_user_sys'").
    fs::create_dir_all(&layout.tmp).map_err(io_err("create directory", &layout.tmp))?;
    let log = File::create(&layout.install_log).map_err(io_err("create", &layout.install_log))?;
    let clone_log = || {
        log.try_clone()
            .map_err(io_err("write", &layout.install_log))
    };

    let mut install = Command::new(&bins.install_db);
    install
        .arg("--no-defaults")
        .arg(flag("--datadir=", &layout.data_tmp))
        .args(bins.basedir.as_deref().map(|d| flag("--basedir=", d)))
        .args(["--auth-root-authentication-method=normal", "--skip-test-db"])
        .arg(flag("--tmpdir=", &layout.tmp))
        .env("TMPDIR", &layout.tmp)
        .args(as_root.then_some("--user=root"))
        .stdin(Stdio::null())
        .stdout(clone_log()?)
        .stderr(clone_log()?);
    let status = install.status().map_err(io_err("run", &bins.install_db))?;
    if !status.success() {
        return Err(init_failed(
            format!("mariadb-install-db failed ({status})"),
            &layout.install_log,
        ));
    }

    let mut bootstrap = Command::new(&bins.mariadbd);
    bootstrap
        .arg("--no-defaults")
        .args(bins.path_flags())
        .arg("--bootstrap")
        .arg(flag("--datadir=", &layout.data_tmp))
        .arg(flag("--tmpdir=", &layout.tmp))
        .env("TMPDIR", &layout.tmp)
        .arg("--skip-log-bin")
        .args(as_root.then_some("--user=root"))
        .stdin(Stdio::piped())
        .stdout(clone_log()?)
        .stderr(clone_log()?);
    let mut child = bootstrap.spawn().map_err(io_err("run", &bins.mariadbd))?;
    let written = child
        .stdin
        .take()
        .map(|mut stdin| stdin.write_all(BOOTSTRAP_SQL.as_bytes()));
    let status = child.wait().map_err(io_err("wait for", &bins.mariadbd))?;
    if !status.success() || !matches!(written, Some(Ok(()))) {
        return Err(init_failed(
            format!("mariadbd --bootstrap (creating user {BENCH_USER}) failed ({status})"),
            &layout.install_log,
        ));
    }

    fs::rename(&layout.data_tmp, &layout.data).map_err(io_err("rename", &layout.data_tmp))
}

/// Spawns `mariadbd` and waits until it answers; retries on a port taken in the meantime.
fn launch(
    cfg: &ServerConfig,
    bins: Binaries,
    layout: Layout,
    as_root: bool,
) -> Result<PrivateServer> {
    let args_json = serde_json::to_string(&cfg.extra_args).map_err(|e| ServerError::Io {
        action: "write",
        path: layout.args.clone(),
        source: io::Error::other(e),
    })?;
    fs::write(&layout.args, args_json).map_err(io_err("write", &layout.args))?;
    fs::create_dir_all(&layout.tmp).map_err(io_err("create directory", &layout.tmp))?;

    let mut attempt = 0;
    loop {
        attempt += 1;
        let port = free_port()?;
        let log_start = fs::metadata(&layout.err_log).map_or(0, |m| m.len());
        let mut cmd = Command::new(&bins.mariadbd);
        cmd.arg("--no-defaults")
            .args(bins.path_flags())
            .arg(flag("--datadir=", &layout.data))
            .arg(flag("--socket=", &layout.socket))
            .arg(flag("--pid-file=", &layout.pid))
            .arg(flag("--log-error=", &layout.err_log))
            .arg(flag("--tmpdir=", &layout.tmp))
            .env("TMPDIR", &layout.tmp)
            .arg(format!("--port={port}"))
            .args(SERVER_FLAGS)
            .args(as_root.then_some("--user=root"))
            .args(&cfg.extra_args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            // Own process group: a Ctrl-C meant for us does not kill the server mid-write;
            // our handle's drop stops it cleanly instead.
            .process_group(0);
        let mut child = cmd.spawn().map_err(io_err("run", &bins.mariadbd))?;
        let pid = child.id();

        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            let exited = child
                .try_wait()
                .map_err(io_err("wait for", &bins.mariadbd))?;
            if let Some(status) = exited {
                let log = read_log_since(&layout.err_log, log_start);
                if attempt < PORT_ATTEMPTS && log.contains("Address already in use") {
                    break;
                }
                return Err(start_failed(status, &layout.err_log, &log));
            }
            if ping(&bins, &layout.socket) {
                fs::write(&layout.port, format!("{port}\n"))
                    .map_err(io_err("write", &layout.port))?;
                return Ok(PrivateServer {
                    layout,
                    bins,
                    port,
                    pid,
                    started_here: true,
                    child: Mutex::new(Some(child)),
                });
            }
            if Instant::now() >= deadline {
                let _ = child.kill();
                let _ = child.wait();
                let log = read_log_since(&layout.err_log, log_start);
                return Err(ServerError::StartTimedOut {
                    socket: layout.socket.clone(),
                    secs: START_TIMEOUT.as_secs(),
                    log: layout.err_log.clone(),
                    log_tail: tail(&log),
                });
            }
            thread::sleep(Duration::from_millis(50));
        }
    }
}

/// What a running server on our directory did while we waited for it.
enum Answer {
    Ready,
    Gone,
}

/// Waits until the server `pid` answers on the socket, or exits.
fn wait_answering(bins: &Binaries, layout: &Layout, pid: u32) -> Result<Answer> {
    let deadline = Instant::now() + START_TIMEOUT;
    loop {
        if !is_alive(pid) {
            return Ok(Answer::Gone);
        }
        if ping(bins, &layout.socket) {
            return Ok(Answer::Ready);
        }
        if Instant::now() >= deadline {
            return Err(ServerError::Unresponsive {
                pid,
                data_dir: layout.data.clone(),
                socket: layout.socket.clone(),
                secs: START_TIMEOUT.as_secs(),
            });
        }
        thread::sleep(Duration::from_millis(50));
    }
}

/// Stops a server this process did not start (to restart it with other flags).
fn shutdown_foreign(bins: &Binaries, layout: &Layout, pid: u32) -> Result<()> {
    let asked = admin(bins, &layout.socket)
        .arg("shutdown")
        .status()
        .is_ok_and(|s| s.success());
    if !asked {
        send_signal(pid, "TERM")?;
    }
    let deadline = Instant::now() + STOP_TIMEOUT;
    while is_alive(pid) {
        if Instant::now() >= deadline {
            send_signal(pid, "KILL")?;
            return Err(ServerError::StopTimedOut {
                pid,
                secs: STOP_TIMEOUT.as_secs(),
                log: layout.err_log.clone(),
            });
        }
        thread::sleep(Duration::from_millis(20));
    }
    Ok(())
}

/// The files of one private server (all absolute).
#[derive(Debug, Clone)]
struct Layout {
    base: PathBuf,
    dir: PathBuf,
    data: PathBuf,
    data_tmp: PathBuf,
    socket: PathBuf,
    pid: PathBuf,
    err_log: PathBuf,
    port: PathBuf,
    args: PathBuf,
    install_log: PathBuf,
    lock: PathBuf,
    tmp: PathBuf,
}

impl Layout {
    fn new(base: &Path) -> Result<Self> {
        let base = std::path::absolute(base).map_err(io_err("resolve", base))?;
        let dir = base.join("mariadb");
        let socket = dir.join("sock");
        let len = socket.as_os_str().len();
        if len > SOCKET_PATH_MAX {
            return Err(ServerError::SocketPathTooLong { path: socket, len });
        }
        Ok(Self {
            data: dir.join("data"),
            data_tmp: dir.join("data.tmp"),
            socket,
            pid: dir.join("pid"),
            err_log: dir.join("err.log"),
            port: dir.join("port"),
            args: dir.join("args.json"),
            install_log: dir.join("install.log"),
            lock: dir.join("lock"),
            tmp: dir.join("tmp"),
            dir,
            base,
        })
    }
}

/// The MariaDB programs we run, and the flags that tell `mariadbd` where its files are.
#[derive(Debug, Clone)]
struct Binaries {
    mariadbd: PathBuf,
    install_db: PathBuf,
    admin: PathBuf,
    /// The installation prefix (`/usr` for `/usr/sbin/mariadbd`).
    basedir: Option<PathBuf>,
    /// The directory holding `english/errmsg.sys`.
    lc_messages_dir: Option<PathBuf>,
}

impl Binaries {
    fn find() -> Result<Self> {
        let dirs = search_dirs();
        let find = |names: &[&'static str]| -> Result<PathBuf> {
            names
                .iter()
                .flat_map(|name| dirs.iter().map(move |dir| dir.join(name)))
                .find(|path| is_executable(path))
                .ok_or_else(|| ServerError::BinariesNotFound {
                    binary: names[0],
                    looked_in: dirs
                        .iter()
                        .map(|d| d.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", "),
                })
        };
        let mariadbd = find(&["mariadbd", "mysqld"])?;
        let install_db = find(&["mariadb-install-db", "mysql_install_db"])?;
        let admin = find(&["mariadb-admin", "mysqladmin"])?;

        let real = fs::canonicalize(&mariadbd).unwrap_or_else(|_| mariadbd.clone());
        let basedir = real.parent().and_then(Path::parent).map(Path::to_path_buf);
        let lc_messages_dir = basedir.as_deref().and_then(|base| {
            ["share/mysql", "share/mariadb", "share"]
                .iter()
                .map(|sub| base.join(sub))
                .find(|dir| dir.join("english/errmsg.sys").is_file())
        });
        Ok(Self {
            mariadbd,
            install_db,
            admin,
            basedir,
            lc_messages_dir,
        })
    }

    /// `--basedir` and `--lc-messages-dir`, which `--no-defaults` leaves unset.
    fn path_flags(&self) -> Vec<OsString> {
        let mut flags = Vec::new();
        if let Some(dir) = &self.basedir {
            flags.push(flag("--basedir=", dir));
        }
        if let Some(dir) = &self.lc_messages_dir {
            flags.push(flag("--lc-messages-dir=", dir));
        }
        flags
    }
}

/// `$ENCBENCH_MARIADB_BIN_DIR` if set, else `PATH` followed by [`DEFAULT_BIN_DIRS`].
fn search_dirs() -> Vec<PathBuf> {
    if let Some(dirs) = std::env::var_os(BIN_DIR_ENV).filter(|v| !v.is_empty()) {
        return std::env::split_paths(&dirs).collect();
    }
    let mut dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    for dir in DEFAULT_BIN_DIRS {
        if !dirs.iter().any(|d| d == Path::new(dir)) {
            dirs.push(PathBuf::from(dir));
        }
    }
    dirs
}

fn is_executable(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Whether we run with effective uid 0 (then `mariadbd` needs `--user=root`).
///
/// Reads the effective uid from `/proc/self/status`; without `/proc`, the owner of a file we
/// create in `probe_dir`.
fn running_as_root(probe_dir: &Path) -> bool {
    if let Ok(status) = fs::read_to_string("/proc/self/status") {
        if let Some(uids) = status.lines().find_map(|l| l.strip_prefix("Uid:")) {
            return uids.split_whitespace().nth(1) == Some("0");
        }
    }
    let probe = probe_dir.join(format!(".uid-probe-{}", std::process::id()));
    let uid = File::create(&probe)
        .and_then(|f| f.metadata())
        .map(|m| m.uid());
    let _ = fs::remove_file(&probe);
    uid.is_ok_and(|uid| uid == 0)
}

/// Runs `f` while holding an exclusive `flock` on `path` (waiting at most [`LOCK_TIMEOUT`]).
fn with_lock<T>(path: &Path, f: impl FnOnce() -> Result<T>) -> Result<T> {
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(io_err("open", path))?;
    let mut lock = fd_lock::RwLock::new(file);
    let deadline = Instant::now() + LOCK_TIMEOUT;
    loop {
        match lock.try_write() {
            Ok(_guard) => return f(),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            Err(e) => return Err(io_err("lock", path)(e)),
        }
        if Instant::now() >= deadline {
            return Err(ServerError::LockTimedOut {
                path: path.to_path_buf(),
                secs: LOCK_TIMEOUT.as_secs(),
            });
        }
        thread::sleep(Duration::from_millis(50));
    }
}

/// `mariadb-admin --no-defaults --socket=SOCK -uroot --connect-timeout=2`, subcommand to add.
fn admin(bins: &Binaries, socket: &Path) -> Command {
    let mut cmd = Command::new(&bins.admin);
    cmd.arg("--no-defaults")
        .arg(flag("--socket=", socket))
        .args(["-uroot", "--connect-timeout=2"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    cmd
}

/// Whether a server answers on `socket`.
fn ping(bins: &Binaries, socket: &Path) -> bool {
    admin(bins, socket)
        .arg("ping")
        .status()
        .is_ok_and(|s| s.success())
}

/// Asks the server for its port (when the port file is missing).
fn query_port(bins: &Binaries, layout: &Layout) -> Result<u16> {
    let out = admin(bins, &layout.socket)
        .args(["variables", "--", "--batch"])
        .stdout(Stdio::piped())
        .output()
        .map_err(io_err("run", &bins.admin))?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|line| {
            let mut cols = line.split('|').map(str::trim).filter(|c| !c.is_empty());
            (cols.next() == Some("port"))
                .then(|| cols.next()?.parse().ok())
                .flatten()
        })
        .ok_or_else(|| ServerError::Io {
            action: "read the port of the server on",
            path: layout.socket.clone(),
            source: io::Error::other("no `port` in mariadb-admin variables"),
        })
}

/// A port on 127.0.0.1 that nothing listens on right now.
fn free_port() -> Result<u16> {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(io_err("bind", Path::new("127.0.0.1:0")))
}

fn read_pid(path: &Path) -> Option<u32> {
    fs::read_to_string(path).ok()?.trim().parse().ok()
}

fn read_port(path: &Path) -> Option<u16> {
    fs::read_to_string(path).ok()?.trim().parse().ok()
}

fn recorded_args(layout: &Layout) -> Option<Vec<String>> {
    serde_json::from_str(&fs::read_to_string(&layout.args).ok()?).ok()
}

/// Whether `pid` is a live (not zombie) `mariadbd` started with `--datadir=<data_dir>`.
fn is_server_of(pid: u32, data_dir: &Path) -> bool {
    if !is_alive(pid) {
        return false;
    }
    let Ok(cmdline) = fs::read(format!("/proc/{pid}/cmdline")) else {
        return false;
    };
    let expected = flag("--datadir=", data_dir);
    cmdline
        .split(|&b| b == 0)
        .any(|arg| arg == expected.as_bytes())
}

/// Whether process `pid` exists and is not a zombie.
///
/// A dying process loses its command line (and memory) before it closes its files, so once
/// a server is identified by [`is_server_of`], waits for its end use this: only a zombie or
/// no process at all has released the data directory.
fn is_alive(pid: u32) -> bool {
    let Ok(stat) = fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // `pid (comm) S ...`: the state follows the last `)`.
    let state = stat
        .rfind(')')
        .and_then(|i| stat[i + 1..].trim_start().chars().next());
    !matches!(state, None | Some('Z' | 'X'))
}

/// Sends `signal` (a name such as `TERM`) to `pid` with the shell's `kill`: no `unsafe`.
fn send_signal(pid: u32, signal: &'static str) -> Result<()> {
    let out = Command::new("/bin/sh")
        .args([
            "-c",
            "kill -s \"$1\" \"$2\"",
            "sh",
            signal,
            &pid.to_string(),
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| ServerError::Signal {
            signal,
            pid,
            detail: format!("cannot run /bin/sh: {e}"),
        })?;
    if out.status.success() {
        Ok(())
    } else {
        Err(ServerError::Signal {
            signal,
            pid,
            detail: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        })
    }
}

/// What `mariadbd` wrote to `err.log` from byte `start` on (lossy UTF-8; empty if unreadable).
fn read_log_since(path: &Path, start: u64) -> String {
    let mut bytes = Vec::new();
    let read = File::open(path).and_then(|mut f| {
        f.seek(SeekFrom::Start(start))?;
        f.read_to_end(&mut bytes)
    });
    match read {
        Ok(_) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(_) => String::new(),
    }
}

/// The last [`LOG_TAIL_LINES`] non-empty lines of `log`, each after a newline and indented.
fn tail(log: &str) -> String {
    let lines: Vec<&str> = log.lines().filter(|l| !l.trim().is_empty()).collect();
    let start = lines.len().saturating_sub(LOG_TAIL_LINES);
    lines[start..]
        .iter()
        .map(|line| format!("\n    {line}"))
        .collect()
}

/// The first `[ERROR]` message of a MariaDB log, without its timestamp (`Aborting` is only
/// the consequence of an earlier error).
fn first_error(log: &str) -> Option<&str> {
    log.lines()
        .filter_map(|l| l.split_once("[ERROR] ").map(|(_, msg)| msg.trim()))
        .find(|msg| !msg.starts_with("Aborting"))
}

fn start_failed(status: ExitStatus, log_path: &Path, log: &str) -> ServerError {
    let summary = match first_error(log) {
        Some(err) => format!("mariadbd exited during start ({status}): {err}"),
        None => format!("mariadbd exited during start ({status})"),
    };
    ServerError::StartFailed {
        summary,
        log: log_path.to_path_buf(),
        log_tail: tail(log),
    }
}

fn init_failed(summary: String, log_path: &Path) -> ServerError {
    let log = read_log_since(log_path, 0);
    let summary = match first_error(&log).or_else(|| log.lines().find(|l| l.starts_with("ERROR"))) {
        Some(err) => format!("{summary}: {err}"),
        None => summary,
    };
    ServerError::InitFailed {
        summary,
        log: log_path.to_path_buf(),
        log_tail: tail(&log),
    }
}

/// `--name=` followed by a path, without assuming the path is UTF-8.
fn flag(name: &str, path: &Path) -> OsString {
    let mut flag = OsString::from(name);
    flag.push(path);
    flag
}

fn io_err(action: &'static str, path: &Path) -> impl FnOnce(io::Error) -> ServerError + use<> {
    let path = path.to_path_buf();
    move |source| ServerError::Io {
        action,
        path,
        source,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_error_skips_timestamps_and_aborting() {
        let log = "2026-11-30 12:39:11 0 [Note] Starting\n\
                   2026-11-30 12:39:11 0 [ERROR] /usr/sbin/mariadbd: unknown option '--bogus'\n\
                   2026-11-30 12:39:11 0 [ERROR] Aborting\n";
        assert_eq!(
            first_error(log),
            Some("/usr/sbin/mariadbd: unknown option '--bogus'")
        );
        assert_eq!(first_error("[ERROR] Aborting\n"), None);
    }

    #[test]
    fn tail_keeps_the_last_lines() {
        let log: String = (0..30).map(|i| format!("line {i}\n\n")).collect();
        let t = tail(&log);
        assert_eq!(t.lines().filter(|l| !l.is_empty()).count(), LOG_TAIL_LINES);
        assert!(t.ends_with("line 29"));
        assert!(t.starts_with("\n    line 10"));
    }

    #[test]
    fn long_base_dir_is_refused() {
        let long = PathBuf::from("/tmp").join("x".repeat(120));
        assert!(matches!(
            Layout::new(&long),
            Err(ServerError::SocketPathTooLong { .. })
        ));
    }
}
