//! A private `mariadbd` for benchmarks and tests, run from a directory of our own.
//!
//! [`PrivateServer::start`] initialises a data directory on first use, starts `mariadbd` on a
//! loopback port (the one it had at its last start while that is free, else a free one) and
//! waits until it answers; a second `start` on the same directory (from this process or
//! another one) attaches to the running server instead. Everything lives in
//! `<base>/mariadb/`, and only this module names those files: [`Layout`] lists them.
//!
//! The server runs with `--no-defaults` (no `/etc/mysql` configuration), listens on
//! 127.0.0.1 only, with `--secure-file-priv` an empty directory it cannot write (no
//! `LOAD DATA INFILE`, `SELECT ... INTO OUTFILE` or `LOAD_FILE` of the machine's files),
//! and has a benchmark user [`BENCH_USER`] with all privileges on `localhost` (socket) and
//! `127.0.0.1` (TCP) and a random password, made at initialisation and kept in
//! `<base>/mariadb/password` (mode 0600; `password`); `root` logs in over the socket only,
//! without a password, in a directory only the server's user may enter. Started by root,
//! `mariadbd` runs as the `mysql` user (`owner`, shared with the PostgreSQL launcher): its
//! data, socket directory and logs are `mysql`'s. Facts behind the flags:
//! `shared/spec/mariadb.md`.
//!
//! By job: `layout` (every path), `binaries` (finding the MariaDB programs), `init` (the
//! data directory), `process` (launch, wait, signals, shutdown, the directory lock), `logs`
//! (quoting `err.log`), `config` ([`ServerConfig`], [`Profile`], TLS files and the at-rest
//! key), `iops` (the `--iops-limit` cgroup), `password` (the benchmark user's password file), `owner` (who the server runs
//! as), `lease` (which `oltp` commands use the server: [`Lease`], [`StandingServer`]), `error`
//! ([`ServerError`]).
//!
//! Nothing here prints: every outcome is a return value.

mod binaries;
mod config;
mod error;
mod init;
pub mod iops;
mod layout;
mod lease;
mod logs;
mod loopback;
mod owner;
mod password;
pub mod postgres;
mod process;

use std::path::Path;
use std::process::Child;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use binaries::Binaries;
pub use binaries::{BIN_DIR_ENV, DEFAULT_BIN_DIRS};
pub use config::{
    PRIVATE_HOSTS, Profile, ServerConfig, ensure_at_rest_key, ensure_tls_files, server_config,
    write_tls_files,
};
pub use error::ServerError;
use error::{Result, io_err};
pub use layout::{Layout, ROOT_BASE_DIR, TlsFiles, default_base_dir, server_base, tls_files};
pub use lease::{Lease, LeaseError, StandingServer, private_server_of};
use owner::Owner;
use process::{is_server_of, shutdown_foreign, with_lock};

/// The benchmark user created in every private server, for `localhost` and `127.0.0.1`.
pub const BENCH_USER: &str = "encbench";

/// The user a private server runs as when oltp runs as root (Debian's server package
/// creates it).
pub const SERVER_USER: &str = "mysql";

/// Checks, before anything is created in it, that the private server of the engine
/// (`pgsql`: PostgreSQL, run as `postgres` by root; else MariaDB, run as `mysql`) can reach
/// `base`: every existing directory from `/` down to it must be one the server's user can
/// traverse. Not root: nothing to check. A missing server user is left to the launcher.
///
/// # Errors
/// The launchers' own `Unreachable` error, naming the first directory the user cannot enter.
pub fn check_reachable(base: &Path, pgsql: bool) -> anyhow::Result<()> {
    let user = if pgsql { "postgres" } else { SERVER_USER };
    let Some(found) = Owner::detect(user).and_then(|o| o.first_unreachable(base)) else {
        return Ok(());
    };
    let (dir, mode) = found;
    Err(if pgsql {
        postgres::PgError::Unreachable { dir, mode }.into()
    } else {
        ServerError::Unreachable { dir, mode }.into()
    })
}

/// Environment variable naming the base directory; see [`default_base_dir`].
pub const HOME_ENV: &str = "ENCBENCH_HOME";

/// How long [`PrivateServer::start`] waits for a server to answer queries.
pub const START_TIMEOUT: Duration = Duration::from_secs(60);

/// How long [`PrivateServer::stop`] waits for a clean shutdown before `SIGKILL`.
pub const STOP_TIMEOUT: Duration = Duration::from_secs(60);

/// A running private `mariadbd`, started by this handle or attached to.
///
/// Dropping a handle that started the server stops it cleanly (best effort, errors ignored);
/// an attached handle leaves the server running. The handle is `Send + Sync`; `Debug`
/// leaves the password out.
pub struct PrivateServer {
    layout: Layout,
    bins: Binaries,
    port: u16,
    pid: u32,
    password: String,
    started_here: bool,
    /// The `mariadbd` child while started here and not yet reaped.
    child: Mutex<Option<Child>>,
}

