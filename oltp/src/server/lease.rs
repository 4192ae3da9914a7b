//! Who uses the private server (MariaDB's or PostgreSQL's), and so who stops it.
//!
//! Every `oltp` command that uses the private server holds a [`Lease`]: it registers in
//! `users/<pid>`, starts the server if it was not running (then marking it `ephemeral`), and
//! at [`Lease::finish`] stops it only when it was started by a command and no other live
//! command is registered. A server started by `oltp server start` ([`Standing`]) carries no
//! marker and is left running until `oltp server stop`. A command asking for other settings
//! while other commands use the server is refused instead of restarting it under them.

use std::fs;
use std::path::{Path, PathBuf};

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
/// command: the size difference of the variants does not matter).
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
    held: Option<Held>,
}

impl Lease {
    /// Uses `url` when given, else starts (or attaches to) the private server of
    /// `server_base(base_dir, at_rest)` with `profile`'s settings, registered as one of its
    /// users.
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
    ) -> std::result::Result<Lease, LeaseError> {
        if let Some(url) = url {
            return Ok(Lease {
                url: url.to_string(),
                held: None,
            });
        }
        let layout = Layout::new(server_base(base_dir, at_rest));
        let me = register(&layout.users_dir())?;
        let unregister = |e: ServerError| {
            let _ = fs::remove_file(&me);
            e
        };
        let cfg = server_config(base_dir, at_rest, profile).map_err(unregister)?;
        // A server that other oltp commands are using is not restarted under them for
        // other settings: refuse instead.
        if other_users(&layout.users_dir()) > 0
            && layout.recorded_args().is_some_and(|r| r != cfg.extra_args)
        {
            return Err(unregister(ServerError::InUse {
                dir: layout.base().to_path_buf(),
            })
            .into());
        }
        let server = blocking("start", move || PrivateServer::start(&cfg))
            .await
            .map_err(unregister)?;
        let started_here = server.started_here();
        Lease::held(server.url(), Held::Mariadb(server, layout), started_here)
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
            return Ok(Lease {
                url: url.to_string(),
                held: None,
            });
        }
        let base_dir = &server_base(base_dir, at_rest);
        let base = base_dir.to_path_buf();
        let layout = blocking_pg(move || PgServer::make_dir(&base)).await?;
        let me = register(&layout.users_dir())?;
        let base = base_dir.to_path_buf();
        let server = blocking_pg(move || PgServer::start(&base))
            .await
            .inspect_err(|_| {
                let _ = fs::remove_file(&me);
            })?;
        let started_here = server.started_here();
        Lease::held(server.url(), Held::Postgres(server), started_here)
    }

    /// A lease of `held`; `started_here`: it becomes `ephemeral` (the last user stops it).
    fn held(url: String, held: Held, started_here: bool) -> std::result::Result<Lease, LeaseError> {
        if started_here {
            let (_, marker) = held.registry();
            fs::write(&marker, b"").map_err(io_err("write", &marker))?;
        }
        Ok(Lease {
            url,
            held: Some(held),
        })
    }

    /// The private server's pid (`mariadbd`, or PostgreSQL's postmaster); `None` for a
    /// server given by URL.
    pub fn server_pid(&self) -> Option<u32> {
        self.held.as_ref().map(|held| match held {
            Held::Mariadb(server, _) => server.pid(),
            Held::Postgres(server) => server.pid(),
        })
    }

    /// Leaves the private server running if another `oltp` command uses it or
    /// `oltp server start` keeps it; stops it otherwise.
    ///
    /// # Errors
    ///
    /// The server did not shut down (see [`PrivateServer::stop_any`], [`PgServer::stop`]).
    pub async fn finish(self) -> std::result::Result<(), LeaseError> {
        let Some(held) = self.held else {
            return Ok(());
        };
        let (users, marker) = held.registry();
        let _ = fs::remove_file(users.join(std::process::id().to_string()));
        let keep = other_users(&users) > 0 || !marker.exists();
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

/// Registers this process in `users` (created if missing); returns its file.
fn register(users: &Path) -> Result<PathBuf> {
    let me = users.join(std::process::id().to_string());
    fs::create_dir_all(users).map_err(io_err("create", users))?;
    fs::write(&me, b"").map_err(io_err("write", &me))?;
    Ok(me)
}

/// The private server as `oltp server start|stop` holds it: started or attached to, and
/// no longer `ephemeral` (no command's [`Lease::finish`] stops it).
#[derive(Debug)]
pub struct Standing {
    server: PrivateServer,
    layout: Layout,
}

impl Standing {
    /// Starts (or attaches to) the private server of `server_base(base_dir, at_rest)` with
    /// `profile`'s settings, and removes its `ephemeral` marker.
    ///
    /// # Errors
    ///
    /// Anything [`PrivateServer::start`] and [`server_config`] return.
    pub async fn open(base_dir: &Path, at_rest: AtRest, profile: Profile) -> Result<Standing> {
        let cfg = server_config(base_dir, at_rest, profile)?;
        let server = blocking("start", move || PrivateServer::start(&cfg)).await?;
        let layout = Layout::new(server.base_dir());
        let _ = fs::remove_file(layout.ephemeral_marker());
        Ok(Standing { server, layout })
    }

    /// The server.
    pub fn server(&self) -> &PrivateServer {
        &self.server
    }

    /// Its files (with an absolute base directory).
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Other live `oltp` commands registered as its users.
    pub fn other_users(&self) -> usize {
        other_users(&self.layout.users_dir())
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
/// `url` names, if it runs and has its TLS CA (so `--tls` can verify it).
pub fn private_server_of(url: &str, base: &Path) -> Option<Layout> {
    let opts = mysql_async::Opts::from_url(url).ok()?;
    if !matches!(opts.ip_or_hostname(), "127.0.0.1" | "localhost") {
        return None;
    }
    AtRest::ALL
        .into_iter()
        .map(|at_rest| Layout::new(server_base(base, at_rest)))
        .find(|layout| {
            layout.read_port() == Some(opts.tcp_port()) && layout.tls_files().ca.exists()
        })
}

/// Other live processes registered in `users` as users of the server; removes the
/// registrations of processes that are gone.
fn other_users(users: &Path) -> usize {
    let me = std::process::id();
    let Ok(entries) = fs::read_dir(users) else {
        return 0;
    };
    entries
        .flatten()
        .filter(|e| {
            let pid = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok());
            let alive = pid.is_some_and(is_alive);
            if !alive {
                let _ = fs::remove_file(e.path());
            }
            alive && pid != Some(me)
        })
        .count()
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
