//! After prepare: the plaintext search of the backing store for a value known from the
//! seed (the caller's needle, e.g. `schema::plaintext_canary`), failed if an encrypting mode's store holds it or a control's does not (the
//! control proves the search can find it), and recorded in `at-rest/verified.json` for
//! the runs' reports.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::error::io;
use super::{AtRestError, Store, find_in_tree};

/// The outcome of one search, as `verified.json` holds it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verification {
    /// The mode searched (`--at-rest` spelling).
    pub mode: String,
    /// What was searched for: `sbtest1 row 1 c (seed N)`, never the value itself.
    pub canary: String,
    /// The backing store searched (a directory or the image file).
    pub searched: PathBuf,
    /// The file that held the value; `None`: not found.
    pub found_in: Option<PathBuf>,
}

impl Verification {
    /// Whether the host's disk was shown to hold no plaintext: `true` for an encrypting
    /// mode whose store did not hold the value, `false` when it was found (a control).
    pub fn no_plaintext(&self) -> bool {
        self.found_in.is_none()
    }

    /// The last verification of `store`, if prepare made one.
    pub fn read(store: &Store) -> Option<Verification> {
        serde_json::from_slice(&std::fs::read(store.verified_file()).ok()?).ok()
    }
}

/// Flushes the view, searches `store`'s backing store for `canary` (described as
/// `what`), records the outcome, and checks it.
///
/// # Errors
/// [`AtRestError::PlaintextFound`] for an encrypting mode whose store holds the value,
/// [`AtRestError::ControlNotFound`] for a control whose store does not; a file cannot be
/// read or written.
pub fn verify_after_prepare(
    store: &Store,
    canary: &[u8],
    what: &str,
) -> Result<Verification, AtRestError> {
    store.sync()?;
    verify_in(store, &store.backing(), canary, what)
}

/// Searches `searched` (a file or directory on the host's disk, whatever the caller
/// flushed) for `canary` (described as `what`), records the outcome in `store`'s
/// `verified.json` (creating `at-rest/`), and checks it against `store`'s mode: for
/// `innodb` the server's data directory after its pages were flushed, and `off` as its
/// control.
///
/// # Errors
/// As [`verify_after_prepare`].
pub fn verify_in(
    store: &Store,
    searched: &std::path::Path,
    canary: &[u8],
    what: &str,
) -> Result<Verification, AtRestError> {
    let found_in = find_in_tree(searched, canary)?;
    let v = Verification {
        mode: store.mode().name().to_string(),
        canary: what.to_string(),
        searched: searched.to_path_buf(),
        found_in: found_in.clone(),
    };
    let path = store.verified_file();
    std::fs::create_dir_all(store.dir()).map_err(io("create", &store.dir()))?;
    let json = serde_json::to_vec_pretty(&v).map_err(|e| io("write", &path)(e.into()))?;
    std::fs::write(&path, json).map_err(io("write", &path))?;
    match (store.mode().encrypts(), found_in) {
        (true, Some(path)) => Err(AtRestError::PlaintextFound {
            mode: store.mode().name(),
            path,
        }),
        (false, None) => Err(AtRestError::ControlNotFound {
            mode: store.mode().name(),
            path: searched.to_path_buf(),
        }),
        _ => Ok(v),
    }
}
