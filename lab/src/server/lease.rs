//! Who uses the private server (MariaDB's or PostgreSQL's), and so who stops it.
//!
//! Every `oltp` command that uses the private server holds a [`Lease`]: it registers in
//! `users/<pid>-<n>` (`n` counts the leases of the process, so several leases of one process,
//! as `oltp reproduce` holds, are several users), starts the server if it was not running
//! (then marking it `ephemeral`), and at [`Lease::finish`] stops it only when it was started
//! by a command and no other live lease is registered. A registration is live while its
//! process is (another process's: by its pid; this process's: while its lease is); a
//! `users/<pid>` file of an older `oltp` counts by its pid too. A server started by
//! `oltp server start` ([`StandingServer`]) carries no marker and is left running until
//! `oltp server stop`. A command asking for other settings while other commands use the
//! server is refused instead of restarting it under them.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use super::PrivateServer;
use super::config::{Profile, server_config};
use super::error::{Result, ServerError, io_err};
use super::layout::{Layout, server_base};
use super::postgres::{PgError, PgServer};
use super::process::is_alive;
use crate::at_rest::AtRest;

/// Why a [`Lease`] failed: the private MariaDB's errors or the private PostgreSQL's.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LeaseError {
    /// The private MariaDB.
    #[error(transparent)]
    Mariadb(#[from] ServerError),
    /// The private PostgreSQL.
    #[error(transparent)]
    Postgres(#[from] PgError),
}

/// The private server a [`Lease`] holds, with where its users register (one per
/// lease: the size difference of the variants does not matter).
#[derive(Debug)]
#[allow(clippy::large_enum_variant)]
enum Held {
    Mariadb(PrivateServer, Layout),
    Postgres(PgServer),
}

impl Held {
    /// `users/` and the `ephemeral` marker of the server's directory.
    fn registry(&self) -> (PathBuf, PathBuf) {
        match self {
            Held::Mariadb(_, l) => (l.users_dir(), l.ephemeral_marker()),
            Held::Postgres(s) => (s.layout().users_dir(), s.layout().ephemeral_marker()),
        }
    }
}

/// The server one command uses: `--mysql-url` / `--pgsql-url`, or the private server
/// (started here if it was not running, and stopped by [`Lease::finish`] when the last
/// `oltp` command using it ends, unless `oltp server start` keeps it).
#[derive(Debug)]
pub struct Lease {
    /// URL of the server.
    pub url: String,
    /// The pids of the other live `oltp` processes registered as users of the same private
    /// server when this lease was taken, sorted; empty for a server given by URL.
    pub shared_with: Vec<u32>,
    held: Option<(Held, Registration)>,
}

impl Lease {
    /// The lease of the server at `url`, given by the user: nothing held.
    fn given(url: &str) -> Lease {
        Lease {
            url: url.to_string(),
            shared_with: Vec::new(),
            held: None,
        }
    }

    /// Uses `url` when given, else starts (or attaches to) the private server of
    /// `server_base(base_dir, at_rest)` with `profile`'s settings and the IOPS cap
    /// `iops_limit` (reads and writes per second each; `None`: uncapped), registered as one
    /// of its users.
    ///
    /// Blocks a tokio blocking thread while the server starts (seconds; minutes when another
    /// process holds the directory's lock).
    ///
    /// # Errors
    ///
    /// [`ServerError::InUse`] when other commands use a server running with other
    /// settings; anything [`PrivateServer::start`] and [`server_config`] return.
    pub async fn open(
        url: Option<&str>,
        base_dir: &Path,
        at_rest: AtRest,
        profile: Profile,
        iops_limit: Option<u32>,
    ) -> std::result::Result<Lease, LeaseError> {
        if let Some(url) = url {
            return Ok(Lease::given(url));
        }
        let layout = Layout::new(server_base(base_dir, at_rest));
        // The cap's cgroup, device and rights, before anything is made.
        if let Some(n) = iops_limit {
            super::iops::plan(layout.data(), n).map_err(ServerError::from)?;
        }
        // Dropped on every early return below: unregistered.
        let me = Registration::new(&layout.users_dir())?;
        let mut cfg = server_config(base_dir, at_rest, profile)?;
        cfg.iops_limit = iops_limit;
        // A server that other oltp commands (or other leases of this one) are using is not
        // restarted under them for other settings: refuse instead.
        if other_users(&layout.users_dir(), Some(&me.name)) > 0
            && layout
                .recorded_args()
                .is_some_and(|r| r != cfg.recorded_args())
        {
            return Err(ServerError::InUse {
                dir: layout.base().to_path_buf(),
            }
            .into());
        }
        let server = blocking("start", move || PrivateServer::start(&cfg)).await?;
        let started_here = server.started_here();
        Lease::held(
            server.url(),
            Held::Mariadb(server, layout),
            me,
            started_here,
        )
    }

    /// [`open`](Self::open) for PostgreSQL: `url` when given, else the private PostgreSQL of
    /// `server_base(base_dir, at_rest)` (`<server base>/postgresql/`), started or reused as
    /// [`PgServer::start`] does, with the same registration of its users.
    ///
    /// # Errors
    ///
    /// Anything [`PgServer::start`] returns.
    pub async fn open_postgres(
        url: Option<&str>,
        base_dir: &Path,
        at_rest: AtRest,
    ) -> std::result::Result<Lease, LeaseError> {
        if let Some(url) = url {
            return Ok(Lease::given(url));
        }
        let base_dir = &server_base(base_dir, at_rest);
        let base = base_dir.to_path_buf();
        let layout = blocking_pg(move || PgServer::make_dir(&base)).await?;
        let me = Registration::new(&layout.users_dir())?;
        let base = base_dir.to_path_buf();
        let server = blocking_pg(move || PgServer::start(&base)).await?;
        let started_here = server.started_here();
        Lease::held(server.url(), Held::Postgres(server), me, started_here)
    }

    /// A lease of `held`, registered as `me`; `started_here`: it becomes `ephemeral` (the
    /// last user stops it).
    fn held(
        url: String,
        held: Held,
        me: Registration,
        started_here: bool,
    ) -> std::result::Result<Lease, LeaseError> {
        if started_here {
            let (_, marker) = held.registry();
            fs::write(&marker, b"").map_err(io_err("write", &marker))?;
        }
        let (users, _) = held.registry();
        Ok(Lease {
            url,
            shared_with: other_pids(&users),
            held: Some((held, me)),
        })
    }

    /// The pids of the other live `oltp` processes registered as users of the private
    /// server now (sorted; empty for a server given by URL): with [`Lease::shared_with`],
    /// those that came after this lease was taken.
    pub fn shared_with_now(&self) -> Vec<u32> {
        self.held
            .as_ref()
            .map(|(held, _)| other_pids(&held.registry().0))
            .unwrap_or_default()
    }

    /// The private server's pid (`mariadbd`, or PostgreSQL's postmaster); `None` for a
    /// server given by URL.
    pub fn server_pid(&self) -> Option<u32> {
        self.held.as_ref().map(|(held, _)| match held {
            Held::Mariadb(server, _) => server.pid(),
            Held::Postgres(server) => server.pid(),
        })
    }

    /// The private server's data directory (where its tables' files are);
    /// `None` for a server given by URL, whose disk is not known here.
    pub fn data_dir(&self) -> Option<PathBuf> {
        self.held.as_ref().map(|(held, _)| match held {
            Held::Mariadb(_, layout) => layout.data().to_path_buf(),
            Held::Postgres(server) => server.layout().data(),
        })
    }

    /// The IOPS cap the kernel holds for the private MariaDB (see
    /// [`PrivateServer::iops_cap`]); `None` for an uncapped one, PostgreSQL, or a URL.
    pub fn iops_cap(&self) -> Option<super::iops::IopsCap> {
        match &self.held {
            Some((Held::Mariadb(server, _), _)) => server.iops_cap(),
            _ => None,
        }
    }

    /// Unregisters; leaves the private server running if another `oltp` command (or
    /// another lease of this process) uses it or `oltp server start` keeps it; stops it
    /// otherwise.
    ///
    /// # Errors
    ///
    /// The server did not shut down (see [`PrivateServer::stop_any`], [`PgServer::stop`]).
    pub async fn finish(self) -> std::result::Result<(), LeaseError> {
        let Some((held, me)) = self.held else {
            return Ok(());
        };
        let (users, marker) = held.registry();
        drop(me);
        let keep = other_users(&users, None) > 0 || !marker.exists();
        if !keep {
            let _ = fs::remove_file(&marker);
        }
        match held {
            Held::Mariadb(server, _) if keep => server.detach(),
            Held::Postgres(server) if keep => server.detach(),
            Held::Mariadb(server, _) => blocking("stop", move || server.stop_any()).await?,
            Held::Postgres(server) => blocking_pg(move || server.stop()).await?,
        }
        Ok(())
    }
}

/// The `n` of this process's next registration `users/<pid>-<n>`.
static NEXT_REGISTRATION: AtomicU64 = AtomicU64::new(0);

/// The registrations (file names, `<pid>-<n>`) of this process's live leases: a file named
/// after this process's pid and not in this set was left by a dead process that had the same
/// pid (or is the `users/<pid>` of an older `oltp`, which this one never writes): stale.
static REGISTERED: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());

