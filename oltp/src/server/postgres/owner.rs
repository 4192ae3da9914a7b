//! Who runs the server: PostgreSQL refuses to run as root, so when oltp's effective uid is
//! 0 (CI runs as root) `initdb` and `pg_ctl` run as the `postgres` user (Debian creates it
//! with the server package), the directory belongs to it, and every directory on the way to
//! it must be one it can traverse (`/root` is mode 0700: a base directory under it is
//! refused in one line, [`PgError::Unreachable`]).

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;

use nix::unistd::{Gid, Uid, User};

use super::error::{PgError, Result};

/// The user the server runs as: `None` for oltp's own (not root), or `postgres`'s ids.
#[derive(Debug, Clone, Copy)]
pub(super) struct Owner {
    ids: Option<(Uid, Gid)>,
}

impl Owner {
    /// Ourselves, or `postgres` when we are root.
    ///
    /// # Errors
    /// [`PgError::NoServerUser`] when root and there is no `postgres` user.
    pub(super) fn detect() -> Result<Owner> {
        if !nix::unistd::geteuid().is_root() {
            return Ok(Owner { ids: None });
        }
        match User::from_name("postgres") {
            Ok(Some(u)) => Ok(Owner {
                ids: Some((u.uid, u.gid)),
            }),
            _ => Err(PgError::NoServerUser),
        }
    }

    /// `program` set to run as the owner (std drops root's supplementary groups too).
    pub(super) fn command(&self, program: &Path) -> Command {
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
    /// [`PgError::Io`] when `chown` fails.
    pub(super) fn take(&self, path: &Path) -> Result<()> {
        if let Some((uid, gid)) = self.ids {
            std::os::unix::fs::chown(path, Some(uid.as_raw()), Some(gid.as_raw()))
                .map_err(PgError::io("chown", path))?;
        }
        Ok(())
    }

    /// Checks that the owner can traverse every directory from `/` down to `dir`.
    ///
    /// # Errors
    /// [`PgError::Unreachable`] naming the first directory it cannot enter.
    pub(super) fn check_reachable(&self, dir: &Path) -> Result<()> {
        let Some((uid, gid)) = self.ids else {
            return Ok(());
        };
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
                return Err(PgError::Unreachable {
                    dir: d.to_path_buf(),
                    mode,
                });
            }
        }
        Ok(())
    }
}
