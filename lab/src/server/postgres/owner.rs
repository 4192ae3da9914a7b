//! Who runs the PostgreSQL server: PostgreSQL refuses to run as root, so when oltp's
//! effective uid is 0 `initdb` and `pg_ctl` run as the `postgres` user and the directory
//! belongs to it ([`crate::server::owner`], shared with the MariaDB launcher, with this
//! launcher's errors).

use std::path::Path;
use std::process::Command;

use super::error::{PgError, Result};
use crate::server::owner::Owner as Shared;

/// The user the server runs as: ourselves (not root), or `postgres`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Owner(Shared);

impl Owner {
    /// Ourselves, or `postgres` when we are root.
    ///
    /// # Errors
    /// [`PgError::NoServerUser`] when root and there is no `postgres` user.
    pub(super) fn detect() -> Result<Owner> {
        Shared::detect("postgres")
            .map(Owner)
            .ok_or(PgError::NoServerUser)
    }

    /// `program` set to run as the owner.
    pub(super) fn command(&self, program: &Path) -> Command {
        self.0.command(program)
    }

    /// Gives `path` to the owner (nothing to do when that is ourselves).
    ///
    /// # Errors
    /// [`PgError::Io`] when `chown` fails.
    pub(super) fn take(&self, path: &Path) -> Result<()> {
        self.0.take(path).map_err(PgError::io("chown", path))
    }

    /// Checks that the owner can traverse every directory from `/` down to `dir`.
    ///
    /// # Errors
    /// [`PgError::Unreachable`] naming the first directory it cannot enter.
    pub(super) fn check_reachable(&self, dir: &Path) -> Result<()> {
        match self.0.first_unreachable(dir) {
            Some((dir, mode)) => Err(PgError::Unreachable { dir, mode }),
            None => Ok(()),
        }
    }
}