/// One lease's file in `users/`, `<pid>-<n>`: written when made, removed when dropped.
#[derive(Debug)]
struct Registration {
    file: PathBuf,
    name: String,
}

impl Registration {
    /// Registers a new user of this process in `users` (created if missing).
    fn new(users: &Path) -> Result<Registration> {
        let n = NEXT_REGISTRATION.fetch_add(1, Ordering::Relaxed);
        let name = format!("{}-{n}", std::process::id());
        fs::create_dir_all(users).map_err(io_err("create", users))?;
        REGISTERED
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(name.clone());
        // From here on, dropping it undoes both steps.
        let me = Registration {
            file: users.join(&name),
            name,
        };
        fs::write(&me.file, b"").map_err(io_err("write", &me.file))?;
        Ok(me)
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.file);
        REGISTERED
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.name);
    }
}

/// The pid a registration file's name carries: `<pid>-<n>`, or `<pid>` as older `oltp`
/// versions wrote it; `None` for any other name.
fn registered_pid(name: &str) -> Option<u32> {
    let pid = match name.split_once('-') {
        Some((pid, n)) => {
            n.parse::<u64>().ok()?;
            pid
        }
        None => name,
    };
    pid.parse().ok()
}

/// The registration files of process `pid` in `users` (`<pid>-<n>`, or an older `oltp`'s
/// `<pid>`), live or not, sorted; empty when there are none or `users` cannot be read.
pub(super) fn registrations(users: &Path, pid: u32) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(users) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_name().to_str().and_then(registered_pid) == Some(pid))
        .map(|e| e.path())
        .collect();
    out.sort();
    out
}

