//! Private MariaDB and PostgreSQL servers for tests: one per test
//! ([`start_server`], [`start_pg`]) or one shared by a whole test binary
//! ([`shared_server`], [`shared_pg`]), stopped by a watchdog when the binary
//! exits. A server that cannot start fails the test (never skips).

use std::os::unix::process::CommandExt as _;
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{OnceLock, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use encbench_lab::server::postgres::PgServer;
use encbench_lab::server::{PrivateServer, ServerConfig};
use tempfile::TempDir;

use crate::files::server_tempdir;

/// Starts a private MariaDB for `cfg`.
///
/// # Panics
/// The server cannot start.
pub fn start(cfg: &ServerConfig) -> PrivateServer {
    PrivateServer::start(cfg).unwrap_or_else(|e| panic!("private MariaDB server must start: {e}"))
}

/// Starts a private MariaDB with default settings in `dir`.
///
/// # Panics
/// The server cannot start.
pub fn start_server(dir: &Path) -> PrivateServer {
    start(&ServerConfig::new(dir))
}

/// Starts the private PostgreSQL in `dir`.
///
/// # Panics
/// The server cannot start.
pub fn start_pg(dir: &Path) -> PgServer {
    PgServer::start(dir).unwrap_or_else(|e| panic!("private PostgreSQL must start: {e}"))
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

/// A private MariaDB shared by the tests of one test binary.
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
    ///
    /// # Panics
    /// The server or its watchdog cannot start.
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
    /// The shared server.
    pub shared: &'static SharedServer,
    /// Its URL ([`SharedServer::url`]).
    pub url: String,
    /// This test's scratch directory, removed when the test ends.
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

/// The default-settings MariaDB shared by this test binary.
///
/// # Panics
/// The server cannot start.
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

/// The shared MariaDB for a test that leaves its global settings alone (give
/// each test its own database).
pub fn shared_server() -> Use {
    let lock = GLOBALS.read().unwrap_or_else(PoisonError::into_inner);
    use_of(default_server(), Guard::Shared(lock))
}

/// The shared MariaDB alone, for a test that changes global settings.
pub fn shared_server_alone() -> Use {
    let lock = GLOBALS.write().unwrap_or_else(PoisonError::into_inner);
    use_of(default_server(), Guard::Exclusive(lock))
}

/// A private PostgreSQL shared by one test binary, stopped by a watchdog when the
/// binary exits as [`SharedServer`] is (SIGINT: PostgreSQL's fast shutdown).
pub struct SharedPg {
    server: PgServer,
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
    pub fn server(&self) -> &PgServer {
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
///
/// # Panics
/// The server or its watchdog cannot start.
pub fn shared_pg() -> &'static SharedPg {
    static SERVER: OnceLock<SharedPg> = OnceLock::new();
    SERVER.get_or_init(|| {
        let dir = server_tempdir();
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
