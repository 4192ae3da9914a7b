//! Every path of the private PostgreSQL, `<base>/postgresql/`, named once.

use std::fs;
use std::path::{Path, PathBuf};

use super::error::{PgError, Result};
use crate::server::layout::{SOCKET_PATH_MAX, TlsFiles, read_number, write_port};

/// The files of the private PostgreSQL, all in `<base>/postgresql/`.
///
/// | path | what |
/// | --- | --- |
/// | `data/` | the data directory (`initdb`); it exists only once fully initialised (with a filesystem `--at-rest` mode, `data/` and `data.tmp/` are in `store/d/`, the mounted view: [`crate::at_rest::Store`]) |
/// | `data.tmp/` | initialisation in progress (or left by a failed one: wiped and redone) |
/// | `sock/` | `unix_socket_directories`: the server's socket `.s.PGSQL.PORT` |
/// | `server.log` | the server's log (`pg_ctl -l`) |
/// | `initdb.log` | output of `initdb` |
/// | `password` | the benchmark user's password (mode 0600), generated at `initdb` |
/// | `tls/` | `ca.pem`, `server-cert.pem`, `server-key.pem` (mode 0600): the server's TLS certificate and the private CA that signed it, generated at the first start (`tls`) |
/// | `port` | the TCP port of the running server; removed at stop |
/// | `port.chosen` | the TCP port of the last start, kept: the next start takes it again unless it is taken |
/// | `users/<pid>-<n>`, `ephemeral` | the `oltp` commands using the server, and whether the last of them stops it (`crate::server::Lease`) |
/// | `lock` | `flock`ed while a process starts or stops the server |
///
/// When `oltp` runs as root the directory belongs to the `postgres` user (PostgreSQL
/// refuses to run as root), the lock file excepted. Building a layout touches nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PgLayout {
    base: PathBuf,
    dir: PathBuf,
    data_root: PathBuf,
}

impl PgLayout {
    /// The layout under base directory `base`.
    pub fn new(base: impl Into<PathBuf>) -> PgLayout {
        let base = base.into();
        let dir = base.join("postgresql");
        PgLayout {
            data_root: crate::at_rest::data_root(&base, &dir),
            dir,
            base,
        }
    }

    /// [`new`](Self::new) with `base` made absolute, checked to leave room for the socket
    /// path `sock/.s.PGSQL.65535`.
    ///
    /// # Errors
    /// [`PgError::SocketPathTooLong`], or [`PgError::Io`] when the current directory cannot
    /// be read.
    pub fn resolved(base: &Path) -> Result<PgLayout> {
        let abs = std::path::absolute(base).map_err(PgError::io("resolve", base))?;
        let layout = PgLayout::new(abs);
        let socket = layout.socket_dir().join(".s.PGSQL.65535");
        let len = socket.as_os_str().len();
        if len > SOCKET_PATH_MAX {
            return Err(PgError::SocketPathTooLong { path: socket, len });
        }
        Ok(layout)
    }

    /// The base directory, as given.
    pub fn base(&self) -> &Path {
        &self.base
    }

    /// `<base>/postgresql`.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// `data/`.
    pub fn data(&self) -> PathBuf {
        self.data_root.join("data")
    }

    /// `data.tmp/`.
    pub fn data_tmp(&self) -> PathBuf {
        self.data_root.join("data.tmp")
    }

    /// `sock/`.
    pub fn socket_dir(&self) -> PathBuf {
        self.dir.join("sock")
    }

    /// `server.log`.
    pub fn log(&self) -> PathBuf {
        self.dir.join("server.log")
    }

    /// `initdb.log`.
    pub fn init_log(&self) -> PathBuf {
        self.dir.join("initdb.log")
    }

    /// `password`.
    pub fn password_file(&self) -> PathBuf {
        self.dir.join("password")
    }

    /// `tls/ca.pem`, `tls/server-cert.pem`, `tls/server-key.pem`.
    pub fn tls_files(&self) -> TlsFiles {
        TlsFiles::in_server_dir(&self.dir)
    }