/// The private server as `oltp server start|stop` holds it: started or attached to, and
/// no longer `ephemeral` (no command's [`Lease::finish`] stops it).
#[derive(Debug)]
pub struct StandingServer {
    server: PrivateServer,
    layout: Layout,
}

impl StandingServer {
    /// Starts (or attaches to) the private server of `server_base(base_dir, at_rest)` with
    /// `profile`'s settings and the IOPS cap `iops_limit` (as [`Lease::open`]), and removes
    /// its `ephemeral` marker.
    ///
    /// # Errors
    ///
    /// Anything [`PrivateServer::start`] and [`server_config`] return.
    pub async fn open(
        base_dir: &Path,
        at_rest: AtRest,
        profile: Profile,
        iops_limit: Option<u32>,
    ) -> Result<StandingServer> {
        if let Some(n) = iops_limit {
            super::iops::plan(Layout::new(server_base(base_dir, at_rest)).data(), n)?;
        }
        let mut cfg = server_config(base_dir, at_rest, profile)?;
        cfg.iops_limit = iops_limit;
        let server = blocking("start", move || PrivateServer::start(&cfg)).await?;
        let layout = Layout::new(server.base_dir());
        let _ = fs::remove_file(layout.ephemeral_marker());
        Ok(StandingServer { server, layout })
    }

    /// Whether the private server of `layout` runs now (its `pid` file names a live
    /// `mariadbd` of its data directory); `oltp server stop` asks before it would
    /// start one only to stop it.
    pub fn running(layout: &Layout) -> bool {
        layout
            .read_pid()
            .is_some_and(|pid| super::process::is_server_of(pid, layout.data()))
    }

    /// The server.
    pub fn server(&self) -> &PrivateServer {
        &self.server
    }

    /// Its files (with an absolute base directory).
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Live leases registered as its users (of other `oltp` commands, or of this one).
    pub fn other_users(&self) -> usize {
        other_users(&self.layout.users_dir(), None)
    }

    /// Leaves it running past this process (`oltp server start`).
    pub fn keep(self) {
        self.server.detach();
    }

    /// Shuts it down cleanly, whoever started it (`oltp server stop`).
    ///
    /// # Errors
    ///
    /// As [`PrivateServer::stop_any`].
    pub async fn stop(self) -> Result<()> {
        let server = self.server;
        blocking("stop", move || server.stop_any()).await
    }
}

/// The layout of the private server (plain or at rest) under `base` whose loopback port
/// `url` names (a `mysql://` URL on `127.0.0.1` or `localhost`), if it runs and has its
/// TLS CA (so `--tls` can verify it).
pub fn private_server_of(url: &str, base: &Path) -> Option<Layout> {
    let port = super::loopback::mysql_port(url)?;
    AtRest::ALL
        .into_iter()
        .map(|at_rest| Layout::new(server_base(base, at_rest)))
        .find(|layout| layout.read_port() == Some(port) && layout.tls_files().ca.exists())
}

