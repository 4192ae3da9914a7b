//! Finding the MariaDB programs (`mariadbd`, `mariadb-install-db`, `mariadb-admin`) and
//! asking a running server over its socket with `mariadb-admin`.

use std::ffi::OsString;
use std::fs;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::error::{Result, ServerError, io_err};
use super::layout::Layout;

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

/// The MariaDB programs we run, and the flags that tell `mariadbd` where its files are.
#[derive(Debug, Clone)]
pub(super) struct Binaries {
    pub(super) mariadbd: PathBuf,
    pub(super) install_db: PathBuf,
    pub(super) admin: PathBuf,
    /// The installation prefix (`/usr` for `/usr/sbin/mariadbd`).
    pub(super) basedir: Option<PathBuf>,
    /// The directory holding `english/errmsg.sys`.
    lc_messages_dir: Option<PathBuf>,
}

impl Binaries {
    /// Looks for the three programs (or their `mysql` names) in [`search_dirs`].
    pub(super) fn find() -> Result<Self> {
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
    pub(super) fn path_flags(&self) -> Vec<OsString> {
        let mut flags = Vec::new();
        if let Some(dir) = &self.basedir {
            flags.push(flag("--basedir=", dir));
        }
        if let Some(dir) = &self.lc_messages_dir {
            flags.push(flag("--lc-messages-dir=", dir));
        }
        flags
    }

    /// `mariadb-admin --no-defaults --socket=SOCK -uroot --connect-timeout=2`, subcommand to
    /// add; no output.
    pub(super) fn admin(&self, socket: &Path) -> Command {
        let mut cmd = Command::new(&self.admin);
        cmd.arg("--no-defaults")
            .arg(flag("--socket=", socket))
            .args(["-uroot", "--connect-timeout=2"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        cmd
    }

    /// Whether a server answers on `socket`.
    pub(super) fn ping(&self, socket: &Path) -> bool {
        self.admin(socket)
            .arg("ping")
            .status()
            .is_ok_and(|s| s.success())
    }

    /// Asks the server for its port (when the port file is missing).
    pub(super) fn query_port(&self, layout: &Layout) -> Result<u16> {
        let out = self
            .admin(layout.socket())
            .args(["variables", "--", "--batch"])
            .stdout(Stdio::piped())
            .output()
            .map_err(io_err("run", &self.admin))?;
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .find_map(|line| {
                let mut cols = line.split('|').map(str::trim).filter(|c| !c.is_empty());
                (cols.next() == Some("port"))
                    .then(|| cols.next()?.parse().ok())
                    .flatten()
            })
            .ok_or_else(|| {
                io_err("read the port of the server on", layout.socket())(io::Error::other(
                    "no `port` in mariadb-admin variables",
                ))
            })
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

/// `--name=` followed by a path, without assuming the path is UTF-8.
pub(super) fn flag(name: &str, path: &Path) -> OsString {
    let mut flag = OsString::from(name);
    flag.push(path);
    flag
}