    /// `data/postmaster.pid`, written by the running server.
    pub fn postmaster_pid(&self) -> PathBuf {
        self.data().join("postmaster.pid")
    }

    /// `port`.
    pub fn port_file(&self) -> PathBuf {
        self.dir.join("port")
    }

    /// `port.chosen`.
    pub fn chosen_port_file(&self) -> PathBuf {
        self.dir.join("port.chosen")
    }

    /// `users/`, where every `oltp` command using the server registers (as
    /// for the private MariaDB: `crate::server::Lease`).
    pub fn users_dir(&self) -> PathBuf {
        self.dir.join("users")
    }

    /// `ephemeral`, present while the server should stop with the last
    /// command using it.
    pub fn ephemeral_marker(&self) -> PathBuf {
        self.dir.join("ephemeral")
    }

    /// `lock`.
    pub fn lock_file(&self) -> PathBuf {
        self.dir.join("lock")
    }

    /// The port in `port.chosen`, if the file holds one.
    pub fn read_chosen_port(&self) -> Option<u16> {
        read_number(&self.chosen_port_file()).filter(|&p| p != 0)
    }

    /// The benchmark user's password, if `password` holds one.
    pub fn read_password(&self) -> Option<String> {
        let p = fs::read_to_string(self.password_file()).ok()?;
        let p = p.trim();
        (!p.is_empty()).then(|| p.to_string())
    }

    /// Records `port` in `port` and `port.chosen`.
    ///
    /// # Errors
    /// [`PgError::Io`] when a file cannot be written.
    pub fn record_port(&self, port: u16) -> Result<()> {
        write_port(
            [self.port_file(), self.chosen_port_file()],
            port,
            PgError::Io,
        )
    }
}

/// What `postmaster.pid` says about a server (PostgreSQL 10+: line 1 the pid, 2 the data
/// directory, 4 the port, 8 the status `starting`, `ready` or `stopping`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Postmaster {
    pub(super) pid: u32,
    pub(super) port: u16,
    pub(super) ready: bool,
}

impl Postmaster {
    /// Parses the file's text; `None` when it is not (yet) complete.
    pub(super) fn parse(text: &str) -> Option<Postmaster> {
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        Some(Postmaster {
            pid: lines.first()?.parse().ok().filter(|&p| p != 0)?,
            port: lines.get(3)?.parse().ok()?,
            ready: lines.get(7).is_some_and(|s| *s == "ready"),
        })
    }

    /// Reads `layout`'s `postmaster.pid`.
    pub(super) fn read(layout: &PgLayout) -> Option<Postmaster> {
        Postmaster::parse(&fs::read_to_string(layout.postmaster_pid()).ok()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_under_postgresql() {
        let l = PgLayout::new("/b");
        assert_eq!(l.data(), Path::new("/b/postgresql/data"));
        assert_eq!(l.socket_dir(), Path::new("/b/postgresql/sock"));
        assert_eq!(l.password_file(), Path::new("/b/postgresql/password"));
    }

    #[test]
    fn long_base_dir_is_refused() {
        let long = PathBuf::from("/tmp").join("x".repeat(100));
        assert!(matches!(
            PgLayout::resolved(&long),
            Err(PgError::SocketPathTooLong { .. })
        ));
    }

    #[test]
    fn postmaster_pid_is_parsed() {
        let text = "4242\n/b/postgresql/data\n1700000000\n5433\n/b/postgresql/sock\n127.0.0.1\n  1234  5678\nready   \n";
        assert_eq!(
            Postmaster::parse(text),
            Some(Postmaster {
                pid: 4242,
                port: 5433,
                ready: true
            })
        );
        let starting = text.replace("ready", "starting");
        assert_eq!(Postmaster::parse(&starting).map(|p| p.ready), Some(false));
        assert_eq!(Postmaster::parse("4242\n/b\n"), None);
    }
}
