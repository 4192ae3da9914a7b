//! A private PostgreSQL for benchmarks and tests, beside the private MariaDB
//! (`crate::server`), in `<base>/postgresql/` ([`PgLayout`] lists the files).
//!
//! [`PgServer::start`] initialises the data directory on first use (`initdb`, a random
//! password for [`PG_USER`] in a 0600 file, scram-sha-256 for every login, no `trust`),
//! starts the server with `pg_ctl` on 127.0.0.1 only, with its socket in the directory, on
//! the port of its last start while that is free, and waits until it is ready; a second
//! start on the same directory (from any process) reuses the running server. Starts and
//! stops are serialised by the same `flock` as the MariaDB launcher's. As root, the server
//! runs as the `postgres` user (`owner`). TLS is on, with a certificate from the private CA
//! (`tls`), offered but not required. Binaries: `binaries`. Facts:
//! `shared/spec/postgresql.md`.
//!
//! Nothing here prints: every outcome is a return value.

mod binaries;
mod error;
mod init;
mod layout;
mod owner;
mod process;
mod tls;

use std::time::Duration;

use binaries::PgBinaries;
pub use binaries::{DEBIAN_PG_LIB, PG_BIN_DIR_ENV};
pub use error::PgError;
use error::Result;
pub use layout::PgLayout;
use layout::Postmaster;
use owner::Owner;

use crate::server::process::with_lock;

/// The benchmark user: the cluster's superuser (created by `initdb -U`).
pub const PG_USER: &str = "encbench";

/// The database the URL of [`PgServer::url`] names (`initdb` creates it).
pub const PG_ADMIN_DB: &str = "postgres";

/// How long a start waits for the server to be ready.
pub const START_TIMEOUT: Duration = Duration::from_secs(60);

/// A running private PostgreSQL, started by this handle or reused.
///
/// Dropping a handle that started the server stops it (best effort); a reused one is left
/// running, as is one after [`detach`](Self::detach). `Debug` leaves the password out.
pub struct PgServer {
    layout: PgLayout,
    bins: PgBinaries,
    owner: Owner,
    port: u16,
    pid: u32,
    password: String,
    started_here: bool,
}

impl PgServer {
    fn new(
        layout: PgLayout,
        bins: PgBinaries,
        owner: Owner,
        pm: Postmaster,
        started_here: bool,
    ) -> Result<PgServer> {
        let path = layout.password_file();
        let password = layout.read_password().ok_or_else(|| {
            PgError::io("read the benchmark user's password from", &path)(std::io::Error::other(
                "missing or empty",
            ))
        })?;
        Ok(PgServer {
            layout,
            bins,
            owner,
            port: pm.port,
            pid: pm.pid,
            password,
            started_here,
        })
    }

    /// Starts the server of base directory `base` (initialising it on first use) or reuses
    /// the one running there; blocks until it is ready (at most [`START_TIMEOUT`], plus
    /// `initdb`'s ~2 s on first use).
    ///
    /// # Errors
    /// [`PgError::BinariesNotFound`], [`PgError::NoServerUser`] / [`PgError::Unreachable`]
    /// (as root), [`PgError::InitFailed`], [`PgError::StartFailed`] (quoting the log),
    /// [`PgError::SocketPathTooLong`], [`PgError::Lock`], [`PgError::Io`].
    pub fn start(base: &std::path::Path) -> Result<PgServer> {
        let bins = PgBinaries::find()?;
        let owner = Owner::detect()?;
        let layout = PgServer::make_dir(base)?;
        let lock = layout.lock_file();
        with_lock(&lock, || {
            crate::at_rest::mount_for(layout.base(), layout.dir())?;
            Ok(process::start_locked(bins, layout, owner))
        })?
    }

    /// Creates `<base>/postgresql/` (as root: owned by `postgres`) after
    /// checking that the server can reach it, so nothing is left behind
    /// where it cannot; [`start`](Self::start) does this first.
    ///
    /// # Errors
    /// [`PgError::NoServerUser`] / [`PgError::Unreachable`] (as root),
    /// [`PgError::SocketPathTooLong`], [`PgError::Io`].
    pub fn make_dir(base: &std::path::Path) -> Result<PgLayout> {
        let owner = Owner::detect()?;
        let layout = PgLayout::resolved(base)?;
        // Before creating anything: nothing is left behind where the server cannot go.
        // (The base and its ancestors: `layout.dir()` itself is made and given to the
        // server's user here, whatever its mode was; see the MariaDB launcher.)
        owner.check_reachable(layout.base())?;
        std::fs::create_dir_all(layout.dir())
            .map_err(PgError::io("create directory", layout.dir()))?;
        owner.take(layout.dir())?;
        Ok(layout)
    }

    /// The server if one runs on base directory `base` (nothing is started).
    ///
    /// # Errors
    /// As [`start`](Self::start), for the binaries, the user and the password file.
    pub fn running(base: &std::path::Path) -> Result<Option<PgServer>> {
        let bins = PgBinaries::find()?;
        let owner = Owner::detect()?;
        let layout = PgLayout::resolved(base)?;
        match process::running(&layout) {
            Some(pm) if pm.ready => PgServer::new(layout, bins, owner, pm, false).map(Some),
            _ => Ok(None),
        }
    }

    /// The private PostgreSQL of base directory `base` if it runs and `url` names it
    /// (a loopback host and its port), e.g. the URL `oltp server start` printed;
    /// nothing is started.
    pub fn of_url(url: &str, base: &std::path::Path) -> Option<PgServer> {
        let port = crate::server::loopback::pg_port(url)?;
        let server = PgServer::running(base).ok()??;
        (port == server.port).then_some(server)
    }

    /// `postgres://encbench:PASSWORD@127.0.0.1:PORT/postgres`: TCP on loopback.
    pub fn url(&self) -> String {
        format!(
            "postgres://{PG_USER}:{}@127.0.0.1:{}/{PG_ADMIN_DB}",
            self.password, self.port
        )
    }

    /// The TCP port on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The postmaster's pid.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// Its files.
    pub fn layout(&self) -> &PgLayout {
        &self.layout
    }

    /// Whether this handle started it (`false`: it was running already).
    pub fn started_here(&self) -> bool {
        self.started_here
    }

    /// Leaves the server running when this handle goes away.
    pub fn detach(mut self) {
        self.started_here = false;
    }

    /// Stops the server, whoever started it (`pg_ctl stop -m fast`).
    ///
    /// # Errors
    /// [`PgError::StopFailed`], [`PgError::Lock`], [`PgError::Io`].
    pub fn stop(mut self) -> Result<()> {
        self.started_here = false;
        with_lock(&self.layout.lock_file(), || {
            Ok(
                process::stop(&self.bins, &self.layout, self.owner, self.pid).and_then(|()| {
                    Ok(crate::at_rest::unmount_for(
                        self.layout.base(),
                        self.layout.dir(),
                    )?)
                }),
            )
        })?
    }
}

impl std::fmt::Debug for PgServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgServer")
            .field("dir", &self.layout.dir())
            .field("port", &self.port)
            .field("pid", &self.pid)
            .field("started_here", &self.started_here)
            .finish_non_exhaustive()
    }
}

impl Drop for PgServer {
    fn drop(&mut self) {
        if self.started_here {
            let _ = with_lock(&self.layout.lock_file(), || {
                if process::stop(&self.bins, &self.layout, self.owner, self.pid).is_ok() {
                    let _ = crate::at_rest::unmount_for(self.layout.base(), self.layout.dir());
                }
                Ok(())
            });
        }
    }
}
