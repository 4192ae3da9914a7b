//! [`Store`]: the files of one filesystem mode inside an engine directory, and the mount
//! of its plaintext view.

use std::fs;
use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};

use super::error::{AtRestError, io};
use super::{AtRest, bindfs, ext4, gocryptfs, mounts};

/// The at-rest files of one engine directory (`<server base>/mariadb/` or
/// `<server base>/postgresql/`):
///
/// | path | what |
/// | --- | --- |
/// | `at-rest/` | mode 0700, root's: the backing store and its key, on the host's disk |
/// | `at-rest/key` | mode 0600: gocryptfs' password or fscrypt's raw 64-byte key, random, never printed |
/// | `at-rest/cipher/` | gocryptfs' encrypted directory |
/// | `at-rest/plain/` | bindfs' source directory (plaintext: the control) |
/// | `at-rest/fs.img` | the ext4 image of `fscrypt` and `ext4-loop` (sparse, `ext4::IMAGE_BYTES`, 8 GiB) |
/// | `at-rest/fs.img.done` | present once `mkfs.ext4` has made the image (an image without it is made again) |
/// | `at-rest/verified.json` | the plaintext search after the last prepare ([`super::Verification`]) |
/// | `store/` | the mount point of the plaintext view |
/// | `store/d/` | the server's data root, owned by the engine directory's owner |
///
/// Building one touches nothing on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Store {
    mode: AtRest,
    engine_dir: PathBuf,
}

impl Store {
    /// The store of filesystem mode `mode` in `engine_dir`.
    pub fn new(engine_dir: &Path, mode: AtRest) -> Store {
        Store {
            mode,
            engine_dir: engine_dir.to_path_buf(),
        }
    }

    /// The mode.
    pub fn mode(&self) -> AtRest {
        self.mode
    }

    /// `at-rest/`.
    pub fn dir(&self) -> PathBuf {
        self.engine_dir.join("at-rest")
    }

    /// `at-rest/key`.
    pub fn key_file(&self) -> PathBuf {
        self.dir().join("key")
    }

    /// What holds the data on the host's disk: `cipher/`, `plain/` or `fs.img`; the
    /// plaintext search looks here.
    pub fn backing(&self) -> PathBuf {
        self.dir().join(match self.mode {
            AtRest::Gocryptfs => "cipher",
            AtRest::FusePassthrough => "plain",
            _ => "fs.img",
        })
    }

    /// `at-rest/verified.json`.
    pub fn verified_file(&self) -> PathBuf {
        self.dir().join("verified.json")
    }

    /// `store/`, the mount point.
    pub fn mount_point(&self) -> PathBuf {
        self.engine_dir.join("store")
    }

    /// `store/d/`, where the server's data directory lives.
    pub fn data_root(&self) -> PathBuf {
        self.mount_point().join("d")
    }

    /// Whether the view is mounted now.
    pub fn is_mounted(&self) -> bool {
        mounts::is_mounted(&self.mount_point())
    }

    /// Mounts the view unless it is mounted, creating the backing store and key on first
    /// use, then `store/d/` (owned as the engine directory, so a server running as
    /// `postgres` or `mysql` can write there).
    ///
    /// # Errors
    /// [`AtRestError::Refused`] for `luks` and `loop`; a program or file operation fails.
    pub fn mount(&self) -> Result<(), AtRestError> {
        let dir = self.dir();
        fs::create_dir_all(&dir).map_err(io("create", &dir))?;
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o700))
            .map_err(io("chmod 700", &dir))?;
        let mp = self.mount_point();
        fs::create_dir_all(&mp).map_err(io("create", &mp))?;
        if !self.is_mounted() {
            match self.mode {
                AtRest::Gocryptfs => gocryptfs::mount(self)?,
                AtRest::FusePassthrough => bindfs::mount(self)?,
                AtRest::Fscrypt | AtRest::Ext4Loop => ext4::mount(self)?,
                m => {
                    return Err(AtRestError::Refused {
                        mode: m.name(),
                        reason: "device-mapper modes are not built yet: use --at-rest fscrypt or gocryptfs".into(),
                    });
                }
            }
        }
        let root = self.data_root();
        if !root.is_dir() {
            match self.mode {
                AtRest::Fscrypt => super::fscrypt::create_encrypted_dir(self, &root)?,
                _ => fs::create_dir(&root).map_err(io("create", &root))?,
            }
            let owner = fs::metadata(&self.engine_dir).map_err(io("read", &self.engine_dir))?;
            std::os::unix::fs::chown(&root, Some(owner.uid()), Some(owner.gid()))
                .map_err(io("chown", &root))?;
            fs::set_permissions(&root, fs::Permissions::from_mode(0o700))
                .map_err(io("chmod 700", &root))?;
        }
        Ok(())
    }

    /// Unmounts the view if mounted (the loop device of an ext4 image is released with it).
    ///
    /// # Errors
    /// `umount` fails.
    pub fn unmount(&self) -> Result<(), AtRestError> {
        if self.is_mounted() {
            mounts::umount(&self.mount_point())?;
        }
        Ok(())
    }

    /// Flushes the view's dirty data to the backing store (`syncfs`), so a search of the
    /// backing store sees what the server wrote.
    ///
    /// # Errors
    /// The mount point cannot be opened or synced.
    pub fn sync(&self) -> Result<(), AtRestError> {
        mounts::syncfs(&self.mount_point())
    }
}
