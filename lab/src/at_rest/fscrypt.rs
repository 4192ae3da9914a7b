//! `fscrypt`: the data directory under an fscrypt v2 policy on the ext4 image
//! ([`super::ext4`]): file contents AES-256-XTS, names AES-256-CTS, by the kernel's crypto
//! API. The two ioctls the `fscrypt` tool itself uses are called directly
//! (`linux/fscrypt.h`), so no global `/etc/fscrypt.conf` or metadata directory is needed:
//! `FS_IOC_ADD_ENCRYPTION_KEY` with the raw 64-byte key from the 0600 key file at every
//! mount (the key leaves the kernel's keyring at unmount), `FS_IOC_SET_ENCRYPTION_POLICY`
//! once on the empty data root.
//!
//! The one module of the crate with `unsafe`: two `ioctl(2)` calls on structures laid out
//! as the kernel's header defines them (sizes checked by a test); no crate wraps them.
#![allow(unsafe_code)]

use std::fs;
use std::os::fd::AsRawFd as _;
use std::path::Path;

use super::error::io;
use super::mounts::ensure_key;
use super::{AtRestError, Store};

/// Length of the raw master key: 64 bytes, what AES-256-XTS needs (`fscrypt` tool's too).
const KEY_LEN: usize = 64;

/// `FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER`: a v2 policy's key, named by its identifier.
const KEY_SPEC_TYPE_IDENTIFIER: u32 = 2;
/// `FSCRYPT_POLICY_V2`.
const POLICY_V2: u8 = 2;
/// `FSCRYPT_MODE_AES_256_XTS`, for contents.
const MODE_AES_256_XTS: u8 = 1;
/// `FSCRYPT_MODE_AES_256_CTS`, for file names.
const MODE_AES_256_CTS: u8 = 4;
/// `FSCRYPT_POLICY_FLAGS_PAD_32`, the `fscrypt` tool's default name padding.
const FLAGS_PAD_32: u8 = 0x03;

/// `struct fscrypt_add_key_arg` followed by the raw key.
#[repr(C)]
struct AddKeyArg {
    key_spec_type: u32,
    key_spec_reserved: u32,
    key_spec_identifier: [u8; 32],
    raw_size: u32,
    key_id: u32,
    reserved: [u32; 8],
    raw: [u8; KEY_LEN],
}

/// `struct fscrypt_policy_v2`.
#[repr(C)]
struct PolicyV2 {
    version: u8,
    contents_encryption_mode: u8,
    filenames_encryption_mode: u8,
    flags: u8,
    reserved: [u8; 4],
    master_key_identifier: [u8; 16],
}

/// `_IOC(dir, 'f', nr, size)` as `asm-generic/ioctl.h` builds it.
const fn ioc(dir: u64, nr: u64, size: u64) -> u64 {
    (dir << 30) | (size << 16) | ((b'f' as u64) << 8) | nr
}
/// `FS_IOC_ADD_ENCRYPTION_KEY`: `_IOWR('f', 23, struct fscrypt_add_key_arg)` (80 bytes).
const FS_IOC_ADD_ENCRYPTION_KEY: u64 = ioc(3, 23, 80);
/// `FS_IOC_SET_ENCRYPTION_POLICY`: `_IOR('f', 19, struct fscrypt_policy_v1)` (12 bytes; the
/// kernel reads the version byte and then the v2 structure).
const FS_IOC_SET_ENCRYPTION_POLICY: u64 = ioc(2, 19, 12);

/// Adds the key (created on first use) to the mounted filesystem; returns its identifier.
///
/// # Errors
/// The key file cannot be made or read, or the kernel refuses the key.
pub(super) fn add_key(store: &Store) -> Result<[u8; 16], AtRestError> {
    let key = store.key_file();
    ensure_key(&key, || {
        let mut bytes = vec![0u8; KEY_LEN];
        rand::Rng::fill(&mut rand::rng(), &mut bytes[..]);
        bytes
    })?;
    let raw = zeroize::Zeroizing::new(fs::read(&key).map_err(io("read", &key))?);
    if raw.len() != KEY_LEN {
        return Err(io("use", &key)(std::io::Error::other(format!(
            "the key file is {} bytes, not {KEY_LEN}: remove the at-rest directory to start over",
            raw.len()
        ))));
    }
    let mut arg = Box::new(AddKeyArg {
        key_spec_type: KEY_SPEC_TYPE_IDENTIFIER,
        key_spec_reserved: 0,
        key_spec_identifier: [0; 32],
        raw_size: KEY_LEN as u32,
        key_id: 0,
        reserved: [0; 8],
        raw: [0; KEY_LEN],
    });
    arg.raw.copy_from_slice(&raw);
    let mp = store.mount_point();
    let dir = fs::File::open(&mp).map_err(io("open", &mp))?;
    // SAFETY: `arg` is a live `fscrypt_add_key_arg` with `raw_size` key bytes after it,
    // as the ioctl expects; the kernel writes only the identifier back.
    let rc = unsafe { libc::ioctl(dir.as_raw_fd(), FS_IOC_ADD_ENCRYPTION_KEY as _, &mut *arg) };
    let err = std::io::Error::last_os_error();
    let mut id = [0u8; 16];
    id.copy_from_slice(&arg.key_spec_identifier[..16]);
    zeroize::Zeroize::zeroize(&mut arg.raw);
    if rc != 0 {
        return Err(io("add the fscrypt key to", &mp)(err));
    }
    Ok(id)
}

