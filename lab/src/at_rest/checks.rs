//! What a machine cannot provide, refused before anything starts: one line each, why and
//! the fix.

use std::path::Path;

use super::mounts::{find_program, missing};
use super::{AtRest, AtRestError, bindfs, ext4, gocryptfs};

/// Checks that `mode` can run here for the engine (`pgsql`: PostgreSQL) and a server given
/// by URL (`url_given`) or the private one.
///
/// # Errors
/// [`AtRestError::Refused`]: `innodb` with PostgreSQL; a filesystem mode with a URL (it
/// mounts the private server's data directory); not root; no device-mapper (`luks`,
/// `loop`); no `/dev/fuse`; no loop devices; a kernel without ext4 encryption; a program
/// missing, naming its Debian package.
pub fn check_available(mode: AtRest, pgsql: bool, url_given: bool) -> Result<(), AtRestError> {
    let refuse = |reason: &str| {
        Err(AtRestError::Refused {
            mode: mode.name(),
            reason: reason.to_string(),
        })
    };
    if mode == AtRest::Innodb && pgsql {
        return refuse(
            "innodb is MariaDB's InnoDB encryption and PostgreSQL has no built-in TDE: use --at-rest gocryptfs or fscrypt (controls fuse-passthrough, ext4-loop) with --db-driver pgsql",
        );
    }
    if !mode.is_filesystem() {
        return Ok(());
    }
    if url_given {
        return refuse(
            "the filesystem modes mount the private server's data directory: omit --mysql-url / --pgsql-url",
        );
    }
    if !nix::unistd::geteuid().is_root() {
        return refuse("mounting the data directory's filesystem needs root: run oltp as root");
    }
    match mode {
        AtRest::Luks | AtRest::Loop => {
            if !Path::new("/dev/mapper/control").exists() {
                return refuse(
                    "no device-mapper here (/dev/mapper/control is missing), so dm-crypt and LUKS are impossible: load the dm_mod and dm_crypt modules (in a container, pass the device), or use --at-rest fscrypt or gocryptfs",
                );
            }
            refuse("device-mapper modes are not built yet: use --at-rest fscrypt or gocryptfs")
        }
        AtRest::Gocryptfs | AtRest::FusePassthrough => {
            if !Path::new("/dev/fuse").exists() {
                return refuse(
                    "no /dev/fuse here, so FUSE mounts are impossible: load the fuse module (in a container, pass --device /dev/fuse), or use --at-rest fscrypt",
                );
            }
            let (program, package) = if mode == AtRest::Gocryptfs {
                ("gocryptfs", gocryptfs::PACKAGE)
            } else {
                ("bindfs", bindfs::PACKAGE)
            };
            need(mode, &[(program, package), ("umount", "mount")])
        }
        _ => {
            if !Path::new("/dev/loop-control").exists() {
                return refuse(
                    "no loop devices here (/dev/loop-control is missing): load the loop module (in a container, pass the loop devices), or use --at-rest gocryptfs",
                );
            }
            if mode == AtRest::Fscrypt && !Path::new("/sys/fs/ext4/features/encryption").exists() {
                return refuse(
                    "this kernel's ext4 has no encryption (/sys/fs/ext4/features/encryption is missing): use a kernel with CONFIG_FS_ENCRYPTION, or --at-rest gocryptfs",
                );
            }
            need(
                mode,
                &[
                    ("mkfs.ext4", ext4::PACKAGE),
                    ("mount", "mount"),
                    ("umount", "mount"),
                ],
            )
        }
    }
}

/// Every `(program, package)` installed.
fn need(mode: AtRest, programs: &[(&str, &str)]) -> Result<(), AtRestError> {
    match programs.iter().find(|(p, _)| find_program(p).is_none()) {
        Some((p, pkg)) => Err(missing(mode.name(), p, pkg)),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn innodb_is_refused_for_postgresql_and_filesystem_modes_with_a_url() {
        let e = check_available(AtRest::Innodb, true, false).expect_err("pgsql");
        assert!(e.to_string().contains("no built-in TDE"), "{e}");
        assert!(check_available(AtRest::Innodb, false, true).is_ok());
        let e = check_available(AtRest::Gocryptfs, false, true).expect_err("url");
        assert!(e.to_string().contains("omit --mysql-url"), "{e}");
        assert!(check_available(AtRest::Off, true, true).is_ok());
    }
}
