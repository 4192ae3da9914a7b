//! Who runs a private server: MariaDB and PostgreSQL both when oltp's effective uid is 0
//! (CI runs as root) run as their packages' unprivileged users (`mysql`, `postgres`:
//! Debian creates them with the server packages), the directories the server writes belong
//! to that user, and every directory on the way to them must be one it can traverse
//! (`/root` is mode 0700: a base directory under it is refused in one line by each
//! launcher). Not root: the server runs as ourselves and nothing changes hands.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use nix::unistd::{Gid, Uid, User};

/// The user a server runs as: `None` for oltp's own (not root), or that user's ids.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Owner {
    ids: Option<(Uid, Gid)>,
}

impl Owner {
    /// Ourselves, or the user `name` when we are root; `None` when root and there is no
    /// such user.
    pub(crate) fn detect(name: &str) -> Option<Owner> {
        if !nix::unistd::geteuid().is_root() {
            return Some(Owner { ids: None });
        }
        match User::from_name(name) {
            Ok(Some(u)) => Some(Owner {
                ids: Some((u.uid, u.gid)),
            }),
            _ => None,
        }
    }

    /// `program` set to run as the owner (std drops root's supplementary groups too).
    pub(crate) fn command(&self, program: &Path) -> Command {
        let mut cmd = Command::new(program);
        if let Some((uid, gid)) = self.ids {
            cmd.uid(uid.as_raw()).gid(gid.as_raw());
            if let Ok(Some(u)) = User::from_uid(uid) {
                cmd.env("HOME", u.dir)
                    .env("USER", &u.name)
                    .env("LOGNAME", u.name);
            }
        }
        cmd
    }

    /// Gives `path` to the owner (nothing to do when that is ourselves).
    ///
    /// # Errors
    /// The OS error of `chown`.
    pub(crate) fn take(&self, path: &Path) -> std::io::Result<()> {
        match self.ids {
            Some((uid, gid)) => {
                std::os::unix::fs::chown(path, Some(uid.as_raw()), Some(gid.as_raw()))
            }
            None => Ok(()),
        }
    }

    /// Whether `path` belongs to the owner (when it runs as another user; always when the
    /// server runs as ourselves).
    pub(crate) fn owns(&self, path: &Path) -> bool {
        match self.ids {
            Some((uid, _)) => std::fs::metadata(path).is_ok_and(|m| m.uid() == uid.as_raw()),
            None => true,
        }
    }

    /// The first directory from `/` down to `dir` that the owner cannot traverse, with its
    /// mode; `None` when it can reach `dir` (directories not there yet are skipped).
    pub(crate) fn first_unreachable(&self, dir: &Path) -> Option<(PathBuf, u32)> {
        let (uid, gid) = self.ids?;
        for d in dir.ancestors().collect::<Vec<_>>().into_iter().rev() {
            let Ok(m) = std::fs::metadata(d) else {
                continue;
            };
            let mode = m.permissions().mode() & 0o7777;
            let bit = if m.uid() == uid.as_raw() {
                0o100
            } else if m.gid() == gid.as_raw() {
                0o010
            } else {
                0o001
            };
            if mode & bit == 0 {
                return Some((d.to_path_buf(), mode));
            }
        }
        None
    }
}
