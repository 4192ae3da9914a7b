//! The ext4-on-loop filesystem of `fscrypt` and `ext4-loop`: a sparse image file made with
//! `mkfs.ext4 -O encrypt` (for both modes, so the filesystems are identical; only
//! `fscrypt` puts its data under a policy), mounted with `mount -o loop`.

use std::ffi::OsStr;
use std::fs::OpenOptions;

use super::error::io;
use super::mounts::run;
use super::{AtRest, AtRestError, Store};

/// Size of the image: 8 GiB, sparse (only what is written takes disk space).
pub const IMAGE_BYTES: u64 = 8 << 30;

/// The Debian package of `mkfs.ext4`.
pub(super) const PACKAGE: &str = "e2fsprogs";

/// Creates the image on first use (inode tables and journal initialised at once, so no
/// background initialisation writes during a measurement) and mounts it; for `fscrypt`,
/// adds the key to the filesystem ([`super::fscrypt::add_key`]).
///
/// # Errors
/// A program fails, or the image cannot be created.
pub(super) fn mount(store: &Store) -> Result<(), AtRestError> {
    let mode = store.mode().name();
    let (img, mp) = (store.backing(), store.mount_point());
    let done = store.dir().join("fs.img.done");
    if !done.exists() {
        let f = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&img)
            .map_err(io("create", &img))?;
        f.set_len(IMAGE_BYTES).map_err(io("size", &img))?;
        drop(f);
        run(
            mode,
            "mkfs.ext4",
            PACKAGE,
            "mkfs.ext4",
            &[
                OsStr::new("-q"),
                OsStr::new("-F"),
                OsStr::new("-O"),
                OsStr::new("encrypt"),
                OsStr::new("-E"),
                OsStr::new("lazy_itable_init=0,lazy_journal_init=0"),
                img.as_os_str(),
            ],
        )?;
        std::fs::write(&done, b"").map_err(io("write", &done))?;
    }
    run(
        mode,
        "mount",
        "mount",
        "mount -o loop",
        &[
            OsStr::new("-o"),
            OsStr::new("loop"),
            img.as_os_str(),
            mp.as_os_str(),
        ],
    )?;
    if store.mode() == AtRest::Fscrypt
        && let Err(e) = super::fscrypt::add_key(store)
    {
        let _ = super::mounts::umount(&mp);
        return Err(e);
    }
    Ok(())
}