impl PrivateServer {
    /// The handle of server `pid` on `port`, with the password of `layout`'s `password`
    /// file; `child`: the process when started here.
    fn new(
        layout: Layout,
        bins: Binaries,
        port: u16,
        pid: u32,
        child: Option<Child>,
    ) -> Result<PrivateServer> {
        let path = layout.password_file();
        let password = password::read(&path).ok_or_else(|| {
            io_err("read the benchmark user's password from", &path)(std::io::Error::other(
                "missing or empty",
            ))
        })?;
        Ok(PrivateServer {
            layout,
            bins,
            port,
            pid,
            password,
            started_here: child.is_some(),
            child: Mutex::new(child),
        })
    }

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
    /// [`ServerError::Io`] for the files in the base directory; as root,
    /// [`ServerError::NoServerUser`] and [`ServerError::Unreachable`] (a base directory the
    /// `mysql` user cannot enter, checked before anything is created); a data directory of
    /// an older oltp, [`ServerError::OldDataDir`].
    pub fn start(cfg: &ServerConfig) -> Result<PrivateServer> {
        let bins = Binaries::find()?;
        let owner = Owner::detect(SERVER_USER).ok_or(ServerError::NoServerUser)?;
        let layout = Layout::resolved(&cfg.base_dir)?;
        // Checked before anything is made: the cap's cgroup, device and rights.
        if let Some(n) = cfg.iops_limit {
            iops::plan(layout.data(), n)?;
        }
        // The base directory and those above it, not `<base>/mariadb` itself: that one is
        // the launcher's, made 0700 and given to the server's user below. Checking it too
        // raced with a concurrent start between its chmod and its chown (root's 0700 for an
        // instant), which refused a reachable directory.
        if let Some((dir, mode)) = owner.first_unreachable(layout.base()) {
            return Err(ServerError::Unreachable { dir, mode });
        }
        std::fs::create_dir_all(layout.dir()).map_err(io_err("create directory", layout.dir()))?;
        // The server's user only: the Unix socket inside lets `root@localhost` in without a
        // password (mariadbd makes the socket 0777), so no other user may reach it.
        {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(layout.dir(), std::fs::Permissions::from_mode(0o700))
                .map_err(io_err("chmod 700", layout.dir()))?;
        }
        owner
            .take(layout.dir())
            .map_err(io_err("chown", layout.dir()))?;
        let lock = layout.lock_file();
        with_lock(&lock, || {
            crate::at_rest::mount_for(layout.base(), layout.dir())?;
            process::start_locked(cfg, bins, layout, owner)
        })
    }

    /// The IOPS cap the kernel holds for the server (`--iops-limit`), read back from its
    /// cgroup; `None` when it runs uncapped.
    pub fn iops_cap(&self) -> Option<iops::IopsCap> {
        iops::of_pid(self.pid)
    }

    /// `mysql://encbench:PASSWORD@127.0.0.1:PORT/`: TCP on loopback, no database selected,
    /// with the password (what `oltp server start` prints for scripts; never log it: messages
    /// name the server by `driver::mysql::target`, which leaves it out).
    ///
    /// oltp's MySQL driver would still swap a loopback TCP connection for the Unix socket: append
    /// `?prefer_socket=false`, or use oltp's `driver::mysql::private_server_opts`.
    pub fn url(&self) -> String {
        format!(
            "mysql://{BENCH_USER}:{}@127.0.0.1:{}/",
            self.password, self.port
        )
    }

    /// The password of [`BENCH_USER`] (from `<base>/mariadb/password`; never log it).
    pub fn password(&self) -> &str {
        &self.password
    }

    /// `<base>/mariadb/password`, the file holding [`password`](Self::password) (mode 0600).
    pub fn password_file(&self) -> std::path::PathBuf {
        self.layout.password_file()
    }

    /// The TCP port on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The Unix socket, `<base>/mariadb/sock` (`root` logs in here without a password).
    pub fn socket_path(&self) -> &Path {
        self.layout.socket()
    }

    /// The base directory, made absolute.
    pub fn base_dir(&self) -> &Path {
        self.layout.base()
    }

    /// The data directory, `<base>/mariadb/data`.
    pub fn data_dir(&self) -> &Path {
        self.layout.data()
    }

    /// The server's error log, `<base>/mariadb/err.log`.
    pub fn err_log_path(&self) -> &Path {
        self.layout.err_log()
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
        let _cgroup = iops::RemovedWhenGone(self.pid);
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
        self.kill_foreign()
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
        with_lock(&layout.lock_file(), || {
            let _cgroup = iops::RemovedWhenGone(pid);
            if is_server_of(pid, layout.data()) {
                shutdown_foreign(&bins, &layout, pid)?;
            }
            let _ = std::fs::remove_file(layout.port_file());
            Ok(crate::at_rest::unmount_for(layout.base(), layout.dir())?)
        })
    }

    fn lock_child(&self) -> MutexGuard<'_, Option<Child>> {
        self.child.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl std::fmt::Debug for PrivateServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PrivateServer")
            .field("dir", &self.layout.dir())
            .field("port", &self.port)
            .field("pid", &self.pid)
            .field("started_here", &self.started_here)
            .finish_non_exhaustive()
    }
}

impl Drop for PrivateServer {
    fn drop(&mut self) {
        let _ = self.shutdown();
    }
}