/// Creates `root` as an empty directory under a v2 policy of the filesystem's key:
/// `root.tmp`, the policy, then a rename, so `root` never exists without its policy.
///
/// # Errors
/// The kernel refuses the policy (e.g. a filesystem without the `encrypt` feature).
pub(super) fn create_encrypted_dir(store: &Store, root: &Path) -> Result<(), AtRestError> {
    let id = add_key(store)?;
    let tmp = root.with_extension("tmp");
    if tmp.exists() {
        fs::remove_dir_all(&tmp).map_err(io("remove", &tmp))?;
    }
    fs::create_dir(&tmp).map_err(io("create", &tmp))?;
    let policy = PolicyV2 {
        version: POLICY_V2,
        contents_encryption_mode: MODE_AES_256_XTS,
        filenames_encryption_mode: MODE_AES_256_CTS,
        flags: FLAGS_PAD_32,
        reserved: [0; 4],
        master_key_identifier: id,
    };
    let dir = fs::File::open(&tmp).map_err(io("open", &tmp))?;
    // SAFETY: `policy` is a live `fscrypt_policy_v2`, which the kernel only reads.
    let rc = unsafe { libc::ioctl(dir.as_raw_fd(), FS_IOC_SET_ENCRYPTION_POLICY as _, &policy) };
    if rc != 0 {
        return Err(io("set the fscrypt policy of", &tmp)(
            std::io::Error::last_os_error(),
        ));
    }
    drop(dir);
    fs::rename(&tmp, root).map_err(io("rename", &tmp))
}

/// The kernel's driver for fscrypt's contents cipher: the highest-priority `xts(aes)`
/// entry of `/proc/crypto` (what the crypto API selects), e.g. `xts(ecb(aes-fixed-time))`
/// on a kernel without AES instructions, `xts-aes-aesni` with them.
pub(super) fn crypto_driver() -> String {
    let text = fs::read_to_string("/proc/crypto").unwrap_or_default();
    best_driver(&text, "xts(aes)").map_or_else(
        || "xts(aes) (no driver listed in /proc/crypto)".to_string(),
        |d| format!("{d} (kernel, AES-256-XTS)"),
    )
}

/// The `driver` of the highest-`priority` entry named `name` in `/proc/crypto`'s text.
fn best_driver(text: &str, name: &str) -> Option<String> {
    text.split("\n\n")
        .filter_map(|entry| {
            let field = |k: &str| {
                entry.lines().find_map(|l| {
                    let (key, v) = l.split_once(':')?;
                    (key.trim() == k).then(|| v.trim().to_string())
                })
            };
            (field("name")? == name).then_some(())?;
            Some((field("priority")?.parse::<i64>().ok()?, field("driver")?))
        })
        .max_by_key(|(p, _)| *p)
        .map(|(_, d)| d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn structures_have_the_kernel_sizes() {
        assert_eq!(std::mem::size_of::<AddKeyArg>(), 80 + KEY_LEN);
        assert_eq!(std::mem::size_of::<PolicyV2>(), 24);
        assert_eq!(FS_IOC_ADD_ENCRYPTION_KEY, 0xc050_6617);
        assert_eq!(FS_IOC_SET_ENCRYPTION_POLICY, 0x800c_6613);
    }

    #[test]
    fn the_highest_priority_driver_is_chosen() {
        let text = "name         : xts(aes)\ndriver       : xts(ecb(aes-generic))\npriority     : 100\n\nname         : xts(aes)\ndriver       : xts(ecb(aes-fixed-time))\npriority     : 101\n\nname         : aes\ndriver       : aes-generic\npriority     : 300\n";
        assert_eq!(
            best_driver(text, "xts(aes)").as_deref(),
            Some("xts(ecb(aes-fixed-time))")
        );
        assert_eq!(best_driver(text, "gcm(aes)"), None);
    }
}