/// The live registrations in `users` other than `except` (this lease's own name): of
/// other processes that are alive, and of this process's other leases; removes the stale
/// ones (processes that are gone, names that are no registration).
fn other_users(users: &Path, except: Option<&str>) -> usize {
    let me = std::process::id();
    let Ok(entries) = fs::read_dir(users) else {
        return 0;
    };
    let entries: Vec<fs::DirEntry> = entries.flatten().collect();
    // Taken after the listing: a lease of this process registers its name before it writes
    // its file, so every file of a live lease listed above is in this snapshot.
    let registered = REGISTERED
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone();
    entries
        .iter()
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_str();
            let live = match name.and_then(registered_pid) {
                Some(pid) if pid == me => name.is_some_and(|n| registered.contains(n)),
                Some(pid) => is_alive(pid),
                None => false,
            };
            if !live {
                let _ = fs::remove_file(e.path());
            }
            live && name != except
        })
        .count()
}

/// The pids of the other live processes registered in `users` (this process's own leases
/// left out), sorted, each once; stale registrations are removed as [`other_users`] does.
fn other_pids(users: &Path) -> Vec<u32> {
    other_users(users, None);
    let me = std::process::id();
    let Ok(entries) = fs::read_dir(users) else {
        return Vec::new();
    };
    let pids: BTreeSet<u32> = entries
        .flatten()
        .filter_map(|e| e.file_name().to_str().and_then(registered_pid))
        .filter(|&pid| pid != me && is_alive(pid))
        .collect();
    pids.into_iter().collect()
}

/// Runs `f` on a tokio blocking thread; a panic there is [`ServerError::Panicked`].
async fn blocking<T: Send + 'static>(
    task: &'static str,
    f: impl FnOnce() -> Result<T> + Send + 'static,
) -> Result<T> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|_| ServerError::Panicked { task })?
}

/// [`blocking`] for the private PostgreSQL's steps.
async fn blocking_pg<T: Send + 'static>(
    f: impl FnOnce() -> std::result::Result<T, PgError> + Send + 'static,
) -> std::result::Result<T, LeaseError> {
    Ok(tokio::task::spawn_blocking(f)
        .await
        .map_err(|_| ServerError::Panicked { task: "postgres" })??)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registration_names_carry_the_pid() {
        assert_eq!(registered_pid("4242-0"), Some(4242));
        assert_eq!(registered_pid("4242-17"), Some(4242));
        assert_eq!(registered_pid("4242"), Some(4242), "an older oltp's name");
        assert_eq!(registered_pid("4242-x"), None);
        assert_eq!(registered_pid("x-1"), None);
        assert_eq!(registered_pid("lock"), None);
    }

    #[test]
    fn stale_registrations_are_removed_and_live_ones_counted() {
        let dir = tempfile::tempdir().expect("tempdir");
        let users = dir.path().join("users");
        let me = std::process::id();
        let a = Registration::new(&users).expect("register");
        let b = Registration::new(&users).expect("register");
        assert_ne!(a.name, b.name, "one file per lease");
        // A live process of another oltp, in the old and the new format.
        let parent = std::os::unix::process::parent_id();
        // Above the kernel's pid limit: a process that cannot exist.
        let max: u32 = fs::read_to_string("/proc/sys/kernel/pid_max")
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(4_194_304);
        let stale = [
            format!("{me}"),
            format!("{me}-999999"),
            format!("{}-0", max + 1),
            "junk".into(),
        ];
        for name in [format!("{parent}"), format!("{parent}-3")]
            .iter()
            .chain(&stale)
        {
            fs::write(users.join(name), b"").expect("write");
        }
        // Others than `a`: `b` and the parent's two.
        assert_eq!(other_users(&users, Some(&a.name)), 3);
        assert_eq!(
            other_pids(&users),
            vec![parent],
            "this process's own left out"
        );
        for name in &stale {
            assert!(!users.join(name).exists(), "stale {name} removed");
        }
        let mut mine = vec![a.file.clone(), b.file.clone()];
        mine.sort();
        assert_eq!(registrations(&users, me), mine);
        drop(a);
        assert_eq!(other_users(&users, None), 3, "b and the parent's two");
        drop(b);
        assert!(
            registrations(&users, me).is_empty(),
            "dropped: unregistered"
        );
        assert_eq!(other_users(&users, None), 2);
    }
}
