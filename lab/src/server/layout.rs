//! Every path of a private server's directory, `<server base>/mariadb/`, named once: the
//! launcher, the lease, the command line and the TLS and at-rest setup all ask a [`Layout`].

use std::fs;
use std::path::{Path, PathBuf};

use super::HOME_ENV;
use super::error::{Result, ServerError, io_err};
use crate::at_rest::{AtRest, data_root};
use crate::io_failure::IoFailure;

/// Longest Unix socket path: `sun_path` is 108 bytes on Linux, including the NUL.
pub(super) const SOCKET_PATH_MAX: usize = 107;

/// The default base directory as root: the servers then run as `mysql` and `postgres`,
/// which cannot enter root's home (`/root` is mode 0700); `/var/tmp` is reachable by every
/// user and kept across reboots (FHS 3.0, 5.15), as a benchmark's data should be.
pub const ROOT_BASE_DIR: &str = "/var/tmp/encbench";

/// Where the private server keeps its files when no directory is given.
///
/// `$ENCBENCH_HOME` if set, else `$XDG_DATA_HOME/encbench` (when absolute), else, as root,
/// [`ROOT_BASE_DIR`], else `$HOME/.local/share/encbench`, else `<temp dir>/encbench`. The
/// server itself lives in `<base>/mariadb/` (see [`Layout`]).
pub fn default_base_dir() -> PathBuf {
    base_dir_of(
        |name| std::env::var_os(name),
        nix::unistd::geteuid().is_root(),
    )
}

/// [`default_base_dir`] for the environment `var` and whether we are `root`.
fn base_dir_of(var: impl Fn(&str) -> Option<std::ffi::OsString>, root: bool) -> PathBuf {
    let var = |name: &str| var(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(dir) = var(HOME_ENV) {
        return dir;
    }
    if let Some(dir) = var("XDG_DATA_HOME").filter(|d| d.is_absolute()) {
        return dir.join("encbench");
    }
    if root {
        return PathBuf::from(ROOT_BASE_DIR);
    }
    if let Some(home) = var("HOME") {
        return home.join(".local/share/encbench");
    }
    std::env::temp_dir().join("encbench")
}

/// The base directory of the private server in at-rest mode `at_rest`: `base` for `off`,
/// `base/at-rest` for InnoDB encryption, `base/at-rest-<mode>` for a filesystem mode
/// (each its own data: tables written without encryption are never mixed with encrypted
/// ones); see [`AtRest::server_base`].
pub fn server_base(base: &Path, at_rest: AtRest) -> PathBuf {
    at_rest.server_base(base)
}

/// The TLS files of the private server whose base directory is `server_base`; the same as
/// `Layout::new(server_base).tls_files()`.
pub fn tls_files(server_base: &Path) -> TlsFiles {
    Layout::new(server_base).tls_files()
}

/// Where the private server's TLS files live (`<server base>/mariadb/tls/`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TlsFiles {
    /// The CA certificate (PEM) the client trusts.
    pub ca: PathBuf,
    /// The server certificate (PEM), signed by the CA.
    pub cert: PathBuf,
    /// The server's private key (PKCS#8 PEM, mode 0600).
    pub key: PathBuf,
}

impl TlsFiles {
    /// The TLS files of the server whose directory (`mariadb/`, `postgresql/`)
    /// is `dir`: `tls/ca.pem`, `tls/server-cert.pem`, `tls/server-key.pem`.
    pub(super) fn in_server_dir(dir: &Path) -> TlsFiles {
        let dir = dir.join("tls");
        TlsFiles {
            ca: dir.join("ca.pem"),
            cert: dir.join("server-cert.pem"),
            key: dir.join("server-key.pem"),
        }
    }
}

/// The files of one private server, all in `<server base>/mariadb/`.
///
/// | path | what |
/// | --- | --- |
/// | `data/` | the data directory; it exists only once fully initialised (with a filesystem `--at-rest` mode, `data/`, `data.tmp/` and `tmp/` are in `store/d/`, the mounted view: [`crate::at_rest::Store`]) |
/// | `data.tmp/` | initialisation in progress (or left by a failed one: wiped and redone) |
/// | `sock`, `pid`, `err.log` | the server's Unix socket, pid file and error log |
/// | `port` | the TCP port (decimal) of the running server, for processes that attach; removed at stop |
/// | `port.chosen` | the TCP port of the last start, kept across stops: the next start takes it again unless it is taken |
/// | `args.json` | the `extra_args` the running server was started with |
/// | `tmp/` | the server's temporary files (`--tmpdir`), never the shared /tmp |
/// | `password` | the benchmark user's password (mode 0600), generated at initialisation |
/// | `no-files/` | the server's `--secure-file-priv`: empty, mode 0500, ours (the server can neither read nor write in it) |
/// | `install.log` | output of `mariadb-install-db` and the bootstrap that creates the users |
/// | `lock` | `flock`ed while a process starts or stops the server |
/// | `users/<pid>-<n>` | one empty file per lease of an `oltp` command using the server (`crate::server::Lease`; an older `oltp` wrote `users/<pid>`) |
/// | `ephemeral` | present while the server was started by a command, not by `oltp server start` |
/// | `tls/` | `ca.pem`, `server-cert.pem`, `server-key.pem` (mode 0600), generated at first start |
/// | `at-rest.keys` | the InnoDB key file of the at-rest server (`file_key_management`, mode 0600) |
///
/// Building a layout touches nothing on disk; paths are as absolute as the base given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    base: PathBuf,
    dir: PathBuf,
    data: PathBuf,
    data_root: PathBuf,
    socket: PathBuf,
    err_log: PathBuf,
}

