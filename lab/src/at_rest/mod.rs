//! Encryption at rest of the private server's data directory (`--at-rest MODE`), each
//! mechanism with its control: the same storage path without the crypto, so a report can
//! separate the cost of the path (FUSE, a loop device) from the cost of the encryption.
//!
//! | mode | what | control of |
//! | --- | --- | --- |
//! | `off` | the data directory on the host's disk | `innodb` |
//! | `innodb` | MariaDB's InnoDB encryption (`file_key_management`; MariaDB only) | |
//! | `gocryptfs` | the data directory on a gocryptfs FUSE mount (AES-GCM-256 in Go userspace) | |
//! | `fuse-passthrough` | the same on a bindfs FUSE mount, no encryption | `gocryptfs` |
//! | `fscrypt` | ext4 on a loop file (`-O encrypt`), the data directory under an fscrypt v2 policy (AES-256-XTS by the kernel) | |
//! | `ext4-loop` | the same ext4-on-loop filesystem, no policy | `fscrypt` |
//! | `luks` | dm-crypt on a loop device: refused (see below) | |
//! | `loop` | the same loop device without dm-crypt: refused with `luks` | `luks` |
//!
//! Every filesystem mode is a server base directory of its own (`<base>/at-rest-<mode>/`,
//! `innodb`'s is `<base>/at-rest/`), so its tables are prepared separately. Inside the
//! engine's directory (`mariadb/` or `postgresql/`) the [`Store`] keeps the encrypted
//! backing store and key (`at-rest/`, mode 0700) and mounts the plaintext view on `store/`;
//! the server's data directory is `store/d/data`. The mount is made under the server's
//! directory lock at start and removed at stop. By job: `store` (the paths), `checks` (what
//! the machine cannot provide, refused before anything starts), `gocryptfs`, `bindfs`,
//! `ext4` (the loop filesystem of `fscrypt` and `ext4-loop`), `fscrypt` (the kernel's
//! policy ioctls), `mounts` (mount table, programs, mount/umount), `search` (the plaintext
//! search of the backing store), `verify` (after prepare: the search, recorded; for
//! `innodb` and its control `off`, of the data directory once the table's pages are
//! flushed), `record`
//! (what a run reports), `error`.
//!
//! `luks` and `loop` need device-mapper (`/dev/mapper/control`); they are refused where it
//! is missing, and refused as not built yet where it exists.

mod bindfs;
mod checks;
mod error;
mod ext4;
mod fscrypt;
mod gocryptfs;
mod mounts;
mod record;
mod search;
mod store;
mod verify;

use std::path::{Path, PathBuf};

pub use checks::check_available;
pub use error::AtRestError;
pub use record::{AtRestInfo, record};
pub use search::find_in_tree;
pub use store::Store;
pub use verify::{Verification, verify_after_prepare, verify_in};

/// Where the server's data is kept at rest (`--at-rest MODE`); see the module docs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum AtRest {
    /// The data directory on the host's disk, no encryption at rest.
    #[default]
    Off,
    /// MariaDB's InnoDB table and redo-log encryption (`file_key_management`).
    Innodb,
    /// The data directory on a gocryptfs FUSE mount (AES-GCM-256, Go's implementation).
    Gocryptfs,
    /// The data directory on a bindfs FUSE mount: the control of `gocryptfs`.
    FusePassthrough,
    /// ext4 on a loop file, the data directory under an fscrypt policy (AES-256-XTS).
    Fscrypt,
    /// The same ext4 on a loop file, no policy: the control of `fscrypt`.
    Ext4Loop,
    /// dm-crypt (LUKS) on a loop device; needs device-mapper.
    Luks,
    /// The same loop device without dm-crypt: the control of `luks`.
    Loop,
}

impl AtRest {
    /// Every mode, in the order of the table above.
    pub const ALL: [AtRest; 8] = [
        AtRest::Off,
        AtRest::Innodb,
        AtRest::Gocryptfs,
        AtRest::FusePassthrough,
        AtRest::Fscrypt,
        AtRest::Ext4Loop,
        AtRest::Luks,
        AtRest::Loop,
    ];

