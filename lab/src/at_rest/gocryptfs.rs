//! `gocryptfs`: the data directory on a gocryptfs FUSE mount, its contents sealed with
//! AES-GCM-256 by Go's implementation (`-openssl=false`, so the crypto driver is fixed and
//! is what `gocryptfs -speed` calls `AES-GCM-256-Go`; on CPUs with AES instructions it is
//! also the one gocryptfs' auto mode selects).

use std::ffi::OsStr;

use super::mounts::{ensure_key, run};
use super::{AtRestError, Store};

/// The Debian package.
pub(super) const PACKAGE: &str = "gocryptfs";

/// The crypto driver of the mount, as `gocryptfs -speed` names it.
pub(super) const DRIVER: &str = "AES-GCM-256-Go (gocryptfs userspace, -openssl=false)";

/// Creates the encrypted directory on first use (`gocryptfs -init` with a random
/// password in the 0600 key file) and mounts it on the store's mount point, readable by
/// other users (`-allow_other`: the server may run as `postgres` or `mysql`).
///
/// # Errors
/// gocryptfs is missing or fails.
pub(super) fn mount(store: &Store) -> Result<(), AtRestError> {
    let mode = store.mode().name();
    let (key, cipher, mp) = (store.key_file(), store.backing(), store.mount_point());
    ensure_key(&key, || {
        let mut bytes = zeroize::Zeroizing::new([0u8; 32]);
        rand::Rng::fill(&mut rand::rng(), &mut bytes[..]);
        let mut text = Vec::with_capacity(2 * bytes.len() + 1);
        for b in bytes.iter() {
            text.extend_from_slice(format!("{b:02x}").as_bytes());
        }
        text.push(b'\n');
        text
    })?;
    let passfile = key.as_os_str();
    if !cipher.join("gocryptfs.conf").exists() {
        let _ = std::fs::remove_dir_all(&cipher);
        std::fs::create_dir_all(&cipher).map_err(super::error::io("create", &cipher))?;
        run(
            mode,
            "gocryptfs",
            PACKAGE,
            "gocryptfs -init",
            &[
                OsStr::new("-init"),
                OsStr::new("-q"),
                OsStr::new("-passfile"),
                passfile,
                cipher.as_os_str(),
            ],
        )?;
    }
    run(
        mode,
        "gocryptfs",
        PACKAGE,
        "gocryptfs (mount)",
        &[
            OsStr::new("-q"),
            OsStr::new("-passfile"),
            passfile,
            OsStr::new("-allow_other"),
            OsStr::new("-openssl=false"),
            cipher.as_os_str(),
            mp.as_os_str(),
        ],
    )
}
