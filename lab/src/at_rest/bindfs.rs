//! `fuse-passthrough`: the data directory on a bindfs FUSE mount of a plain directory,
//! the control of `gocryptfs` (the same FUSE path, no encryption).

use std::ffi::OsStr;

use super::mounts::run;
use super::{AtRestError, Store};

/// The Debian package.
pub(super) const PACKAGE: &str = "bindfs";

/// Mounts the plain source directory (created on first use) on the store's mount point,
/// readable by other users as gocryptfs' mount is.
///
/// # Errors
/// bindfs is missing or fails.
pub(super) fn mount(store: &Store) -> Result<(), AtRestError> {
    let (src, mp) = (store.backing(), store.mount_point());
    std::fs::create_dir_all(&src).map_err(super::error::io("create", &src))?;
    run(
        store.mode().name(),
        "bindfs",
        PACKAGE,
        "bindfs (mount)",
        &[
            OsStr::new("-o"),
            OsStr::new("allow_other"),
            src.as_os_str(),
            mp.as_os_str(),
        ],
    )
}