impl Layout {
    /// The layout of the server whose base directory is `server_base` (from
    /// [`server_base`]: the base directory, or its `at-rest/`).
    pub fn new(server_base: impl Into<PathBuf>) -> Layout {
        let base = server_base.into();
        let dir = base.join("mariadb");
        let root = data_root(&base, &dir);
        Layout {
            data: root.join("data"),
            data_root: root,
            socket: dir.join("sock"),
            err_log: dir.join("err.log"),
            dir,
            base,
        }
    }

    /// [`new`](Self::new) with `server_base` made absolute, checked to leave room for the
    /// Unix socket path (what the launcher uses).
    ///
    /// # Errors
    ///
    /// [`ServerError::SocketPathTooLong`] when `sock` would be over 107 bytes,
    /// [`ServerError::Io`] when the current directory cannot be read.
    pub fn resolved(server_base: &Path) -> Result<Layout> {
        let base = std::path::absolute(server_base).map_err(io_err("resolve", server_base))?;
        let layout = Layout::new(base);
        let len = layout.socket.as_os_str().len();
        if len > SOCKET_PATH_MAX {
            return Err(ServerError::SocketPathTooLong {
                path: layout.socket,
                len,
            });
        }
        Ok(layout)
    }

    /// The server base directory, as given.
    pub fn base(&self) -> &Path {
        &self.base
    }

    /// `<base>/mariadb`, the directory of every file below.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// `data/`, the data directory.
    pub fn data(&self) -> &Path {
        &self.data
    }

    /// `data.tmp/`, the data directory while `mariadb-install-db` fills it.
    pub fn data_tmp(&self) -> PathBuf {
        self.data_root.join("data.tmp")
    }

    /// `sock`, the Unix socket (`root` logs in here without a password, in a 0700 directory).
    pub fn socket(&self) -> &Path {
        &self.socket
    }

    /// `pid`, the server's pid file.
    pub fn pid_file(&self) -> PathBuf {
        self.dir.join("pid")
    }

    /// `err.log`, the server's error log.
    pub fn err_log(&self) -> &Path {
        &self.err_log
    }

    /// `port`, the TCP port of the running server (removed when it stops).
    pub fn port_file(&self) -> PathBuf {
        self.dir.join("port")
    }

    /// `port.chosen`, the TCP port of the last start (kept across stops).
    pub fn chosen_port_file(&self) -> PathBuf {
        self.dir.join("port.chosen")
    }

    /// `args.json`, the `extra_args` of the running server (a JSON array of strings).
    pub fn args_file(&self) -> PathBuf {
        self.dir.join("args.json")
    }

    /// `tmp/`, the server's `--tmpdir`.
    pub fn tmp_dir(&self) -> PathBuf {
        self.data_root.join("tmp")
    }

    /// `password`, the benchmark user's password (mode 0600).
    pub fn password_file(&self) -> PathBuf {
        self.dir.join("password")
    }

    /// `no-files/`, the server's `--secure-file-priv` (empty; the server may not write in
    /// it, so `SELECT ... INTO OUTFILE` and `LOAD DATA INFILE` have nowhere to go).
    pub fn no_files_dir(&self) -> PathBuf {
        self.dir.join("no-files")
    }

    /// `install.log`, the output of the data directory's initialisation.
    pub fn install_log(&self) -> PathBuf {
        self.dir.join("install.log")
    }

    /// `lock`, held while a process starts or stops the server.
    pub fn lock_file(&self) -> PathBuf {
        self.dir.join("lock")
    }

    /// `users/`, where every command using the server registers.
    pub fn users_dir(&self) -> PathBuf {
        self.dir.join("users")
    }

    /// The registrations of process `pid` in `users/`, sorted: one `users/<pid>-<n>` per
    /// lease it holds (and `users/<pid>` if an older `oltp` left one); empty when it holds
    /// none.
    pub fn user_files(&self, pid: u32) -> Vec<PathBuf> {
        super::lease::registrations(&self.users_dir(), pid)
    }

