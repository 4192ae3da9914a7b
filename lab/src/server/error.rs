//! [`ServerError`]: every way starting, stopping or leasing a private server fails, one line
//! each, naming the problem and the fix.

use std::io;
use std::path::{Path, PathBuf};

use super::HOME_ENV;
use super::layout::SOCKET_PATH_MAX;
use crate::io_failure::IoFailure;

/// Why a private server could not be started, stopped, killed or leased.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServerError {
    /// The at-rest mount of the data directory (`--at-rest`).
    #[error(transparent)]
    AtRest(#[from] crate::at_rest::AtRestError),
    /// The IOPS cap (`--iops-limit`) cannot be set on this machine.
    #[error(transparent)]
    Iops(#[from] super::iops::IopsError),
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
    #[error(transparent)]
    Io(IoFailure),
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
    /// `mariadbd` kept running but did not answer within [`START_TIMEOUT`](super::START_TIMEOUT); it was killed.
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
    /// The server did not shut down cleanly within [`STOP_TIMEOUT`](super::STOP_TIMEOUT) and was killed with
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
    /// Generating the TLS certificates or the at-rest key failed.
    #[error("cannot generate {what}: {detail}")]
    Generate {
        /// What, e.g. `the private server's TLS certificates`.
        what: &'static str,
        /// The generator's error.
        detail: String,
    },
    /// Other `oltp` commands use the running server, which has other flags: restarting it
    /// would pull it from under them.
    #[error(
        "the private server in {} is in use by another oltp command with other settings \
         (--profile, --iops-limit): wait for it to finish, or use another --base-dir",
        dir.display()
    )]
    InUse {
        /// The server base directory.
        dir: PathBuf,
    },
    /// oltp runs as root and there is no `mysql` user for the server to run as.
    #[error(
        "the private MariaDB runs as user 'mysql' when oltp runs as root, and there is no such \
         user: install the server package (apt-get install mariadb-server) or run oltp as \
         another user"
    )]
    NoServerUser,
    /// oltp runs as root and the `mysql` user cannot reach the base directory.
    #[error(
        "the private MariaDB runs as user 'mysql' (oltp runs as root), which cannot enter {} \
         (mode {mode:04o}): pass --base-dir (or set ENCBENCH_HOME) to a directory it can \
         reach, e.g. /var/tmp/encbench",
        dir.display()
    )]
    Unreachable {
        /// The first directory on the way that `mysql` cannot traverse.
        dir: PathBuf,
        /// Its permission bits.
        mode: u32,
    },
    /// A data directory made by an older oltp (the fixed password `encbench`, no
    /// password file; as root, files owned by root): not reused (a server of it found
    /// running was stopped first).
    #[error(
        "the private server's data in {} was made by an older oltp ({why}): remove it \
         (rm -rf {}; its tables go with it) and run the command again, which makes a new one",
        data.display(),
        data.display()
    )]
    OldDataDir {
        /// The data directory.
        data: PathBuf,
        /// What is old about it.
        why: &'static str,
    },
    /// The blocking task that starts or stops the server panicked.
    #[error("server {task} task panicked")]
    Panicked {
        /// `start` or `stop`.
        task: &'static str,
    },
}

/// The results of this module.
pub(super) type Result<T, E = ServerError> = std::result::Result<T, E>;

/// A [`ServerError::Io`] for `action` on `path`, for `map_err`.
pub(super) fn io_err(
    action: &'static str,
    path: &Path,
) -> impl FnOnce(io::Error) -> ServerError + use<> {
    IoFailure::on(action, path, ServerError::Io)
}
