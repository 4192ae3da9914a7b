//! What a run reports about encryption at rest ([`AtRestInfo`]).

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{AtRest, Store, Verification, fscrypt, gocryptfs};

/// Encryption at rest as a run used it ([`record`]): the `at_rest` of a run's result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AtRestInfo {
    /// The `--at-rest` mode, e.g. `gocryptfs`, `fuse-passthrough`, `innodb`.
    pub mechanism: String,
    /// The crypto implementation: the `/proc/crypto` driver for kernel crypto
    /// (fscrypt's AES-256-XTS, e.g. `xts(ecb(aes-fixed-time))`), gocryptfs' own
    /// (`AES-GCM-256-Go`), MariaDB's for InnoDB; `none` for a control.
    pub crypto_driver: String,
    /// For a control (the same storage path without the crypto): the mechanism
    /// it is the control of; `null` otherwise.
    pub control_of: Option<String>,
    /// The plaintext search of the host's disk after prepare: `true` when a
    /// known value of the tables was absent (encrypting modes), `false` when it
    /// was found (controls: what proves the search works); `null` when not
    /// searched (InnoDB, a server given by URL, or no plaintext tables prepared).
    pub verified_no_plaintext: Option<bool>,
}

/// MariaDB's `file_key_management` as the private server runs it (no
/// `file_key_management_encryption_algorithm` given: MariaDB's default, AES_CBC).
const INNODB_DRIVER: &str = "file_key_management AES_CBC (mariadbd's TLS library)";

/// The at-rest record of a run in `mode` on the engine directory `engine_dir` (`None`:
/// a server given by URL); `None` for `off`. The crypto driver: for fscrypt the kernel's
/// (`/proc/crypto`), for gocryptfs its userspace implementation, `none` for the controls;
/// `verified_no_plaintext` from the last prepare's search (`None`: never searched), for
/// `innodb` the search of the data directory.
pub fn record(mode: AtRest, engine_dir: Option<&Path>) -> Option<AtRestInfo> {
    let crypto_driver = match mode {
        AtRest::Off => return None,
        AtRest::Innodb => INNODB_DRIVER.to_string(),
        AtRest::Gocryptfs => gocryptfs::DRIVER.to_string(),
        AtRest::Fscrypt => fscrypt::crypto_driver(),
        AtRest::Luks => "dm-crypt".to_string(),
        AtRest::FusePassthrough | AtRest::Ext4Loop | AtRest::Loop => "none".to_string(),
    };
    let verified = engine_dir
        .filter(|_| mode.is_filesystem() || mode == AtRest::Innodb)
        .and_then(|d| Verification::read(&Store::new(d, mode)))
        .map(|v| v.no_plaintext());
    Some(AtRestInfo {
        mechanism: mode.name().to_string(),
        crypto_driver,
        control_of: mode.control_of().map(|c| c.name().to_string()),
        verified_no_plaintext: verified,
    })
}