    /// `ephemeral`, present while the server should stop with the last command using it.
    pub fn ephemeral_marker(&self) -> PathBuf {
        self.dir.join("ephemeral")
    }

    /// `tls/ca.pem`, `tls/server-cert.pem`, `tls/server-key.pem`.
    pub fn tls_files(&self) -> TlsFiles {
        TlsFiles::in_server_dir(&self.dir)
    }

    /// `at-rest.keys`, the InnoDB key file (lines `ID;HEX`).
    pub fn at_rest_key_file(&self) -> PathBuf {
        self.dir.join("at-rest.keys")
    }

    /// The port in `port` (a running server's), if the file holds one.
    pub fn read_port(&self) -> Option<u16> {
        read_number(&self.port_file()).filter(|&p| p != 0)
    }

    /// The port in `port.chosen` (the last start's), if the file holds one.
    pub fn read_chosen_port(&self) -> Option<u16> {
        read_number(&self.chosen_port_file()).filter(|&p| p != 0)
    }

    /// Records `port` in `port` and `port.chosen`.
    ///
    /// # Errors
    ///
    /// [`ServerError::Io`] when a file cannot be written.
    pub fn record_port(&self, port: u16) -> Result<()> {
        write_port(
            [self.port_file(), self.chosen_port_file()],
            port,
            ServerError::Io,
        )
    }

    /// The pid in `pid`, if the file holds one (0 is not a pid).
    pub fn read_pid(&self) -> Option<u32> {
        read_number(&self.pid_file()).filter(|&p| p != 0)
    }

    /// The `extra_args` recorded in `args.json`, if readable.
    pub fn recorded_args(&self) -> Option<Vec<String>> {
        serde_json::from_str(&fs::read_to_string(self.args_file()).ok()?).ok()
    }

    /// Records `args` in `args.json`.
    ///
    /// # Errors
    ///
    /// [`ServerError::Io`] when the file cannot be written.
    pub fn record_args(&self, args: &[String]) -> Result<()> {
        let path = self.args_file();
        let json = serde_json::to_string(args)
            .map_err(|e| io_err("write", &path)(std::io::Error::other(e)))?;
        fs::write(&path, json).map_err(io_err("write", &path))
    }
}

/// The number in the file at `path` (surrounding white space ignored), if it holds one.
pub(super) fn read_number<T: std::str::FromStr>(path: &Path) -> Option<T> {
    fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// Writes `port` (decimal, one line) to each of `files`, a server's `port` and
/// `port.chosen`; a failed write becomes `wrap` of its [`IoFailure`].
pub(super) fn write_port<E>(
    files: [PathBuf; 2],
    port: u16,
    wrap: fn(IoFailure) -> E,
) -> Result<(), E> {
    for path in files {
        fs::write(&path, format!("{port}\n")).map_err(IoFailure::on("write", &path, wrap))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_base_dir_is_refused() {
        let long = PathBuf::from("/tmp").join("x".repeat(120));
        assert!(matches!(
            Layout::resolved(&long),
            Err(ServerError::SocketPathTooLong { .. })
        ));
    }

    #[test]
    fn paths_are_under_mariadb() {
        let l = Layout::new(server_base(Path::new("/b"), AtRest::Innodb));
        assert_eq!(l.socket(), Path::new("/b/at-rest/mariadb/sock"));
        assert_eq!(l.users_dir(), Path::new("/b/at-rest/mariadb/users"));
        assert_eq!(l.tls_files().ca, Path::new("/b/at-rest/mariadb/tls/ca.pem"));
        assert_eq!(
            l.at_rest_key_file(),
            Path::new("/b/at-rest/mariadb/at-rest.keys")
        );
        let l = Layout::new(server_base(Path::new("/b"), AtRest::Gocryptfs));
        assert_eq!(
            l.data(),
            Path::new("/b/at-rest-gocryptfs/mariadb/store/d/data")
        );
        assert_eq!(
            l.tmp_dir(),
            Path::new("/b/at-rest-gocryptfs/mariadb/store/d/tmp")
        );
    }

    #[test]
    fn root_defaults_to_a_base_dir_the_server_users_reach() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| std::ffi::OsString::from(v))
            }
        };
        let home = &[("HOME", "/root")];
        assert_eq!(base_dir_of(env(home), true), Path::new(ROOT_BASE_DIR));
        assert_eq!(
            base_dir_of(env(&[("HOME", "/home/u")]), false),
            Path::new("/home/u/.local/share/encbench")
        );
        // What the user names still wins, as root too.
        let named = &[("HOME", "/root"), ("ENCBENCH_HOME", "/srv/e")];
        assert_eq!(base_dir_of(env(named), true), Path::new("/srv/e"));
        let xdg = &[("HOME", "/root"), ("XDG_DATA_HOME", "/data")];
        assert_eq!(base_dir_of(env(xdg), true), Path::new("/data/encbench"));
    }
}