    /// The flag's spelling, e.g. `fuse-passthrough`.
    pub fn name(self) -> &'static str {
        match self {
            AtRest::Off => "off",
            AtRest::Innodb => "innodb",
            AtRest::Gocryptfs => "gocryptfs",
            AtRest::FusePassthrough => "fuse-passthrough",
            AtRest::Fscrypt => "fscrypt",
            AtRest::Ext4Loop => "ext4-loop",
            AtRest::Luks => "luks",
            AtRest::Loop => "loop",
        }
    }

    /// The mechanism this mode is the control of (the same path without the crypto).
    /// `off` is the control of `innodb` but also every run's plain baseline: `None`.
    pub fn control_of(self) -> Option<AtRest> {
        match self {
            AtRest::FusePassthrough => Some(AtRest::Gocryptfs),
            AtRest::Ext4Loop => Some(AtRest::Fscrypt),
            AtRest::Loop => Some(AtRest::Luks),
            _ => None,
        }
    }

    /// Whether the data directory lives on a filesystem this module mounts.
    pub fn is_filesystem(self) -> bool {
        !matches!(self, AtRest::Off | AtRest::Innodb)
    }

    /// Whether the mode encrypts (`false` for `off` and the controls).
    pub fn encrypts(self) -> bool {
        matches!(
            self,
            AtRest::Innodb | AtRest::Gocryptfs | AtRest::Fscrypt | AtRest::Luks
        )
    }

    /// The mode spelled `name` (as [`name`](Self::name) gives it).
    pub fn from_name(name: &str) -> Option<AtRest> {
        AtRest::ALL.into_iter().find(|m| m.name() == name)
    }

    /// The modes a run of this mode is compared with in the reports, so the cost of the
    /// storage path and the cost of the crypto are told apart: a control against `off`
    /// (the path's cost); a mechanism with a control against it (the crypto's cost) and
    /// against `off` (both); `innodb` against `off` (the same server, encryption off).
    pub fn references(self) -> Vec<AtRest> {
        if self == AtRest::Off {
            return Vec::new();
        }
        AtRest::ALL
            .into_iter()
            .filter(|c| c.control_of() == Some(self))
            .chain([AtRest::Off])
            .collect()
    }

    /// The server base directory of this mode under encbench's `base`: `base` itself for
    /// `off`, `base/at-rest` for `innodb` (as before modes existed), `base/at-rest-<mode>`
    /// for the filesystem modes.
    pub fn server_base(self, base: &Path) -> PathBuf {
        match self {
            AtRest::Off => base.to_path_buf(),
            AtRest::Innodb => base.join("at-rest"),
            m => base.join(format!("at-rest-{}", m.name())),
        }
    }

    /// The mode whose [`server_base`](Self::server_base) `server_base` is, from its last
    /// component (`off` for any other name). Pure: reads nothing on disk.
    pub fn of_server_base(server_base: &Path) -> AtRest {
        let name = server_base
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if name == "at-rest" {
            return AtRest::Innodb;
        }
        name.strip_prefix("at-rest-")
            .and_then(|m| {
                AtRest::ALL
                    .into_iter()
                    .find(|a| a.is_filesystem() && a.name() == m)
            })
            .unwrap_or(AtRest::Off)
    }
}

/// The directory that holds the server's data directory (`data/`, `data.tmp/`, temporary
/// files) for the engine directory `engine_dir` of server base `server_base`: the engine
/// directory itself, or the mounted view's `store/d/` for a filesystem mode. Pure.
pub fn data_root(server_base: &Path, engine_dir: &Path) -> PathBuf {
    let mode = AtRest::of_server_base(server_base);
    if mode.is_filesystem() {
        Store::new(engine_dir, mode).data_root()
    } else {
        engine_dir.to_path_buf()
    }
}

/// Mounts the plaintext view of the filesystem mode of `server_base` for `engine_dir`
/// (creating the backing store and its key on first use), unless mounted; nothing for the
/// other modes. Called with the server's directory lock held, before the server starts.
///
/// # Errors
/// A program fails, or a file of the store cannot be created.
pub fn mount_for(server_base: &Path, engine_dir: &Path) -> Result<(), AtRestError> {
    let mode = AtRest::of_server_base(server_base);
    if !mode.is_filesystem() {
        return Ok(());
    }
    Store::new(engine_dir, mode).mount()
}

/// Unmounts the view [`mount_for`] made, if mounted; nothing for the other modes. Called
/// once the server has stopped.
///
/// # Errors
/// `umount` fails (e.g. a process still has files open on it).
pub fn unmount_for(server_base: &Path, engine_dir: &Path) -> Result<(), AtRestError> {
    let mode = AtRest::of_server_base(server_base);
    if !mode.is_filesystem() {
        return Ok(());
    }
    Store::new(engine_dir, mode).unmount()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_bases_name_their_mode() {
        let base = Path::new("/b");
        for m in AtRest::ALL {
            assert_eq!(AtRest::of_server_base(&m.server_base(base)), m, "{m:?}");
        }
        assert_eq!(AtRest::Innodb.server_base(base), Path::new("/b/at-rest"));
        assert_eq!(
            AtRest::Gocryptfs.server_base(base),
            Path::new("/b/at-rest-gocryptfs")
        );
        assert_eq!(
            AtRest::of_server_base(Path::new("/b/at-rest-x")),
            AtRest::Off
        );
    }

    #[test]
    fn data_lives_on_the_mount_for_filesystem_modes() {
        let sb = AtRest::Fscrypt.server_base(Path::new("/b"));
        assert_eq!(
            data_root(&sb, &sb.join("mariadb")),
            Path::new("/b/at-rest-fscrypt/mariadb/store/d")
        );
        let sb = AtRest::Innodb.server_base(Path::new("/b"));
        assert_eq!(
            data_root(&sb, &sb.join("mariadb")),
            Path::new("/b/at-rest/mariadb")
        );
    }

    #[test]
    fn mechanisms_are_compared_with_their_control_and_off() {
        assert_eq!(
            AtRest::Gocryptfs.references(),
            [AtRest::FusePassthrough, AtRest::Off]
        );
        assert_eq!(AtRest::FusePassthrough.references(), [AtRest::Off]);
        assert_eq!(AtRest::Innodb.references(), [AtRest::Off]);
        assert!(AtRest::Off.references().is_empty());
        assert_eq!(AtRest::from_name("ext4-loop"), Some(AtRest::Ext4Loop));
    }

    #[test]
    fn controls_name_their_mechanism() {
        assert_eq!(
            AtRest::FusePassthrough.control_of(),
            Some(AtRest::Gocryptfs)
        );
        assert_eq!(AtRest::Ext4Loop.control_of(), Some(AtRest::Fscrypt));
        assert!(
            AtRest::ALL
                .iter()
                .all(|m| m.control_of().is_none_or(|c| c.encrypts()))
        );
    }
}
