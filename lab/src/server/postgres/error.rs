//! [`PgError`]: every way starting or stopping the private PostgreSQL fails, one line each,
//! naming the problem and the fix.

use std::io;
use std::path::{Path, PathBuf};

use crate::io_failure::IoFailure;
use crate::server::ServerError;
use crate::server::layout::SOCKET_PATH_MAX;

/// Why the private PostgreSQL could not be started or stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PgError {
    /// `initdb` or `pg_ctl` is not installed.
    #[error(
        "PostgreSQL server binaries not found (looked for initdb and pg_ctl in {looked_in}): \
         install them with 'apt-get install postgresql' (Debian/Ubuntu), set \
         ENCBENCH_PG_BIN_DIR, or pass --pgsql-url to use another server"
    )]
    BinariesNotFound {
        /// The directories searched, `, `-separated.
        looked_in: String,
    },
    /// oltp runs as root, PostgreSQL refuses to, and there is no `postgres` user to run it.
    #[error(
        "PostgreSQL refuses to run as root and there is no 'postgres' user to run it as: \
         'apt-get install postgresql' creates one, or run oltp as an ordinary user"
    )]
    NoServerUser,
    /// oltp runs as root and the `postgres` user cannot reach the base directory.
    #[error(
        "the private PostgreSQL runs as user 'postgres' (oltp runs as root), which cannot \
         enter {} (mode {mode:04o}): pass --base-dir (or set ENCBENCH_HOME) to a directory it \
         can reach, e.g. /var/tmp/encbench",
        dir.display()
    )]
    Unreachable {
        /// The first directory on the way that `postgres` cannot traverse.
        dir: PathBuf,
        /// Its permission bits.
        mode: u32,
    },
    /// The socket path would be too long.
    #[error(
        "socket path {} is {len} bytes, over the {SOCKET_PATH_MAX}-byte limit of Unix sockets: use a \
         shorter --base-dir",
        path.display()
    )]
    SocketPathTooLong {
        /// The longest socket path the server may use.
        path: PathBuf,
        /// Its length in bytes.
        len: usize,
    },
    /// A file operation or running a program failed.
    #[error(transparent)]
    Io(IoFailure),
    /// `initdb` failed; the data directory was not created, so the next start tries again.
    #[error("initdb failed ({status}); see {}{log_tail}", log.display())]
    InitFailed {
        /// Its exit status.
        status: String,
        /// `initdb.log`.
        log: PathBuf,
        /// Its last lines, each after a newline (may be empty).
        log_tail: String,
    },
    /// `pg_ctl start` failed.
    #[error("PostgreSQL did not start ({status}); see {}{log_tail}", log.display())]
    StartFailed {
        /// `pg_ctl`'s exit status.
        status: String,
        /// `server.log`.
        log: PathBuf,
        /// The last lines of the log, each after a newline.
        log_tail: String,
    },
    /// `pg_ctl stop` failed.
    #[error("PostgreSQL (pid {pid}) did not stop ({status}); see {}", log.display())]
    StopFailed {
        /// The postmaster's pid.
        pid: u32,
        /// `pg_ctl`'s exit status.
        status: String,
        /// `server.log`.
        log: PathBuf,
    },
    /// The TLS certificates could not be generated or written (as for the private MariaDB).
    #[error("{0}")]
    Tls(ServerError),
    /// The at-rest mount of the data directory (`--at-rest`).
    #[error(transparent)]
    AtRest(#[from] crate::at_rest::AtRestError),
    /// The directory lock, shared with the MariaDB launcher.
    #[error(transparent)]
    Lock(#[from] ServerError),
}

/// The results of this module.
pub(super) type Result<T, E = PgError> = std::result::Result<T, E>;

impl PgError {
    /// A [`PgError::Io`] for `action` on `path`, for `map_err`.
    pub(super) fn io(
        action: &'static str,
        path: &Path,
    ) -> impl FnOnce(io::Error) -> PgError + use<> {
        IoFailure::on(action, path, PgError::Io)
    }
}

/// The last 20 non-empty lines of the file at `path`, each after a newline and indented
/// (empty when unreadable).
pub(super) fn log_tail(path: &Path) -> String {
    let text = std::fs::read(path).unwrap_or_default();
    let text = String::from_utf8_lossy(&text);
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let start = lines.len().saturating_sub(20);
    lines[start..]
        .iter()
        .map(|l| format!("\n    {l}"))
        .collect()
}
